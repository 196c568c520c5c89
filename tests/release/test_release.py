"""`make release-check` and `make changelog` on small split specs in two directories, and CHANGELOG.md itself."""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from scripts.release.changelog import HEADER, insert
from scripts.release.cli import main

REPO = Path(__file__).resolve().parents[2]
Doc = dict[str, Any]


def contract(version: str = "1.0.0") -> Doc:
    """A task restart with a bounded comment and a task whose state is a closed enum."""
    return {
        "openapi": "3.1.0",
        "info": {"title": "fixture", "version": version, "description": "Restart tasks."},
        "paths": {
            "/api/v1/tasks/{task_id}/action/restart": {
                "post": {
                    "operationId": "restartTask",
                    "parameters": [{"name": "task_id", "in": "path", "required": True, "schema": {"type": "string"}}],
                    "requestBody": {
                        "required": True,
                        "content": {
                            "application/json": {
                                "schema": {
                                    "type": "object",
                                    "properties": {"comment": {"type": "string", "maxLength": 1000}},
                                }
                            }
                        },
                    },
                    "responses": {
                        "200": {
                            "description": "restarted",
                            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Task"}}},
                        }
                    },
                }
            },
            "/api/v1/tasks/{task_id}": {
                "get": {
                    "operationId": "getTask",
                    "parameters": [{"name": "task_id", "in": "path", "required": True, "schema": {"type": "string"}}],
                    "responses": {
                        "200": {
                            "description": "the task",
                            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Task"}}},
                        }
                    },
                }
            },
        },
        "components": {
            "schemas": {
                "Task": {
                    "type": "object",
                    "required": ["id", "state"],
                    "properties": {
                        "id": {"type": "string"},
                        "state": {"type": "string", "enum": ["OPEN", "CLOSED"]},
                    },
                }
            }
        },
    }


def write(root: Path, doc: Doc) -> Path:
    root.mkdir(parents=True)
    (root / "openapi.yaml").write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return root


def pair(tmp_path: Path, edit: Callable[[Doc], None], base_version: str = "1.0.0") -> tuple[Path, Path]:
    base = contract(base_version)
    head = copy.deepcopy(base)
    edit(head)
    return write(tmp_path / "base", base), write(tmp_path / "head", head)


def new_state(doc: Doc) -> None:
    doc["components"]["schemas"]["Task"]["properties"]["state"]["enum"].append("PAUSED")


def longer_comment(doc: Doc) -> None:
    body = doc["paths"]["/api/v1/tasks/{task_id}/action/restart"]["post"]["requestBody"]
    body["content"]["application/json"]["schema"]["properties"]["comment"]["maxLength"] = 4000


def new_field(doc: Doc) -> None:
    doc["components"]["schemas"]["Task"]["properties"]["note"] = {"type": "string"}


def bump(version: str, edit: Callable[[Doc], None] | None = None) -> Callable[[Doc], None]:
    def apply(doc: Doc) -> None:
        if edit:
            edit(doc)
        doc["info"]["version"] = version

    return apply


def check(base: Path, head: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["check", str(base), "--head", str(head)])
    return code, capsys.readouterr().out


def test_breaking_change_with_unchanged_version_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = check(*pair(tmp_path, new_state), capsys)
    assert code == 1
    assert "needed: major bump (1 change(s) break a typed client)" in out
    assert "minimum next version: 2.0.0" in out
    assert "response-property-enum-value-added" in out


def test_breaking_change_in_0x_needs_the_minor(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = check(*pair(tmp_path, bump("0.1.1", new_state), base_version="0.1.0"), capsys)
    assert code == 1
    assert "needed: major bump, a minor in 0.x" in out
    assert "minimum next version: 0.2.0" in out


def test_breaking_change_after_a_pre_release_may_ship_as_its_release(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, head = pair(tmp_path, bump("0.1.0-beta", new_state), base_version="0.1.0-alpha")
    assert check(base, head, capsys)[0] == 0


@pytest.mark.parametrize(
    ("edit", "code"),
    [
        (bump("2.0.0", new_state), 0),
        (bump("1.1.0", new_state), 1),
        (bump("1.1.0", new_field), 0),
        (bump("1.0.1", new_field), 1),
        (bump("1.0.1", longer_comment), 0),
        (longer_comment, 1),
        (bump("0.9.0"), 1),  # lower than the base
    ],
)
def test_the_bump_each_kind_of_change_needs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], edit: Callable[[Doc], None], code: int
) -> None:
    assert check(*pair(tmp_path, edit), capsys)[0] == code


def test_a_description_change_needs_a_patch_and_no_change_needs_none(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def describe(doc: Doc) -> None:
        doc["info"]["description"] = "Restart and read tasks."

    code, out = check(*pair(tmp_path / "a", describe), capsys)
    assert code == 1
    assert "descriptions or examples only" in out
    assert check(*pair(tmp_path / "b", lambda doc: None), capsys)[0] == 0


def test_an_accepted_breaking_finding_still_needs_the_major(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    accepted = tmp_path / "accepted.yaml"
    entry = {
        "check": "response-required-property-removed",
        "operation": "GET /api/v1/tasks/{task_id}",
        "reason": "ids move to the URL",
        "expires": "2099-12-31",
    }
    accepted.write_text(yaml.safe_dump({"accepted": [entry]}), encoding="utf-8")

    def drop_id(doc: Doc) -> None:
        task = doc["components"]["schemas"]["Task"]
        del task["properties"]["id"]
        task["required"].remove("id")

    base, head = pair(tmp_path, drop_id)
    code = main(["check", str(base), "--head", str(head), "--accepted", str(accepted)])
    out = capsys.readouterr().out
    assert code == 1
    assert "(accepted in make diff; still needs the bump)" in out
    assert main(["changelog", str(base), "--head", str(head), "--accepted", str(accepted)]) == 0
    assert "`response-required-property-removed` (accepted: ids move to the URL); reaches" in capsys.readouterr().out


def test_changelog_groups_by_operation_and_marks_what_breaks_a_typed_client(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def edits(doc: Doc) -> None:
        new_state(doc)
        longer_comment(doc)
        doc["paths"]["/api/v1/tasks/{task_id}"]["get"].update({"deprecated": True, "x-sunset": "2099-12-31"})

    base, head = pair(tmp_path, edits)
    assert main(["changelog", str(base), "--head", str(head)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("## [Unreleased]\n\nContract changes: 1 breaking, 1 deprecated, 1 changed.")
    sections = dict(re.findall(r"### (.+)\n\n((?:- .+\n)+)", out))
    assert sections["`POST /api/v1/tasks/{task_id}/action/restart`"] == (
        "- Request field `comment` may now be up to 4,000 characters (was 1,000).\n"
    )
    assert sections["`GET /api/v1/tasks/{task_id}`"] == "- **Deprecated:** Operation deprecated (sunset 2099-12-31).\n"
    assert sections["Shared by several operations"] == (
        "- ⚠️ **Breaking:** Response field `Task.state` has a new value `PAUSED` (a typed client rejects the value"
        " it does not know) — `response-property-enum-value-added`; reaches `GET /api/v1/tasks/{task_id}`,"
        " `POST /api/v1/tasks/{task_id}/action/restart`.\n"
    )


def test_changelog_out_writes_a_version_section_under_unreleased(tmp_path: Path) -> None:
    base, head = pair(tmp_path, bump("1.1.0", new_field))
    out = tmp_path / "CHANGELOG.md"
    args = ["changelog", str(base), "--head", str(head), "--out", str(out)]
    assert main([*args, "--version", "1.1.0", "--date", "2026-11-26"]) == 0
    assert main(args) == 0  # the Unreleased section
    text = out.read_text(encoding="utf-8")
    assert text.startswith(HEADER)
    assert text.index("## [Unreleased]") < text.index("## [1.1.0] - 2026-11-26")
    assert main([*args, "--version", "1.1.0", "--date", "2026-11-26"]) == 0
    assert out.read_text(encoding="utf-8") == text  # writing a section again replaces it


def test_insert_puts_a_new_version_above_the_older_ones() -> None:
    document = insert(insert(HEADER, "## [Unreleased]\n\nNothing.\n"), "## [1.0.0] - 2026-01-01\n\nFirst.\n")
    document = insert(document, "## [1.1.0] - 2026-02-01\n\nSecond.\n")
    headings = re.findall(r"^## \[([^\]]+)\]", document, re.MULTILINE)
    assert headings == ["Unreleased", "1.1.0", "1.0.0"]


def test_the_committed_changelog_keeps_the_format() -> None:
    text = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    headings = re.findall(r"^## \[([^\]]+)\]", text, re.MULTILINE)
    assert headings[0] == "Unreleased"
    spec = yaml.safe_load((REPO / "spec" / "openapi.yaml").read_text(encoding="utf-8"))
    assert spec["info"]["version"] in headings


def test_lines_that_differ_only_in_a_status_become_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def statuses(doc: Doc) -> None:
        responses = doc["paths"]["/api/v1/tasks/{task_id}/action/restart"]["post"]["responses"]
        responses["409"] = {"description": "conflict"}
        responses["429"] = {"description": "too many requests"}
        doc["paths"]["/api/v1/tasks/{task_id}"]["delete"] = {"responses": {"204": {"description": "deleted"}}}

    base, head = pair(tmp_path, bump("1.1.0", statuses))
    assert main(["changelog", str(base), "--head", str(head)]) == 0
    out = capsys.readouterr().out
    assert "### `POST /api/v1/tasks/{task_id}/action/restart`\n\n- New response statuses 409 and 429.\n" in out
    assert "### `DELETE /api/v1/tasks/{task_id}`\n\n- New operation.\n" in out
