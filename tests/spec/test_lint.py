"""Each house lint rule passes on the real spec and catches a deliberately broken document."""

from __future__ import annotations

import copy

from accessgov_tools.lint import lint


def rules_of(doc: dict) -> set[str]:
    return {finding.rule for finding in lint(doc)}


def test_real_spec_is_clean(doc: dict) -> None:
    assert [str(f) for f in lint(doc)] == []


def test_snake_case_property(doc: dict) -> None:
    broken = copy.deepcopy(doc)
    broken["components"]["schemas"]["Task"]["properties"]["comment_count"] = {"type": "integer"}
    assert "camel-case-properties" in rules_of(broken)


def test_closed_enum_in_response(doc: dict) -> None:
    broken = copy.deepcopy(doc)
    broken["components"]["schemas"]["TaskState"] = {"type": "string", "enum": ["TASK_STATE_UNSPECIFIED"]}
    assert "open-enum" in rules_of(broken)


def test_open_enum_without_unspecified_first(doc: dict) -> None:
    broken = copy.deepcopy(doc)
    broken["components"]["schemas"]["TaskState"]["anyOf"][0]["enum"].reverse()
    assert "open-enum" in rules_of(broken)


def test_lower_case_enum_value(doc: dict) -> None:
    broken = copy.deepcopy(doc)
    broken["components"]["schemas"]["PolicyType"]["anyOf"][0]["enum"].append("grant")
    assert "open-enum" in rules_of(broken)


def test_array_without_items(doc: dict) -> None:
    broken = copy.deepcopy(doc)
    del broken["components"]["schemas"]["Task"]["properties"]["approverIds"]["items"]
    assert "array-items" in rules_of(broken)


def test_required_name_that_is_no_property(doc: dict) -> None:
    broken = copy.deepcopy(doc)
    broken["components"]["schemas"]["TaskType"]["oneOf"][0]["required"] = ["grants"]
    assert "required-properties-defined" in rules_of(broken)


def test_union_over_required_in_allof_is_not_reported(doc: dict) -> None:
    """`Field`: `allOf: [{oneOf: [{required: [stringField]}, ...]}]`; the names are Field's own properties."""
    assert not [f for f in lint(doc) if f.rule == "required-properties-defined"]
    broken = copy.deepcopy(doc)
    broken["components"]["schemas"]["Field"]["properties"].pop("stringField")
    assert "required-properties-defined" in rules_of(broken)
