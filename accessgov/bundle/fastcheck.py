"""Fast validity checks for the schemas of parameters and request bodies.

The engine validates every parameter and body of every request. jsonschema walks its full machinery even for
`{type: string, maxLength: 128}` (profiling showed a tenth of a webhook delivery and of a restart spent in
it), so schemas made only of the keywords below are compiled into plain predicates. A predicate only says
whether the value is valid: on a failure the engine asks jsonschema for its message, so errors read the same
either way. A schema with any other keyword returns None and stays with jsonschema, whose verdict is then
the only one; a test holds the two to the same verdicts on generated values.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

from jsonschema import Draft202012Validator

Check = Callable[[Any], bool]
Resolve = Callable[[str], Any]
# Keywords that do not constrain the value.
ANNOTATIONS = frozenset(
    {"title", "description", "examples", "example", "default", "deprecated", "$comment", "readOnly", "writeOnly"}
)
# Every keyword compiled here.
KNOWN = ANNOTATIONS | {"$ref", "type", "minLength", "maxLength", "pattern", "format", "minimum", "maximum", "enum"}
KNOWN |= {"properties", "required", "additionalProperties", "items", "anyOf"}


class _Unsupported(Exception):
    """The schema uses something this compiler does not handle: jsonschema decides."""


_CANONICAL_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


def _uuid(value: str) -> bool:
    # jsonschema's "uuid" format: parses, and hyphens where RFC 4122 puts them. The canonical form (every
    # event id) is decided by a pattern; anything else by the parser, as jsonschema does.
    if _CANONICAL_UUID.fullmatch(value):
        return True
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return all(value[position] == "-" for position in (8, 13, 18, 23))


FORMATS: dict[str, Check] = {"uuid": _uuid}
FORMAT_CHECKER = Draft202012Validator.FORMAT_CHECKER


def _conforms(value: str, name: str) -> bool:
    conforms: bool = FORMAT_CHECKER.conforms(value, name)
    return conforms


def _is_any_type(kinds: tuple[str, ...], value: Any) -> bool:
    return any(_is_type(kind, value) for kind in kinds)


def _is_type(kind: str, value: Any) -> bool:
    if kind == "string":
        return isinstance(value, str)
    if kind == "null":
        return value is None
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "object":
        return isinstance(value, dict)
    if kind == "array":
        return isinstance(value, list)
    if isinstance(value, bool):
        return False
    if kind == "integer":
        return isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    if kind == "number":
        return isinstance(value, int | float)
    raise _Unsupported(kind)


def compile_check(schema: Any, resolve: Resolve) -> Check | None:
    """A predicate equivalent to validating against `schema`, or None when `schema` is not simple enough."""
    try:
        return _compile(schema, resolve, depth=0)
    except _Unsupported:
        return None


def _compile(schema: Any, resolve: Resolve, depth: int) -> Check:
    if depth > 32:
        raise _Unsupported("depth")
    if schema is True:
        return lambda value: True
    if not isinstance(schema, Mapping) or {key for key in schema if not str(key).startswith("x-")} - KNOWN:
        raise _Unsupported("keyword")  # extensions (`x-error-code`) constrain nothing
    checks: list[Check] = []
    if "$ref" in schema:
        checks.append(_compile(resolve(schema["$ref"]), resolve, depth + 1))
    if "type" in schema:
        kinds = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        for kind in kinds:
            _is_type(kind, None)  # raises for an unknown type name
        if len(kinds) == 1:  # the usual case: one call, no generator per value
            checks.append(partial(_is_type, kinds[0]))
        else:
            checks.append(partial(_is_any_type, tuple(kinds)))
    if "enum" in schema:
        options = list(schema["enum"])
        if not all(isinstance(option, str) for option in options):
            raise _Unsupported("enum")  # JSON equality of numbers and booleans is subtler than Python's
        allowed = frozenset(options)
        checks.append(lambda value: isinstance(value, str) and value in allowed)
    checks.extend(_string_checks(schema))
    checks.extend(_number_checks(schema))
    checks.extend(_object_checks(schema, resolve, depth))
    if "items" in schema:
        item = _compile(schema["items"], resolve, depth + 1)
        checks.append(lambda value: not isinstance(value, list) or all(item(element) for element in value))
    if "anyOf" in schema:
        options_checks = [_compile(option, resolve, depth + 1) for option in schema["anyOf"]]
        checks.append(lambda value: any(option(value) for option in options_checks))
    if not checks:
        return lambda value: True
    if len(checks) == 1:
        return checks[0]

    def every(value: Any) -> bool:
        for check in checks:  # noqa: SIM110  # a loop, not all() over a generator: no generator object per value
            if not check(value):
                return False
        return True

    return every


def _string_checks(schema: Mapping[str, Any]) -> list[Check]:
    checks: list[Check] = []
    low, high = schema.get("minLength"), schema.get("maxLength")
    if low is not None or high is not None:
        # Only strings are constrained; JSON Schema counts code points, as len() does.
        checks.append(
            lambda value: (
                not isinstance(value, str)
                or ((low is None or len(value) >= low) and (high is None or len(value) <= high))
            )
        )
    if "pattern" in schema:
        pattern = re.compile(schema["pattern"])
        checks.append(lambda value: not isinstance(value, str) or pattern.search(value) is not None)
    if "format" in schema:
        name = schema["format"]
        fmt = FORMATS.get(name)
        if fmt is None and name in FORMAT_CHECKER.checkers:
            # jsonschema's own format function: the same verdict by construction.
            fmt = partial(_conforms, name=name)
        if fmt is None:
            raise _Unsupported("format")
        checks.append(lambda value: not isinstance(value, str) or fmt(value))
    return checks


def _number_checks(schema: Mapping[str, Any]) -> list[Check]:
    low, high = schema.get("minimum"), schema.get("maximum")
    if low is None and high is None:
        return []

    def check(value: Any) -> bool:
        if isinstance(value, bool) or not isinstance(value, int | float):
            return True
        return (low is None or value >= low) and (high is None or value <= high)

    return [check]


def _object_checks(schema: Mapping[str, Any], resolve: Resolve, depth: int) -> list[Check]:
    checks: list[Check] = []
    properties = {name: _compile(sub, resolve, depth + 1) for name, sub in (schema.get("properties") or {}).items()}
    required = frozenset(schema.get("required") or ())
    extra = schema.get("additionalProperties", True)
    extra_check = None if extra is True else (None if extra is False else _compile(extra, resolve, depth + 1))

    def check(value: Any) -> bool:
        if not isinstance(value, dict):
            return True
        if not value.keys() >= required:  # a set comparison in C, not a generator per object
            return False
        for name, item in value.items():
            sub = properties.get(name)
            if sub is not None:
                if not sub(item):
                    return False
            elif extra is False or (extra_check is not None and not extra_check(item)):
                return False
        return True

    if properties or required or extra is not True:
        checks.append(check)
    return checks
