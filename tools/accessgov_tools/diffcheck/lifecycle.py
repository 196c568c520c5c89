"""Deprecation with a sunset date and stability levels, as oasdiff has them (a mixin of `Comparison`).

`deprecated: true` may carry `x-sunset` (an RFC 3339 date or date-time): the date the thing may be removed. When the
config sets a grace period for the thing's stability (`deprecation.days-stable`/`days-beta`), a deprecation must
announce an `x-sunset` at least that many days after the comparison date. Removing a deprecated thing before its
sunset is breaking; so is deleting a sunset or moving it earlier than allowed. `x-stability-level` is one of
draft, alpha, beta, stable (none means stable); lowering it is breaking, and operations below the configured
threshold are not compared at all (oasdiff's default threshold is beta).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from accessgov_tools.diffcheck.config import STABILITY_LEVELS

if TYPE_CHECKING:
    from accessgov_tools.diffcheck.config import DiffConfig
    from accessgov_tools.diffcheck.model import Pointer

INVALID = "invalid"  # what an unreadable x-sunset or x-stability-level reads as


def sunset(node: dict[str, Any]) -> dt.date | str | None:
    """The `x-sunset` date of a node, None when it has none, INVALID when it cannot be read."""
    value = node.get("x-sunset")
    if value is None:
        return None
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    text = str(value)
    for parse in (dt.date.fromisoformat, lambda t: dt.datetime.fromisoformat(t.replace("Z", "+00:00")).date()):
        try:
            return parse(text)
        except ValueError:
            continue
    return INVALID


def stability(node: dict[str, Any]) -> str | None:
    """The `x-stability-level` of a node, None when it has none, INVALID when it is not a known level."""
    value = node.get("x-stability-level")
    if value is None:
        return None
    return value if value in STABILITY_LEVELS else INVALID


def rank(level: str | None) -> int:
    """draft 0 < alpha 1 < beta 2 < stable 3 (none is stable)."""
    return STABILITY_LEVELS.index(level) if level in STABILITY_LEVELS else len(STABILITY_LEVELS) - 1


@dataclass(frozen=True)
class SunsetChecks:
    """The check ids one kind of thing (operation, parameter, property) reports its deprecation with."""

    deprecated: str
    with_sunset: str
    reactivated: str
    missing: str
    invalid: str
    too_small: str
    deleted: str | None = None
    changed_too_small: str | None = None
    changed_invalid: str | None = None


OPERATION = SunsetChecks(
    "endpoint-deprecated",
    "endpoint-deprecated-with-sunset",
    "endpoint-reactivated",
    "api-deprecated-sunset-missing",
    "api-deprecated-sunset-parse",
    "api-sunset-date-too-small",
    "api-sunset-deleted",
    "api-sunset-date-changed-too-small",
    "api-path-sunset-parse",
)
PARAMETER = SunsetChecks(
    "request-parameter-deprecated",
    "request-parameter-deprecated",
    "request-parameter-reactivated",
    "request-parameter-deprecated-sunset-missing",
    "request-parameter-sunset-parse",
    "request-parameter-sunset-date-too-small",
    "request-parameter-sunset-deleted",
    "request-parameter-sunset-date-changed-too-small",
    "request-parameter-sunset-parse",
)


def property_checks(direction: str) -> SunsetChecks:
    p = f"{direction}-property"
    return SunsetChecks(
        f"{p}-deprecated",
        f"{p}-deprecated-with-sunset",
        f"{p}-reactivated",
        f"{p}-deprecated-sunset-missing",
        f"{p}-deprecated-sunset-invalid",
        f"{p}-sunset-date-too-small",
    )


class LifecycleChecks:
    """Deprecation and stability comparisons; the host supplies `emit`, `config` and `today`."""

    config: DiffConfig
    today: dt.date

    if TYPE_CHECKING:

        def emit(self, check_id: str, message: str, pointer: Pointer) -> None: ...

    def removed_before_sunset(self, node: dict[str, Any]) -> bool:
        """Whether a deprecated thing being removed still had a sunset ahead (or an unreadable one)."""
        date = sunset(node)
        return date == INVALID or (isinstance(date, dt.date) and date > self.today)

    def deprecation(
        self, ids: SunsetChecks, label: str, b: dict[str, Any], h: dict[str, Any], at: Pointer, level: str | None
    ) -> None:
        """`deprecated` and `x-sunset` of one thing present on both sides (`level`: its stability)."""
        b_dep, h_dep = b.get("deprecated") is True, h.get("deprecated") is True
        if not h_dep:
            if b_dep:
                self.emit(ids.reactivated, f"{label}: no longer deprecated", at)
            return
        new, old = sunset(h), sunset(b)
        days = self.config.min_sunset_days(level)
        where = (*at, "x-sunset") if "x-sunset" in h else (*at, "deprecated")
        if not b_dep:
            dated = isinstance(new, dt.date)
            self.emit(
                ids.with_sunset if dated else ids.deprecated,
                f"{label}: deprecated" + (f", sunset {new}" if dated else ""),
                where,
            )
            if new == INVALID:
                self.emit(ids.invalid, f"{label}: deprecated with an unreadable x-sunset {h['x-sunset']!r}", where)
            elif new is None and days:
                self.emit(ids.missing, f"{label}: deprecated without an x-sunset ({days} days' notice required)", at)
            elif isinstance(new, dt.date) and (new - self.today).days < days:
                self.emit(ids.too_small, f"{label}: x-sunset {new} is less than {days} days away", where)
            return
        if old == new or ids.deleted is None:
            return
        if new is None and old is not None:
            self.emit(ids.deleted, f"{label}: x-sunset {b.get('x-sunset')!r} removed while still deprecated", at)
        elif INVALID in (old, new):
            text = f"{label}: x-sunset changed from {b.get('x-sunset')!r} to {h.get('x-sunset')!r} (unreadable)"
            self.emit(ids.changed_invalid or ids.invalid, text, where)
        elif (
            isinstance(old, dt.date)
            and isinstance(new, dt.date)
            and new < old
            and (not days or (new - self.today).days < days)
        ):
            self.emit(ids.changed_too_small or ids.too_small, f"{label}: x-sunset moved from {old} to {new}", where)

    def stability_change(self, prefix: str, label: str, b: dict[str, Any], h: dict[str, Any], at: Pointer) -> None:
        """`x-stability-level` of one thing: unreadable on either side, or lowered, or raised."""
        b_level, h_level = stability(b), stability(h)
        if INVALID in (b_level, h_level) and prefix == "api":
            bad = h if h_level == INVALID else b
            text = (
                f"{label}: x-stability-level {bad.get('x-stability-level')!r} is not one of draft, alpha, beta, stable"
            )
            self.emit("api-invalid-stability-level", text, (*at, "x-stability-level") if h_level == INVALID else at)
        elif b_level is None or h_level is None or rank(b_level) < rank(self.config.stability_level):
            # A level set or dropped is no change of level, and leaving one below the threshold is not reported
            # (oasdiff).
            return
        elif rank(h_level) < rank(b_level):
            self.emit(
                f"{prefix}-stability-decreased",
                f"{label}: stability lowered from {b_level} to {h_level}",
                (*at, "x-stability-level"),
            )
        elif rank(h_level) > rank(b_level):
            self.emit(
                f"{prefix}-stability-increased",
                f"{label}: stability raised from {b_level} to {h_level}",
                (*at, "x-stability-level"),
            )

    def below_threshold(self, node: dict[str, Any]) -> bool:
        """Whether an operation's stability is below the configured threshold (its changes are not reported)."""
        level = stability(node)
        return level not in (None, INVALID) and rank(level) < rank(self.config.stability_level)
