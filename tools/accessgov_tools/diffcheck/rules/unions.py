"""Union and intersection members: `anyOf`, `oneOf` and `allOf`.

`anyOf`/`oneOf` members are paired by what they are and what they accept (the walk pairs them); one left without
a partner was added or removed: a member removed breaks a request, one added to a `oneOf` breaks a response
(a client switching on the variants has not seen it). An `allOf` member added narrows what is valid, one removed
widens it, unless it constrains nothing the other side's merged schema does not (`*-annotation-only`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from accessgov_tools.diffcheck.rules.registry import (
    BREAKING,
    INFO,
    REQUEST_PARAMETER,
    REQUEST_PROPERTY,
    RESPONSE_HEADER,
    RESPONSE_PROPERTY,
    WARNING,
    Context,
    Keyword,
    Place,
    Rule,
    RuleKey,
    Said,
    check,
    said,
)
from accessgov_tools.diffcheck.walk.differences import AllOfMemberChanged, MemberChanged
from accessgov_tools.display import quote


@dataclass(frozen=True)
class UnionChecks:
    """The checks of a schema's union and intersection members at one place."""

    any_of: Keyword
    one_of: Keyword
    all_of: Keyword
    all_of_annotation_only: Keyword  # a member that constrains nothing the other side does not already


UNIONS: dict[Place, UnionChecks] = {
    REQUEST_PROPERTY: UnionChecks(
        any_of=Keyword(
            added=check("request-property-any-of-added", INFO, "anyOf member added"),
            removed=check("request-property-any-of-removed", BREAKING, "anyOf member removed"),
        ),
        one_of=Keyword(
            added=check("request-property-one-of-added", INFO, "oneOf member added"),
            removed=check("request-property-one-of-removed", BREAKING, "oneOf member removed"),
        ),
        all_of=Keyword(
            added=check("request-property-all-of-added", BREAKING, "allOf member added that constrains more"),
            removed=check("request-property-all-of-removed", WARNING, "allOf member removed that constrained more"),
        ),
        all_of_annotation_only=Keyword(
            added=check(
                "request-property-all-of-added-annotation-only", INFO, "allOf member added that constrains nothing new"
            ),
            removed=check(
                "request-property-all-of-removed-annotation-only",
                INFO,
                "allOf member removed that constrained nothing else",
            ),
        ),
    ),
    REQUEST_PARAMETER: UnionChecks(
        any_of=Keyword(
            added=check("request-parameter-any-of-added", INFO, "anyOf member added"),
            removed=check("request-parameter-any-of-removed", BREAKING, "anyOf member removed"),
        ),
        one_of=Keyword(
            added=check("request-parameter-one-of-added", INFO, "oneOf member added"),
            removed=check("request-parameter-one-of-removed", BREAKING, "oneOf member removed"),
        ),
        all_of=Keyword(
            added=check("request-parameter-all-of-added", BREAKING, "allOf member added that constrains more"),
            removed=check("request-parameter-all-of-removed", WARNING, "allOf member removed that constrained more"),
        ),
        all_of_annotation_only=Keyword(
            added=check(
                "request-parameter-all-of-added-annotation-only", INFO, "allOf member added that constrains nothing new"
            ),
            removed=check(
                "request-parameter-all-of-removed-annotation-only",
                INFO,
                "allOf member removed that constrained nothing else",
            ),
        ),
    ),
    RESPONSE_PROPERTY: UnionChecks(
        any_of=Keyword(
            added=check("response-property-any-of-added", WARNING, "anyOf member added"),
            removed=check("response-property-any-of-removed", INFO, "anyOf member removed"),
        ),
        one_of=Keyword(
            added=check("response-property-one-of-added", BREAKING, "oneOf member added"),
            removed=check("response-property-one-of-removed", INFO, "oneOf member removed"),
        ),
        all_of=Keyword(
            added=check("response-property-all-of-added", INFO, "allOf member added that constrains more"),
            removed=check("response-property-all-of-removed", INFO, "allOf member removed that constrained more"),
        ),
        all_of_annotation_only=Keyword(
            added=check(
                "response-property-all-of-added-annotation-only", INFO, "allOf member added that constrains nothing new"
            ),
            removed=check(
                "response-property-all-of-removed-annotation-only",
                INFO,
                "allOf member removed that constrained nothing else",
            ),
        ),
    ),
    RESPONSE_HEADER: UnionChecks(
        any_of=Keyword(
            added=check("response-header-any-of-added", WARNING, "anyOf member added"),
            removed=check("response-header-any-of-removed", INFO, "anyOf member removed"),
        ),
        one_of=Keyword(
            added=check("response-header-one-of-added", BREAKING, "oneOf member added"),
            removed=check("response-header-one-of-removed", INFO, "oneOf member removed"),
        ),
        all_of=Keyword(
            added=check("response-header-all-of-added", INFO, "allOf member added that constrains more"),
            removed=check("response-header-all-of-removed", INFO, "allOf member removed that constrained more"),
        ),
        all_of_annotation_only=Keyword(
            added=check(
                "response-header-all-of-added-annotation-only", INFO, "allOf member added that constrains nothing new"
            ),
            removed=check(
                "response-header-all-of-removed-annotation-only",
                INFO,
                "allOf member removed that constrained nothing else",
            ),
        ),
    ),
}


def member_changed(d: MemberChanged, context: Context) -> Iterator[Said]:
    checks = UNIONS[d.where.place].any_of if d.keyword == "anyOf" else UNIONS[d.where.place].one_of
    word = "added" if d.added else "removed"
    yield said(d, checks.added if d.added else checks.removed, f"{d.keyword} member {quote(d.key)} {word}")


def all_of_member_changed(d: AllOfMemberChanged, context: Context) -> Iterator[Said]:
    union = UNIONS[d.where.place]
    checks = union.all_of if d.constrains else union.all_of_annotation_only
    word = "added" if d.added else "removed"
    yield said(d, checks.added if d.added else checks.removed, f"allOf member {quote(d.key)} {word}")


RULES: dict[RuleKey, Rule] = {MemberChanged: member_changed, AllOfMemberChanged: all_of_member_changed}
