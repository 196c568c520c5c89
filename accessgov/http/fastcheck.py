"""Fast validity checks for the simple schemas of parameters and free-form bodies.

The engine validates every parameter of every request. jsonschema walks its full machinery even for
`{type: string, maxLength: 128}`, which profiling showed to be a tenth of a webhook delivery's CPU, so the
schemas made only of the keywords below are compiled into a plain predicate. A predicate only says whether
the value is valid: on a failure the engine asks jsonschema for its message, so errors read the same either
way. Any other schema returns None and stays with jsonschema.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable, Mapping
from typing import Any

Check = Callable[[Any], bool]
# Keywords that do not constrain the value.
ANNOTATIONS = frozenset({"title", "description", "examples", "example", "default", "deprecated", "$comment"})
STRING_KEYWORDS = frozenset({"type", "minLength", "maxLength", "pattern", "format"}) | ANNOTATIONS
INTEGER_KEYWORDS = frozenset({"type", "minimum", "maximum"}) | ANNOTATIONS
FORMATS: dict[str, Check] = {}


def _uuid(value: str) -> bool:
    # jsonschema's "uuid" format: parses, and hyphens where RFC 4122 puts them.
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return all(value[position] == "-" for position in (8, 13, 18, 23))


FORMATS["uuid"] = _uuid


def compile_check(schema: Any, resolve: Callable[[str], Any]) -> Check | None:
    """A predicate equivalent to validating against `schema`, or None when `schema` is not simple enough."""
    while isinstance(schema, Mapping) and set(schema) - ANNOTATIONS == {"$ref"}:
        schema = resolve(schema["$ref"])
    if not isinstance(schema, Mapping):
        return None
    keys = set(schema)
    if not keys - ANNOTATIONS:
        return lambda value: True  # any JSON value
    kind = schema.get("type")
    if kind == "string" and keys <= STRING_KEYWORDS:
        return _string_check(schema)
    if kind == "integer" and keys <= INTEGER_KEYWORDS:
        return _integer_check(schema)
    return None


def _string_check(schema: Mapping[str, Any]) -> Check | None:
    low, high = schema.get("minLength", 0), schema.get("maxLength")
    pattern = re.compile(schema["pattern"]) if "pattern" in schema else None
    fmt = schema.get("format")
    if fmt is not None and fmt not in FORMATS:
        return None
    format_check = FORMATS.get(fmt) if fmt else None

    def check(value: Any) -> bool:
        if not isinstance(value, str):
            return False
        # JSON Schema counts code points, as len() does.
        if len(value) < low or (high is not None and len(value) > high):
            return False
        if pattern is not None and pattern.search(value) is None:
            return False
        return format_check is None or format_check(value)

    return check


def _integer_check(schema: Mapping[str, Any]) -> Check:
    low, high = schema.get("minimum"), schema.get("maximum")

    def check(value: Any) -> bool:
        if isinstance(value, bool) or not isinstance(value, int):
            return False
        return (low is None or value >= low) and (high is None or value <= high)

    return check
