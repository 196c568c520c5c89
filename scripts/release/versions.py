"""The semver rule of the contract's `info.version`, and its PEP 440 spelling for the SDK.

Ordering and bumps use the `semver` library (semver.org 2.0.0 precedence: `0.1.0-alpha < 0.1.0-alpha.1 <
0.1.0-beta < 0.1.0`); `packaging` checks the PEP 440 form. The two disagree on pre-releases (PEP 440 knows only
a/b/rc and orders `.dev` first; semver orders any identifiers by ASCII), so only `alpha`, `beta` and `rc`
pre-releases are mapped: for them both orders agree.
"""

from __future__ import annotations

import re
from enum import IntEnum

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
        raise VersionError(f"`{text}` is not a semantic version (MAJOR.MINOR.PATCH[-PRERELEASE]): {error}") from None


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
