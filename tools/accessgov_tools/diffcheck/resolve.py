"""Reading a bundled document: following `$ref`, merging `allOf`, unwrapping nullable unions, open enums.

A `View` is what one schema means once its `allOf` parts and `$ref` siblings are merged; every keyword keeps
the JSON pointer it was written at, so that a finding can name the line in `spec/`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from accessgov_tools.diffcheck.model import Pointer

HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
SCHEMAS = ("components", "schemas")
# Keywords that only annotate: they never change what a schema accepts.
ANNOTATIONS = frozenset({"description", "title", "examples", "example", "$comment", "x-lint-skip"})
# The numeric bounds, by kind: an upper bound narrows what is valid when it decreases, a lower one when it increases.
BOUNDS = {
    "maxLength": "upper",
    "minLength": "lower",
    "maximum": "upper",
    "minimum": "lower",
    "exclusiveMaximum": "upper",
    "exclusiveMinimum": "lower",
    "maxItems": "upper",
    "minItems": "lower",
    "maxProperties": "upper",
    "minProperties": "lower",
    "maxContains": "upper",
    "minContains": "lower",
}


class Document:
    """One bundled OpenAPI document with local `$ref`/`$dynamicRef` resolution (pointers and anchors)."""

    def __init__(self, raw: dict[str, Any]) -> None:
        self.raw = raw
        self._anchors: dict[str, Pointer] | None = None

    def anchor(self, name: str) -> Pointer | None:
        """Where `$anchor: name` or `$dynamicAnchor: name` is declared (the first one met)."""
        if self._anchors is None:
            self._anchors = {}
            stack: list[tuple[Any, Pointer]] = [(self.raw, ())]
            while stack:
                node, at = stack.pop()
                if isinstance(node, dict):
                    for key in ("$anchor", "$dynamicAnchor"):
                        if isinstance(node.get(key), str):
                            self._anchors.setdefault(node[key], at)
                    stack.extend((v, (*at, str(k))) for k, v in node.items())
                elif isinstance(node, list):
                    stack.extend((v, (*at, str(i))) for i, v in enumerate(node))
        return self._anchors.get(name)

    def target(self, ref: str) -> Pointer | None:
        """The pointer a local reference names: `#/a/b` or an anchor `#name`; None for anything else."""
        if ref == "#" or ref.startswith("#/"):
            return ref_pointer(ref)
        return self.anchor(ref[1:]) if ref.startswith("#") else None

    def at(self, pointer: Pointer) -> Any:
        node: Any = self.raw
        for token in pointer:
            if isinstance(node, dict) and token in node:
                node = node[token]
            elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
                node = node[int(token)]
            else:
                return None
        return node

    def deref(self, node: Any, pointer: Pointer) -> tuple[Any, Pointer]:
        """Follow `$ref`s (ignoring siblings) to the node they name; a dangling or cyclic one gives `{}`."""
        seen: set[str] = set()
        while (ref := reference(node)) is not None and (target := self.target(ref)) is not None:
            if ref in seen:
                return {}, pointer
            seen.add(ref)
            pointer = target
            node = self.at(pointer)
            if node is None:
                return {}, pointer
        return node, pointer

    def operations(self, section: str = "paths") -> dict[tuple[str, str], tuple[dict[str, Any], dict[str, Any]]]:
        """(path, method) -> (operation, path item), of `paths` or (section="webhooks") of the webhooks."""
        found = {}
        for path, raw_item in (self.raw.get(section) or {}).items():
            item, _ = self.deref(raw_item, (section, path))
            for method in HTTP_METHODS:
                if isinstance((item or {}).get(method), dict):
                    found[(path, method)] = (item[method], item)
        return found


def reference(node: Any) -> str | None:
    """The `$ref` of a schema, else its `$dynamicRef` (followed like a `$ref`: the bundle has one scope)."""
    if not isinstance(node, dict):
        return None
    ref = node.get("$ref")
    if not isinstance(ref, str):
        ref = node.get("$dynamicRef")
    return ref if isinstance(ref, str) else None


def ref_pointer(ref: str) -> Pointer:
    return tuple(t.replace("~1", "/").replace("~0", "~") for t in ref[2:].split("/")) if ref != "#" else ()


def component_name(node: Any) -> str | None:
    """`X` for a pure `{$ref: '#/components/schemas/X'}`."""
    if isinstance(node, dict) and isinstance(node.get("$ref"), str):
        pointer = ref_pointer(node["$ref"]) if node["$ref"].startswith("#/") else ()
        if len(pointer) == 3 and pointer[:2] == SCHEMAS:
            return pointer[2]
    return None


def _is_null(node: Any) -> bool:
    return isinstance(node, dict) and node.get("type") == "null" and not (set(node) - ANNOTATIONS - {"type"})


def unwrap_nullable(doc: Document, node: Any, pointer: Pointer) -> tuple[Any, Pointer, bool]:
    """`anyOf|oneOf: [X, {type: null}]` (nothing else that constrains) -> (X, its pointer, True); `[X]` -> X."""
    nullable = False
    while True:
        target, target_ptr = doc.deref(node, pointer)
        if not isinstance(target, dict):
            return node, pointer, nullable
        for key in ("anyOf", "oneOf"):
            members = target.get(key)
            if not isinstance(members, list) or set(target) - ANNOTATIONS - {key}:
                continue
            rest = [(m, (*target_ptr, key, str(i))) for i, m in enumerate(members) if not _is_null(doc.deref(m, ())[0])]
            # `[X, null]` means a nullable X; a lone `$ref` member means its target (inline lone members stay
            # a union, so that `oneOf: [A, B]` -> `[A]` reads as "B removed").
            if len(rest) == 1 and (len(rest) < len(members) or component_name(rest[0][0])):
                node, pointer = rest[0]
                nullable = nullable or len(rest) < len(members)
                break
        else:
            return node, pointer, nullable


@dataclass
class Member:
    """One `anyOf`/`oneOf` member, keyed by what it is (its `$ref` target or its content), not its position."""

    key: str
    node: Any
    pointer: Pointer


@dataclass
class View:
    """A schema with its `allOf` parts merged; each keyword remembers where it was written."""

    pointer: Pointer
    keywords: dict[str, Any] = field(default_factory=dict)
    where: dict[str, Pointer] = field(default_factory=dict)
    properties: dict[str, tuple[Any, Pointer]] = field(default_factory=dict)
    properties_at: Pointer | None = None
    required: set[str] = field(default_factory=set)
    types: frozenset[str] | None = None
    nullable: bool = False
    enum: list[Any] | None = None
    open_enum: bool = False
    unions: dict[str, list[Member]] = field(default_factory=dict)
    all_of: list[Any] = field(default_factory=list)  # the members of its own `allOf`, as written
    node: Any = None  # the schema as written (a union's lone member when the other side is a union)
    enum_types: frozenset[str] | None = None  # the types of an enumeration spelled as a union of `const`s

    def at(self, keyword: str) -> Pointer:
        return self.where.get(keyword, self.pointer)


class Values:
    """JSON values, with `in` answered as a list's `in` answers it (`1`, `1.0` and `True` are one value; mappings
    and lists compare by content) but in constant time, mappings and lists too (each is looked up by a frozen copy
    that compares and hashes as it does): an enumeration of 10,000 values, or of 10,000 objects, is not scanned
    once per value."""

    def __init__(self, values: Iterable[Any] = ()) -> None:
        self._values: set[Any] = set()
        for value in values:
            self.add(value)

    def add(self, value: Any) -> None:
        self._values.add(frozen(value))

    def __contains__(self, value: Any) -> bool:
        return frozen(value) in self._values

    def __len__(self) -> int:
        return len(self._values)


class _Mapping(frozenset[Any]):
    """A frozen JSON object: equal only to a frozen object of equal entries (never to a set or a frozen array)."""


class _Array(tuple[Any, ...]):
    """A frozen JSON array: equal only to a frozen array of equal items."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Array) and tuple.__eq__(self, other)

    def __hash__(self) -> int:
        return tuple.__hash__(self)


def frozen(value: Any) -> Any:
    """A hashable copy of a JSON value that equals another's exactly when the values are equal (as Python compares
    them: `1`, `1.0` and `True` alike, mappings by their entries, lists item by item)."""
    if isinstance(value, dict):
        return _Mapping((key, frozen(item)) for key, item in value.items())
    if isinstance(value, list):
        return _Array(frozen(item) for item in value)
    try:
        hash(value)
    except TypeError:
        return _Array((id(value),))  # not a JSON value: equal to itself only
    return value


def member_key(doc: Document, node: Any) -> str:
    """How union members are matched between base and head."""
    name = component_name(node)
    if name:
        return f"$ref {name}"
    if isinstance(node, dict) and "$ref" in node and len(node) == 1:
        return f"$ref {node['$ref']}"
    if isinstance(node, dict):
        meaningful = set(node) - ANNOTATIONS
        if meaningful == {"required"}:
            return "required " + ",".join(sorted(map(str, node["required"])))
        if "title" in node:
            return f"title {node['title']}"
        if meaningful == {"type"} or (meaningful == {"type", "format"}):
            return f"type {json.dumps(node.get('type'))} {node.get('format', '')}".strip()
        if "const" in node:
            return f"const {json.dumps(node['const'])}"
    text = json.dumps(strip(node), sort_keys=True)
    return "content " + hashlib.sha256(text.encode()).hexdigest()[:12]


def strip(node: Any) -> Any:
    """`node` without the keywords that only annotate, at any depth (for comparing what schemas mean)."""
    if isinstance(node, dict):
        return {k: strip(v) for k, v in node.items() if k not in ANNOTATIONS}
    if isinstance(node, list):
        return [strip(v) for v in node]
    return node


_ENUM_SIDE = frozenset({*ANNOTATIONS, "type", "format", "nullable", "deprecated"})  # beside a value member
_JSON_TYPES = ((bool, "boolean"), (int, "integer"), (float, "number"), (str, "string"), (list, "array"))


def json_type(value: Any) -> str:
    """The JSON Schema type of a value (`null` for None, `object` for a mapping)."""
    if value is None:
        return "null"
    return next((name for kind, name in _JSON_TYPES if isinstance(value, kind)), "object")


def _enum_union(doc: Document, members: list[Any]) -> tuple[list[Any], bool, frozenset[str]] | None:
    """A union that only enumerates, whatever its spelling: every member a `const` or an `enum` (a `title`, a
    `type` and other annotations beside), and at most one plain `{type: string}`, which makes it open (the
    `anyOf: [{enum}, {type: string}]` of `x-open-enum`). -> (the values sent, open, their types); else None."""
    values: list[Any] = []
    listed_before = Values()
    types: set[str] = set()
    plain: list[dict[Any, Any]] = []
    for member in members:
        node = doc.deref(member, ())[0]
        if not isinstance(node, dict):
            return None
        meaningful = {k for k in node if k not in _ENUM_SIDE and not str(k).startswith("x-")}
        if meaningful == {"const"}:
            listed = [node["const"]]
        elif meaningful == {"enum"} and isinstance(node["enum"], list):
            listed = node["enum"]
        elif not meaningful and isinstance(node.get("type"), str):
            plain.append(node)
            continue
        else:
            return None
        declared = node.get("type")
        if isinstance(declared, str):
            types.add(declared)
        elif isinstance(declared, list):
            types.update(map(str, declared))
        else:
            types.update(json_type(v) for v in listed)
        fresh = [v for v in listed if v not in listed_before]
        values += fresh
        for value in fresh:
            listed_before.add(value)
    if not values or len(plain) > 1 or (plain and plain[0]["type"] != "string"):
        return None
    if plain:
        return values, True, frozenset({"string"})
    return values, False, frozenset(types)


def enumeration(doc: Document, node: Any) -> list[Any] | None:
    """The values a schema that only enumerates (`const` or a closed `enum`, annotations and `type` beside) lists;
    None for any other schema."""
    found = _enum_union(doc, [node])
    return found[0] if found is not None and not found[1] else None


def _parts(
    doc: Document, node: Any, pointer: Pointer, seen: frozenset[Pointer]
) -> list[tuple[dict[Any, Any], Pointer]]:
    """The schema objects that make up `node`: itself, its `$ref` target, its `allOf` members, recursively."""
    if not isinstance(node, dict) or pointer in seen:
        return []
    seen = seen | {pointer}
    parts: list[tuple[dict[Any, Any], Pointer]] = []
    ref = reference(node)
    own = {k: v for k, v in node.items() if k not in ("$ref", "$dynamicRef", "allOf")}
    parts.append((own, pointer))
    target_ptr = doc.target(ref) if ref is not None else None
    if target_ptr is not None:
        parts += _parts(doc, doc.at(target_ptr), target_ptr, seen)
    for i, member in enumerate(node.get("allOf") or []):
        parts += _parts(doc, member, (*pointer, "allOf", str(i)), seen)
    return parts


def view(doc: Document, node: Any, pointer: Pointer) -> View:
    """Merge `node` into one `View` (first part to set a keyword wins; properties and required are united)."""
    result = View(pointer, node=node)
    own = node if not isinstance(node, dict) or "allOf" in node else doc.deref(node, pointer)[0]
    if isinstance(own, dict) and isinstance(own.get("allOf"), list):
        result.all_of = list(own["allOf"])
    for part, part_ptr in _parts(doc, node, pointer, frozenset()):
        for key, value in part.items():
            if key == "properties" and isinstance(value, dict):
                if result.properties_at is None:
                    result.properties_at = (*part_ptr, "properties")
                for name, sub in value.items():
                    result.properties.setdefault(name, (sub, (*part_ptr, "properties", name)))
            elif key == "required" and isinstance(value, list):
                result.required.update(map(str, value))
                result.where.setdefault(key, (*part_ptr, key))
            elif key in ("anyOf", "oneOf") and isinstance(value, list):
                _union(doc, result, key, value, part_ptr)
            elif key not in result.keywords:
                result.keywords[key] = value
                result.where[key] = (*part_ptr, key)
    types = result.keywords.get("type")
    if types is not None and result.types is None:
        listed = {types} if isinstance(types, str) else set(types)
        result.nullable = result.nullable or "null" in listed
        result.types = frozenset(listed - {"null"}) or None
    elif result.enum_types is not None and result.types is None:
        result.nullable = result.nullable or "null" in result.enum_types
        result.types = frozenset(result.enum_types - {"null"}) or None
    if result.keywords.get("nullable") is True:  # OpenAPI 3.0's spelling of `type: [..., "null"]`
        result.nullable = True
    if "enum" in result.keywords and result.enum is None:
        values = list(result.keywords["enum"])
        result.nullable = result.nullable or None in values
        result.enum = [v for v in values if v is not None]
    return result


def _union(doc: Document, result: View, key: str, members: list[Any], part_ptr: Pointer) -> None:
    rest = [(m, (*part_ptr, key, str(i))) for i, m in enumerate(members) if not _is_null(doc.deref(m, ())[0])]
    if len(rest) < len(members):
        result.nullable = True
        result.where.setdefault("nullable", (*part_ptr, key))
    enumerated = _enum_union(doc, [m for m, _ in rest])
    if enumerated is not None and result.enum is None:  # an enumeration, however spelled, is graded as `enum`
        values, is_open, types = enumerated
        if None in values:
            result.nullable = True
            result.where.setdefault("nullable", (*part_ptr, key))
        result.enum, result.open_enum = [v for v in values if v is not None], is_open
        if is_open:
            result.types = types
        else:
            result.enum_types = types
        result.where.setdefault("enum", (*part_ptr, key))
        return
    result.where.setdefault(key, (*part_ptr, key))
    result.unions.setdefault(key, []).extend(Member(member_key(doc, m), m, ptr) for m, ptr in rest)


_UNION_SIDE = frozenset({*ANNOTATIONS, "anyOf", "oneOf", "type", "nullable", "discriminator", "default", "deprecated"})


def only_union(v: View) -> bool:
    """A schema that is its `anyOf`/`oneOf` and nothing else that constrains (a `type` beside it aside)."""
    others = {k for k in v.keywords if k not in _UNION_SIDE and not str(k).startswith("x-")}
    return bool(v.unions) and not others and not v.properties and not v.required and v.enum is None


def flag(doc: Document, node: Any, keyword: str) -> bool:
    """Whether `keyword` (readOnly, writeOnly, deprecated) is true on the schema or any of its parts."""
    return any(part.get(keyword) is True for part, _ in _parts(doc, node, (), frozenset()))
