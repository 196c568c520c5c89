"""Overlay 1.1 in the standard mode: versions, fields, copy, primitives, 1.0 vs 1.1 (golden triples: fixtures/)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from accessgov_tools.overlay import OverlayApplyError, OverlayDocumentError, apply_overlay, main, parse_overlay


def _overlay(actions: list[dict[str, Any]], version: str = "1.1.0", **info: Any) -> dict[str, Any]:
    return {"overlay": version, "info": {"title": "t", "version": "1", **info}, "actions": actions}


def _apply(doc: Any, *actions: dict[str, Any], version: str = "1.1.0") -> Any:
    return apply_overlay(parse_overlay(_overlay(list(actions), version), "o.yaml"), doc)


@pytest.mark.parametrize(
    ("version", "feature_set"), [("1.0.0", "1.0"), ("1.0.9", "1.0"), ("1.1.0", "1.1"), ("1.1.7", "1.1")]
)
def test_the_patch_version_selects_no_feature(version: str, feature_set: str) -> None:
    assert parse_overlay(_overlay([{"target": "$"}], version), "o.yaml").feature_set == feature_set


@pytest.mark.parametrize("version", ["1.1", "1.2.0", "2.0.0", "v1.1.0", 1.1])
def test_other_versions_are_refused(version: Any) -> None:
    with pytest.raises(OverlayDocumentError, match=r"1\.0\.x or 1\.1\.x"):
        parse_overlay(_overlay([{"target": "$"}], version), "o.yaml")


def test_info_description_is_a_11_field() -> None:
    overlay = parse_overlay(_overlay([{"target": "$"}], description="What it is for"), "o.yaml")
    assert overlay.description == "What it is for"
    with pytest.raises(OverlayDocumentError, match=r"unknown field 'description' \(an Overlay 1.1 field"):
        parse_overlay(_overlay([{"target": "$"}], "1.0.0", description="x"), "o.yaml")
    with pytest.raises(OverlayDocumentError, match=r"info\.description must be a string"):
        parse_overlay(_overlay([{"target": "$"}], description=100), "o.yaml")


def test_actions_are_unique_as_json_values() -> None:
    with pytest.raises(OverlayDocumentError, match=r"actions\[1\] repeats actions\[0\]"):
        parse_overlay(_overlay([{"target": "$.a", "update": 1}, {"target": "$.a", "update": 1.0}]), "o.yaml")
    # true and 1 are different JSON values.
    parse_overlay(_overlay([{"target": "$.a", "update": True}, {"target": "$.a", "update": 1}]), "o.yaml")


@pytest.mark.parametrize(
    ("action", "message"),
    [
        ({"target": "$", "copy": 100}, "'copy' must be a JSONPath query"),
        ({"target": "$", "copy": "info.title"}, "'copy' must be a JSONPath query"),
        ({"target": "$", "copy": "$.a | $.b"}, "copy '\\$.a | \\$.b' is not an RFC 9535 JSONPath query"),
    ],
)
def test_a_copy_query_is_checked_before_anything_is_applied(action: dict[str, Any], message: str) -> None:
    with pytest.raises(OverlayDocumentError, match=message):
        parse_overlay(_overlay([action]), "o.yaml")


def test_copy_takes_its_value_before_the_action_changes_anything() -> None:
    """The target may contain the source or the reverse: the source is copied first, so nothing recurses."""
    assert _apply({"a": {"x": 1}}, {"target": "$.a", "copy": "$"}) == {"a": {"x": 1, "a": {"x": 1}}}
    assert _apply({"a": {"x": 1}, "b": {}}, {"target": "$", "copy": "$.a"}) == {"a": {"x": 1}, "b": {}, "x": 1}


def test_copied_values_are_not_shared_between_targets_or_with_the_source() -> None:
    result = _apply({"src": {"deep": {"v": 1}}, "t1": {}, "t2": {}}, {"target": "$['t1','t2']", "copy": "$.src"})
    assert result["t1"]["deep"] == result["t2"]["deep"] == result["src"]["deep"]
    assert result["t1"]["deep"] is not result["t2"]["deep"]
    assert result["t1"]["deep"] is not result["src"]["deep"]


def test_remove_wins_over_copy() -> None:
    assert _apply({"a": {}, "b": {"k": 1}}, {"target": "$.a", "copy": "$.b", "remove": True}) == {"b": {"k": 1}}


def test_remove_false_leaves_update_in_charge() -> None:
    assert _apply({"a": {}}, {"target": "$.a", "update": {"k": 1}, "remove": False}) == {"a": {"k": 1}}


def test_null_is_a_primitive() -> None:
    assert _apply({"a": {"b": "x"}}, {"target": "$.a.b", "update": None}) == {"a": {"b": None}}
    with pytest.raises(OverlayApplyError, match="selects an object, so 'update' must be an object, got primitive"):
        _apply({"a": {}}, {"target": "$.a", "update": None})


def test_a_primitive_target_refuses_an_object_or_array_update() -> None:
    with pytest.raises(OverlayApplyError, match="selects a primitive, so 'update' must be a primitive, got array"):
        _apply({"a": {"b": "x"}}, {"target": "$.a.b", "update": ["y"]})


def test_a_node_selected_twice_is_changed_once() -> None:
    assert _apply({"a": [1]}, {"target": "$['a','a']", "update": 2}) == {"a": [1, 2]}


def test_overlay_10_keeps_appending_to_a_mix_of_objects_and_arrays() -> None:
    """The all-one-kind rule is new in 1.1; 1.0 documents keep the 1.0 behaviour."""
    doc = {"o": {}, "a": []}
    assert _apply(doc, {"target": "$['o','a']", "update": {"k": 1}}, version="1.0.0") == {
        "o": {"k": 1},
        "a": [{"k": 1}],
    }
    with pytest.raises(OverlayApplyError, match="selects a mix of array and object nodes"):
        _apply(doc, {"target": "$['o','a']", "update": {"k": 1}})


def test_incompatible_nested_values_are_refused_with_their_path() -> None:
    with pytest.raises(OverlayApplyError, match=r"actions\[0\]\.paths: cannot merge an array into an object"):
        _apply({"paths": {}}, {"target": "$", "update": {"paths": []}})


ARRAY_UPDATE = [{"target": "$['x-list']", "update": ["b", "c"]}, {"target": "$['x-list']", "update": "d"}]


@pytest.mark.parametrize("version", ["1.0.0", "1.1.0"])
def test_an_array_update_of_an_array_is_concatenated_by_default(version: str) -> None:
    """What 1.1 says and every other engine does for 1.0 too (docs/overlays.md, "Arrays in Overlay 1.0")."""
    overlay = parse_overlay(_overlay(ARRAY_UPDATE, version), "o.yaml")
    assert apply_overlay(overlay, {"x-list": ["a"]}) == {"x-list": ["a", "b", "c", "d"]}


def test_one_entry_arrays_follows_the_10_letter() -> None:
    overlay = parse_overlay(_overlay(ARRAY_UPDATE, "1.0.0"), "o.yaml", one_entry_arrays=True)
    assert apply_overlay(overlay, {"x-list": ["a"]}) == {"x-list": ["a", ["b", "c"], "d"]}


def test_one_entry_arrays_does_not_change_11_documents() -> None:
    overlay = parse_overlay(_overlay(ARRAY_UPDATE, "1.1.0"), "o.yaml", one_entry_arrays=True)
    assert apply_overlay(overlay, {"x-list": ["a"]}) == {"x-list": ["a", "b", "c", "d"]}


def test_one_entry_arrays_on_the_command_line(tmp_path: Path) -> None:
    overlay, document, out = tmp_path / "o.yaml", tmp_path / "d.json", tmp_path / "out.json"
    overlay.write_text(json.dumps(_overlay(ARRAY_UPDATE, "1.0.0")), encoding="utf-8")
    document.write_text('{"x-list": ["a"]}', encoding="utf-8")
    assert main(["apply", str(overlay), str(document), "-o", str(out), "--one-entry-arrays"]) == 0
    assert json.loads(out.read_text(encoding="utf-8")) == {"x-list": ["a", ["b", "c"], "d"]}
    assert main(["apply", str(overlay), str(document), "-o", str(out)]) == 0
    assert json.loads(out.read_text(encoding="utf-8")) == {"x-list": ["a", "b", "c", "d"]}
