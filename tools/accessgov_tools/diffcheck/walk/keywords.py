"""The JSON Schema 2020-12 keywords OpenAPI 3.1 brought, walked on both sides of a schema pair.

`const`, `if`/`then`/`else`, `prefixItems`, `contains`, `dependentRequired`, `dependentSchemas`,
`patternProperties`, `propertyNames`, `unevaluatedProperties`/`unevaluatedItems`, `contentSchema`,
`contentMediaType`/`contentEncoding`, `not`, `allOf` membership and `x-extensible-enum`. A keyword written on
one side only is a `KeywordChanged`; where both sides have a subschema it is compared like any other, in the
same direction (inside `not` too, as oasdiff does). Bounds (`minContains`, ...) are walked with the others.
"""

from __future__ import annotations

from typing import Any, Protocol

from accessgov_tools.diffcheck.model import Pointer
from accessgov_tools.diffcheck.resolve import ANNOTATIONS, Document, Values, View, member_key, reference, strip, view
from accessgov_tools.diffcheck.walk.differences import (
    ABSENT,
    AllOfMemberChanged,
    Difference,
    EntryChanged,
    ExtensibleValueChanged,
    PrefixItemChanged,
    Where,
)

# Keywords whose presence narrows what is valid: one added narrows (a request breaks), one removed widens.
PRESENCE = (
    "const",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
    "contentSchema",
    "not",
)
# Keywords that map a name to a subschema or list: one entry added narrows, removed widens, as above.
ENTRIES = ("dependentRequired", "dependentSchemas", "patternProperties")
_VALUES = frozenset({"const"})  # PRESENCE keywords that hold a value, not a subschema
_KEYWORDS = frozenset({*PRESENCE, *ENTRIES, "prefixItems", "contentMediaType", "contentEncoding", "x-extensible-enum"})


class Walker(Protocol):
    """What these keywords need of the schema walk."""

    base: Document
    head: Document

    def compare(self, b: Any, b_at: Pointer, h: Any, h_at: Pointer, where: Where) -> None: ...

    def keyword(self, keyword: str, values: tuple[Any, Any], b: View, h: View, where: Where) -> None: ...

    def add(self, difference: Difference) -> None: ...


def adds_nothing(doc: Document, member: Any, other: Document, merged: View) -> bool:
    """Whether everything `member` constrains is already in `merged` (the other side's merged schema)."""
    part = view(doc, member, ())
    for keyword, value in part.keywords.items():
        if keyword not in ANNOTATIONS and strip(value) != strip(merged.keywords.get(keyword, ABSENT)):
            return False
    for name, (sub, _) in part.properties.items():
        if name not in merged.properties:
            return False
        theirs = other.deref(merged.properties[name][0], ())[0]
        if strip(doc.deref(sub, ())[0]) != strip(theirs):
            return False
    return part.required <= merged.required and not part.unions and part.enum is None


def walk_2020(walker: Walker, b: View, h: View, where: Where) -> None:
    if not b.all_of and not h.all_of and _KEYWORDS.isdisjoint(b.keywords) and _KEYWORDS.isdisjoint(h.keywords):
        return  # most schemas use none of them: skip the walk
    for keyword in PRESENCE:
        bv, hv = b.keywords.get(keyword, ABSENT), h.keywords.get(keyword, ABSENT)
        if bv is not ABSENT and hv is not ABSENT and keyword not in _VALUES:  # a subschema on both sides
            walker.compare(bv, b.at(keyword), hv, h.at(keyword), where.to(f" ({keyword})"))
        else:
            walker.keyword(keyword, (bv, hv), b, h, where)
    _prefix_items(walker, b, h, where)
    for keyword in ENTRIES:
        _entries(walker, keyword, b, h, where)
    for keyword in ("contentMediaType", "contentEncoding"):
        # Never ABSENT: one written or dropped is a change from or to `None`.
        walker.keyword(keyword, (b.keywords.get(keyword), h.keywords.get(keyword)), b, h, where)
    _all_of(walker, b, h, where)
    _extensible_enum(walker, b, h, where)


def _prefix_items(walker: Walker, b: View, h: View, where: Where) -> None:
    bp, hp = b.keywords.get("prefixItems"), h.keywords.get("prefixItems")
    bp, hp = (bp if isinstance(bp, list) else []), (hp if isinstance(hp, list) else [])
    for i in range(len(bp), len(hp)):
        walker.add(
            PrefixItemChanged(head=h.at("prefixItems"), direction=where.direction, where=where, index=i, added=True)
        )
    for i in range(len(hp), len(bp)):
        walker.add(
            PrefixItemChanged(
                head=h.pointer, base=(*b.at("prefixItems"), str(i)), direction=where.direction, where=where,
                index=i, added=False,
            )
        )  # fmt: skip
    for i in range(min(len(bp), len(hp))):
        b_at, h_at = (*b.at("prefixItems"), str(i)), (*h.at("prefixItems"), str(i))
        walker.compare(bp[i], b_at, hp[i], h_at, where.to(f"[{i}]"))


def _entries(walker: Walker, keyword: str, b: View, h: View, where: Where) -> None:
    be, he = b.keywords.get(keyword), h.keywords.get(keyword)
    be, he = (be if isinstance(be, dict) else {}), (he if isinstance(he, dict) else {})
    for name in sorted(set(be) | set(he), key=str):
        b_at, h_at = (*b.at(keyword), str(name)), (*h.at(keyword), str(name))
        if name not in he:
            walker.add(
                EntryChanged(
                    head=h.at(keyword), base=b_at, direction=where.direction, where=where, keyword=keyword,
                    name=name, added=False,
                )
            )  # fmt: skip
        elif name not in be:
            walker.add(
                EntryChanged(head=h_at, direction=where.direction, where=where, keyword=keyword, name=name, added=True)
            )
        elif keyword == "dependentRequired":
            if sorted(map(str, be[name])) != sorted(map(str, he[name])):
                walker.add(
                    EntryChanged(
                        head=h_at, base=b_at, direction=where.direction, where=where, keyword=keyword, name=name,
                        added=None, before=be[name], after=he[name],
                    )
                )  # fmt: skip
        else:
            walker.compare(be[name], b_at, he[name], h_at, where.to(f" ({keyword} {name})"))


def _all_of(walker: Walker, b: View, h: View, where: Where) -> None:
    """allOf members added or removed, with whether they constrain anything: a member whose every keyword,
    property and required name the other side's merged schema already has (or that only annotates) does not."""
    base_doc, head_doc = walker.base, walker.head
    base = {member_key(base_doc, m): m for m in b.all_of}
    head = {member_key(head_doc, m): m for m in h.all_of}
    # An inline member edited in place is the same member (the merged schema grades the edit), not a swap.
    for bm, hm in zip(b.all_of, h.all_of, strict=False):
        if reference(bm) is None and reference(hm) is None:
            base.pop(member_key(base_doc, bm), None)
            head.pop(member_key(head_doc, hm), None)
    for key in sorted(base.keys() - head.keys()):
        inert = adds_nothing(base_doc, base[key], head_doc, h)
        walker.add(
            AllOfMemberChanged(
                head=h.pointer, base=b.at("allOf"), direction=where.direction, where=where, key=key, added=False,
                constrains=not inert,
            )
        )  # fmt: skip
    for key in sorted(head.keys() - base.keys()):
        inert = adds_nothing(head_doc, head[key], base_doc, b)
        walker.add(
            AllOfMemberChanged(
                head=h.at("allOf"), direction=where.direction, where=where, key=key, added=True, constrains=not inert
            )
        )


def _extensible_enum(walker: Walker, b: View, h: View, where: Where) -> None:
    bx, hx = b.keywords.get("x-extensible-enum"), h.keywords.get("x-extensible-enum")
    if not isinstance(bx, list) and not isinstance(hx, list):
        return
    bx, hx = bx if isinstance(bx, list) else [], hx if isinstance(hx, list) else []
    b_values, h_values = Values(bx), Values(hx)
    at = h.at("x-extensible-enum")
    for value in bx:
        if value not in h_values:
            walker.add(
                ExtensibleValueChanged(head=at, direction=where.direction, where=where, value=value, added=False)
            )
    for value in hx:
        if value not in b_values:
            walker.add(ExtensibleValueChanged(head=at, direction=where.direction, where=where, value=value, added=True))
