"""`accessgov_tools.diffcheck` on the real contract: the issue's measurements, reach, unions, allOf, sources, CLI,
formats."""

from __future__ import annotations

import copy
import io
import json
import subprocess
import tarfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from accessgov_tools.bundle import REPO, bundle, dump_yaml
from accessgov_tools.cli import guarded
from accessgov_tools.diffcheck.cli import main
from accessgov_tools.diffcheck.compare import compare
from accessgov_tools.diffcheck.config import ConfigError, load_severities
from accessgov_tools.diffcheck.model import Finding, Severity
from accessgov_tools.diffcheck.pipeline import located
from accessgov_tools.diffcheck.render import render_github, render_json, render_markdown
from accessgov_tools.diffcheck.sources import SourceMap

pytestmark = pytest.mark.slow

RESTART = "POST /api/v1/tasks/{task_id}/action/restart (svc.api.task.v1.TaskActionsService.Restart)"
LIST = "GET /api/v1/apps/{app_id}/entitlements (svc.api.app.v1.AppEntitlementsService.List)"


@pytest.fixture(scope="module")
def base() -> dict[str, Any]:
    return bundle(REPO / "spec" / "openapi.yaml")


def findings(base: dict[str, Any], edit: Callable[[dict[str, Any]], Any]) -> list[Finding]:
    head = copy.deepcopy(base)
    edit(head)
    return located(compare(base, head, load_severities()), SourceMap(REPO / "spec" / "openapi.yaml", REPO))


def schema(doc: dict[str, Any], name: str) -> dict[str, Any]:
    return doc["components"]["schemas"][name]


def by_check(found: list[Finding]) -> dict[str, Finding]:
    return {f.check: f for f in found}


@pytest.fixture
def edited_spec(tmp_path: Path) -> Path:
    """`spec/` as committed at HEAD, with the issue's two edits: comment.maxLength 4096->100, page_size default."""
    archive = subprocess.run(
        ["git", "-C", str(REPO), "archive", "--format=tar", "HEAD", "spec"], capture_output=True, check=True
    )
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(tmp_path, filter="data")
    request = tmp_path / "spec/components/schemas/TaskActionsServiceRestartRequest.yaml"
    request.write_text(request.read_text().replace("maxLength: 4096", "maxLength: 100"))
    page_size = tmp_path / "spec/components/parameters/PageSize.yaml"
    page_size.write_text(page_size.read_text().replace("default: 25", "default: 50"))
    return tmp_path / "spec" / "openapi.yaml"


def test_the_issues_two_edits_are_breaking_with_file_and_line(
    edited_spec: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(edited_spec.parent.parent)
    assert main(["HEAD", "--root", str(edited_spec), "--format", "github"]) == 1
    lines = capsys.readouterr().out.splitlines()

    def line_of(path: str, key: str) -> int:
        text = (edited_spec.parent / path).read_text().splitlines()
        return next(i for i, line in enumerate(text, 1) if line.strip().startswith(key))

    default_line = line_of("components/parameters/PageSize.yaml", "default:")
    max_length_line = line_of("components/schemas/TaskActionsServiceRestartRequest.yaml", "maxLength:")
    assert (
        f"::error file=spec/components/schemas/TaskActionsServiceRestartRequest.yaml,line={max_length_line},"
        "title=request-property-max-length-decreased::`TaskActionsServiceRestartRequest.comment`: "
        f"maxLength decreased from `4096` to `100` (request) (reaches {RESTART})"
    ) in lines
    assert (
        f"::error file=spec/components/parameters/PageSize.yaml,line={default_line},"
        "title=request-parameter-default-value-changed::"
        f"query parameter `page_size`: default changed from `25` to `50` (request) (reaches {LIST})"
    ) in lines
    assert any(
        line.startswith("::warning file=spec/openapi.yaml,line=4,title=api-version-not-bumped::") for line in lines
    )


def test_accepting_both_breaks_exits_0(edited_spec: Path, tmp_path: Path) -> None:
    accepted = tmp_path / "accepted.yaml"
    accepted.write_text(
        "accepted:\n"
        "  - check: request-property-max-length-decreased\n"
        "    operation: POST /api/v1/tasks/{task_id}/action/restart\n"
        "    reason: comments were never longer\n"
        "    expires: 2026-12-31\n"
        "  - check: request-parameter-default-value-changed\n"
        "    pointer: /components/parameters/PageSize/schema/default\n"
        "    reason: larger pages by default\n"
        "    expires: 2026-12-31\n"
    )
    argv = ["HEAD", "--root", str(edited_spec), "--accepted", str(accepted)]
    assert main([*argv, "--date", "2026-12-31"]) == 0
    assert main([*argv, "--date", "2027-01-01"]) == 1  # expired the day after


def test_the_contract_against_itself_has_no_changes(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    bundled = tmp_path / "openapi.yaml"
    bundled.write_text(dump_yaml(bundle(REPO / "spec" / "openapi.yaml")))
    assert main(["--base-file", str(bundled), "--head-file", str(bundled)]) == 0
    assert capsys.readouterr().out == "No changes to the contract.\n"


def test_a_change_in_a_shared_schema_names_every_operation_it_reaches(base: dict[str, Any]) -> None:
    found = by_check(findings(base, lambda d: schema(d, "Error")["properties"].pop("message")))
    removed = found["response-required-property-removed"]
    assert removed.file == "spec/components/schemas/Error.yaml"
    assert len(removed.operations) == 9 and RESTART in removed.operations and LIST in removed.operations


def test_source_line_points_at_the_changed_keyword(base: dict[str, Any]) -> None:
    found = by_check(
        findings(base, lambda d: schema(d, "Task")["properties"]["commentCount"].__setitem__("minimum", 1))
    )
    finding = found.get("response-property-min-increased")
    assert finding is not None, found
    assert finding.file == "spec/components/schemas/Task.yaml"
    line = (REPO / finding.file).read_text().splitlines()[finding.line - 1]
    assert line.strip() == "minimum: 0"


def test_response_min_increase_is_not_breaking_but_decrease_is(base: dict[str, Any]) -> None:
    up = findings(base, lambda d: schema(d, "Task")["properties"]["commentCount"].__setitem__("minimum", 1))
    assert [f.severity for f in up] == [Severity.INFO]
    down = findings(base, lambda d: schema(d, "Task")["properties"]["commentCount"].__setitem__("minimum", -1))
    assert down[0].check == "response-property-min-decreased" and down[0].severity is Severity.BREAKING


def test_union_members_are_matched_by_content_not_position(base: dict[str, Any]) -> None:
    assert findings(base, lambda d: schema(d, "TaskType")["oneOf"].reverse()) == []
    assert findings(base, lambda d: schema(d, "Field")["allOf"].reverse()) == []

    def swap_and_change(d: dict[str, Any]) -> None:
        schema(d, "TaskType")["oneOf"].reverse()
        schema(d, "TaskType")["oneOf"].pop(0)

    found = findings(base, swap_and_change)
    assert [f.message for f in found if f.check == "response-property-one-of-removed"] == [
        "`TaskType`: oneOf member `required finding` removed (response)"
    ]


def test_nullable_ref_union_compares_the_referenced_schema(base: dict[str, Any]) -> None:
    """`expandMask: anyOf [$ref TaskExpandMask, null]`: a change inside the ref is found, reordering is not."""
    found = findings(
        base, lambda d: schema(d, "TaskActionsServiceRestartRequest")["properties"]["expandMask"]["anyOf"].reverse()
    )
    assert found == []
    found = findings(
        base,
        lambda d: schema(d, "TaskActionsServiceRestartRequest")["properties"]["expandMask"].__setitem__(
            "anyOf", [{"$ref": "#/components/schemas/TaskExpandMask"}]
        ),
    )
    assert [f.check for f in found] == ["request-property-became-not-nullable", "api-version-not-bumped"]


def test_allof_parts_are_merged(base: dict[str, Any]) -> None:
    def split(d: dict[str, Any]) -> None:
        request = schema(d, "TaskActionsServiceRestartRequest")
        comment = request["properties"].pop("comment")
        request["allOf"] = [{"type": "object", "properties": {"comment": comment}}]

    # Only the membership is reported (info): the merged schema accepts exactly what it did.
    assert [f.check for f in findings(base, split)] == ["request-property-all-of-added-annotation-only"]

    def split_and_narrow(d: dict[str, Any]) -> None:
        split(d)
        schema(d, "TaskActionsServiceRestartRequest")["allOf"][0]["properties"]["comment"]["maxLength"] = 10

    # The member now constrains more than the base did: its addition narrows the request, as the bound does.
    assert [f.check for f in findings(base, split_and_narrow)] == [
        "request-property-max-length-decreased",
        "request-property-all-of-added",
        "api-version-not-bumped",
    ]


def test_open_enum_value_added_in_a_response_is_info(base: dict[str, Any]) -> None:
    found = findings(base, lambda d: schema(d, "TaskState")["anyOf"][0]["enum"].append("TASK_STATE_ARCHIVED"))
    assert [(f.check, f.severity) for f in found] == [("response-property-open-enum-value-added", Severity.INFO)]


def test_request_enum_value_removed_breaks(base: dict[str, Any]) -> None:
    found = findings(base, lambda d: schema(d, "TaskExpandMask")["properties"]["paths"]["items"]["enum"].pop())
    assert found[0].check == "request-property-enum-value-removed" and found[0].severity is Severity.BREAKING


def test_read_only_request_properties_do_not_count(base: dict[str, Any]) -> None:
    found = findings(base, lambda d: schema(d, "Task")["properties"].pop("numericId"))
    # Only the response side counts; being client-breaking, it asks for a version bump.
    assert {f.check for f in found} == {"response-optional-property-removed", "api-version-not-bumped"}


def test_security_requirement_of_both_schemes_changed(base: dict[str, Any]) -> None:
    def split(d: dict[str, Any]) -> None:
        d["paths"]["/api/v1/tasks/{task_id}/action/restart"]["post"]["security"] = [{"bearerAuth": []}, {"oauth": []}]

    found = findings(base, split)
    assert {f.check for f in found} >= {"api-security-removed", "api-security-added"}
    assert all(f.operations == [RESTART] for f in found if f.check.startswith("api-security"))


def test_recursive_schemas_terminate() -> None:
    doc = {
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1"},
        "paths": {
            "/n": {
                "get": {
                    "responses": {
                        "200": {
                            "description": "ok",
                            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Node"}}},
                        }
                    }
                }
            }
        },
        "components": {
            "schemas": {
                "Node": {
                    "type": "object",
                    "properties": {"next": {"$ref": "#/components/schemas/Node"}, "v": {"type": "string"}},
                }
            }
        },
    }
    head = copy.deepcopy(doc)
    head["components"]["schemas"]["Node"]["properties"]["v"]["maxLength"] = 3
    assert [f.check for f in compare(doc, head)] == ["response-property-max-length-set"]


def test_severity_overrides(tmp_path: Path) -> None:
    config = tmp_path / "severities.yaml"
    config.write_text("overrides:\n  response-property-*-increased: info\n  api-tag-added: breaking\n")
    severities = load_severities(config)
    assert severities["response-property-max-length-increased"] is Severity.INFO
    assert severities["api-tag-added"] is Severity.BREAKING
    config.write_text("overrides:\n  no-such-check: info\n")
    with pytest.raises(ConfigError, match="matches no check"):
        load_severities(config)
    config.write_text("overrides:\n  api-tag-added: fatal\n")
    with pytest.raises(ConfigError, match="unknown severity"):
        load_severities(config)


def test_shipped_config_makes_operation_id_changes_breaking() -> None:
    assert load_severities()["api-operation-id-removed"] is Severity.BREAKING


def test_config_override_changes_the_exit_status(edited_spec: Path, tmp_path: Path) -> None:
    config = tmp_path / "lenient.yaml"
    config.write_text("overrides:\n  request-*: info\n")
    assert main(["HEAD", "--root", str(edited_spec), "--config", str(config)]) == 0


def test_formats() -> None:
    finding = Finding(
        "request-property-max-length-decreased",
        Severity.BREAKING,
        "`A.b`: 50% | less, now",
        ("x",),
        ["POST /a"],
        "spec/a,b:c.yaml",
        3,
    )
    note = Finding("api-tag-added", Severity.INFO, "tag added", ("y",), [], "spec/x.yaml", 1)
    github = render_github([finding, note]).splitlines()
    assert github[0] == (
        "::error file=spec/a%2Cb%3Ac.yaml,line=3,title=request-property-max-length-decreased::"
        "`A.b`: 50%25 | less, now (reaches POST /a)"
    )
    assert github[1] == "::notice file=spec/x.yaml,line=1,title=api-tag-added::tag added"
    body = json.loads(render_json([finding]))
    assert body["summary"] == {"breaking": 1, "client-breaking": 0, "warning": 0, "info": 0, "accepted": 0}
    assert body["findings"][0]["operations"] == ["POST /a"] and body["findings"][0]["line"] == 3
    markdown = render_markdown([finding])
    assert "50% \\| less" in markdown and "`spec/a,b:c.yaml:3`" in markdown


def test_unknown_ref_is_a_clear_error() -> None:
    with pytest.raises(SystemExit, match="'no-such-ref-anywhere' names no commit"):
        main(["no-such-ref-anywhere"])


@pytest.mark.parametrize(
    "ref", ["--output=OUT.tar", "--remote=http://127.0.0.1:9/x", "--exec=touch EXEC", "-o", "HEAD --output=OUT.tar"]
)
def test_a_base_that_reads_as_a_git_option_is_a_revision_git_does_not_know(
    ref: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """BASE reaches git after `--end-of-options` (`git rev-parse --verify REV^{commit}`), then as the full hash:
    `--output=FILE` writes no file, `--remote=URL` connects nowhere, `--exec` runs nothing; exit 2."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit, match="names no commit"):
        main(["--", ref])
    assert guarded(lambda: main(["--", ref])) == 2
    assert list(tmp_path.iterdir()) == []


def test_list_checks(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--list-checks"]) == 0
    rows = [line.split("\t") for line in capsys.readouterr().out.splitlines()]
    assert ["request-property-max-length-decreased", "breaking", "maxLength narrowed"] in rows
    assert ["api-operation-id-removed", "breaking", "operationId changed or removed"] in rows


def test_a_client_breaking_change_alone_asks_for_a_version_bump(base: dict[str, Any]) -> None:
    """Client-breaking needs a major as breaking does, so `info.version` left as it was is warned about."""
    found = findings(base, lambda d: schema(d, "TaskActionsServiceRestartResponse")["properties"].pop("ticketActionId"))
    assert {f.severity for f in found if f.check != "api-version-not-bumped"} == {Severity.CLIENT_BREAKING}
    bump = by_check(found)["api-version-not-bumped"]
    assert bump.message.startswith(f"{len(found) - 1} breaking change(s)")

    def and_bump(d: dict[str, Any]) -> None:
        schema(d, "TaskActionsServiceRestartResponse")["properties"].pop("ticketActionId")
        d["info"]["version"] = "9.0.0"

    assert "api-version-not-bumped" not in by_check(findings(base, and_bump))


def test_json_output_carries_subject_and_values(base: dict[str, Any]) -> None:
    found = findings(base, lambda d: schema(d, "TaskExpandMask")["properties"]["paths"]["items"]["enum"].pop())
    body = json.loads(render_json(found))
    removed = next(f for f in body["findings"] if f["id"] == "request-property-enum-value-removed")
    finding = by_check(found)["request-property-enum-value-removed"]
    assert removed["subject"] == finding.subject != "" and removed["values"] == list(finding.values) != []
    bump = next(f for f in body["findings"] if f["id"] == "api-version-not-bumped")
    assert bump["subject"] is None and bump["values"] == []
    # The fields that were there before are unchanged.
    assert set(removed) >= {"id", "severity", "message", "file", "line", "pointer", "operations", "acceptance"}
