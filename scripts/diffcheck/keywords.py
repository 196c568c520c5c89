"""The JSON Schema 2020-12 keywords OpenAPI 3.1 brought, compared by direction (a mixin of `Comparison`).

`const`, `if`/`then`/`else`, `prefixItems`, `contains`, `dependentRequired`, `dependentSchemas`,
`patternProperties`, `propertyNames`, `unevaluatedProperties`/`unevaluatedItems`, `contentSchema`,
`contentMediaType`/`contentEncoding`, `not`, `allOf` membership and `x-extensible-enum`. A keyword that appears
narrows what is valid, one that goes widens it; where both sides have a subschema it is compared like any other,
in the same direction (inside `not` too, as oasdiff does). Bounds (`minContains`, ...) are in `checks.BOUNDS`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from scripts.diffcheck.checks import ENTRIES, PRESENCE
from scripts.diffcheck.resolve import ANNOTATIONS, View, member_key

if TYPE_CHECKING:
    from scripts.diffcheck.compare import Where
    from scripts.diffcheck.model import Pointer
    from scripts.diffcheck.resolve import Document

_VALUES = frozenset({"const"})  # PRESENCE keywords that hold a value, not a subschema


def _show(value: Any) -> str:
    return f"`{value!r}`" if isinstance(value, (dict, list)) else f"`{value}`"


def _annotation_only(node: Any) -> bool:
    return isinstance(node, dict) and not (set(node) - ANNOTATIONS - {"deprecated", "readOnly", "writeOnly"})


class KeywordChecks:
    """Comparisons of one schema's 2020-12 keywords; the host supplies `schema`, `_say` and both documents."""

    base: Document
    head: Document

    if TYPE_CHECKING:

        def schema(self, b: Any, b_at: Pointer, h: Any, h_at: Pointer, where: Where) -> None: ...

        def _say(self, check: str, where: Where, text: str, pointer: Pointer) -> None: ...

    def _keywords_2020(self, prefix: str, b: View, h: View, where: Where) -> None:
        missing = object()
        for keyword, frag in PRESENCE.items():
            bv, hv = b.keywords.get(keyword, missing), h.keywords.get(keyword, missing)
            if bv is missing and hv is missing:
                continue
            if bv is missing:
                self._say(f"{prefix}-{frag}-added", where, f"`{keyword}` {_show(hv)} added", h.at(keyword))
            elif hv is missing:
                self._say(f"{prefix}-{frag}-removed", where, f"`{keyword}` {_show(bv)} removed", h.pointer)
            elif keyword in _VALUES:
                if bv != hv:
                    self._say(
                        f"{prefix}-{frag}-changed",
                        where,
                        f"`{keyword}` changed from {_show(bv)} to {_show(hv)}",
                        h.at(keyword),
                    )
            else:
                self.schema(bv, b.at(keyword), hv, h.at(keyword), where.to(f" ({keyword})"))
        self._prefix_items(prefix, b, h, where)
        for keyword, frag in ENTRIES.items():
            self._entries(prefix, keyword, frag, b, h, where)
        for keyword, frag in (("contentMediaType", "content-media-type"), ("contentEncoding", "content-encoding")):
            bv, hv = b.keywords.get(keyword), h.keywords.get(keyword)
            if bv != hv:
                self._say(
                    f"{prefix}-{frag}-changed",
                    where,
                    f"`{keyword}` changed from {_show(bv)} to {_show(hv)}",
                    h.at(keyword),
                )
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
                        f"{label} changed from {_show(be[name])} to {_show(he[name])}",
                        (*h.at(keyword), str(name)),
                    )
            else:
                b_at, h_at = (*b.at(keyword), str(name)), (*h.at(keyword), str(name))
                self.schema(be[name], b_at, he[name], h_at, where.to(f" ({keyword} {name})"))

    def _all_of(self, prefix: str, b: View, h: View, where: Where) -> None:
        """allOf members added or removed; one that only annotates (description, title...) changes nothing."""
        base = {member_key(self.base, m): m for m in b.all_of if not _annotation_only(m)}
        head = {member_key(self.head, m): m for m in h.all_of if not _annotation_only(m)}
        for key in base.keys() - head.keys():
            self._say(f"{prefix}-all-of-removed", where, f"allOf member `{key}` removed", h.pointer)
        for key in sorted(head.keys() - base.keys()):
            self._say(f"{prefix}-all-of-added", where, f"allOf member `{key}` added", h.at("allOf"))

    def _extensible_enum(self, prefix: str, b: View, h: View, where: Where) -> None:
        bx, hx = b.keywords.get("x-extensible-enum"), h.keywords.get("x-extensible-enum")
        if not isinstance(bx, list) and not isinstance(hx, list):
            return
        bx, hx = bx if isinstance(bx, list) else [], hx if isinstance(hx, list) else []
        for value in bx:
            if value not in hx:
                check = f"{prefix}-x-extensible-enum-value-removed"
                self._say(check, where, f"x-extensible-enum value {_show(value)} removed", h.at("x-extensible-enum"))
        for value in hx:
            if value not in bx:
                check = f"{prefix}-x-extensible-enum-value-added"
                self._say(check, where, f"x-extensible-enum value {_show(value)} added", h.at("x-extensible-enum"))
