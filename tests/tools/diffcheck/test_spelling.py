"""Grading that does not depend on spelling: enumerations written as unions of `const`, formats that exclude
nothing, union members compared by what they accept."""

from __future__ import annotations

from typing import Any

import pytest

from accessgov_tools.diffcheck.compare import compare
from accessgov_tools.diffcheck.formats import excludes_nothing
from accessgov_tools.diffcheck.model import Finding
from accessgov_tools.diffcheck.resolve import Document, view
from accessgov_tools.diffcheck.subsume import Subsumption

Schema = dict[str, Any]


def _doc(request: Schema, response: Schema, components: Schema | None = None) -> Schema:
    def body(schema: Schema) -> Schema:
        return {"content": {"application/json": {"schema": schema}}}

    return {
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1"},
        "paths": {
            "/a": {
                "post": {
                    "requestBody": {**body(request), "required": True},
                    "responses": {"200": {"description": "OK", **body(response)}},
                }
            }
        },
        "components": {"schemas": components or {}},
    }


def _diff(base: Schema, head: Schema) -> list[Finding]:
    head["info"]["version"] = "2"
    return compare(base, head)


def _consts(*values: Any, titled: bool = True) -> Schema:
    return {
        "type": "integer",
        "format": "int32",
        "oneOf": [{"title": f"NAME_{v}", "const": v, **({"description": "x"} if titled else {})} for v in values],
    }


def _response_field(schema: Schema) -> Schema:
    return {"type": "object", "properties": {"kind": schema}}


@pytest.mark.parametrize("titled", [True, False])
def test_a_value_added_to_a_const_union_is_graded_as_an_enum_value(titled: bool) -> None:
    plain = _diff(
        _doc({}, _response_field({"type": "integer", "enum": [1, 2]})),
        _doc({}, _response_field({"type": "integer", "enum": [1, 2, 3]})),
    )
    spelled = _diff(
        _doc({}, _response_field(_consts(1, 2, titled=titled))),
        _doc({}, _response_field(_consts(1, 2, 3, titled=titled))),
    )
    assert [(f.check, f.severity, f.values) for f in spelled] == [(f.check, f.severity, f.values) for f in plain]
    assert [(f.check, f.values) for f in spelled] == [("response-property-enum-value-added", (3,))]
    assert "NAME_3" not in spelled[0].message and "`3`" in spelled[0].message
    assert spelled[0].subject == "response 200 application/json.kind"


def test_an_enum_respelled_as_a_const_union_is_no_change() -> None:
    plain = {"type": "string", "enum": ["a", "b"]}
    spelled = {"anyOf": [{"const": "a", "title": "A"}, {"const": "b", "title": "B"}]}
    assert _diff(_doc(plain, _response_field(plain)), _doc(spelled, _response_field(spelled))) == []


def test_a_const_union_with_a_plain_string_is_an_open_enum() -> None:
    closed = {"type": "string", "enum": ["a"]}
    open_ = {"anyOf": [{"const": "a"}, {"const": "b"}, {"type": "string"}]}
    checks = {f.check for f in _diff(_doc({}, _response_field(closed)), _doc({}, _response_field(open_)))}
    assert checks == {"response-property-open-enum-value-added", "response-property-enum-became-open"}


def test_removed_values_of_a_request_const_union_break_and_name_the_value() -> None:
    findings = _diff(_doc(_consts(1, 2, 3), {}), _doc(_consts(1, 3), {}))
    assert [(f.check, f.values, f.severity.value) for f in findings] == [
        ("request-property-enum-value-removed", (2,), "breaking")
    ]


def _integer(**extra: Any) -> Schema:
    return {"type": "object", "properties": {"seconds": {"type": "integer", **extra}}}


@pytest.mark.parametrize(
    ("before", "after", "check"),
    [
        ({"minimum": 0, "maximum": 21600}, {"minimum": 0, "maximum": 21600, "format": "int32"}, "added-implied"),
        ({"minimum": 0, "maximum": 21600}, {"minimum": 0, "maximum": 21600, "format": "int64"}, "added-implied"),
        ({"minimum": 0, "maximum": 21600}, {"minimum": 0, "maximum": 21600, "format": "uint16"}, "added-implied"),
        ({"minimum": 0, "maximum": 21600}, {"minimum": 0, "maximum": 21600, "format": "int8"}, "added"),
        ({}, {"format": "int32"}, "added"),
        ({"minimum": 0}, {"minimum": 0, "format": "int32"}, "added"),
        ({"enum": [1, 7]}, {"enum": [1, 7], "format": "int32"}, "added-implied"),
        ({"const": 2**40}, {"const": 2**40, "format": "int32"}, "added"),
        ({"exclusiveMinimum": -1, "exclusiveMaximum": 70000, "format": "int32"}, {"exclusiveMinimum": -1,
          "exclusiveMaximum": 70000}, "removed-implied"),
        ({"minimum": 0, "maximum": 9, "format": "int32"}, {"minimum": 0, "maximum": 9, "format": "int64"},
         "changed-implied"),
    ],
)  # fmt: skip
def test_a_format_is_a_narrowing_only_when_it_excludes_a_value(before: Schema, after: Schema, check: str) -> None:
    findings = _diff(_doc(_integer(**before), {}), _doc(_integer(**after), {}))
    assert [f.check for f in findings] == [f"request-property-format-{check}"]


def test_string_formats_are_implied_by_the_values_they_enumerate() -> None:
    doc = Document({})
    dates = view(doc, {"type": "string", "enum": ["2024-01-31", "2025-02-28"]}, ())
    assert excludes_nothing("date", dates)
    assert not excludes_nothing("date", view(doc, {"type": "string", "enum": ["2024-01-31", "soon"]}, ()))
    assert not excludes_nothing("date", view(doc, {"type": "string"}, ()))
    assert not excludes_nothing("no-such-format", dates)
    assert not excludes_nothing("int32", view(doc, {"type": "number", "minimum": 0, "maximum": 5}, ()))
    assert excludes_nothing("float", view(doc, {"type": "number", "minimum": 0, "maximum": 5}, ()))


_COMPONENTS = {
    "Cat": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}},
    "Dog": {"type": "object", "required": ["bark"], "properties": {"bark": {"type": "boolean"}}},
}


@pytest.mark.parametrize("keyword", ["oneOf", "anyOf"])
def test_an_unchanged_ref_member_is_never_reported_when_a_schema_becomes_a_union(keyword: str) -> None:
    cat, dog = {"$ref": "#/components/schemas/Cat"}, {"$ref": "#/components/schemas/Dog"}
    for before, after in (
        (cat, {keyword: [cat, dog]}),
        ({"anyOf": [cat, {"type": "null"}]}, {keyword: [cat, dog, {"type": "null"}]}),
    ):
        findings = _diff(_doc({}, before, _COMPONENTS), _doc({}, after, _COMPONENTS))
        frag = "one-of" if keyword == "oneOf" else "any-of"
        assert [(f.check, f.message) for f in findings] == [
            (f"response-property-{frag}-added", f"`response 200 application/json`: {keyword} member `$ref Dog` added"
             " (response)")
        ]  # fmt: skip
        back = _diff(_doc({}, after, _COMPONENTS), _doc({}, before, _COMPONENTS))
        assert [f.check for f in back] == [f"response-property-{frag}-removed"]


def test_a_member_replaced_by_a_wider_one_is_no_removal() -> None:
    cat = {"$ref": "#/components/schemas/Cat"}
    short = {"type": "string", "maxLength": 5}
    findings = _diff(
        _doc({"anyOf": [cat, short]}, {}, _COMPONENTS), _doc({"anyOf": [cat, {"type": "string"}]}, {}, _COMPONENTS)
    )
    assert [f.check for f in findings] == ["request-property-max-length-unset"]


def test_a_member_replaced_by_a_narrower_one_is_compared_with_it() -> None:
    cat = {"$ref": "#/components/schemas/Cat"}
    loose = {"type": "object", "properties": {"size": {"type": "integer"}}}
    tight = {"type": "object", "properties": {"size": {"type": "integer", "maximum": 9}}}
    findings = _diff(_doc({}, {"oneOf": [cat, loose]}, _COMPONENTS), _doc({}, {"oneOf": [cat, tight]}, _COMPONENTS))
    assert [f.check for f in findings] == ["response-property-max-set"]


def test_a_member_replaced_by_an_unrelated_one_is_removed_and_added() -> None:
    cat, dog = {"$ref": "#/components/schemas/Cat"}, {"$ref": "#/components/schemas/Dog"}
    findings = _diff(
        _doc({"anyOf": [cat, {"type": "string"}]}, {}, _COMPONENTS), _doc({"anyOf": [cat, dog]}, {}, _COMPONENTS)
    )
    assert sorted(f.check for f in findings) == ["request-property-any-of-added", "request-property-any-of-removed"]


@pytest.mark.parametrize(
    ("wide", "narrow", "expected"),
    [
        ({}, {"type": "string"}, True),
        ({"type": "number"}, {"type": "integer"}, True),
        ({"type": "integer"}, {"type": "number"}, False),
        ({"type": "string", "maxLength": 9}, {"type": "string", "maxLength": 5}, True),
        ({"type": "string", "maxLength": 5}, {"type": "string"}, False),
        ({"enum": ["a", "b"]}, {"const": "a"}, True),
        ({"enum": ["a"]}, {"enum": ["a", "b"]}, False),
        ({"type": "object", "required": ["a"]}, {"type": "object", "required": ["a", "b"]}, True),
        ({"type": "object", "required": ["a", "b"]}, {"type": "object", "required": ["a"]}, False),
        ({"anyOf": [{"type": "string"}, {"type": "integer"}]}, {"type": "integer", "minimum": 0}, True),
        ({"type": "string"}, {"anyOf": [{"type": "string"}, {"type": "integer"}]}, False),
        ({"type": "string", "pattern": "^a"}, {"type": "string"}, False),
        ({"type": "object", "properties": {"a": {"type": "string"}}}, {"type": "object"}, False),
        (
            {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": False},
            {"type": "object", "properties": {"a": {"const": "x"}}, "additionalProperties": False},
            True,
        ),
    ],
)
def test_subsumption_is_shown_or_refused(wide: Schema, narrow: Schema, expected: bool) -> None:
    assert Subsumption(Document({}), Document({})).accepts(wide, narrow) is expected


def test_subsumption_of_recursive_schemas_terminates() -> None:
    tree = {
        "type": "object",
        "properties": {"children": {"type": "array", "items": {"$ref": "#/components/schemas/T"}}},
    }
    doc = Document({"components": {"schemas": {"T": tree}}})
    assert Subsumption(doc, doc).accepts({"$ref": "#/components/schemas/T"}, {"$ref": "#/components/schemas/T"})
