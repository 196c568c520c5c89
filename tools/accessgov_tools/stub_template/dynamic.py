"""Deterministic JSON values generated from a JSON Schema (2020-12 subset used by OpenAPI 3.1).

`generate(schema, resolve, rng)` walks the schema: `$ref`, `allOf` (merged), `anyOf`/`oneOf` (one branch),
`const`/`enum`/`examples`, types with their bounds, the formats the contract uses and simple patterns. The
caller validates the value and retries with another seed when a keyword outside this subset made it invalid.
"""

from __future__ import annotations

import random
import re
import uuid
from collections.abc import Callable
from typing import Any

Resolve = Callable[[str], Any]
MAX_DEPTH = 8
FORMATS: dict[str, Callable[[random.Random], Any]] = {
    "date-time": lambda rng: f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:00:00Z",
    "date": lambda rng: f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
    "duration": lambda rng: f"PT{rng.randint(1, 59)}M",
    "uuid": lambda rng: str(uuid.UUID(int=rng.getrandbits(128), version=4)),
    "int64": lambda rng: str(rng.randint(1, 2**40)),
    "int32": lambda rng: rng.randint(1, 2**20),
    "uri": lambda rng: f"https://example.com/{rng.randint(1, 999)}",
    "email": lambda rng: f"user{rng.randint(1, 999)}@example.com",
}
# Candidates tried against a `pattern` (the contract's patterns are character classes, digits, UPPER_SNAKE).
PATTERN_CANDIDATES = ("{n}", "-{n}", "MOCK_{n}", "mock-{n}", "mock.{n}", "m{n}", "")
WORDS = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel")


def _merge(resolve: Resolve, schemas: list[Any]) -> dict[str, Any]:
    merged: dict[str, Any] = {}
    for part in schemas:
        part = _deref(resolve, part)
        if not isinstance(part, dict):
            continue
        for key, value in part.items():
            if key == "allOf":
                value = _merge(resolve, value)
                for inner_key, inner_value in value.items():
                    _merge_key(merged, inner_key, inner_value)
            else:
                _merge_key(merged, key, value)
    return merged


def _merge_key(merged: dict[str, Any], key: str, value: Any) -> None:
    if key == "properties" and key in merged:
        merged[key] = {**merged[key], **value}
    elif key == "required" and key in merged:
        merged[key] = [*merged[key], *[name for name in value if name not in merged[key]]]
    else:
        merged[key] = value


def _deref(resolve: Resolve, schema: Any) -> Any:
    while isinstance(schema, dict) and "$ref" in schema:
        rest = {k: v for k, v in schema.items() if k not in ("$ref", "description", "summary")}
        target = resolve(schema["$ref"])
        schema = _merge(resolve, [target, rest]) if rest else target
    return schema


# A repeated group (`(...)+`, `(...)*`, `(...){2,}`): what makes a backtracking engine's time explode. Python's `re`
# runs the contract's patterns here, so a pattern holding one, or longer than 200 characters, is not run at all
# (the value is made without it); the short candidates below bound what a plain pattern can cost.
_REPEATED_GROUP = re.compile(r"\)\s*(?:[*+?]|\{)")


def _plain(pattern: str) -> bool:
    return len(pattern) <= 200 and not _REPEATED_GROUP.search(pattern) and pattern.count("*") + pattern.count("+") <= 4


def _string(schema: dict[str, Any], rng: random.Random) -> str:
    fmt = schema.get("format")
    if fmt in FORMATS:
        value = FORMATS[fmt](rng)
        if isinstance(value, str):
            return value
    low, high = schema.get("minLength", 0), schema.get("maxLength", 24)
    pattern = schema.get("pattern")
    if isinstance(pattern, str) and _plain(pattern):
        number = rng.randint(1, 99_999)
        for candidate in PATTERN_CANDIDATES:
            text = candidate.format(n=number)
            if re.search(pattern, text) and low <= len(text) <= high:
                return text
    text = f"{rng.choice(WORDS)}-{rng.randint(1, 9999)}"
    if len(text) < low:
        text += "x" * (low - len(text))
    return text[: max(high, low)]


def generate(schema: Any, resolve: Resolve, rng: random.Random, depth: int = 0) -> Any:
    """A value for `schema`; `resolve` maps a `$ref` to its schema, `rng` makes it deterministic."""
    schema = _deref(resolve, schema)
    if schema is True or not isinstance(schema, dict):
        return {}
    if "allOf" in schema:
        schema = _merge(resolve, [{k: v for k, v in schema.items() if k != "allOf"}, *schema["allOf"]])
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return rng.choice(schema["enum"])
    for union in ("oneOf", "anyOf"):
        if union in schema:
            branches = schema[union]
            # Past the depth budget prefer the simplest branch (a `null` or a scalar) to stop recursion.
            branch = branches[-1] if depth >= MAX_DEPTH else rng.choice(branches)
            base = {k: v for k, v in schema.items() if k not in (union, "description", "title")}
            return generate(_merge(resolve, [base, branch]) if base else branch, resolve, rng, depth + 1)
    kind = schema.get("type")
    if isinstance(kind, list):
        concrete = [k for k in kind if k != "null"]
        kind = "null" if depth >= MAX_DEPTH or not concrete else rng.choice(concrete)
    if kind is None:
        kind = "object" if "properties" in schema else "string"
    if kind == "null":
        return None
    if kind == "boolean":
        return rng.random() < 0.5
    if kind in ("integer", "number"):
        if schema.get("format") == "int32" and "minimum" not in schema and "maximum" not in schema:
            return rng.randint(1, 2**20)
        low = schema.get("minimum", 0)
        high = schema.get("maximum", max(low, 0) + 1000)
        return rng.randint(int(low), int(high)) if kind == "integer" else round(rng.uniform(low, high), 2)
    if kind == "string":
        return _string(schema, rng)
    if kind == "array":
        low = schema.get("minItems", 0)
        high = min(schema.get("maxItems", 3), low + 3)
        count = low if depth >= MAX_DEPTH else rng.randint(max(low, 1 if low == 0 and depth < 3 else low), high)
        return [generate(schema.get("items", {}), resolve, rng, depth + 1) for _ in range(count)]
    value: dict[str, Any] = {}
    required = schema.get("required", [])
    for name, sub in schema.get("properties", {}).items():
        if name in required or (depth < 3 and rng.random() < 0.5):
            value[name] = generate(sub, resolve, rng, depth + 1)
    return value
