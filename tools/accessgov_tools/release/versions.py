"""The version rules of the contract's `info.version` (semver, calendar, integer), and its PEP 440 spelling.

Ordering and bumps use the `semver` library (semver.org 2.0.0 precedence: `0.1.0-alpha < 0.1.0-alpha.1 <
0.1.0-beta < 0.1.0`); `packaging` checks the PEP 440 form. The two disagree on pre-releases (PEP 440 knows only
a/b/rc and orders `.dev` first; semver orders any identifiers by ASCII), so only `alpha`, `beta` and `rc`
pre-releases are mapped: for them both orders agree.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from enum import IntEnum, StrEnum

import semver
from packaging.version import InvalidVersion
from packaging.version import Version as Pep440Version


class Bump(IntEnum):
    """How far a release must move the version; ordered so the largest one wins."""

    NONE = 0
    PATCH = 1
    MINOR = 2
    MAJOR = 3


class VersionError(ValueError):
    """A version that is not semver, or a pre-release PEP 440 cannot spell in the same order."""


def parse(text: str) -> semver.Version:
    try:
        return semver.Version.parse(str(text))
    except (ValueError, TypeError) as error:
        raise VersionError(
            f"`{text}` is not a semantic version (MAJOR.MINOR.PATCH[-PRERELEASE]): {error}; a contract versioned"
            " otherwise sets `versioning.scheme` (calver, integer) in tools/accessgov_tools/diffcheck/severities.yaml"
            " or passes --scheme"
        ) from None


class Scheme(StrEnum):
    """How `info.version` is spelled and what a change requires of it (`versioning.scheme` in severities.yaml)."""

    SEMVER = "semver"
    CALVER = "calver"
    INTEGER = "integer"


@dataclass(frozen=True)
class Verdict:
    """Whether the head version may follow the base one, and the one-sentence rule that says so."""

    ok: bool
    rule: str  # e.g. "a breaking change on 0.x needs a minor bump: 0.1.0 → 0.2.0"
    outcome: str  # e.g. "OK: 0.2.0 satisfies it." or "FAIL: 0.1.1 is below 0.2.0."


_CHANGE = {
    Bump.MAJOR: "a breaking change",
    Bump.MINOR: "an addition",
    Bump.PATCH: "a change that adds and breaks nothing",
}


def judge(scheme: Scheme, base_text: str, head_text: str, needed: Bump) -> Verdict:
    """The verdict of `scheme` for a change needing `needed` (semver's reading of the findings)."""
    if scheme is Scheme.SEMVER:
        return _judge_semver(parse(base_text), parse(head_text), needed)
    key = _calver if scheme is Scheme.CALVER else _integer
    base, head = key(base_text), key(head_text)
    name = "calendar versions" if scheme is Scheme.CALVER else "integer versions"
    if head < base:
        return Verdict(False, f"on {name} a version never goes back", f"FAIL: {head_text} is lower than {base_text}.")
    if needed is Bump.MAJOR:
        rule = f"on {name} {_CHANGE[needed]} needs a later version: {base_text} → {_later(scheme, base_text)} or later"
        ok = head > base
        return Verdict(ok, rule, f"OK: {head_text} is later." if ok else f"FAIL: {head_text} is not later.")
    if needed is Bump.NONE:
        rule = f"nothing changed, so {base_text} may stay"
    else:
        rule = f"on {name} only a breaking change needs a later version, so {_CHANGE[needed]} may keep {base_text}"
    return Verdict(True, rule, f"OK: {head_text} is {'the same version' if head == base else 'later'}.")


def _calver(text: str) -> tuple[int, ...]:
    """`2024.0`, `2024.1.3`, `24.04`, `2024-01-15`: numbers in order, the first a year; a dashed date must exist."""
    match = re.fullmatch(r"(\d{4}|\d{2})((?:[.-]\d+)+)", str(text).strip())
    if match is None:
        raise VersionError(f"`{text}` is not a calendar version (YEAR.N[.N] or YYYY-MM-DD, e.g. 2024.0, 2024-01-15)")
    if "-" in match[2]:
        try:
            dt.date.fromisoformat(str(text).strip())
        except ValueError:
            raise VersionError(f"`{text}` is not a date (YYYY-MM-DD)") from None
    return tuple(int(part) for part in re.split(r"[.-]", str(text).strip()))


def _integer(text: str) -> tuple[int, ...]:
    if not re.fullmatch(r"v?\d+", str(text).strip()):
        raise VersionError(f"`{text}` is not an integer version (1, 2, 10, optionally v10)")
    return (int(str(text).strip().lstrip("v")),)


def _later(scheme: Scheme, text: str) -> str:
    """The next version after `text`: the last number plus one (a date: the next day)."""
    text = str(text).strip()
    if scheme is Scheme.INTEGER:
        return ("v" if text.startswith("v") else "") + str(_integer(text)[0] + 1)
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        return (dt.date.fromisoformat(text) + dt.timedelta(days=1)).isoformat()
    head, last = re.fullmatch(r"(.*[.-])(\d+)", text).groups()  # type: ignore[union-attr]
    return f"{head}{int(last) + 1}"


def _judge_semver(base: semver.Version, head: semver.Version, needed: Bump) -> Verdict:
    bump = effective(needed, base)
    minimum = minimum_next(base, bump)
    if needed is Bump.NONE:
        rule = f"nothing changed, so {base} may stay"
    else:
        change = _CHANGE[needed]
        if bump is needed:
            rule = f"{change} needs a {bump.name.lower()} bump"
        else:
            rule = f"{change} on 0.x needs a {bump.name.lower()} bump"
        if base.prerelease is not None and minimum.finalize_version() == base.finalize_version():
            rule += f", which the release {minimum} of the pre-release makes (a later pre-release also passes)"
        rule += f": {base} → {minimum}"
    ok = allowed(base, head, bump)
    if ok:
        outcome = f"OK: {head} satisfies it."
    elif head < base:
        outcome = f"FAIL: {head} is lower than {base}."
    elif head == base:
        outcome = f"FAIL: {head} is the same version; the change needs {suggestion(base, bump)}."
    else:
        outcome = f"FAIL: {head} is below {suggestion(base, bump)}."
    return Verdict(ok, rule, outcome)


def effective(bump: Bump, base: semver.Version) -> Bump:
    """The bump a change needs at `base`: in 0.y.z a breaking change moves the minor and anything else the patch."""
    if base.major == 0 and bump is not Bump.NONE:
        return Bump.MINOR if bump is Bump.MAJOR else Bump.PATCH
    return bump


def minimum_next(base: semver.Version, bump: Bump) -> semver.Version:
    """The lowest release (no pre-release tag) that may follow `base` after a change needing `bump`.

    A pre-release leads up to its own release, which may still change anything the bump allows (as npm's
    `semver.inc` reads it): after `1.0.0-alpha` a breaking change needs only `1.0.0`, after `1.2.0-alpha` a new
    feature only `1.2.0`, after `1.2.3-rc.1` a fix only `1.2.3`.
    """
    core = base.finalize_version()
    pre = base.prerelease is not None
    if bump is Bump.NONE:
        return base
    if bump is Bump.MAJOR:
        return core if pre and core.minor == 0 and core.patch == 0 else core.bump_major()
    if bump is Bump.MINOR:
        return core if pre and core.patch == 0 else core.bump_minor()
    return core if pre else core.bump_patch()


def allowed(base: semver.Version, head: semver.Version, bump: Bump) -> bool:
    """Whether `head` may follow `base`: later than it, and at least `minimum_next` (or a pre-release of it)."""
    if bump is Bump.NONE:
        return head >= base
    return head > base and head.finalize_version() >= minimum_next(base, bump)


def suggestion(base: semver.Version, bump: Bump) -> str:
    """The required minimum next version, as a reviewer would say it."""
    minimum = minimum_next(base, bump)
    if bump is Bump.NONE:
        return f"{base} (unchanged) or later"
    if minimum.finalize_version() == base.finalize_version():
        return f"{minimum} (or a later pre-release of it, e.g. {_next_prerelease(base)})"
    return f"{minimum} (or a pre-release of it, e.g. {minimum.replace(prerelease='alpha')})"


def _next_prerelease(version: semver.Version) -> semver.Version:
    """alpha -> beta -> rc.1, else the next number (`alpha.0` would share `alpha`'s PEP 440 spelling `a0`)."""
    following = {"alpha": "beta", "beta": "rc.1"}.get(str(version.prerelease))
    return version.replace(prerelease=following) if following else version.bump_prerelease()


_PRE = re.compile(r"^(alpha|beta|rc)(?:\.(0|[1-9]\d*))?$")
_PEP440_LABEL = {"alpha": "a", "beta": "b", "rc": "rc"}


def pep440(text: str) -> str:
    """The PEP 440 version of a semver one: `0.1.0-alpha` -> `0.1.0a0`, `1.0.0-rc.2` -> `1.0.0rc2`, `1.2.3` as is.

    Build metadata has no PEP 440 equivalent that an index accepts and does not order releases, so it is refused.
    """
    version = parse(text)
    if version.build:
        raise VersionError(f"`{text}`: build metadata (+{version.build}) has no PEP 440 spelling; drop it")
    result = f"{version.major}.{version.minor}.{version.patch}"
    if version.prerelease:
        match = _PRE.match(version.prerelease)
        if match is None:
            raise VersionError(
                f"`{text}`: pre-release `{version.prerelease}` has no PEP 440 spelling in the same order;"
                " use alpha, beta or rc, optionally with .N (e.g. 1.0.0-rc.2)"
            )
        result += f"{_PEP440_LABEL[match[1]]}{match[2] or 0}"
    try:
        if str(Pep440Version(result)) != result:
            raise VersionError(f"`{text}` maps to `{result}`, which PEP 440 normalises differently")
    except InvalidVersion:
        raise VersionError(f"`{text}` maps to `{result}`, which is not a PEP 440 version") from None
    return result
