"""The walk of two schemas met at the same place: their keywords, properties, items, unions and subschemas.

A schema is compared once per (base location, head location, direction, kind of place), cycles included
(`memo.PairMemo`): a change in a shared component is one difference that every operation reaching it reaches,
and the cost grows with the schema graph, not with the paths through it. A location is a component's name, or
where the schema object was first met (an object under many pointers, as a YAML alias makes, is one schema).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from typing_extensions import TypeIs

from accessgov_tools.diffcheck.formats import excludes_nothing
from accessgov_tools.diffcheck.lifecycle import INVALID, stability, sunset
from accessgov_tools.diffcheck.memo import PairMemo
from accessgov_tools.diffcheck.model import REQUEST, Pointer
from accessgov_tools.diffcheck.resolve import (
    BOUNDS,
    Document,
    Member,
    Values,
    View,
    component_name,
    enumeration,
    flag,
    json_type,
    member_key,
    only_union,
    unwrap_nullable,
    view,
)
from accessgov_tools.diffcheck.subsume import Subsumption
from accessgov_tools.diffcheck.walk import keywords
from accessgov_tools.diffcheck.walk.differences import (
    ABSENT,
    AdditionalPropertiesChanged,
    DeprecationChanged,
    Difference,
    EnumChanged,
    EnumOpenChanged,
    EnumValueChanged,
    FormatChanged,
    KeywordChanged,
    MemberChanged,
    NullableChanged,
    PropertyChanged,
    PropertyHiddenChanged,
    PropertyRequiredChanged,
    StabilityChanged,
    TypeChanged,
    UndeclaredRequired,
    Where,
)
from accessgov_tools.diffcheck.walk.pairing import pair_members
from accessgov_tools.display import quote

MemoKey = tuple[Pointer, Pointer, str, str, bool, Pointer | None]
# A union whose members are being compared: where it is in the head, its members on both sides. An enumerated
# value one member no longer lists is not removed while another member of the union accepts it (it moved there).
Union = tuple[Pointer, Sequence[Member], Sequence[Member]]


class Recorder:
    """The differences found, in the order found, and the schema pair each belongs to (for the reach)."""

    def __init__(self) -> None:
        self.differences: list[Difference] = []
        self.memo: PairMemo[MemoKey, Difference] = PairMemo()
        self._step = 0

    def add(self, difference: Difference) -> None:
        self.differences.append(difference)
        self.memo.record({difference})

    def reaching(self, labels: Sequence[str], action: Callable[..., None], *args: Any) -> None:
        """Run `action(*args)`; every difference it reaches (found, or known from a pair met before) reaches
        `labels`."""
        reach: set[Difference] = set()
        self.memo.sink = reach
        try:
            action(*args)
        finally:
            self.memo.sink = None
            step, self._step = self._step, self._step + 1
            for difference in reach:
                difference.reaches.extend((step, position, label) for position, label in enumerate(labels))


def written(b: View, h: View, keyword: str) -> tuple[Any, Any]:
    """`keyword`'s value in the base and in the head schema, ABSENT where it is not there or is `null`."""
    before, after = b.keywords.get(keyword), h.keywords.get(keyword)
    return (ABSENT if before is None else before), (ABSENT if after is None else after)


def _number(value: Any) -> TypeIs[int | float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


class SchemaWalk:
    """Schemas of `base` and `head` compared where they are met; differences go to `log`."""

    def __init__(self, base: Document, head: Document, log: Recorder) -> None:
        self.base, self.head, self.log = base, head, log
        self.level: str | None = None  # the stability of the operation being walked (a sunset's grace period)
        self._views: dict[tuple[int, int, Pointer], tuple[Any, View]] = {}
        self._met: dict[tuple[int, int], tuple[Any, Pointer]] = {}  # (document, schema object) -> first pointer
        self.wider, self.narrower = Subsumption(head, base), Subsumption(base, head)
        self.tighter = Subsumption(head, head)

    def add(self, difference: Difference) -> None:
        self.log.add(difference)

    def compare(self, b: Any, b_at: Pointer, h: Any, h_at: Pointer, where: Where, union: Union | None = None) -> None:
        """Compare two schemas met `where` (as members of `union`); a named component is compared once and its
        differences reused."""
        b, b_at, b_wrapped = unwrap_nullable(self.base, b, b_at)
        h, h_at, h_wrapped = unwrap_nullable(self.head, h, h_at)
        b_name, h_name = component_name(b), component_name(h)
        if h_name:
            where = replace(where, path=h_name, context="")
        b_view, h_view = self._view(self.base, b, b_at), self._view(self.head, h, h_at)
        b_null = b_wrapped or b_view.nullable
        h_null = h_wrapped or h_view.nullable
        if b_null != h_null:
            at = h_view.where.get("nullable", h_view.at("type")) if h_null else h_at
            self.log.add(NullableChanged(head=at, base=b_at, direction=where.direction, where=where, nullable=h_null))
        b_key = ("components", "schemas", b_name) if b_name else self._first_met(self.base, b, b_at)
        h_key = ("components", "schemas", h_name) if h_name else self._first_met(self.head, h, h_at)
        # Where an enumeration's values are judged against its union's other members, the union is part of the pair.
        if b_view.enum is None and h_view.enum is None:
            union = None
        key: MemoKey = (b_key, h_key, where.direction, where.location, where.loose, union and union[0])
        if self.log.memo.enter(key):
            self._body(b_view, h_view, where, union)
            self.log.memo.leave()

    def _first_met(self, doc: Document, node: Any, pointer: Pointer) -> Pointer:
        """Where the schema object `node` was first met: one object under many pointers (a YAML alias, written
        once and met again at every path through it) is one schema, compared once per pair like a component."""
        if not isinstance(node, (dict, list)):
            return pointer  # `true`, `false`: one object for every place they are written
        return self._met.setdefault((id(doc), id(node)), (node, pointer))[1]

    def _view(self, doc: Document, node: Any, pointer: Pointer) -> View:
        """`view()`, once per node and pointer: a schema reached by many edges is merged once."""
        key = (id(doc), id(node), pointer)
        found = self._views.get(key)
        if found is None:  # the node is kept with its view, so that its id is not reused
            found = self._views[key] = (node, view(doc, node, pointer))
        return found[1]

    def _body(self, b: View, h: View, where: Where, union: Union | None) -> None:
        if self._lone_member(b, h, where):
            return
        self._types(b, h, where)
        self._bounds(b, h, where)
        self._enum(b, h, where, union)
        self._default_and_lifecycle(b, h, where)
        self._unions(b, h, where)
        self._additional_properties(b, h, where)
        keywords.walk_2020(self, b, h, where)
        if "items" in b.keywords and "items" in h.keywords:
            self.compare(b.keywords["items"], b.at("items"), h.keywords["items"], h.at("items"), where.to("[]"))
        self._properties(b, h, where)

    def keyword(self, keyword: str, values: tuple[Any, Any], b: View, h: View, where: Where) -> None:
        """`keyword` going from the base's value to the head's (ABSENT where it is not there); nothing when the
        two are equal. Found at the keyword in the head, or at the schema when it went."""
        before, after = values
        if before == after:
            return
        at = h.pointer if after is ABSENT else h.at(keyword)
        self.log.add(
            KeywordChanged(
                head=at,
                base=b.pointer if before is ABSENT else b.at(keyword),
                direction=where.direction,
                where=where,
                keyword=keyword,
                before=before,
                after=after,
            )
        )

    def _types(self, b: View, h: View, where: Where) -> None:
        if b.types != h.types:
            self.log.add(
                TypeChanged(
                    head=h.at("type"),
                    base=b.at("type"),
                    direction=where.direction,
                    where=where,
                    before=b.types,
                    after=h.types,
                )
            )
        bf, hf = written(b, h, "format")
        if bf != hf:
            # A format that refuses nothing the other constraints allow narrows and widens nothing.
            implied = (bf is ABSENT or excludes_nothing(bf, b)) and (hf is ABSENT or excludes_nothing(hf, h))
            at = h.pointer if hf is ABSENT else h.at("format")
            self.log.add(
                FormatChanged(
                    head=at,
                    base=b.at("format"),
                    direction=where.direction,
                    where=where,
                    before=bf,
                    after=hf,
                    implied=implied,
                )
            )

    def _bounds(self, b: View, h: View, where: Where) -> None:
        for keyword in BOUNDS:
            # A bound that is not a number bounds nothing: as good as not there.
            bv, hv = b.keywords.get(keyword), h.keywords.get(keyword)
            self.keyword(keyword, (bv if _number(bv) else ABSENT, hv if _number(hv) else ABSENT), b, h, where)
        self.keyword("multipleOf", written(b, h, "multipleOf"), b, h, where)
        unique = tuple(True if v.keywords.get("uniqueItems") is True else ABSENT for v in (b, h))
        self.keyword("uniqueItems", (unique[0], unique[1]), b, h, where)
        self.keyword("pattern", written(b, h, "pattern"), b, h, where)

    def _enum(self, b: View, h: View, where: Where, union: Union | None) -> None:
        if b.enum is None and h.enum is None:
            return
        if b.enum is None or h.enum is None:
            if b.enum is None and h.open_enum and (b.types is None or "string" in b.types):
                return  # an open enumeration listed on a schema that took any string: no value went anywhere
            at = h.at("enum") if h.enum is not None else h.pointer
            self.log.add(
                EnumChanged(
                    head=at, base=b.at("enum"), direction=where.direction, where=where, before=b.enum, after=h.enum
                )
            )
            return
        b_values, h_values = Values(b.enum), Values(h.enum)
        at = h.at("enum")
        for value in b.enum:
            # A value an open enumeration no longer lists is still accepted (by its `{type: string}`), and one
            # another member of the union accepts moved there: neither is removed.
            if value in h_values or (h.open_enum and json_type(value) == "string"):
                continue
            if union is None or not self._accepted(value, union[2], self.wider):
                self.log.add(self._enum_value(b, at, where, value, added=False, open_=h.open_enum))
        for value in h.enum:
            if value not in b_values and (union is None or not self._accepted(value, union[1], self.narrower)):
                self.log.add(self._enum_value(b, at, where, value, added=True, open_=h.open_enum))
        if b.open_enum != h.open_enum:
            self.log.add(
                EnumOpenChanged(head=at, base=b.at("enum"), direction=where.direction, where=where, open=h.open_enum)
            )

    @staticmethod
    def _enum_value(b: View, at: Pointer, where: Where, value: Any, *, added: bool, open_: bool) -> EnumValueChanged:
        return EnumValueChanged(
            head=at, base=b.at("enum"), direction=where.direction, where=where, value=value, added=added, open=open_
        )

    def _default_and_lifecycle(self, b: View, h: View, where: Where) -> None:
        defaults = (b.keywords.get("default", ABSENT), h.keywords.get("default", ABSENT))  # `default: null` is one
        self.keyword("default", defaults, b, h, where)
        bdep, hdep = b.keywords.get("deprecated") is True, h.keywords.get("deprecated") is True
        if where.location == "property":
            label = f"{where.context}{quote(where.path)} ({where.direction})"
            if bdep != hdep or (hdep and sunset(b.keywords) != sunset(h.keywords)):
                self.log.add(
                    DeprecationChanged(
                        head=h.pointer,
                        base=b.pointer,
                        direction=where.direction,
                        thing="property",
                        label=label,
                        before=b.keywords,
                        after=h.keywords,
                        level=self.level,
                    )
                )
            levels = (stability(b.keywords), stability(h.keywords))
            if levels[0] != levels[1] or INVALID in levels:
                self.log.add(
                    StabilityChanged(
                        head=h.pointer,
                        base=b.pointer,
                        direction=where.direction,
                        thing="property",
                        label=label,
                        before=b.keywords,
                        after=h.keywords,
                    )
                )
        elif bdep != hdep:
            self.keyword("deprecated", (True if bdep else ABSENT, True if hdep else ABSENT), b, h, where)

    def _unions(self, b: View, h: View, where: Where) -> None:
        for keyword in ("anyOf", "oneOf"):
            if keyword in b.unions or keyword in h.unions:
                self._members(keyword, b.unions.get(keyword, []), h.unions.get(keyword, []), where, h.at(keyword))

    def _lone_member(self, b: View, h: View, where: Where) -> bool:
        """A union compared with a schema that is none is compared as a union of that one schema (`X` ->
        `anyOf: [X, Y]` adds `Y`, it does not remove X's properties); True when it was. A `oneOf` only when the
        schema is one of its members as written: a wider member in its place may overlap the others, which
        `oneOf` refuses."""
        for union, other, doc in ((h, b, self.base), (b, h, self.head)):
            if len(union.unions) == 1 and not other.unions and only_union(union):
                keyword, members = next(iter(union.unions.items()))
                lone = [Member(member_key(doc, other.node), other.node, other.pointer)]
                if keyword == "oneOf" and not any(self._same_member(lone[0], m, union is h) for m in members):
                    return False
                base, head = (lone, members) if union is h else (members, lone)
                self._members(keyword, base, head, where, h.at(keyword))
                return True
        return False

    def _same_member(self, lone: Member, member: Member, union_in_head: bool) -> bool:
        """The schema `lone` is `member` of the other side's union: the same key, or written alike."""
        if lone.key == member.key:
            return True
        head, base = (member, lone) if union_in_head else (lone, member)
        return self.wider.same(head.node, base.node)

    def _members(self, keyword: str, base: list[Member], head: list[Member], where: Where, at: Pointer) -> None:
        """Union members paired by what they are and what they accept, wherever they moved (`pairing.py`); an
        unchanged member is compared, never reported. A member left unpaired that only enumerates values, some of
        which the other side's members accept, is no member removed or added: its values moved, and only those
        that went nowhere are values removed (or came from nowhere, added)."""
        pairs, removed, added = pair_members(base, head, self.wider, self.narrower, self.tighter)
        for old in removed:
            if not self._enumerated(self.base, old, head, self.wider, at, where, added=False):
                self.log.add(
                    MemberChanged(
                        head=at, base=old.pointer, direction=where.direction, where=where, keyword=keyword,
                        key=old.key, added=False,
                    )
                )  # fmt: skip
        for member in added:
            if not self._enumerated(self.head, member, base, self.narrower, member.pointer, where, added=True):
                self.log.add(
                    MemberChanged(
                        head=member.pointer, direction=where.direction, where=where, keyword=keyword, key=member.key,
                        added=True,
                    )
                )  # fmt: skip
        union: Union = (at, base, head)
        for old, member in pairs:
            path = where.to(f" ({keyword} {member.key})")
            self.compare(old.node, old.pointer, member.node, member.pointer, path, union)

    def _enumerated(
        self, doc: Document, member: Member, others: Sequence[Member], sub: Subsumption, at: Pointer, where: Where,
        *, added: bool,
    ) -> bool:  # fmt: skip
        """A member (of `doc`) left unpaired that only enumerates values, some of which one of `others` (`sub`:
        theirs over `doc`'s) accepts: those moved there, the others are values added or removed (True). False
        when it is no enumeration, or none of its values moved: the member itself was added or removed."""
        values = enumeration(doc, member.node)
        if values is None:
            return False
        left = [value for value in values if not self._accepted(value, others, sub)]
        if len(left) == len(values):
            return False
        for value in left:
            self.log.add(
                EnumValueChanged(
                    head=at, base=None if added else member.pointer, direction=where.direction, where=where,
                    value=value, added=added, open=False,
                )
            )  # fmt: skip
        return True

    @staticmethod
    def _accepted(value: Any, members: Sequence[Member], sub: Subsumption) -> bool:
        """Whether one of `members` (the wide side of `sub`) accepts `value`."""
        return any(sub.accepts(m.node, {"const": value}) for m in members)

    def _additional_properties(self, b: View, h: View, where: Where) -> None:
        ba, ha = b.keywords.get("additionalProperties", True), h.keywords.get("additionalProperties", True)
        b_any, h_any = ba is True or ba == {}, ha is True or ha == {}
        if isinstance(ba, dict) and isinstance(ha, dict) and not b_any and not h_any:
            # Compared even when written the same: a `$ref` may name a schema that changed.
            self.compare(ba, b.at("additionalProperties"), ha, h.at("additionalProperties"), where.to(".*"))
        elif ba == ha or (b_any and h_any):
            return
        else:
            narrowed = ha is False or (b_any and isinstance(ha, dict))
            self.log.add(
                AdditionalPropertiesChanged(
                    head=h.at("additionalProperties"),
                    base=b.at("additionalProperties"),
                    direction=where.direction,
                    where=where,
                    narrowed=narrowed,
                )
            )

    def _properties(self, b: View, h: View, where: Where) -> None:
        request = where.direction == REQUEST
        hidden = "readOnly" if request else "writeOnly"
        for name in sorted(set(b.properties) | set(h.properties)):
            sub = where.to(f".{name}")
            b_at = b.properties[name][1] if name in b.properties else None
            at = (
                h.properties[name][1]
                if name in h.properties
                else (*(h.properties_at or (*h.pointer, "properties")), name)
            )
            if name not in h.properties:
                if flag(self.base, b.properties[name][0], hidden):
                    continue
                self.log.add(
                    PropertyChanged(
                        head=at,
                        base=b_at,
                        direction=where.direction,
                        where=sub,
                        added=False,
                        required=name in b.required,
                    )
                )
                continue
            if name not in b.properties:
                if flag(self.head, h.properties[name][0], hidden):
                    continue
                self.log.add(
                    PropertyChanged(
                        head=at, direction=where.direction, where=sub, added=True, required=name in h.required
                    )
                )
                continue
            b_hidden, h_hidden = (
                flag(self.base, b.properties[name][0], hidden),
                flag(self.head, h.properties[name][0], hidden),
            )
            if b_hidden != h_hidden:
                self.log.add(
                    PropertyHiddenChanged(
                        head=at,
                        base=b_at,
                        direction=where.direction,
                        where=sub,
                        hidden=h_hidden,
                        required=name in h.required,
                    )
                )
            if b_hidden or h_hidden:
                continue
            h_req = name in h.required
            if (name in b.required) != h_req:
                self.log.add(
                    PropertyRequiredChanged(
                        head=h.where.get("required", at),
                        base=b_at,
                        direction=where.direction,
                        where=sub,
                        required=h_req,
                    )
                )
            self.compare(
                b.properties[name][0], b.properties[name][1], h.properties[name][0], h.properties[name][1], sub
            )
        # Required without being declared here (declared in a union member or nowhere) still binds a request.
        if request:
            for name in sorted(h.required - b.required - set(h.properties) - set(b.properties)):
                self.log.add(
                    UndeclaredRequired(
                        head=h.at("required"), base=None, direction=where.direction, where=where.to(f".{name}")
                    )
                )
