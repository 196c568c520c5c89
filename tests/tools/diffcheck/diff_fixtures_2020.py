"""Fixture cases for the JSON Schema 2020-12 keywords and for deprecation with a sunset (see `diff_fixtures`).

Each case is (base, failing head, passing head) on the template contract; passing heads make a nearby change the
check must not report (a description, the same subschema reordered, a sunset far enough ahead).
"""

from __future__ import annotations

from typing import Any

from tests.tools.diffcheck.diff_fixtures import Case, Doc, _edit, _noop, _reword_op, _schema_case, op, schemas

# The 2020-12 keywords whose presence is checked, and the entry keywords, with their ids' fragments.
PRESENCE = {
    "const": "const",
    "if": "if",
    "then": "then",
    "else": "else",
    "contains": "contains",
    "propertyNames": "property-names",
    "unevaluatedProperties": "unevaluated-properties",
    "unevaluatedItems": "unevaluated-items",
    "contentSchema": "content-schema",
    "not": "not",
}
ENTRIES = {
    "dependentRequired": "dependent-required",
    "dependentSchemas": "dependent-schema",
    "patternProperties": "pattern-property",
}
FAR = "2099-12-31"  # a sunset well beyond the shipped grace periods from the fixtures' date
NEAR = "2026-06-15"  # two weeks after the fixtures' date: too soon for a stable operation


def keyword_cases(prefix: str) -> dict[str, Case]:
    """added/removed/changed for every 2020-12 keyword at one location."""
    s: dict[str, Any] = {"type": "string"}
    sub = {"type": "string", "minLength": 1}
    values = {"const": "A"}
    cases: dict[str, Case] = {}
    for keyword, frag in PRESENCE.items():
        value = values.get(keyword, sub)
        with_it = {**s, keyword: value}
        described = {**s, keyword: value, "description": "reworded"}
        cases[f"{prefix}-{frag}-added"] = _schema_case(prefix, s, with_it, {**s, "description": "reworded"})
        cases[f"{prefix}-{frag}-removed"] = _schema_case(prefix, with_it, s, described)
    cases[f"{prefix}-const-changed"] = _schema_case(prefix, {**s, "const": "A"}, {**s, "const": "B"})
    arr = {"type": "array", "prefixItems": [s]}
    two = {"type": "array", "prefixItems": [s, {"type": "integer"}]}
    cases[f"{prefix}-prefix-items-added"] = _schema_case(prefix, arr, two)
    cases[f"{prefix}-prefix-items-removed"] = _schema_case(prefix, two, arr)
    entry_values = {"dependentRequired": ["b"], "dependentSchemas": {"required": ["b"]}, "patternProperties": s}
    obj = {"type": "object"}
    for keyword, frag in ENTRIES.items():
        name = "^x-" if keyword == "patternProperties" else "a"
        one = {**obj, keyword: {name: entry_values[keyword]}}
        cases[f"{prefix}-{frag}-added"] = _schema_case(prefix, obj, one)
        cases[f"{prefix}-{frag}-removed"] = _schema_case(prefix, one, obj)
    dep = {**obj, "dependentRequired": {"a": ["b"]}}
    cases[f"{prefix}-dependent-required-changed"] = _schema_case(
        prefix, dep, {**obj, "dependentRequired": {"a": ["c"]}}, {**obj, "dependentRequired": {"a": ["b"]}}
    )
    content = {**s, "contentMediaType": "application/json", "contentEncoding": "base64"}
    cases[f"{prefix}-content-media-type-changed"] = _schema_case(
        prefix, content, {**content, "contentMediaType": "text/plain"}
    )
    cases[f"{prefix}-content-encoding-changed"] = _schema_case(
        prefix, content, {**content, "contentEncoding": "base32"}
    )
    part = {"$ref": "#/components/schemas/Item"}
    note = {"allOf": [{"title": "x"}]}
    cases[f"{prefix}-all-of-added"] = _schema_case(prefix, s, {**s, "allOf": [part]}, {**s, **note})
    cases[f"{prefix}-all-of-removed"] = _schema_case(prefix, {**s, "allOf": [part]}, s)
    cases[f"{prefix}-all-of-added-annotation-only"] = _schema_case(prefix, s, {**s, **note}, {**s, "allOf": [part]})
    cases[f"{prefix}-all-of-removed-annotation-only"] = _schema_case(prefix, {**s, **note}, s)
    ext = {**s, "x-extensible-enum": ["A", "B"]}
    cases[f"{prefix}-x-extensible-enum-value-removed"] = _schema_case(
        prefix, ext, {**s, "x-extensible-enum": ["A"]}, {**s, "x-extensible-enum": ["A", "B", "C"]}
    )
    cases[f"{prefix}-x-extensible-enum-value-added"] = _schema_case(
        prefix, ext, {**s, "x-extensible-enum": ["A", "B", "C"]}, {**s, "x-extensible-enum": ["B", "A"]}
    )
    return cases


def _set_op(**fields: Any) -> Any:
    return _edit(lambda d: op(d).update(fields))


def _q(doc: Doc) -> Doc:
    return op(doc)["parameters"][1]


def _set_q(**fields: Any) -> Any:
    return _edit(lambda d: _q(d).update(fields))


def _drop_q(doc: Doc) -> None:
    op(doc)["parameters"].pop(1)


def _prop(direction: str) -> Any:
    name = "ItemInput" if direction == "request" else "Item"

    def holder(doc: Doc) -> Doc:
        props = schemas(doc)[name]["properties"]
        props.setdefault("value", {"type": "string"})
        return props["value"]

    return holder


def _second_op(doc: Doc, **fields: Any) -> None:
    doc["paths"]["/items"] = {
        "get": {"operationId": "listItems", "responses": {"200": {"description": "OK"}}, **fields}
    }


def lifecycle_cases() -> dict[str, Case]:
    """Sunset rules for operations, parameters and properties; stability levels."""
    dep = {"deprecated": True}
    cases = {
        "endpoint-deprecated-with-sunset": Case(_noop, _set_op(**dep, **{"x-sunset": FAR}), _set_op(**dep)),
        "api-deprecated-sunset-missing": Case(_noop, _set_op(**dep), _set_op(**dep, **{"x-sunset": FAR})),
        "api-deprecated-sunset-parse": Case(_noop, _set_op(**dep, **{"x-sunset": "soon"}), _set_op(**dep)),
        "api-sunset-date-too-small": Case(
            _noop, _set_op(**dep, **{"x-sunset": NEAR}), _set_op(**dep, **{"x-sunset": FAR})
        ),
        "api-sunset-deleted": Case(
            _set_op(**dep, **{"x-sunset": FAR}), _edit(lambda d: op(d).pop("x-sunset")), _reword_op
        ),
        "api-sunset-date-changed-too-small": Case(
            _set_op(**dep, **{"x-sunset": FAR}), _set_op(**{"x-sunset": NEAR}), _set_op(**{"x-sunset": "2100-01-01"})
        ),
        "api-path-sunset-parse": Case(
            _set_op(**dep, **{"x-sunset": FAR}), _set_op(**{"x-sunset": "later"}), _set_op(**{"x-sunset": "2100-01-01"})
        ),
        "api-removed-before-sunset": Case(
            lambda d: _second_op(d, deprecated=True, **{"x-sunset": FAR}),
            _edit(lambda d: d["paths"].pop("/items")),
            _reword_op,
        ),
        "api-stability-decreased": Case(
            _set_op(**{"x-stability-level": "stable"}),
            _set_op(**{"x-stability-level": "beta"}),
            _set_op(**{"x-stability-level": "stable", "summary": "x"}),
        ),
        "api-stability-increased": Case(
            _set_op(**{"x-stability-level": "beta"}),
            _set_op(**{"x-stability-level": "stable"}),
            _set_op(**{"x-stability-level": "beta", "summary": "x"}),
        ),
        "api-invalid-stability-level": Case(
            _noop, _set_op(**{"x-stability-level": "ga"}), _set_op(**{"x-stability-level": "stable"})
        ),
        "request-parameter-deprecated-sunset-missing": Case(_noop, _set_q(**dep), _set_q(**dep, **{"x-sunset": FAR})),
        "request-parameter-sunset-parse": Case(_noop, _set_q(**dep, **{"x-sunset": "soon"}), _set_q(**dep)),
        "request-parameter-sunset-date-too-small": Case(
            _noop, _set_q(**dep, **{"x-sunset": NEAR}), _set_q(**dep, **{"x-sunset": FAR})
        ),
        "request-parameter-sunset-deleted": Case(
            _set_q(**dep, **{"x-sunset": FAR}), _edit(lambda d: _q(d).pop("x-sunset")), _reword_op
        ),
        "request-parameter-sunset-date-changed-too-small": Case(
            _set_q(**dep, **{"x-sunset": FAR}), _set_q(**{"x-sunset": NEAR}), _set_q(**{"x-sunset": "2100-01-01"})
        ),
        "request-parameter-removed-before-sunset": Case(_set_q(**dep, **{"x-sunset": FAR}), _drop_q, _reword_op),
        "request-parameter-removed-with-deprecation": Case(
            _set_q(**dep, **{"x-sunset": "2026-01-01"}), _drop_q, _set_q(**{"description": "x"})
        ),
    }
    for direction in ("request", "response"):
        holder = _prop(direction)

        def set_prop(h: Any = holder, **fields: Any) -> Any:
            return _edit(lambda d: h(d).update(fields))

        p, base = f"{direction}-property", set_prop()  # the base already has the property
        cases[f"{p}-deprecated-with-sunset"] = Case(
            base, set_prop(**dep, **{"x-sunset": FAR}), set_prop(description="x")
        )
        cases[f"{p}-deprecated-sunset-missing"] = Case(base, set_prop(**dep), set_prop(**dep, **{"x-sunset": FAR}))
        cases[f"{p}-deprecated-sunset-invalid"] = Case(
            base, set_prop(**dep, **{"x-sunset": "soon"}), set_prop(**dep, **{"x-sunset": FAR})
        )
        stable, beta = set_prop(**{"x-stability-level": "stable"}), set_prop(**{"x-stability-level": "beta"})
        cases[f"{p}-stability-decreased"] = Case(stable, beta, set_prop(description="x"))
        cases[f"{p}-stability-increased"] = Case(beta, stable, set_prop(description="x"))
        cases[f"{p}-sunset-date-too-small"] = Case(
            base, set_prop(**dep, **{"x-sunset": NEAR}), set_prop(**dep, **{"x-sunset": FAR})
        )
    return cases


def _body(media: str, schema: Doc) -> Any:
    def edit(doc: Doc) -> None:
        op(doc)["requestBody"]["content"] = {media: {"schema": schema}}

    return _edit(edit)


def _response(media: str, schema: Doc | None = None) -> Any:
    def edit(doc: Doc) -> None:
        op(doc)["responses"]["200"]["content"] = {media: {"schema": schema or {"type": "string"}}}

    return _edit(edit)


def _webhook(doc: Doc) -> None:
    doc["webhooks"] = {"itemChanged": {"post": {"responses": {"200": {"description": "OK"}}}}}


def _undeclared(name: str) -> Any:
    return _edit(lambda d: schemas(d)["ItemInput"].setdefault("required", []).append(name))


def _item_value(schema: Doc, required: bool) -> Any:
    def edit(doc: Doc) -> None:
        item = schemas(doc)["Item"]
        item["properties"]["value"] = schema
        item["required"] = ["id", "value"] if required else ["id"]

    return _edit(edit)


def media_and_webhook_cases() -> dict[str, Case]:
    """Loosely typed bodies, renamed response media types, webhooks, undeclared required names."""
    xml, json_ = "application/xml", "application/json"
    integer, string = {"type": "integer"}, {"type": "string"}
    return {
        "request-property-type-compatible": Case(
            _body(xml, integer), _body(xml, string), _body(xml, {**integer, "description": "x"})
        ),
        "response-property-type-compatible": Case(
            _response(xml, string), _response(xml, integer), _response(xml, {**string, "description": "x"})
        ),
        "response-media-type-name-changed": Case(
            _response(json_), _response("application/json; charset=utf-8"), _reword_op
        ),
        "response-media-type-name-specialized": Case(
            _response(json_), _response("application/problem+json"), _response("application/json; charset=utf-8")
        ),
        "response-media-type-name-generalized": Case(
            _response("application/problem+json"), _response(json_), _reword_op
        ),
        "webhook-added": Case(_noop, _webhook, _reword_op),
        "webhook-removed": Case(_webhook, _edit(lambda d: d.pop("webhooks")), _reword_op),
        "request-property-undeclared-became-required": Case(_noop, _undeclared("other"), _undeclared("value")),
        "response-required-property-became-not-write-only": Case(
            _item_value({"type": "string", "writeOnly": True}, required=True),
            _item_value({"type": "string"}, required=True),
            _item_value({"type": "string"}, required=False),
        ),
    }
