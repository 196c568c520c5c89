"""The bundle read once: JSON pointers, the operation table as plain data, the parameter grammar, validators.

The reference server's engine, the validation proxy and the mock (which vendors this package) all read operations
and parameter values here, so they judge a request alike.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Mapping
from typing import Any

from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from .fastcheck import Check, compile_check

BUNDLE_URI = "urn:accessgov:bundle"
HTTP_METHODS = ("get", "put", "post", "delete", "patch")
INTEGER = re.compile(r"([+-]?)0*([0-9]+)", re.ASCII)  # leading zeros are no digits of the value
MAX_INTEGER_DIGITS = 19
INTEGER_CAP = 10**19  # stands for any integer beyond int64: every int64 bound judges it as the real value


def escape(part: str) -> str:
    """One JSON pointer token (RFC 6901)."""
    return part.replace("~", "~0").replace("/", "~1")


def resolve(doc: Any, pointer: str) -> Any:
    """The node at `pointer` (`/a/b` or `#/a/b`; `/parameters/0` indexes a list)."""
    node = doc
    for part in pointer.lstrip("#").lstrip("/").split("/"):
        node = node[int(part)] if isinstance(node, list) else node[part.replace("~1", "/").replace("~0", "~")]
    return node


def deref(doc: Any, node: Any, where: str = "") -> tuple[Any, str]:
    """`node` with local `$ref`s followed, and the pointer where it was found (`where` when it is no `$ref`)."""
    while isinstance(node, dict) and str(node.get("$ref", "")).startswith("#/"):
        where = node["$ref"][1:]
        node = resolve(doc, where)
    return node, where


def path_regex(path: str) -> re.Pattern[str]:
    """A path template (`/apps/{app_id}`) as a regex with one named group per parameter."""
    return re.compile("^" + re.sub(r"\\\{([^}]+)\\\}", r"(?P<\1>[^/]+)", re.escape(path)) + "$")


def parse_integer(raw: str) -> int | None:
    """An integer parameter's value: optional sign and ASCII digits, else None. Exact up to 19 significant digits;
    longer ones are +-10**19 (beyond int64 only the sign matters to a bound, and int() refuses over 4,300 digits)."""
    match = INTEGER.fullmatch(raw)
    if match is None:
        return None
    sign, digits = match.groups()
    number = int(digits) if len(digits) <= MAX_INTEGER_DIGITS else INTEGER_CAP
    return -number if sign == "-" else number


def coerce(kind: str, raw: str) -> Any:
    """A path, query or header string as the parameter's schema type (`kind`); ValueError for a non-integer
    value of an integer parameter. Booleans are "true"/"false"; anything else stays a string for the schema."""
    if kind == "integer":
        number = parse_integer(raw)
        if number is None:
            raise ValueError("not an integer")
        return number
    if kind == "boolean" and raw in ("true", "false"):
        return raw == "true"
    return raw


def credential(scheme: dict[str, Any]) -> str:
    """`bearer`, `basic` or `header:<name>`: what presence of a security scheme's credentials means."""
    if scheme.get("type") == "apiKey" and scheme.get("in") == "header":
        return f"header:{scheme['name'].lower()}"
    if scheme.get("type") == "http" and str(scheme.get("scheme", "")).lower() == "basic":
        return "basic"
    return "bearer"


def present(headers: Mapping[str, str], credential: str) -> bool:
    """Whether `headers` (lower-case names) carry `credential` (see `credential`): a non-empty API-key header, or
    `Authorization` with the scheme and a value, for Basic one that is base64 of `user:password` (RFC 7617)."""
    if credential.startswith("header:"):
        return bool(headers.get(credential.removeprefix("header:")))
    scheme, _, value = headers.get("authorization", "").partition(" ")
    if not value.strip() or scheme.lower() != credential:
        return False
    if credential == "basic":
        try:
            return ":" in base64.b64decode(value.strip(), validate=True).decode("utf-8")
        except ValueError:  # not base64, or not UTF-8
            return False
    return True


def _header_value(header: dict[str, Any], schema: dict[str, Any]) -> str:
    """A value for a documented response header: the one its schema allows (`const`, a single `enum`), else its
    example, else a placeholder."""
    if "const" in schema:
        return str(schema["const"])
    if len(schema.get("enum", [])) == 1:
        return str(schema["enum"][0])
    return str(header.get("example", schema.get("example", "mock")))


def _response(doc: dict[str, Any], raw: Any, where: str) -> dict[str, Any]:
    response, where = deref(doc, raw, where)
    content = response.get("content", {})
    media_type = "application/json" if "application/json" in content else next(iter(content), None)
    examples: dict[str, Any] = {}
    media = content[media_type] if media_type else {}
    if "schema" in media:
        if "example" in media:
            examples["default"] = media["example"]
        for name, candidate in media.get("examples", {}).items():
            examples[name] = deref(doc, candidate)[0].get("value")
    headers = {}
    for name, raw_header in response.get("headers", {}).items():
        header, at = deref(doc, raw_header, f"{where}/headers/{escape(name)}")
        headers[name] = {
            "value": _header_value(header, deref(doc, header.get("schema", {}))[0]),
            "required": bool(header.get("required", False)),
            "schema": f"{at}/schema",
        }
    return {
        # Every media type, with its schema's pointer (None without one); `media` is the one a mock answers with.
        "content": {m: f"{where}/content/{escape(m)}/schema" if "schema" in s else None for m, s in content.items()},
        "media": media_type,
        "schema": f"{where}/content/{escape(str(media_type))}/schema" if "schema" in media else None,
        "examples": examples,
        "headers": headers,
    }


def operations_from_bundle(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """The operations of a bundle as plain data (schemas as JSON pointers into it), sorted by path and method, so it
    can be generated into a module and reviewed."""
    schemes = doc.get("components", {}).get("securitySchemes", {})
    table = []
    for path, item in doc.get("paths", {}).items():
        for method in HTTP_METHODS:
            op = item.get(method)
            if not isinstance(op, dict):
                continue
            base = f"/paths/{escape(path)}/{method}"
            params = []
            for index, raw in enumerate([*item.get("parameters", []), *op.get("parameters", [])]):
                param, where = deref(doc, raw, f"{base}/parameters/{index}")
                params.append(
                    {
                        "name": param["name"],
                        "in": param["in"],
                        "required": bool(param.get("required", False)),
                        "schema": f"{where}/schema",
                        "type": deref(doc, param.get("schema", {}))[0].get("type", "string"),
                        "error_code": param.get("x-error-code"),
                    }
                )
            body = None
            if "requestBody" in op:
                request_body, where = deref(doc, op["requestBody"], f"{base}/requestBody")
                body = {
                    "required": bool(request_body.get("required", False)),
                    "content": {m: f"{where}/content/{escape(m)}/schema" for m in request_body.get("content", {})},
                }
            table.append(
                {
                    "operation_id": op.get("operationId", f"{method.upper()} {path}"),
                    "method": method.upper(),
                    "path": path,
                    "parameters": params,
                    "body": body,
                    # Per requirement, (scheme, what its credentials need to be present), sorted by scheme.
                    "security": [
                        sorted((name, credential(schemes.get(name, {}))) for name in requirement)
                        for requirement in op.get("security", doc.get("security", []))
                    ],
                    "responses": {
                        str(status): _response(doc, raw, f"{base}/responses/{status}")
                        for status, raw in op.get("responses", {}).items()
                    },
                }
            )
    return sorted(table, key=lambda entry: (entry["path"], entry["method"]))


class Schemas:
    """`validator(pointer)` (jsonschema, for verdicts and their wording) and `check(pointer)` (a fast predicate
    where the schema is simple enough) for the schema at a JSON pointer into `doc`; both cached per pointer."""

    def __init__(self, doc: dict[str, Any]) -> None:
        self.doc = doc
        resource = Resource.from_contents(doc, default_specification=DRAFT202012)
        self.registry = Registry().with_resource(BUNDLE_URI, resource)
        self._validators: dict[str, Draft202012Validator] = {}
        self._checks: dict[str, Check] = {}

    def validator(self, pointer: str) -> Draft202012Validator:
        validator = self._validators.get(pointer)
        if validator is None:
            validator = self._validators[pointer] = Draft202012Validator(
                {"$ref": f"{BUNDLE_URI}#{pointer}"},
                registry=self.registry,
                format_checker=Draft202012Validator.FORMAT_CHECKER,
            )
        return validator

    def check(self, pointer: str) -> Check:
        check = self._checks.get(pointer)
        if check is None:
            compiled = compile_check(resolve(self.doc, pointer), lambda ref: resolve(self.doc, ref))
            check = self._checks[pointer] = compiled or self.validator(pointer).is_valid
        return check
