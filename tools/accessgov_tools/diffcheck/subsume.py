"""Whether one schema accepts every instance another accepts (subsumption), to pair union members.

Sound and incomplete: True only when every value `narrow` accepts is shown to be accepted by `wide`; any keyword
it cannot reason about must be written the same on both sides (`same()`: alike once `$ref`s are followed and
annotations dropped, whatever the order of `required`, `enum`, `type` and union members, so that a member written
inline is the one it was under a `$ref`). Schemas that refer to each other are compared
co-inductively (a pair under comparison is assumed to hold), as recursive types are. Each pair's answer is kept
once it is known for sure (not resting on an assumption, not cut short by the depth bound), so a schema graph
whose levels each reach the one below twice costs one comparison per pair, not one per path.
"""

from __future__ import annotations

from typing import Any

from accessgov_tools.diffcheck.resolve import (
    ANNOTATIONS,
    BOUNDS,
    Document,
    Values,
    View,
    json_type,
    only_union,
    view,
)

# What `same()` compares inside a schema: maps of names to subschemas, subschemas, lists of them, sets of values.
_NAMED_SCHEMAS = frozenset({"properties", "patternProperties", "dependentSchemas", "$defs", "definitions"})
_SUBSCHEMAS = frozenset(
    {
        "items",
        "additionalProperties",
        "not",
        "if",
        "then",
        "else",
        "contains",
        "propertyNames",
        "unevaluatedProperties",
        "unevaluatedItems",
        "contentSchema",
    }
)
_SCHEMA_LISTS = frozenset({"allOf", "prefixItems"})
_MEMBERS = frozenset({"anyOf", "oneOf"})
_SETS = frozenset({"required", "enum", "type"})
_REFS = frozenset({"$ref", "$dynamicRef"})
# Keywords that never refuse an instance (the ones `View` interprets are handled apart).
_INERT = frozenset({*ANNOTATIONS, "default", "deprecated", "readOnly", "writeOnly", "discriminator", "xml"})
_INTERPRETED = frozenset({"type", "enum", "nullable", "properties", "required", "items", "additionalProperties"})
_DEPTH = 40
# Union members tried each against each (in `same()`, and a union's members against another union's) up to this
# many pairs; beyond, only what can be shown linearly is: sound (never a wrong True), and no union is quadratic.
_MEMBER_PAIRS = 64 * 64


def _widen(types: frozenset[str]) -> frozenset[str]:
    return types | {"integer"} if "number" in types else types


class Subsumption:
    """`accepts(wide, narrow)` over two documents (the base's and the head's, in either order)."""

    def __init__(self, wide: Document, narrow: Document) -> None:
        self.wide, self.narrow = wide, narrow
        self._assumed: set[tuple[int, int]] = set()
        # (id wide, id narrow) -> (wide, narrow, answer): the nodes are kept so that their ids stay theirs.
        self._known: dict[tuple[int, int], tuple[Any, Any, bool]] = {}
        self._unsure = False  # the answer being computed rests on an assumption or on the depth bound
        self._alike: set[tuple[int, int]] = set()  # pairs `same()` is comparing (assumed alike there)
        self._same_known: dict[tuple[int, int], tuple[Any, Any, bool]] = {}

    def same(self, wide: Any, narrow: Any, depth: int = 0) -> bool:
        """`wide` (of the wide document) and `narrow` are one schema written alike: the same keywords with the same
        values once a lone `$ref` is followed and annotations are dropped, sets and union members in any order."""
        w, n = self._written(self.wide, wide), self._written(self.narrow, narrow)
        if isinstance(w, dict) and isinstance(n, dict):
            pair = (id(w), id(n))
            if (known := self._same_known.get(pair)) is not None:
                return known[2]
            if pair in self._alike:
                self._unsure = True
                return True
            if depth > _DEPTH:
                self._unsure = True
                return False
            keys = {k for k in w if k not in ANNOTATIONS}
            if keys != {k for k in n if k not in ANNOTATIONS}:
                return False
            self._alike.add(pair)
            outer_unsure, self._unsure = self._unsure, False
            try:
                answer = all(self._same_keyword(k, w[k], n[k], depth + 1) for k in keys)
            finally:
                self._alike.discard(pair)
            if not self._unsure:  # known for sure: a schema graph reached by many paths is compared once a pair
                self._same_known[pair] = (w, n, answer)
            self._unsure = self._unsure or outer_unsure
            return answer
        if isinstance(w, list) and isinstance(n, list):
            return len(w) == len(n) and all(self.same(a, b, depth + 1) for a, b in zip(w, n, strict=True))
        return bool(w == n)

    def _written(self, doc: Document, node: Any) -> Any:
        """A lone `$ref` (annotations beside it) followed to what it names; anything else as written."""
        while isinstance(node, dict) and node.keys() - ANNOTATIONS and node.keys() - ANNOTATIONS <= _REFS:
            target, _ = doc.deref(node, ())
            if target is node or target == {}:
                return target
            node = target
        return node

    def _same_keyword(self, keyword: str, w: Any, n: Any, depth: int) -> bool:
        if keyword in _NAMED_SCHEMAS and isinstance(w, dict) and isinstance(n, dict):
            return w.keys() == n.keys() and all(self.same(w[k], n[k], depth) for k in w)
        if keyword in _SUBSCHEMAS or (keyword in _SCHEMA_LISTS and isinstance(w, list)):
            return self.same(w, n, depth)
        if keyword in _SETS and isinstance(w, list) and isinstance(n, list):
            w_values, n_values = Values(w), Values(n)
            return all(v in n_values for v in w) and all(v in w_values for v in n)
        if keyword in _MEMBERS and isinstance(w, list) and isinstance(n, list) and len(w) == len(n):
            if all(self.same(a, b, depth) for a, b in zip(w, n, strict=True)):
                return True  # alike in the order written
            if len(w) * len(n) > _MEMBER_PAIRS:
                return False  # too many to try each against each: not shown alike (sound, and linear)
            left = list(n)  # each member alike a member of the other side, one to one
            for member in w:
                match = next((i for i, other in enumerate(left) if self.same(member, other, depth)), None)
                if match is None:
                    return False
                left.pop(match)
            return True
        return bool(w == n)

    def accepts(self, wide: Any, narrow: Any, depth: int = 0) -> bool:
        """Every instance `narrow` (a node of the narrow document) accepts, `wide` accepts too."""
        w_node, _ = self.wide.deref(wide, ())
        n_node, _ = self.narrow.deref(narrow, ())
        if w_node is True or w_node == {} or (isinstance(w_node, dict) and not set(w_node) - _INERT):
            return True
        if not isinstance(w_node, dict) or not isinstance(n_node, dict):
            return n_node is False
        pair = (id(w_node), id(n_node))
        if (known := self._known.get(pair)) is not None:
            return known[2]
        if pair in self._assumed:
            self._unsure = True
            return True
        if depth > _DEPTH:
            self._unsure = True
            return False
        self._assumed.add(pair)
        outer_unsure, self._unsure = self._unsure, False
        try:
            answer = self._views(view(self.wide, wide, ()), view(self.narrow, narrow, ()), depth + 1)
        finally:
            self._assumed.discard(pair)
        if not self._unsure:
            self._known[pair] = (w_node, n_node, answer)
        self._unsure = self._unsure or outer_unsure
        return answer

    def _views(self, w: View, n: View, depth: int) -> bool:
        if (w.unions or n.unions) and self.same(w.node, n.node, depth):
            return True  # unions are reasoned about member by member below, but a union written alike is the same
        if n.unions:  # every alternative of the narrow one fits: so does the union of them
            members = [m for ms in n.unions.values() for m in ms]
            if len(members) * max(1, sum(map(len, w.unions.values()))) > _MEMBER_PAIRS:
                self._unsure = True
                return False  # each alternative against each of the wide one's: too many pairs to weigh
            if only_union(n):
                return (w.nullable or not n.nullable) and all(self.accepts(w.node, m.node, depth) for m in members)
        wide_any = set(w.unions) == {"anyOf"} and only_union(w)
        if wide_any and any(self.accepts(m.node, n.node, depth) for m in w.unions["anyOf"]):
            return True  # one alternative of the wide one fits: enough
        if w.unions:
            return self.same(w.node, n.node, depth)
        if n.nullable and not w.nullable:
            return False
        if not self._values(w, n):
            return False
        for keyword, value in w.keywords.items():
            if keyword in _INERT or keyword in _INTERPRETED or keyword.startswith("x-"):
                continue
            if keyword in BOUNDS:
                if not self._bound(keyword, value, n.keywords.get(keyword)):
                    return False
            elif not self._same_keyword(keyword, value, n.keywords.get(keyword), depth):
                return False
        if not w.required <= n.required:
            return False
        if "items" in w.keywords and not self.accepts(w.keywords["items"], n.keywords.get("items", {}), depth):
            return False
        return self._object(w, n, depth)

    def _values(self, w: View, n: View) -> bool:
        """`type` and `enum`: the narrow one's values are among the wide one's."""
        if w.enum is not None and not w.open_enum:
            if n.enum is None or n.open_enum:
                return "const" in n.keywords and n.keywords["const"] in w.enum
            listed = Values(w.enum)
            if any(v not in listed for v in n.enum):
                return False
        if w.types is None:
            return True
        if n.types is not None:
            return n.types <= _widen(w.types)
        values = [n.keywords["const"]] if "const" in n.keywords else n.enum if not n.open_enum else None
        return values is not None and all(json_type(v) in _widen(w.types) for v in values)

    @staticmethod
    def _bound(keyword: str, wide: Any, narrow: Any) -> bool:
        if not isinstance(narrow, (int, float)) or isinstance(narrow, bool):
            return False
        return bool(narrow <= wide) if BOUNDS[keyword] == "upper" else bool(narrow >= wide)

    def _object(self, w: View, n: View, depth: int) -> bool:
        w_extra, n_extra = w.keywords.get("additionalProperties", True), n.keywords.get("additionalProperties", True)
        if w_extra is not True and w_extra != {}:
            if n_extra is True or n_extra == {} or not set(n.properties) <= set(w.properties):
                return False
            if not self.same(w_extra, n_extra, depth):
                return False
        for name, (sub, _) in w.properties.items():
            if name in n.properties:
                if not self.accepts(sub, n.properties[name][0], depth):
                    return False
            elif n_extra is not False and not self.accepts(sub, {} if n_extra is True else n_extra, depth):
                return False
        return True
