"""The overlay engine (`accessgov_tools.overlay`): golden triples, strict-mode house rules, shape errors, the variants.

The Overlay 1.1 features and the standard mode are covered in test_overlay_11.py.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

import pytest
from openapi_spec_validator import validate

from accessgov_tools.bundle import REPO, dump_json, dump_yaml
from accessgov_tools.overlay import (
    BASE_DOCUMENT,
    VARIANTS_DIR,
    OverlayDocumentError,
    OverlayError,
    apply_overlay,
    load_document,
    load_overlay,
    main,
    parse_overlay,
    variant_outputs,
)

# One group: the committed variants' expected texts (`outputs`) are computed once, not on each worker.
pytestmark = pytest.mark.xdist_group("overlay-variants")

FIXTURES = Path(__file__).parent / "fixtures"
CASES = sorted(p.name for p in FIXTURES.iterdir() if (p / "overlay.yaml").exists())


def _load(path: Path) -> Any:
    return load_document(path)


def _overlay(actions: list[dict[str, Any]], **top: Any) -> dict[str, Any]:
    return {"overlay": "1.0.0", "info": {"title": "t", "version": "1"}, "actions": actions, **top}


@pytest.mark.parametrize("case", CASES)
def test_golden_triple(case: str) -> None:
    """Applying `overlay.yaml` to `openapi.yaml` gives `output.yaml`, key order included, or fails with `error.txt`."""
    folder = FIXTURES / case
    error = folder / "error.txt"
    if error.exists():
        with pytest.raises(OverlayError, match=re.escape(error.read_text(encoding="utf-8").strip())):
            apply_overlay(load_overlay(folder / "overlay.yaml"), _load(folder / "openapi.yaml"))
        return
    result = apply_overlay(load_overlay(folder / "overlay.yaml"), _load(folder / "openapi.yaml"))
    expected = _load(folder / "output.yaml")
    assert result == expected
    # dict equality ignores order; the dumped text does not.
    assert dump_yaml(result) == dump_yaml(expected)


def test_fixture_cases_are_all_there() -> None:
    assert len(CASES) >= 30
    assert all((FIXTURES / case / "output.yaml").exists() != (FIXTURES / case / "error.txt").exists() for case in CASES)


def test_input_document_is_not_mutated() -> None:
    doc = {"info": {"title": "a"}, "tags": []}
    before = copy.deepcopy(doc)
    apply_overlay(parse_overlay(_overlay([{"target": "$.tags", "update": {"name": "x"}}]), "o.yaml"), doc)
    assert doc == before


def test_update_values_are_not_shared_between_targets() -> None:
    doc = {"a": {}, "b": {}}
    result = apply_overlay(parse_overlay(_overlay([{"target": "$.*", "update": {"x": {"y": 1}}}]), "o.yaml"), doc)
    assert result["a"]["x"] is not result["b"]["x"]


def test_array_target_appends_an_object_and_concatenates_an_array() -> None:
    """Overlay 1.0 documents as every other engine (and 1.1) reads them; `one_entry_arrays` is 1.0's letter."""
    doc = {"list": [1]}
    actions = [{"target": "$.list", "update": [2, 3]}, {"target": "$.list", "update": {"k": 4}}]
    assert apply_overlay(parse_overlay(_overlay(actions), "o.yaml"), doc) == {"list": [1, 2, 3, {"k": 4}]}
    letter = parse_overlay(_overlay(actions), "o.yaml", one_entry_arrays=True)
    assert apply_overlay(letter, doc) == {"list": [1, [2, 3], {"k": 4}]}


def test_remove_several_items_of_one_array() -> None:
    doc = {"xs": [{"k": 1}, {"k": 2}, {"k": 1}, {"k": 3}, {"k": 1}]}
    overlay = parse_overlay(_overlay([{"target": "$.xs[?@.k == 1]", "remove": True}]), "o.yaml")
    assert apply_overlay(overlay, doc) == {"xs": [{"k": 2}, {"k": 3}]}


def test_remove_nested_matches_of_a_descendant_query() -> None:
    doc = {"a": {"x-internal": True, "b": {"x-internal": True}}, "c": [{"x-internal": True}, 1]}
    overlay = parse_overlay(_overlay([{"target": "$..[?@['x-internal'] == true]", "remove": True}]), "o.yaml")
    assert apply_overlay(overlay, doc) == {"c": [1]}


def test_remove_wins_over_update() -> None:
    doc = {"a": {"b": 1}, "c": 2}
    overlay = parse_overlay(_overlay([{"target": "$.a", "update": {"z": 1}, "remove": True}]), "o.yaml")
    assert apply_overlay(overlay, doc) == {"c": 2}


def test_no_match_is_an_error_naming_file_action_and_target() -> None:
    overlay = parse_overlay(
        _overlay(
            [
                {"target": "$.info", "update": {"x-a": 1}},
                {"target": "$.paths['/gone'].get", "description": "Fix the gone op", "update": {"x-b": 1}},
            ]
        ),
        "overlays/example.yaml",
        strict=True,
    )
    with pytest.raises(OverlayError) as raised:
        apply_overlay(overlay, {"info": {}, "paths": {}})
    message = str(raised.value)
    assert "overlays/example.yaml" in message
    assert "actions[1]" in message
    assert "Fix the gone op" in message
    assert "$.paths['/gone'].get" in message


def test_no_match_is_allowed_with_x_allow_empty() -> None:
    action = {"target": "$..[?@['x-internal'] == true]", "remove": True, "x-allow-empty": True}
    assert apply_overlay(parse_overlay(_overlay([action]), "o.yaml", strict=True), {"a": 1}) == {"a": 1}


def test_update_of_a_primitive_is_an_error_in_overlay_10() -> None:
    overlay = parse_overlay(_overlay([{"target": "$.info.title", "update": "New"}]), "o.yaml")
    with pytest.raises(OverlayError, match=r"o\.yaml: actions\[0\].*selects a primitive.*Overlay 1\.0"):
        apply_overlay(overlay, {"info": {"title": "Old"}})


def test_incompatible_merge_is_an_error() -> None:
    overlay = parse_overlay(_overlay([{"target": "$", "update": {"info": "not an object"}}]), "o.yaml")
    with pytest.raises(OverlayError, match=r"cannot merge a?n? ?primitive into an object"):
        apply_overlay(overlay, {"info": {"title": "Old"}})


def test_update_of_an_object_with_a_non_object_is_an_error() -> None:
    overlay = parse_overlay(_overlay([{"target": "$.info", "update": ["x"]}]), "o.yaml")
    with pytest.raises(OverlayError, match="must be an object"):
        apply_overlay(overlay, {"info": {}})


def test_removing_the_root_is_an_error() -> None:
    overlay = parse_overlay(_overlay([{"target": "$", "remove": True}]), "o.yaml")
    with pytest.raises(OverlayError, match="root"):
        apply_overlay(overlay, {})


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ({"info": {"title": "t", "version": "1"}, "actions": [{"target": "$", "remove": True}]}, "'overlay'"),
        (_overlay([{"target": "$"}], overlay="2.0.0"), "1.0.x or 1.1.x"),
        (_overlay([]), "non-empty list"),
        (_overlay([{"update": {}}]), "'target' is required"),
        (_overlay([{"target": "info.title", "update": {}}]), "starting with '\\$'"),
        (_overlay([{"target": "$.a | $.b", "update": {}}]), "not an RFC 9535 JSONPath"),
        (_overlay([{"target": "$", "remove": "yes"}]), "'remove' must be true or false"),
        (_overlay([{"target": "$", "update": {}, "replace": True}]), "unknown field 'replace'"),
        (_overlay([{"target": "$", "update": {}}] * 2), "must be unique"),
        ({"overlay": "1.0.0", "info": {"title": "t"}, "actions": [{"target": "$", "remove": True}]}, "info.version"),
        ({"overlay": "1.0.0", "actions": [{"target": "$", "remove": True}]}, "'info'"),
        (["not", "a", "mapping"], "must be a mapping"),
    ],
)
def test_broken_overlay_documents_fail_clearly(doc: Any, message: str) -> None:
    for strict in (False, True):
        with pytest.raises(OverlayDocumentError, match=message) as raised:
            parse_overlay(doc, "overlays/broken.yaml", strict=strict)
        assert str(raised.value).startswith("overlays/broken.yaml")


@pytest.mark.parametrize(
    "action",
    [
        {"target": "$.info"},
        {"target": "$.info", "remove": False},
        {"target": "$.info", "description": "only a description"},
    ],
)
def test_strict_mode_refuses_an_action_that_does_nothing(action: dict[str, Any]) -> None:
    with pytest.raises(OverlayDocumentError, match="neither 'update', 'copy' nor 'remove: true'"):
        parse_overlay(_overlay([action]), "overlays/broken.yaml", strict=True)
    # The standard's reading: schema-valid, and a no-op.
    doc = {"info": {"title": "t"}}
    assert apply_overlay(parse_overlay(_overlay([action]), "o.yaml"), doc) == doc


def test_strict_mode_wants_x_allow_empty_to_be_a_boolean() -> None:
    action = {"target": "$.nothing", "remove": True, "x-allow-empty": "yes"}
    with pytest.raises(OverlayDocumentError, match="'x-allow-empty' must be true or false"):
        parse_overlay(_overlay([action]), "o.yaml", strict=True)
    assert apply_overlay(parse_overlay(_overlay([action]), "o.yaml"), {"a": 1}) == {"a": 1}


def test_overlay_extensions_are_allowed() -> None:
    overlay = parse_overlay(
        _overlay([{"target": "$", "update": {}, "x-note": 1}], **{"x-owner": "docs", "extends": "a.yaml"}), "o.yaml"
    )
    assert overlay.extends == "a.yaml"


def test_cli_apply_reports_errors_with_exit_code_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    overlay = tmp_path / "bad.yaml"
    overlay.write_text(dump_yaml(_overlay([{"target": "$.nothing", "update": {"a": 1}}])), encoding="utf-8")
    source = tmp_path / "in.yaml"
    source.write_text("openapi: 3.1.0\n", encoding="utf-8")
    assert main(["apply", "--strict", str(overlay), str(source), "-o", str(tmp_path / "out.yaml")]) == 2
    assert "bad.yaml: actions[0]" in capsys.readouterr().err
    # Standard mode: a target that selects nothing is a successful no-op.
    assert main(["apply", str(overlay), str(source), "-o", str(tmp_path / "out.yaml")]) == 0
    assert load_document(tmp_path / "out.yaml") == {"openapi": "3.1.0"}


def test_cli_apply_writes_json_for_json_output(tmp_path: Path) -> None:
    case = FIXTURES / "add-license"
    out = tmp_path / "out.json"
    assert main(["apply", str(case / "overlay.yaml"), str(case / "openapi.yaml"), "-o", str(out)]) == 0
    assert out.read_text(encoding="utf-8") == dump_json(_load(case / "output.yaml"))


def test_cli_apply_without_output_prints_the_result(capsys: pytest.CaptureFixture[str]) -> None:
    case = FIXTURES / "add-license"
    assert main(["apply", str(case / "overlay.yaml"), str(case / "openapi.yaml")]) == 0
    assert capsys.readouterr().out == dump_yaml(_load(case / "output.yaml"))


# --- the real overlays and the committed variants ------------------------------------------------------------


@pytest.fixture(scope="module")
def outputs() -> dict[Path, str]:
    return variant_outputs()


def test_every_overlay_has_committed_variants(outputs: dict[Path, str]) -> None:
    names = {p.stem for p in (REPO / "overlays").glob("*.yaml")}
    assert {"public", "regional", "sdk"} <= names
    assert {p.name for p in outputs} == {f"{n}{s}" for n in names for s in (".yaml", ".json")}


def test_committed_variants_are_up_to_date(outputs: dict[Path, str]) -> None:
    for path, text in outputs.items():
        assert path.read_text(encoding="utf-8") == text, f"{path.name} is stale: run `make overlays`"


@pytest.mark.slow
def test_variants_regenerate_byte_identically(tmp_path: Path, outputs: dict[Path, str]) -> None:
    # A second computation (the module's `outputs` is the first), for another output directory.
    again = variant_outputs(out_dir=tmp_path)
    assert [path.name for path in again] == [path.name for path in outputs]
    assert list(again.values()) == list(outputs.values())


@pytest.mark.slow
def test_check_mode_fails_with_a_diff_on_stale_variants(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "variants"
    assert main(["variants", "--out", str(out)]) == 0
    assert main(["variants", "--check", "--out", str(out)]) == 0
    stale = out / "regional.yaml"
    stale.write_text(stale.read_text(encoding="utf-8").replace("example-eu", "example-xx"), encoding="utf-8")
    capsys.readouterr()
    assert main(["variants", "--check", "--out", str(out)]) == 1
    captured = capsys.readouterr()
    assert "+      default: example-eu" in captured.out
    assert "1 file(s) out of date: run `make overlays`" in captured.err  # the Make target, not a module path


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(path.stem for path in VARIANTS_DIR.glob("*.yaml")))
def test_variant_is_valid_openapi_31(name: str) -> None:
    """Every committed variant (`make test` validates them here, not beforehand)."""
    validate(_load(VARIANTS_DIR / f"{name}.yaml"))


def test_sdk_variant_renames_operations_and_their_links() -> None:
    doc = _load(VARIANTS_DIR / "sdk.yaml")
    operations = {op["operationId"]: op for item in doc["paths"].values() for op in item.values() if "responses" in op}
    assert set(operations) == {"restart_task", "list_app_entitlements", "receive_webhook", "get_token"}
    assert operations["restart_task"]["x-original-operation-id"] == "svc.api.task.v1.TaskActionsService.Restart"
    links = [
        link
        for op in operations.values()
        for response in op["responses"].values()
        for link in response.get("links", {}).values()
    ]
    assert links, "the bundle has links; the sdk variant must keep them"
    assert all(link["operationId"] in operations for link in links)


def test_regional_variant_points_at_the_eu_region() -> None:
    doc = _load(VARIANTS_DIR / "regional.yaml")
    (server,) = doc["servers"]
    assert server["url"] == "https://{tenantDomain}.eu.accessgov.example"
    assert server["variables"]["tenantDomain"]["default"] == "example-eu"
    assert doc["info"]["title"].endswith("(EU region)")


@pytest.mark.slow
def test_public_overlay_drops_whatever_is_marked_internal() -> None:
    """Nothing in spec/ is internal yet, so mark a copy of the bundle and check the public overlay on it."""
    doc = _load(BASE_DOCUMENT)
    restart = doc["paths"]["/api/v1/tasks/{task_id}/action/restart"]["post"]
    restart["parameters"].append({"name": "debug", "in": "query", "x-internal": True, "schema": {"type": "string"}})
    doc["paths"]["/auth/v1/token"]["post"]["x-internal"] = True
    doc["paths"]["/internal/v1/health"] = {"x-internal": True, "get": {"responses": {"200": {"description": "OK"}}}}
    doc["components"]["schemas"]["Error"]["properties"]["trace"] = {"type": "string", "x-internal": True}
    doc["components"]["schemas"]["Error"]["properties"]["message"]["x-internal"] = False
    doc["components"]["schemas"]["InternalOnly"] = {"type": "object", "x-internal": True}
    public = apply_overlay(load_overlay(REPO / "overlays/public.yaml"), doc)
    validate(public)
    text = dump_yaml(public)
    assert "x-internal" not in text
    assert "/auth/v1/token" not in public["paths"]  # its only operation was internal
    assert "/internal/v1/health" not in public["paths"]
    assert "trace" not in public["components"]["schemas"]["Error"]["properties"]
    assert "message" in public["components"]["schemas"]["Error"]["properties"]
    assert "InternalOnly" not in public["components"]["schemas"]
    restart_public = public["paths"]["/api/v1/tasks/{task_id}/action/restart"]["post"]
    assert [p.get("name") for p in restart_public["parameters"]] == [None]  # only the $ref to TaskId is left
    assert "x-lint-skip" not in text
