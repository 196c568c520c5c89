"""The JSON Schema 2020-12 keywords OpenAPI 3.1 brought, compared by direction (a mixin of `Comparison`).

`const`, `if`/`then`/`else`, `prefixItems`, `contains`, `dependentRequired`, `dependentSchemas`,
`patternProperties`, `propertyNames`, `unevaluatedProperties`/`unevaluatedItems`, `contentSchema`,
`contentMediaType`/`contentEncoding`, `not`, `allOf` membership and `x-extensible-enum`. A keyword that appears
narrows what is valid, one that goes widens it; where both sides have a subschema it is compared like any other,
in the same direction (inside `not` too, as oasdiff does). Bounds (`minContains`, ...) are in `checks.BOUNDS`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from accessgov_tools.diffcheck.checks import ENTRIES, PRESENCE
from accessgov_tools.diffcheck.model import show
from accessgov_tools.diffcheck.resolve import ANNOTATIONS, Values, View, member_key, reference, strip, view

if TYPE_CHECKING:
    from accessgov_tools.diffcheck.compare import Where
    from accessgov_tools.diffcheck.model import Pointer
    from accessgov_tools.diffcheck.resolve import Document

_VALUES = frozenset({"const"})
ABSENT: Final = object()  # a keyword not written (`written()` counts one written `null` as not written too)
_KEYWORDS = frozenset(
    {*PRESENCE, *ENTRIES, "prefixItems", "contentMediaType", "contentEncoding", "x-extensible-enum"}
)  # PRESENCE keywords that hold a value, not a subschema


def _adds_nothing(doc: Document, member: Any, other: Document, merged: View) -> bool:
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


def written(b: View, h: View, keyword: str) -> tuple[Any, Any]:
    """`keyword`'s value in the base and in the head schema, ABSENT where it is not there or is `null`."""
    before, after = b.keywords.get(keyword), h.keywords.get(keyword)
    return (ABSENT if before is None else before), (ABSENT if after is None else after)


class KeywordChecks:
    """Comparisons of one schema's keywords (the 2020-12 ones here); the host supplies `schema`, `_say` and both
    documents."""

    base: Document
    head: Document

    if TYPE_CHECKING:

        def schema(self, b: Any, b_at: Pointer, h: Any, h_at: Pointer, where: Where) -> None: ...

        def _say(self, check: str, where: Where, text: str, pointer: Pointer) -> None: ...

    def _keyword_change(
        self,
        stem: str,
        where: Where,
        h: View,
        keyword: str,
        values: tuple[Any, Any],
        *,
        name: str = "",
        setting: bool = False,
        ordered: bool = False,
        tail: str = "",
        note: str = "",
    ) -> None:
        """`keyword` (shown as `name`) going from the base's value to the head's, ABSENT where it is not there:
        the check `<stem>-added`, `-removed` or `-changed`, then `tail`; nothing when the two are equal.

        A `setting` is `-set`/`-unset` ("set to" in the message), an `ordered` one `-increased`/`-decreased`;
        `note` ends the message. Found at the keyword in the head, or at the schema when it went."""
        before, after = values
        if before == after:
            return
        name = name or keyword
        if before is ABSENT:
            text = f"{name} set to {show(after)}" if setting else f"{name} {show(after)} added"
            self._say(f"{stem}-{'set' if setting else 'added'}{tail}", where, f"{text}{note}", h.at(keyword))
        elif after is ABSENT:
            word = "unset" if setting else "removed"
            self._say(f"{stem}-{word}{tail}", where, f"{name} {show(before)} removed{note}", h.pointer)
        else:
            word = ("decreased" if after < before else "increased") if ordered else "changed"
            text = f"{name} {word} from {show(before)} to {show(after)}{note}"
            self._say(f"{stem}-{word}{tail}", where, text, h.at(keyword))

    def _keywords_2020(self, prefix: str, b: View, h: View, where: Where) -> None:
        if not b.all_of and not h.all_of and _KEYWORDS.isdisjoint(b.keywords) and _KEYWORDS.isdisjoint(h.keywords):
            return  # most schemas use none of them: skip the walk
        for keyword, frag in PRESENCE.items():
            bv, hv = b.keywords.get(keyword, ABSENT), h.keywords.get(keyword, ABSENT)
            if bv is not ABSENT and hv is not ABSENT and keyword not in _VALUES:  # a subschema on both sides
                self.schema(bv, b.at(keyword), hv, h.at(keyword), where.to(f" ({keyword})"))
            else:
                self._keyword_change(f"{prefix}-{frag}", where, h, keyword, (bv, hv), name=f"`{keyword}`")
        self._prefix_items(prefix, b, h, where)
        for keyword, frag in ENTRIES.items():
            self._entries(prefix, keyword, frag, b, h, where)
        for keyword, frag in (("contentMediaType", "content-media-type"), ("contentEncoding", "content-encoding")):
            # Never ABSENT: one written or dropped is a change from or to `None`.
            values = (b.keywords.get(keyword), h.keywords.get(keyword))
            self._keyword_change(f"{prefix}-{frag}", where, h, keyword, values, name=f"`{keyword}`")
        self._all_of(prefix, b, h, where)
        self._extensible_enum(prefix, b, h, where)

    def _prefix_items(self, prefix: str, b: View, h: View, where: Where) -> None:
        bp, hp = b.keywords.get("prefixItems"), h.keywords.get("prefixItems")
        bp, hp = (bp if isinstance(bp, list) else []), (hp if isinstance(hp, list) else [])
        for i in range(len(bp), len(hp)):
            self._say(f"{prefix}-prefix-items-added", where, f"`prefixItems[{i}]` added", h.at("prefixItems"))
        for i in range(len(hp), len(bp)):
            self._say(f"{prefix}-prefix-items-removed", where, f"`prefixItems[{i}]` removed", h.pointer)
        for i in range(min(len(bp), len(hp))):
            b_at, h_at = (*b.at("prefixItems"), str(i)), (*h.at("prefixItems"), str(i))
            self.schema(bp[i], b_at, hp[i], h_at, where.to(f"[{i}]"))

    def _entries(self, prefix: str, keyword: str, frag: str, b: View, h: View, where: Where) -> None:
        be, he = b.keywords.get(keyword), h.keywords.get(keyword)
        be, he = (be if isinstance(be, dict) else {}), (he if isinstance(he, dict) else {})
        for name in sorted(set(be) | set(he), key=str):
            label = f"`{keyword}` entry `{name}`"
            if name not in he:
                self._say(f"{prefix}-{frag}-removed", where, f"{label} removed", h.at(keyword))
            elif name not in be:
                self._say(f"{prefix}-{frag}-added", where, f"{label} added", (*h.at(keyword), str(name)))
            elif keyword == "dependentRequired":
                if sorted(map(str, be[name])) != sorted(map(str, he[name])):
                    self._say(
                        f"{prefix}-{frag}-changed",
                        where,
                        f"{label} changed from {show(be[name])} to {show(he[name])}",
                        (*h.at(keyword), str(name)),
                    )
            else:
                b_at, h_at = (*b.at(keyword), str(name)), (*h.at(keyword), str(name))
                self.schema(be[name], b_at, he[name], h_at, where.to(f" ({keyword} {name})"))

    def _all_of(self, prefix: str, b: View, h: View, where: Where) -> None:
        """allOf members added or removed, graded by what they constrain: a member whose every keyword,
        property and required name the other side's merged schema already has (or that only annotates) is
        `*-annotation-only`; any other one narrows (added) or widens (removed) what is valid."""
        base = {member_key(self.base, m): m for m in b.all_of}
        head = {member_key(self.head, m): m for m in h.all_of}
        # An inline member edited in place is the same member (the merged schema grades the edit), not a swap.
        for bm, hm in zip(b.all_of, h.all_of, strict=False):
            if reference(bm) is None and reference(hm) is None:
                base.pop(member_key(self.base, bm), None)
                head.pop(member_key(self.head, hm), None)
        for key in sorted(base.keys() - head.keys()):
            inert = _adds_nothing(self.base, base[key], self.head, h)
            check = f"{prefix}-all-of-removed" + ("-annotation-only" if inert else "")
            self._say(check, where, f"allOf member `{key}` removed", h.pointer)
        for key in sorted(head.keys() - base.keys()):
            inert = _adds_nothing(self.head, head[key], self.base, b)
            check = f"{prefix}-all-of-added" + ("-annotation-only" if inert else "")
            self._say(check, where, f"allOf member `{key}` added", h.at("allOf"))

    def _extensible_enum(self, prefix: str, b: View, h: View, where: Where) -> None:
        bx, hx = b.keywords.get("x-extensible-enum"), h.keywords.get("x-extensible-enum")
        if not isinstance(bx, list) and not isinstance(hx, list):
            return
        bx, hx = bx if isinstance(bx, list) else [], hx if isinstance(hx, list) else []
        b_values, h_values = Values(bx), Values(hx)
        for value in bx:
            if value not in h_values:
                check = f"{prefix}-x-extensible-enum-value-removed"
                self._say(check, where, f"x-extensible-enum value {show(value)} removed", h.at("x-extensible-enum"))
        for value in hx:
            if value not in b_values:
                check = f"{prefix}-x-extensible-enum-value-added"
                self._say(check, where, f"x-extensible-enum value {show(value)} added", h.at("x-extensible-enum"))
