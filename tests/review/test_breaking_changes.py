"""`scripts.breaking_changes`: one base/head pair per rule, the CLI's exit codes and its renderings."""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from scripts.breaking_changes import Change, bundle_at_ref, compare, main, render_markdown, render_text
from scripts.bundle import REPO, dump_yaml

BUNDLE = REPO / "generated" / "openapi.yaml"
RESTART = "POST /tasks/{task_id}/restart (restartTask)"
LIST = "GET /items (listItems)"


def base_doc() -> dict[str, Any]:
    """A small contract with a request body, parameters, response schemas by `$ref`, an open enum, security."""
    return {
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1"},
        "security": [{"bearer": []}],
        "paths": {
            "/tasks/{task_id}/restart": {
                "parameters": [{"name": "task_id", "in": "path", "required": True, "schema": {"type": "string"}}],
                "post": {
                    "operationId": "restartTask",
                    "parameters": [{"name": "dry_run", "in": "query", "schema": {"type": "boolean"}}],
                    "requestBody": {
                        "required": True,
                        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/RestartRequest"}}},
                    },
                    "responses": {
                        "200": {
                            "description": "OK",
                            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Task"}}},
                        },
                        "404": {"$ref": "#/components/responses/NotFound"},
                    },
                },
            },
            "/items": {
                "get": {
                    "operationId": "listItems",
                    "security": [{"bearer": []}, {"oauth": []}],
                    "parameters": [{"$ref": "#/components/parameters/PageSize"}],
                    "responses": {
                        "200": {
                            "description": "OK",
                            "content": {
                                "application/json": {
                                    "schema": {
                                        "type": "object",
                                        "properties": {
                                            "list": {"type": "array", "items": {"$ref": "#/components/schemas/Task"}},
                                            "nextPageToken": {"type": "string"},
                                        },
                                    }
                                }
                            },
                        }
                    },
                }
            },
        },
        "components": {
            "parameters": {
                "PageSize": {"name": "page_size", "in": "query", "schema": {"type": "integer", "format": "int32"}}
            },
            "responses": {"NotFound": {"description": "Not found"}},
            "schemas": {
                "RestartRequest": {
                    "type": "object",
                    "properties": {
                        "comment": {"type": ["string", "null"]},
                        "mode": {"type": "string", "enum": ["MODE_SOFT", "MODE_HARD"]},
                        "when": {"type": "string", "format": "date-time"},
                        "label": {"type": "string"},
                    },
                },
                "Task": {
                    "type": "object",
                    "required": ["id"],
                    "properties": {
                        "id": {"type": "string", "readOnly": True},
                        "state": {"$ref": "#/components/schemas/TaskState"},
                        "parent": {"$ref": "#/components/schemas/Task"},  # a cycle
                        "count": {"type": "string", "format": "int64"},
                    },
                },
                "TaskState": {
                    "x-open-enum": True,
                    "anyOf": [{"type": "string", "enum": ["TASK_STATE_OPEN", "TASK_STATE_CLOSED"]}, {"type": "string"}],
                },
            },
        },
    }


def changed(edit: Callable[[dict[str, Any]], Any]) -> list[Change]:
    """The changes from `base_doc()` to a copy edited by `edit`."""
    head = copy.deepcopy(base_doc())
    edit(head)
    return compare(base_doc(), head).changes


def only(changes: list[Change]) -> Change:
    assert len(changes) == 1, changes
    return changes[0]


def op(doc: dict[str, Any], path: str = "/tasks/{task_id}/restart", method: str = "post") -> dict[str, Any]:
    return doc["paths"][path][method]


def schema(doc: dict[str, Any], name: str) -> dict[str, Any]:
    return doc["components"]["schemas"][name]


# --- breaking -----------------------------------------------------------------------------------------------


def test_removed_operation() -> None:
    change = only(changed(lambda d: d["paths"].pop("/items")))
    assert (change.group, change.rule, change.breaking) == (LIST, "removed-operation", True)


def test_removed_parameter() -> None:
    change = only(changed(lambda d: op(d)["parameters"].clear()))
    assert (change.group, change.rule, change.breaking) == (RESTART, "removed-parameter", True)
    assert "`dry_run`" in change.message


def test_removed_parameter_behind_a_ref() -> None:
    change = only(changed(lambda d: op(d, "/items", "get")["parameters"].clear()))
    assert (change.group, change.rule, change.breaking) == (LIST, "removed-parameter", True)


def test_removed_response_field_is_reported_under_the_component() -> None:
    change = only(changed(lambda d: schema(d, "Task")["properties"].pop("count")))
    assert (change.group, change.rule, change.breaking) == ("schema Task", "removed-response-field", True)


def test_removed_response_field_of_an_inline_schema_is_reported_under_the_operation() -> None:
    def edit(d: dict[str, Any]) -> None:
        media = op(d, "/items", "get")["responses"]["200"]["content"]["application/json"]
        media["schema"]["properties"].pop("nextPageToken")

    change = only(changed(edit))
    assert (change.group, change.rule, change.breaking) == (LIST, "removed-response-field", True)
    assert change.where.startswith("response 200 application/json")


def test_new_required_request_field_existing_property() -> None:
    change = only(changed(lambda d: schema(d, "RestartRequest").update(required=["comment"])))
    assert (change.group, change.rule, change.breaking) == ("schema RestartRequest", "new-required-request-field", True)


def test_new_required_request_field_new_property() -> None:
    def edit(d: dict[str, Any]) -> None:
        schema(d, "RestartRequest")["properties"]["reason"] = {"type": "string"}
        schema(d, "RestartRequest")["required"] = ["reason"]

    change = only(changed(edit))
    assert (change.rule, change.breaking) == ("new-required-request-field", True)


def test_new_required_parameter() -> None:
    def edit(d: dict[str, Any]) -> None:
        op(d)["parameters"].append({"name": "X-Tenant", "in": "header", "required": True, "schema": {"type": "string"}})

    change = only(changed(edit))
    assert (change.group, change.rule, change.breaking) == (RESTART, "added-required-parameter", True)


def test_optional_parameter_made_required() -> None:
    change = only(changed(lambda d: op(d)["parameters"][0].update(required=True)))
    assert (change.rule, change.breaking) == ("parameter-made-required", True)


def test_narrowed_type_in_a_request() -> None:
    change = only(changed(lambda d: schema(d, "RestartRequest")["properties"]["comment"].update(type="string")))
    assert (change.group, change.rule, change.breaking) == ("schema RestartRequest", "narrowed-type", True)
    assert "`null`" in change.message


def test_changed_type_of_a_parameter() -> None:
    change = only(changed(lambda d: op(d)["parameters"][0]["schema"].update(type="integer")))
    assert (change.group, change.rule, change.breaking) == (RESTART, "changed-type", True)
    assert change.where == "query parameter `dry_run` (request)"


def test_widened_type_in_a_response_breaks_and_narrowed_does_not() -> None:
    widened = only(changed(lambda d: schema(d, "Task")["properties"]["count"].update(type=["string", "null"])))
    assert (widened.rule, widened.breaking) == ("widened-type", True)
    narrowed = only(changed(lambda d: schema(d, "RestartRequest")["properties"]["comment"].update(type="string")))
    assert narrowed.breaking  # request side: narrowing breaks


def test_changed_format() -> None:
    request = only(changed(lambda d: schema(d, "RestartRequest")["properties"]["when"].update(format="date")))
    assert (request.rule, request.breaking) == ("changed-format", True)
    response = only(changed(lambda d: schema(d, "Task")["properties"]["count"].update(format="int32")))
    assert (response.rule, response.breaking) == ("changed-format", True)
    param = only(changed(lambda d: d["components"]["parameters"]["PageSize"]["schema"].update(format="int64")))
    assert (param.group, param.rule, param.breaking) == (LIST, "changed-format", True)


def test_request_enum_lost_a_value() -> None:
    change = only(changed(lambda d: schema(d, "RestartRequest")["properties"]["mode"].update(enum=["MODE_SOFT"])))
    assert (change.rule, change.breaking) == ("removed-enum-value", True)
    assert "`MODE_HARD`" in change.message


def test_closed_enum_added_to_a_request_field() -> None:
    change = only(changed(lambda d: schema(d, "RestartRequest")["properties"]["label"].update(enum=["a", "b"])))
    assert (change.rule, change.breaking) == ("added-closed-enum", True)


def test_removed_enum_value_of_an_open_response_enum() -> None:
    change = only(changed(lambda d: schema(d, "TaskState")["anyOf"][0].update(enum=["TASK_STATE_OPEN"])))
    assert (change.group, change.rule, change.breaking) == ("schema TaskState", "removed-enum-value", True)


def test_changed_operation_security() -> None:
    change = only(changed(lambda d: op(d, "/items", "get").update(security=[{"oauth": []}])))
    assert (change.group, change.rule, change.breaking) == (LIST, "changed-security", True)


def test_operation_security_made_explicitly_public() -> None:
    change = only(changed(lambda d: op(d).update(security=[])))
    assert (change.group, change.rule, change.breaking) == (RESTART, "changed-security", True)


def test_changed_global_security() -> None:
    change = only(changed(lambda d: d.update(security=[{"bearer": ["admin"]}])))
    assert (change.group, change.rule, change.breaking) == ("document", "changed-security", True)


def test_removed_response_status() -> None:
    change = only(changed(lambda d: op(d)["responses"].pop("404")))
    assert (change.group, change.rule, change.breaking) == (RESTART, "removed-response-status", True)


def test_response_field_no_longer_required() -> None:
    change = only(changed(lambda d: schema(d, "Task").pop("required")))
    assert (change.rule, change.breaking) == ("response-field-made-optional", True)


def test_changed_operation_id() -> None:
    change = only(changed(lambda d: op(d).update(operationId="restart_task")))
    assert (change.rule, change.breaking) == ("changed-operation-id", True)


# --- non-breaking -------------------------------------------------------------------------------------------


def test_added_optional_request_field() -> None:
    change = only(changed(lambda d: schema(d, "RestartRequest")["properties"].update(note={"type": "string"})))
    assert (change.group, change.rule, change.breaking) == ("schema RestartRequest", "added-optional-field", False)


def test_added_response_field() -> None:
    change = only(changed(lambda d: schema(d, "Task")["properties"].update(note={"type": "string"})))
    assert (change.rule, change.breaking) == ("added-optional-field", False)


def test_added_optional_parameter() -> None:
    change = only(changed(lambda d: op(d)["parameters"].append({"name": "q", "in": "query"})))
    assert (change.rule, change.breaking) == ("added-optional-parameter", False)


def test_added_operation() -> None:
    def edit(d: dict[str, Any]) -> None:
        d["paths"]["/items"]["post"] = {"operationId": "createItem", "responses": {"201": {"description": "Created"}}}

    change = only(changed(edit))
    assert (change.group, change.rule, change.breaking) == ("POST /items (createItem)", "added-operation", False)


def test_added_enum_value_is_safe_because_enums_are_open() -> None:
    def edit(d: dict[str, Any]) -> None:
        schema(d, "TaskState")["anyOf"][0]["enum"].append("TASK_STATE_DELETED")

    change = only(changed(edit))
    assert (change.group, change.rule, change.breaking) == ("schema TaskState", "added-enum-value", False)
    assert "open" in change.message


def test_added_response_status() -> None:
    change = only(changed(lambda d: op(d)["responses"].update({"409": {"description": "Conflict"}})))
    assert (change.group, change.rule, change.breaking) == (RESTART, "added-response-status", False)


def test_read_only_property_does_not_count_in_requests() -> None:
    def edit(d: dict[str, Any]) -> None:
        schema(d, "RestartRequest")["properties"]["id"] = {"type": "string", "readOnly": True}
        schema(d, "RestartRequest")["required"] = ["id"]

    assert changed(edit) == []


def test_recursive_schemas_terminate() -> None:
    def edit(d: dict[str, Any]) -> None:
        schema(d, "Task")["properties"]["children"] = {"type": "array", "items": {"$ref": "#/components/schemas/Task"}}

    assert [c.rule for c in changed(edit)] == ["added-optional-field"]


# --- the real contract, the CLI and the renderings ----------------------------------------------------------


def test_current_bundle_against_itself_reports_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--base-file", str(BUNDLE), "--head-file", str(BUNDLE)]) == 0
    assert "No changes" in capsys.readouterr().out


def test_base_ref_is_bundled_from_git(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    at_head = bundle_at_ref("HEAD")
    assert at_head["openapi"] == "3.1.0" and at_head["paths"]
    head_file = tmp_path / "head.yaml"
    head_file.write_text(dump_yaml(at_head), encoding="utf-8")
    assert main(["HEAD", "--head-file", str(head_file)]) == 0
    assert "No changes" in capsys.readouterr().out


def test_unknown_ref_is_a_clear_error() -> None:
    with pytest.raises(SystemExit, match="cannot read spec/"):
        bundle_at_ref("no-such-ref-anywhere")


@pytest.fixture
def breaking_pair(tmp_path: Path) -> list[str]:
    head = base_doc()
    head["paths"].pop("/items")
    schema(head, "TaskState")["anyOf"][0]["enum"].append("TASK_STATE_DELETED")
    (tmp_path / "base.yaml").write_text(dump_yaml(base_doc()), encoding="utf-8")
    (tmp_path / "head.yaml").write_text(dump_yaml(head), encoding="utf-8")
    return ["--base-file", str(tmp_path / "base.yaml"), "--head-file", str(tmp_path / "head.yaml")]


def test_exit_code_1_on_breaking_changes(breaking_pair: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ALLOW_BREAKING", raising=False)
    assert main(breaking_pair) == 1


def test_allow_breaking_turns_exit_code_to_0(breaking_pair: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ALLOW_BREAKING", "1")
    assert main(breaking_pair) == 0


def test_exit_code_0_when_only_safe_changes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ALLOW_BREAKING", raising=False)
    head = base_doc()
    op(head)["responses"]["409"] = {"description": "Conflict"}
    (tmp_path / "head.yaml").write_text(dump_yaml(head), encoding="utf-8")
    assert main(["--base-file", str(BUNDLE), "--head-file", str(BUNDLE)]) == 0
    (tmp_path / "base.yaml").write_text(dump_yaml(base_doc()), encoding="utf-8")
    assert main(["--base-file", str(tmp_path / "base.yaml"), "--head-file", str(tmp_path / "head.yaml")]) == 0


def test_markdown_output_is_a_pr_comment(breaking_pair: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    main([*breaking_pair, "--format", "markdown"])
    out = capsys.readouterr().out
    assert out.startswith("## Contract changes")
    assert "**1 breaking**, 1 non-breaking." in out
    assert f"### `{LIST}`" in out and "### `schema TaskState`" in out
    assert "| | Change | Where | Rule |" in out
    assert "| ⚠️ breaking | operation removed |" in out
    assert "| ✅ safe | enum value `TASK_STATE_DELETED` added" in out


def test_text_output_groups_by_operation_and_schema() -> None:
    head = base_doc()
    head["paths"].pop("/items")
    schema(head, "Task")["properties"].pop("count")
    text = render_text(compare(base_doc(), head))
    assert text.splitlines()[0] == "2 breaking, 0 non-breaking change(s)"
    assert f"\n{LIST}\n  BREAKING removed-operation" in text
    assert "\nschema Task\n  BREAKING removed-response-field" in text


def test_markdown_escapes_pipes() -> None:
    head = base_doc()
    op(head)["parameters"][0]["name"] = "a|b"
    assert "a\\|b" in render_markdown(compare(base_doc(), head))


def test_narrowed_type_in_a_response_is_safe() -> None:
    def edit(d: dict[str, Any]) -> None:
        schema(d, "Task")["properties"]["note"] = {"type": ["string", "null"]}

    base = copy.deepcopy(base_doc())
    edit(base)
    head = copy.deepcopy(base)
    schema(head, "Task")["properties"]["note"]["type"] = "string"
    change = only(compare(base, head).changes)
    assert (change.rule, change.breaking) == ("narrowed-type", False)


def test_removed_request_field_breaks_only_a_closed_object() -> None:
    open_change = only(changed(lambda d: schema(d, "RestartRequest")["properties"].pop("label")))
    assert (open_change.rule, open_change.breaking) == ("removed-request-field", False)

    def close_and_remove(d: dict[str, Any]) -> None:
        schema(d, "RestartRequest")["properties"].pop("label")
        schema(d, "RestartRequest")["additionalProperties"] = False

    closed = only(changed(close_and_remove))
    assert (closed.rule, closed.breaking) == ("removed-request-field", True)
