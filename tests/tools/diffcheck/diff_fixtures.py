"""The fixture pairs of the breaking-change report: for every check, a head that triggers it and one that does not.

Each case is three edits of one small contract (`template()`): the base, then on top of it the failing head
and the passing head (a nearby change the check must not report: the opposite direction, a reordered union,
a description). `python -m tests.tools.diffcheck.diff_fixtures` writes them as golden files under
`tests/tools/diffcheck/fixtures/<check-id>/` (`base.yaml`, `fail.yaml`, `pass.yaml` and the text reports
`fail.txt`, `pass.txt`); `test_diff_fixtures.py` holds the report to those files.
"""

from __future__ import annotations

import copy
import dataclasses
import datetime
import functools
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from accessgov_tools.bundle import dump_yaml
from accessgov_tools.diffcheck.config import DEFAULT_CONFIG, DiffConfig, load_config
from accessgov_tools.diffcheck.inputs import File
from accessgov_tools.diffcheck.pipeline import run
from accessgov_tools.diffcheck.render import render_text
from accessgov_tools.diffcheck.rules import CHECKS

FIXTURES = Path(__file__).parent / "fixtures"
TODAY = datetime.date(2026, 6, 1)  # the comparison date of every fixture (sunsets are judged against it)
Doc = dict[str, Any]
Edit = Callable[[Doc], None]
OP = ("paths", "/items/{id}", "post")
# The places a schema check is exercised at (its id's prefix), and each bound with its id's fragment and kind.
SCHEMA_PREFIXES = ("request-property", "request-parameter", "response-property", "response-header")
BOUNDS = {
    "maxLength": ("max-length", "upper"),
    "minLength": ("min-length", "lower"),
    "maximum": ("max", "upper"),
    "minimum": ("min", "lower"),
    "exclusiveMaximum": ("exclusive-max", "upper"),
    "exclusiveMinimum": ("exclusive-min", "lower"),
    "maxItems": ("max-items", "upper"),
    "minItems": ("min-items", "lower"),
    "maxProperties": ("max-properties", "upper"),
    "minProperties": ("min-properties", "lower"),
    "maxContains": ("max-contains", "upper"),
    "minContains": ("min-contains", "lower"),
}


def template() -> Doc:
    """An operation with a path and a query parameter, a request body, a response with a header, security."""
    return {
        "openapi": "3.1.0",
        "info": {"title": "fixture", "version": "1.0.0"},
        "security": [{"bearer": []}],
        "tags": [{"name": "Items"}],
        "paths": {
            "/items/{id}": {
                "post": {
                    "operationId": "updateItem",
                    "tags": ["Items"],
                    "parameters": [
                        {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}},
                        {"name": "q", "in": "query", "schema": {"type": "string"}},
                    ],
                    "requestBody": {
                        "required": True,
                        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ItemInput"}}},
                    },
                    "responses": {
                        "200": {
                            "description": "OK",
                            "headers": {"X-Value": {"schema": {"type": "string"}}},
                            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Item"}}},
                        },
                        "404": {"description": "Not found"},
                    },
                }
            }
        },
        "components": {
            "securitySchemes": {
                "bearer": {"type": "http", "scheme": "bearer"},
                "oauth": {
                    "type": "oauth2",
                    "flows": {"clientCredentials": {"tokenUrl": "/token", "scopes": {"items:read": "Read"}}},
                },
            },
            "schemas": {
                "ItemInput": {"type": "object", "properties": {"value": {"type": "string"}}},
                "Item": {"type": "object", "required": ["id"], "properties": {"id": {"type": "string"}}},
            },
        },
    }


def op(doc: Doc) -> Doc:
    return doc["paths"]["/items/{id}"]["post"]


def schemas(doc: Doc) -> Doc:
    return doc["components"]["schemas"]


def slot(prefix: str) -> Callable[[Doc], Doc]:
    """Where a schema check of `prefix` is exercised: the object that holds the schema under the key `value`."""

    def request_property(doc: Doc) -> Doc:
        return schemas(doc)["ItemInput"]["properties"]

    def response_property(doc: Doc) -> Doc:
        props = schemas(doc)["Item"]["properties"]
        props.setdefault("value", {"type": "string"})
        return props

    def request_parameter(doc: Doc) -> Doc:
        return _ParamSlot(op(doc)["parameters"][1])  # type: ignore[return-value]

    def response_header(doc: Doc) -> Doc:
        return _ParamSlot(op(doc)["responses"]["200"]["headers"]["X-Value"])  # type: ignore[return-value]

    return {
        "request-property": request_property,
        "response-property": response_property,
        "request-parameter": request_parameter,
        "response-header": response_header,
    }[prefix]


class _ParamSlot(dict):  # type: ignore[type-arg]
    """A parameter or header seen as a holder of `value` (its `schema`)."""

    def __init__(self, owner: Doc) -> None:
        super().__init__()
        self.owner = owner

    def __getitem__(self, key: str) -> Any:
        return self.owner["schema"]

    def __setitem__(self, key: str, value: Any) -> None:
        self.owner["schema"] = value


@dataclass
class Case:
    base: Edit
    fail: Edit
    passing: Edit


def _noop(doc: Doc) -> None:
    return None


def _set_schema(prefix: str, schema: Doc) -> Edit:
    def edit(doc: Doc) -> None:
        slot(prefix)(doc)["value"] = copy.deepcopy(schema)

    return edit


def _describe(prefix: str) -> Edit:
    def edit(doc: Doc) -> None:
        holder = slot(prefix)(doc)
        holder["value"] = {**holder["value"], "description": "Reworded."}

    return edit


def _schema_case(prefix: str, base: Doc, fail: Doc, passing: Doc | None = None) -> Case:
    return Case(
        _set_schema(prefix, base),
        _set_schema(prefix, fail),
        _set_schema(prefix, passing) if passing is not None else _describe(prefix),
    )


_BOUND_TYPES = {
    "maxLength": {"type": "string"},
    "minLength": {"type": "string"},
    "maxItems": {"type": "array", "items": {"type": "string"}},
    "minItems": {"type": "array", "items": {"type": "string"}},
    "maxProperties": {"type": "object"},
    "minProperties": {"type": "object"},
    "maxContains": {"type": "array", "contains": {"type": "string"}},
    "minContains": {"type": "array", "contains": {"type": "string"}},
}


def schema_cases(prefix: str) -> dict[str, Case]:
    """A case for every schema check of one location."""
    cases: dict[str, Case] = {}
    s = {"type": "string"}
    for keyword, (frag, kind) in BOUNDS.items():
        t = _BOUND_TYPES.get(keyword, {"type": "integer"})
        low, mid, high = {**t, keyword: 5}, {**t, keyword: 10}, {**t, keyword: 20}
        narrow, wide = (low, high) if kind == "upper" else (high, low)
        for change in ("decreased", "increased"):
            shrink = (change == "decreased") == (kind == "upper")
            cases[f"{prefix}-{frag}-{change}"] = _schema_case(
                prefix, mid, narrow if shrink else wide, wide if shrink else narrow
            )
        cases[f"{prefix}-{frag}-set"] = _schema_case(prefix, t, mid)
        cases[f"{prefix}-{frag}-unset"] = _schema_case(prefix, mid, t)
    i = {"type": "integer"}
    cases[f"{prefix}-multiple-of-changed"] = _schema_case(prefix, {**i, "multipleOf": 2}, {**i, "multipleOf": 3})
    cases[f"{prefix}-multiple-of-set"] = _schema_case(prefix, i, {**i, "multipleOf": 2})
    cases[f"{prefix}-multiple-of-unset"] = _schema_case(prefix, {**i, "multipleOf": 2}, i)
    arr = {"type": "array", "items": s}
    cases[f"{prefix}-unique-items-set"] = _schema_case(prefix, arr, {**arr, "uniqueItems": True})
    cases[f"{prefix}-unique-items-unset"] = _schema_case(prefix, {**arr, "uniqueItems": True}, arr)
    pat = {**s, "pattern": "^[a-z]+$"}
    cases[f"{prefix}-pattern-added"] = _schema_case(prefix, s, pat)
    cases[f"{prefix}-pattern-removed"] = _schema_case(prefix, pat, s)
    cases[f"{prefix}-pattern-changed"] = _schema_case(prefix, pat, {**s, "pattern": "^[0-9]+$"})
    cases[f"{prefix}-type-changed"] = _schema_case(prefix, s, {"type": "boolean"}, {"type": "string"})
    cases[f"{prefix}-type-generalized"] = _schema_case(prefix, i, {"type": "number"}, {"type": "integer", "minimum": 0})
    cases[f"{prefix}-type-specialized"] = _schema_case(prefix, {"type": "number"}, i)
    fmt = {**s, "format": "date"}
    cases[f"{prefix}-format-changed"] = _schema_case(prefix, fmt, {**s, "format": "date-time"})
    cases[f"{prefix}-format-added"] = _schema_case(prefix, s, fmt)
    cases[f"{prefix}-format-removed"] = _schema_case(prefix, fmt, s)
    # A format that excludes nothing the bounds allow (a day's seconds fit in int32); int8 would exclude some.
    day = {"type": "integer", "minimum": 0, "maximum": 86400}
    int32, int64, int8 = ({**day, "format": f} for f in ("int32", "int64", "int8"))
    cases[f"{prefix}-format-added-implied"] = _schema_case(prefix, day, int32, int8)
    cases[f"{prefix}-format-removed-implied"] = _schema_case(prefix, int32, day)
    cases[f"{prefix}-format-changed-implied"] = _schema_case(prefix, int32, int64, int8)
    cases[f"{prefix}-became-nullable"] = _schema_case(prefix, s, {"type": ["string", "null"]})
    cases[f"{prefix}-became-not-nullable"] = _schema_case(
        prefix, {"anyOf": [s, {"type": "null"}]}, s, {"type": ["string", "null"]}
    )
    closed = {**s, "enum": ["A", "B"]}
    open_ = {"x-open-enum": True, "anyOf": [{**s, "enum": ["A", "B"]}, s]}
    cases[f"{prefix}-became-enum"] = _schema_case(prefix, s, closed)
    cases[f"{prefix}-enum-removed"] = _schema_case(prefix, closed, s)
    cases[f"{prefix}-enum-value-added"] = _schema_case(
        prefix, closed, {**s, "enum": ["A", "B", "C"]}, {**s, "enum": ["B", "A"]}
    )
    cases[f"{prefix}-open-enum-value-added"] = _schema_case(
        prefix,
        open_,
        {"x-open-enum": True, "anyOf": [{**s, "enum": ["A", "B", "C"]}, s]},
        {**closed, "enum": ["A", "B", "C"]},
    )
    cases[f"{prefix}-enum-value-removed"] = _schema_case(prefix, closed, {**s, "enum": ["A"]})
    cases[f"{prefix}-enum-became-open"] = _schema_case(prefix, closed, open_)
    cases[f"{prefix}-enum-became-closed"] = _schema_case(prefix, open_, closed)
    cases[f"{prefix}-default-value-added"] = _schema_case(prefix, s, {**s, "default": "a"})
    cases[f"{prefix}-default-value-removed"] = _schema_case(prefix, {**s, "default": "a"}, s)
    cases[f"{prefix}-default-value-changed"] = _schema_case(prefix, {**s, "default": "a"}, {**s, "default": "b"})
    for keyword, frag in (("anyOf", "any-of"), ("oneOf", "one-of")):
        two = {keyword: [s, i]}
        # Passing heads reorder the members: unions are matched by content, never by position.
        cases[f"{prefix}-{frag}-added"] = _schema_case(
            prefix, two, {keyword: [s, i, {"type": "boolean"}]}, {keyword: [i, s]}
        )
        cases[f"{prefix}-{frag}-removed"] = _schema_case(prefix, two, {keyword: [s]}, {keyword: [i, s]})
    obj = {"type": "object", "properties": {"a": s}}
    cases[f"{prefix}-additional-properties-narrowed"] = _schema_case(
        prefix, obj, {**obj, "additionalProperties": False}
    )
    cases[f"{prefix}-additional-properties-widened"] = _schema_case(prefix, {**obj, "additionalProperties": False}, obj)
    cases[f"{prefix}-deprecated"] = _schema_case(prefix, s, {**s, "deprecated": True})
    cases[f"{prefix}-reactivated"] = _schema_case(prefix, {**s, "deprecated": True}, s)
    return cases


def _edit(fn: Callable[[Doc], Any]) -> Edit:
    def edit(doc: Doc) -> None:
        fn(doc)

    return edit


def _prop(doc: Doc, schema: str) -> Doc:
    return schemas(doc)[schema]["properties"]


def _required(doc: Doc, schema: str) -> list[str]:
    return schemas(doc)[schema].setdefault("required", [])


def _reword_op(doc: Doc) -> None:
    op(doc)["summary"] = "Update an item."


def property_cases() -> dict[str, Case]:
    s = {"type": "string"}
    ro, wo = {**s, "readOnly": True}, {**s, "writeOnly": True}

    def add(schema: str, name: str, body: Doc, required: bool = False) -> Edit:
        def edit(doc: Doc) -> None:
            _prop(doc, schema)[name] = copy.deepcopy(body)
            if required:
                _required(doc, schema).append(name)

        return edit

    def remove(schema: str, name: str) -> Edit:
        return _edit(
            lambda d: (
                _prop(d, schema).pop(name),
                _required(d, schema).remove(name) if name in _required(d, schema) else None,
            )
        )

    def require(schema: str, name: str) -> Edit:
        return _edit(lambda d: _required(d, schema).append(name))

    def unrequire(schema: str, name: str) -> Edit:
        return _edit(lambda d: _required(d, schema).remove(name))

    both: Callable[..., Edit] = lambda *edits: _edit(lambda d: [e(d) for e in edits])  # noqa: E731
    return {
        "new-required-request-property": Case(_noop, add("ItemInput", "extra", s, True), add("ItemInput", "extra", s)),
        "new-optional-request-property": Case(_noop, add("ItemInput", "extra", s), add("ItemInput", "extra", ro, True)),
        "request-property-removed": Case(
            _noop, remove("ItemInput", "value"), add("ItemInput", "value", {**s, "description": "x"})
        ),
        "request-property-became-required": Case(_noop, require("ItemInput", "value"), _reword_op),
        "request-property-became-optional": Case(
            require("ItemInput", "value"), unrequire("ItemInput", "value"), _reword_op
        ),
        "request-property-became-read-only": Case(_noop, add("ItemInput", "value", ro), add("ItemInput", "value", wo)),
        "request-property-became-not-read-only": Case(
            add("ItemInput", "value", ro), add("ItemInput", "value", s), _reword_op
        ),
        "response-required-property-removed": Case(
            _noop, remove("Item", "id"), add("Item", "id", {**s, "description": "x"})
        ),
        "response-optional-property-removed": Case(add("Item", "note", s), remove("Item", "note"), _reword_op),
        "response-required-property-added": Case(_noop, add("Item", "note", s, True), add("Item", "note", s)),
        "response-optional-property-added": Case(_noop, add("Item", "note", s), add("Item", "note", wo)),
        "response-property-became-optional": Case(_noop, unrequire("Item", "id"), _reword_op),
        "response-property-became-required": Case(add("Item", "note", s), require("Item", "note"), _reword_op),
        "response-property-became-write-only": Case(_noop, both(add("Item", "id", wo)), add("Item", "id", ro)),
        "response-property-became-not-write-only": Case(add("Item", "note", wo), add("Item", "note", s), _reword_op),
    }


def _second_op(doc: Doc, deprecated: bool = False) -> None:
    doc["paths"]["/items"] = {
        "get": {
            "operationId": "listItems",
            "tags": ["Items"],
            **({"deprecated": True} if deprecated else {}),
            "responses": {"200": {"description": "OK"}},
        }
    }


def operation_cases() -> dict[str, Case]:
    s = {"type": "string"}

    def param(name: str, where: str = "query", required: bool = False) -> Edit:
        return _edit(
            lambda d: op(d)["parameters"].append(
                {"name": name, "in": where, "required": required, "schema": s}
                if required
                else {"name": name, "in": where, "schema": s}
            )
        )

    def set_op(key: str, value: Any) -> Edit:
        return _edit(lambda d: op(d).__setitem__(key, copy.deepcopy(value)))

    def drop_op(key: str) -> Edit:
        return _edit(lambda d: op(d).pop(key))

    def body(doc: Doc) -> Doc:
        return op(doc)["requestBody"]

    def response(status: str, value: Doc | None) -> Edit:
        def edit(doc: Doc) -> None:
            if value is None:
                op(doc)["responses"].pop(status)
            else:
                op(doc)["responses"][status] = copy.deepcopy(value)

        return edit

    def header(name: str, value: Doc | None) -> Edit:
        def edit(doc: Doc) -> None:
            headers = op(doc)["responses"]["200"]["headers"]
            if value is None:
                headers.pop(name)
            else:
                headers[name] = copy.deepcopy(value)

        return edit

    def media(where: str, name: str, add: bool) -> Edit:
        def edit(doc: Doc) -> None:
            content = body(doc)["content"] if where == "request" else op(doc)["responses"]["200"]["content"]
            if add:
                content[name] = {"schema": {"type": "string"}}
            else:
                content.pop(name)

        return edit

    def scheme(fn: Callable[[Doc], Any]) -> Edit:
        return _edit(lambda d: fn(d["components"]["securitySchemes"]))

    def q_param(doc: Doc) -> Doc:
        return op(doc)["parameters"][1]

    json_media = "application/json"
    flows = lambda d: d["oauth"]["flows"]["clientCredentials"]  # noqa: E731
    return {
        "endpoint-added": Case(_noop, _second_op, _reword_op),
        "api-removed-without-deprecation": Case(_second_op, _edit(lambda d: d["paths"].pop("/items")), _reword_op),
        "api-removed-with-deprecation": Case(
            lambda d: _second_op(d, deprecated=True), _edit(lambda d: d["paths"].pop("/items")), _reword_op
        ),
        "endpoint-deprecated": Case(_noop, set_op("deprecated", True), _reword_op),
        "endpoint-reactivated": Case(set_op("deprecated", True), drop_op("deprecated"), _reword_op),
        "api-operation-id-removed": Case(_noop, set_op("operationId", "editItem"), _reword_op),
        "api-operation-id-added": Case(drop_op("operationId"), set_op("operationId", "updateItem"), _reword_op),
        "api-tag-removed": Case(_noop, set_op("tags", []), set_op("tags", ["Items"])),
        "api-tag-added": Case(_noop, set_op("tags", ["Items", "Edits"]), set_op("tags", ["Items"])),
        "new-required-request-parameter": Case(_noop, param("limit", required=True), param("limit")),
        "new-optional-request-parameter": Case(_noop, param("limit"), param("limit", "header", True)),
        "request-parameter-removed": Case(_noop, _edit(lambda d: op(d)["parameters"].pop(1)), _reword_op),
        "request-parameter-became-required": Case(
            _noop, _edit(lambda d: q_param(d).__setitem__("required", True)), _reword_op
        ),
        "request-parameter-became-optional": Case(
            _edit(lambda d: q_param(d).__setitem__("required", True)),
            _edit(lambda d: q_param(d).pop("required")),
            _reword_op,
        ),
        "request-body-added-required": Case(
            drop_op("requestBody"),
            set_op("requestBody", {"required": True, "content": {json_media: {"schema": s}}}),
            set_op("requestBody", {"content": {json_media: {"schema": s}}}),
        ),
        "request-body-added-optional": Case(
            drop_op("requestBody"),
            set_op("requestBody", {"content": {json_media: {"schema": s}}}),
            set_op("requestBody", {"required": True, "content": {json_media: {"schema": s}}}),
        ),
        "request-body-removed": Case(_noop, drop_op("requestBody"), _reword_op),
        "request-body-became-required": Case(
            _edit(lambda d: body(d).pop("required")), _edit(lambda d: body(d).__setitem__("required", True)), _reword_op
        ),
        "request-body-became-optional": Case(_noop, _edit(lambda d: body(d).pop("required")), _reword_op),
        "request-body-media-type-added": Case(_noop, media("request", "text/plain", True), _reword_op),
        "request-body-media-type-removed": Case(
            media("request", "text/plain", True), media("request", "text/plain", False), _reword_op
        ),
        "response-success-status-removed": Case(
            response("201", {"description": "Created"}), response("201", None), response("404", None)
        ),
        "response-non-success-status-removed": Case(
            _noop, response("404", None), response("201", {"description": "Created"})
        ),
        "response-success-status-added": Case(
            _noop, response("201", {"description": "Created"}), response("409", {"description": "Conflict"})
        ),
        "response-non-success-status-added": Case(
            _noop, response("409", {"description": "Conflict"}), response("201", {"description": "Created"})
        ),
        "response-media-type-removed": Case(
            media("response", "text/plain", True), media("response", "text/plain", False), _reword_op
        ),
        "response-media-type-added": Case(_noop, media("response", "text/plain", True), _reword_op),
        "required-response-header-removed": Case(
            header("X-Rate", {"required": True, "schema": s}), header("X-Rate", None), header("X-Value", None)
        ),
        "optional-response-header-removed": Case(
            _noop, header("X-Value", None), header("X-Rate", {"required": True, "schema": s})
        ),
        "response-header-added": Case(_noop, header("X-Rate", {"schema": s}), header("x-value", {"schema": s})),
        "response-header-became-optional": Case(
            header("X-Value", {"required": True, "schema": s}), header("X-Value", {"schema": s}), _reword_op
        ),
        "response-header-became-required": Case(_noop, header("X-Value", {"required": True, "schema": s}), _reword_op),
        "api-security-removed": Case(
            set_op("security", [{"bearer": []}, {"oauth": []}]),
            set_op("security", [{"bearer": []}]),
            set_op("security", [{"oauth": []}, {"bearer": []}]),
        ),
        "api-security-added": Case(
            _noop, set_op("security", [{"bearer": []}, {"oauth": []}]), set_op("security", [{"bearer": []}])
        ),
        "api-security-scope-added": Case(
            set_op("security", [{"oauth": []}]),
            set_op("security", [{"oauth": ["items:read"]}]),
            set_op("security", [{"oauth": []}]),
        ),
        "api-security-scope-removed": Case(
            set_op("security", [{"oauth": ["items:read"]}]), set_op("security", [{"oauth": []}]), _reword_op
        ),
        "api-global-security-removed": Case(
            _noop, _edit(lambda d: d.__setitem__("security", [{"oauth": []}])), set_op("security", [{"bearer": []}])
        ),
        "api-global-security-added": Case(
            _noop, _edit(lambda d: d.__setitem__("security", [{"bearer": []}, {}])), _reword_op
        ),
        "api-global-security-scope-added": Case(
            _edit(lambda d: d.__setitem__("security", [{"oauth": []}])),
            _edit(lambda d: d.__setitem__("security", [{"oauth": ["items:read"]}])),
            _reword_op,
        ),
        "api-global-security-scope-removed": Case(
            _edit(lambda d: d.__setitem__("security", [{"oauth": ["items:read"]}])),
            _edit(lambda d: d.__setitem__("security", [{"oauth": []}])),
            _reword_op,
        ),
        "api-security-component-removed": Case(
            _noop, scheme(lambda s_: s_.pop("oauth")), scheme(lambda s_: s_["oauth"].__setitem__("description", "x"))
        ),
        "api-security-component-added": Case(
            _noop,
            scheme(lambda s_: s_.__setitem__("key", {"type": "apiKey", "in": "header", "name": "X-Key"})),
            _reword_op,
        ),
        "api-security-component-type-changed": Case(
            _noop,
            scheme(lambda s_: s_["bearer"].__setitem__("scheme", "basic")),
            scheme(lambda s_: s_["bearer"].__setitem__("description", "x")),
        ),
        "api-security-component-oauth-token-url-changed": Case(
            _noop, scheme(lambda s_: flows(s_).__setitem__("tokenUrl", "/oauth/token")), _reword_op
        ),
        "api-security-component-oauth-scope-added": Case(
            _noop, scheme(lambda s_: flows(s_)["scopes"].__setitem__("items:write", "Write")), _reword_op
        ),
        "api-security-component-oauth-scope-removed": Case(
            _noop,
            scheme(lambda s_: flows(s_).__setitem__("scopes", {})),
            scheme(lambda s_: flows(s_)["scopes"].__setitem__("items:write", "Write")),
        ),
        "api-version-not-bumped": Case(
            _noop,
            _edit(lambda d: (op(d)["responses"].pop("200"), d["info"].__setitem__("version", "1.0.0"))),
            response("200", None),
        ),
    }


def all_cases() -> dict[str, Case]:
    cases: dict[str, Case] = {}
    for prefix in SCHEMA_PREFIXES:
        cases.update(schema_cases(prefix))
    # Parameters and headers carry `deprecated` on the parameter/header object, not on its schema.
    for prefix, owner in (
        ("request-parameter", lambda d: op(d)["parameters"][1]),
        ("response-header", lambda d: op(d)["responses"]["200"]["headers"]["X-Value"]),
    ):
        cases[f"{prefix}-deprecated"] = Case(
            _noop, _edit(lambda d, o=owner: o(d).__setitem__("deprecated", True)), _describe(prefix)
        )
        cases[f"{prefix}-reactivated"] = Case(
            _edit(lambda d, o=owner: o(d).__setitem__("deprecated", True)),
            _edit(lambda d, o=owner: o(d).pop("deprecated")),
            _describe(prefix),
        )
    cases.update(property_cases())
    cases.update(operation_cases())
    from tests.tools.diffcheck.diff_fixtures_2020 import (  # it builds on this module
        keyword_cases,
        lifecycle_cases,
        media_and_webhook_cases,
    )

    for prefix in SCHEMA_PREFIXES:
        cases.update(keyword_cases(prefix))
    cases.update(lifecycle_cases())
    cases.update(media_and_webhook_cases())
    return cases


def documents(case: Case) -> tuple[Doc, Doc, Doc]:
    """(base, failing head, passing head); heads get a new major version unless the case is about versions."""
    base = template()
    case.base(base)
    fail, passing = copy.deepcopy(base), copy.deepcopy(base)
    for head, edit in ((fail, case.fail), (passing, case.passing)):
        head["info"]["version"] = "2.0.0"
        edit(head)
    return base, fail, passing


@functools.cache
def _config() -> DiffConfig:
    """`severities.yaml`, parsed once: parsing it was most of a render's time (two renders for each of ~580 pairs)."""
    return load_config()


def _fresh_copy(cached: DiffConfig) -> DiffConfig:
    """Copies of its (mutable) mappings, as a fresh load would give; Policy is frozen."""
    return dataclasses.replace(
        cached, severities=dict(cached.severities), policies=dict(cached.policies), graded_by=dict(cached.graded_by)
    )


@functools.cache
def _config_at(path: Path, mtime_ns: int, size: int) -> DiffConfig:
    return load_config(path)


def cached_load_config(path: Path = DEFAULT_CONFIG) -> DiffConfig:
    """`load_config`, parsed once per file and version of it (a test's tools would otherwise parse the unchanged
    `severities.yaml` on every call, a third of a fixture pair's time): a stand-in for the tools' `load_config`."""
    try:
        stat = path.stat()
    except OSError:
        return load_config(path)  # its own error, every time
    return _fresh_copy(_config_at(path.resolve(), stat.st_mtime_ns, stat.st_size))


def render(folder: Path, head_name: str) -> str:
    """The text report for `<folder>/base.yaml` -> `<folder>/<head_name>`, paths relative to the folder."""
    config = _fresh_copy(_config())
    base, head = File(folder / "base.yaml"), File(folder / head_name)
    report = run(base, head, config=config, accepted=[], today=TODAY, relative_to=folder.resolve())
    return render_text(report.findings)


PAIRING = Path(__file__).parent / "pairing"  # the pairing cases, written as the fixture pairs are


@dataclass
class Pairing:
    """A union member or an enumeration value that moved (`case.passing`: moved only) and moved and changed
    (`case.fail`): paired by what it accepts, it is never reported added or removed; `reported` and
    `passing_reported` are the checks each report holds, and nothing else."""

    case: Case
    reported: frozenset[str]
    passing_reported: frozenset[str] = frozenset()


_LABEL = {
    "type": "object",
    "required": ["text"],
    "properties": {
        "text": {"type": "string", "maxLength": 20},
        "kind": {"oneOf": [{"type": "string", "format": "date"}, {"type": "integer"}]},
    },
}


def _labelled(prefix: str, schema: Doc, component: Doc = _LABEL) -> Edit:
    """`value` set to `schema`, with a component `Label` beside the template's for it to refer to."""

    def edit(doc: Doc) -> None:
        schemas(doc)["Label"] = copy.deepcopy(component)
        slot(prefix)(doc)["value"] = copy.deepcopy(schema)

    return edit


def pairing_cases() -> dict[str, Pairing]:
    """Members and values that moved: reordered, moved and changed, under a `$ref` or inline, between members."""
    req, resp = "request-property", "response-property"
    s, i = {"type": "string"}, {"type": "integer"}
    a = {"type": "object", "required": ["a"], "properties": {"a": s}}
    b = {"type": "object", "required": ["b"], "properties": {"b": i}}
    short, patterned = {**s, "maxLength": 5}, {**s, "maxLength": 50, "pattern": "^x"}
    label = {"$ref": "#/components/schemas/Label"}
    inline = copy.deepcopy(_LABEL)
    narrowed = copy.deepcopy(_LABEL)
    narrowed["properties"]["text"]["maxLength"] = 10
    closed = {**s, "enum": ["a", "b", "c"]}

    def enum(*values: str) -> Doc:
        return {**s, "enum": list(values)}

    def union(prefix: str, keyword: str, base: list[Doc], fail: list[Doc], passing: list[Doc]) -> Case:
        return Case(*(_labelled(prefix, {keyword: members}) for members in (base, fail, passing)))

    a_longer = {**a, "properties": {"a": {**s, "maxLength": 10}}}
    return {
        "one-of-member-reordered": Pairing(
            union(resp, "oneOf", [a, b, short], [short, a_longer, b], [short, a, b]),
            frozenset({"response-property-max-length-set"}),
        ),
        "one-of-members-changed-in-place": Pairing(
            union(resp, "oneOf", [short, patterned], [s, {**patterned, "maxLength": 60}], [patterned, short]),
            frozenset({"response-property-max-length-unset", "response-property-max-length-increased"}),
        ),
        "any-of-member-ref-to-inline": Pairing(
            union(req, "anyOf", [label, i], [i, narrowed], [i, inline]),
            frozenset({"request-property-max-length-decreased"}),
        ),
        "any-of-member-inline-to-ref": Pairing(
            Case(
                _labelled(req, {"anyOf": [inline, i]}),
                _labelled(req, {"anyOf": [i, label]}, narrowed),
                _labelled(req, {"anyOf": [label, i]}),
            ),
            frozenset({"request-property-max-length-decreased"}),
        ),
        "enum-reordered": Pairing(
            Case(*(_labelled(req, e) for e in (closed, enum("c", "a"), enum("c", "a", "b")))),
            frozenset({"request-property-enum-value-removed"}),
        ),
        "enum-reordered-in-a-member": Pairing(
            union(req, "anyOf", [enum("a", "b"), i], [i, enum("b")], [i, enum("b", "a")]),
            frozenset({"request-property-enum-value-removed"}),
        ),
        "enum-value-moved-between-members": Pairing(
            union(req, "anyOf", [closed, label], [enum("a"), label, enum("c")], [enum("a", "b"), label, enum("c")]),
            frozenset({"request-property-enum-value-removed"}),
        ),
        "enum-members-merged": Pairing(
            union(
                req, "anyOf", [enum("a", "b"), enum("c"), label], [label, enum("c", "a")], [label, enum("c", "a", "b")]
            ),
            frozenset({"request-property-enum-value-removed"}),
        ),
        "open-enum-listed-on-a-string": Pairing(
            Case(
                _labelled(req, s),
                _labelled(req, enum("a", "b")),
                _labelled(req, {"x-open-enum": True, "anyOf": [enum("a", "b"), s]}),
            ),
            frozenset({"request-property-became-enum"}),
        ),
        "enum-value-moved-to-the-open-branch": Pairing(
            Case(
                _labelled(req, closed),
                _labelled(req, enum("a", "b")),
                _labelled(req, {"x-open-enum": True, "anyOf": [enum("a", "b"), s]}),
            ),
            frozenset({"request-property-enum-value-removed"}),
            frozenset({"request-property-enum-became-open"}),
        ),
    }


def write(root: Path = FIXTURES) -> int:
    cases = all_cases()
    missing = sorted(set(CHECKS) - set(cases))
    extra = sorted(set(cases) - set(CHECKS))
    if missing or extra:
        raise SystemExit(f"cases without a check: {extra}; checks without a case: {missing}")
    for check_id, case in sorted(cases.items()):
        folder = root / check_id
        folder.mkdir(parents=True, exist_ok=True)
        for name, doc in zip(("base.yaml", "fail.yaml", "pass.yaml"), documents(case), strict=True):
            (folder / name).write_text(dump_yaml(doc), encoding="utf-8")
        (folder / "fail.txt").write_text(render(folder, "fail.yaml"), encoding="utf-8")
        (folder / "pass.txt").write_text(render(folder, "pass.yaml"), encoding="utf-8")
    for name, pairing in sorted(pairing_cases().items()):
        folder = PAIRING / name
        folder.mkdir(parents=True, exist_ok=True)
        for file, doc in zip(("base.yaml", "fail.yaml", "pass.yaml"), documents(pairing.case), strict=True):
            (folder / file).write_text(dump_yaml(doc), encoding="utf-8")
        (folder / "fail.txt").write_text(render(folder, "fail.yaml"), encoding="utf-8")
        (folder / "pass.txt").write_text(render(folder, "pass.yaml"), encoding="utf-8")
    return len(cases)


if __name__ == "__main__":
    print(f"wrote {write()} fixture pairs under {FIXTURES}", file=sys.stderr)
