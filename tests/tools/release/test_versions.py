"""The semver rule of `make release-check` and the PEP 440 spelling of the SDK's version."""

from __future__ import annotations

import pytest
from packaging.version import Version as Pep440Version

from accessgov_tools.release.versions import (
    Bump,
    Scheme,
    VersionError,
    allowed,
    effective,
    judge,
    minimum_next,
    parse,
    pep440,
    suggestion,
)


@pytest.mark.parametrize(
    ("semver", "expected"),
    [
        ("0.1.0-alpha", "0.1.0a0"),
        ("0.1.0-alpha.3", "0.1.0a3"),
        ("1.0.0-beta", "1.0.0b0"),
        ("1.0.0-beta.2", "1.0.0b2"),
        ("2.1.0-rc.1", "2.1.0rc1"),
        ("2.1.0-rc", "2.1.0rc0"),
        ("1.2.3", "1.2.3"),
        ("0.0.1", "0.0.1"),
    ],
)
def test_pep440_spelling(semver: str, expected: str) -> None:
    assert pep440(semver) == expected


def test_pep440_keeps_the_semver_order_of_the_mapped_pre_releases() -> None:
    ordered = ["1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-beta", "1.0.0-beta.2", "1.0.0-rc.1", "1.0.0"]
    assert sorted(ordered, key=parse) == ordered
    assert sorted(ordered, key=lambda v: Pep440Version(pep440(v))) == ordered


@pytest.mark.parametrize("text", ["1.0.0-dev.3", "1.0.0-alpha.beta", "1.0.0+build.5", "1.0", "v1.0.0"])
def test_versions_without_a_faithful_pep440_spelling_are_refused(text: str) -> None:
    # packaging alone would read `1.0.0-dev.3` as 1.0.0.dev3, which PEP 440 orders before alphas; semver after.
    with pytest.raises(VersionError):
        pep440(text)


@pytest.mark.parametrize(
    ("base", "bump", "minimum"),
    [
        ("1.2.3", Bump.MAJOR, "2.0.0"),
        ("1.2.3", Bump.MINOR, "1.3.0"),
        ("1.2.3", Bump.PATCH, "1.2.4"),
        ("1.0.0-alpha", Bump.MAJOR, "1.0.0"),  # the release a pre-release leads to may still break
        ("1.2.0-alpha", Bump.MAJOR, "2.0.0"),
        ("1.2.0-beta", Bump.MINOR, "1.2.0"),
        ("1.2.3-rc.1", Bump.PATCH, "1.2.3"),
    ],
)
def test_minimum_next_version(base: str, bump: Bump, minimum: str) -> None:
    assert str(minimum_next(parse(base), bump)) == minimum


def test_zero_major_shifts_the_bump_down() -> None:
    zero, one = parse("0.3.1"), parse("1.0.0")
    assert effective(Bump.MAJOR, zero) is Bump.MINOR
    assert effective(Bump.MINOR, zero) is Bump.PATCH
    assert effective(Bump.PATCH, zero) is Bump.PATCH
    assert effective(Bump.NONE, zero) is Bump.NONE
    assert effective(Bump.MAJOR, one) is Bump.MAJOR


@pytest.mark.parametrize(
    ("base", "head", "bump", "ok"),
    [
        ("0.1.0-alpha", "0.1.0-alpha", Bump.MINOR, False),  # unchanged after a (0.x) breaking change
        ("0.1.0-alpha", "0.1.0-beta", Bump.MINOR, True),  # a later pre-release of the same release
        ("0.1.0-alpha", "0.1.0", Bump.MINOR, True),
        ("0.1.0", "0.1.1", Bump.MINOR, False),
        ("0.1.0", "0.2.0-alpha", Bump.MINOR, True),
        ("1.4.2", "1.5.0", Bump.MAJOR, False),
        ("1.4.2", "2.0.0-rc.1", Bump.MAJOR, True),
        ("1.4.2", "1.4.3", Bump.PATCH, True),
        ("1.4.2", "1.4.2", Bump.PATCH, False),
        ("1.4.2", "1.4.2", Bump.NONE, True),
        ("1.4.2", "1.4.1", Bump.NONE, False),
    ],
)
def test_allowed(base: str, head: str, bump: Bump, ok: bool) -> None:
    assert allowed(parse(base), parse(head), bump) is ok


def test_suggestion_names_the_minimum_and_a_pre_release_that_maps_to_its_own_pep440_version() -> None:
    assert suggestion(parse("0.1.0-alpha"), Bump.MINOR) == "0.1.0 (or a later pre-release of it, e.g. 0.1.0-beta)"
    assert suggestion(parse("1.4.2"), Bump.MAJOR) == "2.0.0 (or a pre-release of it, e.g. 2.0.0-alpha)"


SEM, CV, IV = Scheme.SEMVER, Scheme.CALVER, Scheme.INTEGER
CAL, INT = "on calendar versions ", "on integer versions "
LATER, ONLY = "a breaking change needs a later version: ", "only a breaking change needs a later version, so "


@pytest.mark.parametrize(
    ("scheme", "base", "head", "needed", "ok", "rule"),
    [
        (SEM, "1.4.2", "2.0.0", Bump.MAJOR, True, "a breaking change needs a major bump: 1.4.2 → 2.0.0"),
        (SEM, "0.3.1", "0.3.2", Bump.MAJOR, False, "a breaking change on 0.x needs a minor bump: 0.3.1 → 0.4.0"),
        (SEM, "1.4.2", "1.5.0", Bump.MINOR, True, "an addition needs a minor bump: 1.4.2 → 1.5.0"),
        (SEM, "1.4.2", "1.4.2", Bump.NONE, True, "nothing changed, so 1.4.2 may stay"),
        (CV, "2024.0", "2024.1", Bump.MAJOR, True, CAL + LATER + "2024.0 → 2024.1 or later"),
        (CV, "2024-01-15", "2024-01-15", Bump.MAJOR, False, CAL + LATER + "2024-01-15 → 2024-01-16 or later"),
        (CV, "2024-01-15", "2024-01-15", Bump.MINOR, True, CAL + ONLY + "an addition may keep 2024-01-15"),
        (CV, "2024.9", "2024.10", Bump.MAJOR, True, CAL + LATER + "2024.9 → 2024.10 or later"),
        (IV, "10", "11", Bump.MAJOR, True, INT + LATER + "10 → 11 or later"),
        (IV, "v10", "v10", Bump.PATCH, True, INT + ONLY + "a change that adds and breaks nothing may keep v10"),
        (IV, "10", "9", Bump.PATCH, False, INT + "a version never goes back"),
        (IV, "10", "10", Bump.NONE, True, "nothing changed, so 10 may stay"),
    ],
)  # fmt: skip
def test_each_scheme_says_its_rule(scheme: Scheme, base: str, head: str, needed: Bump, ok: bool, rule: str) -> None:
    verdict = judge(scheme, base, head, needed)
    assert (verdict.ok, verdict.rule) == (ok, rule)
    assert verdict.outcome.startswith("OK" if ok else "FAIL")


@pytest.mark.parametrize(
    ("scheme", "text"),
    [
        (Scheme.CALVER, "1.2.3"),
        (Scheme.CALVER, "2024-02-30"),
        (Scheme.CALVER, "2024"),
        (Scheme.INTEGER, "1.0"),
        (Scheme.SEMVER, "2024.0"),
        (Scheme.SEMVER, "10"),
    ],
)
def test_a_version_the_scheme_cannot_read_is_refused(scheme: Scheme, text: str) -> None:
    with pytest.raises(VersionError, match=r"versioning\.scheme|calendar version|not a date|integer version"):
        judge(scheme, text, text, Bump.PATCH)
