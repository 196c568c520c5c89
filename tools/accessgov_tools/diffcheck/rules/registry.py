"""What a rule family is made of: its checks, each declared once with its severity and meaning, and what a rule
says about a difference (a check, a message, a pointer).

A family is one module of `rules/`: its checks first, each id written out literally with its severity and
meaning in one `check(...)` call (the way oasdiff's `checker/` writes its ids as constants), then the rules that
turn the walk's differences into findings of them, then `RULES`: which rule reads which difference (a class, or
a `KeywordChanged` of one keyword). The checks of a schema keyword differ by the place the schema is met (a
request or response body's property, a parameter, a response header): those families hold one record a place.
Ids follow oasdiff's where the check is the same (`<direction>-<location>-<keyword>-<change>`); the severity is
the default, which `severities.yaml` may grade otherwise for this contract.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from typing import Any

from accessgov_tools.diffcheck.model import REQUEST, RESPONSE, Check, Finding, Pointer, Severity, show
from accessgov_tools.diffcheck.walk.differences import ABSENT, Difference, SchemaDifference
from accessgov_tools.display import quote

BREAKING, WARNING, INFO = Severity.BREAKING, Severity.WARNING, Severity.INFO

CHECKS: dict[str, Check] = {}  # every check, as the families declare them


def check(check_id: str, severity: Severity, meaning: str) -> Check:
    """Declare one check: its id (written here and nowhere else), its default severity, its meaning in a line."""
    if check_id in CHECKS:
        raise ValueError(f"check {check_id} is declared twice")
    declared = CHECKS[check_id] = Check(check_id, severity, meaning)
    return declared


# The places a schema is met, (direction, location): a schema keyword's checks differ by place.
Place = tuple[str, str]
REQUEST_PROPERTY: Place = (REQUEST, "property")
REQUEST_PARAMETER: Place = (REQUEST, "parameter")
RESPONSE_PROPERTY: Place = (RESPONSE, "property")
RESPONSE_HEADER: Place = (RESPONSE, "header")


@dataclass(frozen=True)
class Keyword:
    """The checks of one keyword at one place, by how it changed: written where it was not (`added`), no longer
    written (`removed`), written otherwise (`changed`; a number `increased` or `decreased`). None: the walk
    never reports that change of the keyword."""

    added: Check | None = None
    removed: Check | None = None
    changed: Check | None = None
    increased: Check | None = None
    decreased: Check | None = None


@dataclass(frozen=True)
class Said:
    """What a rule says about one difference: a finding of `check`, worded `message`, at `pointer` (in the head
    bundle); `subject` and `values` as `Finding` has them."""

    check: Check
    message: str
    pointer: Pointer
    subject: str = ""
    values: tuple[Any, ...] = ()


@dataclass
class Context:
    """What a rule knows besides its difference: the comparison's date, the grace periods a deprecation must
    announce (days, 0 for none) and the stability threshold (`severities.yaml`), and the findings so far."""

    today: dt.date
    stability_level: str = "beta"
    days_stable: int = 0
    days_beta: int = 0
    findings: Collection[Finding] = ()

    def min_sunset_days(self, stability: str | None) -> int:
        """The grace period a deprecation of something at `stability` must announce (0: none required)."""
        return self.days_beta if stability == "beta" else self.days_stable if stability in (None, "stable") else 0


def today() -> dt.date:
    """The comparison's date when none is given: the UTC date."""
    return dt.datetime.now(dt.UTC).date()


Rule = Callable[[Any, Context], Iterable[Said]]
# A rule reads every difference of a class, or (`KeywordChanged`) those of one keyword.
RuleKey = type[Difference] | tuple[type[Difference], str]


def said(d: SchemaDifference, check: Check | None, text: str, values: tuple[Any, ...] = ()) -> Said:
    """A finding about a schema, worded as all of them are: ``` `Item.state`: <text> (response) ```."""
    where = d.where
    message = f"{where.context}{quote(where.path)}: {text} ({where.direction})"
    return Said(_declared(check), message, d.head, f"{where.context}{where.path}", values)


def plain(d: SchemaDifference, check: Check, text: str) -> Said:
    """A finding about a schema worded like `said`'s, with no subject (nullability and properties have none)."""
    where = d.where
    return Said(check, f"{where.context}{quote(where.path)}: {text} ({where.direction})", d.head)


def keyword_change(
    d: SchemaDifference,
    checks: Keyword,
    keyword: str,
    values: tuple[Any, Any],
    *,
    name: str = "",
    setting: bool = False,
    ordered: bool = False,
    note: str = "",
) -> Said:
    """`keyword` (shown as `name`) going from the base's value to the head's, ABSENT where it is not there: the
    check `added`, `removed` or `changed` (`increased`/`decreased` when `ordered`) of `checks`. A `setting`
    is said "set to"; `note` ends the message."""
    before, after = values
    name = name or keyword
    if before is ABSENT:
        text = f"{name} set to {show(after)}" if setting else f"{name} {show(after)} added"
        return said(d, checks.added, f"{text}{note}")
    if after is ABSENT:
        return said(d, checks.removed, f"{name} {show(before)} removed{note}")
    if ordered:
        decreased = after < before
        word, check_ = ("decreased", checks.decreased) if decreased else ("increased", checks.increased)
    else:
        word, check_ = "changed", checks.changed
    return said(d, check_, f"{name} {word} from {show(before)} to {show(after)}{note}")


def _declared(check_: Check | None) -> Check:
    if check_ is None:
        raise LookupError("a difference was met that its family declares no check for")
    return check_


def names(values: Iterable[Any]) -> str:
    """Values as a message lists them: sorted, each in backticks."""
    return ", ".join(f"{quote(v)}" for v in sorted(values))
