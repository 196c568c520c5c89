"""`make release-check` and `make changelog` on small split specs in two directories, and CHANGELOG.md itself."""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from accessgov_tools.release.changelog import HEADER, insert
from accessgov_tools.release.cli import main, verdict
from accessgov_tools.release.contract import change

REPO = Path(__file__).resolve().parents[3]
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
    assert "changes: 1 breaking change(s) (0 breaking, 1 client-breaking: make diff fails on the same ones)" in out
    assert "rule: a breaking change needs a major bump: 1.0.0 → 2.0.0\n" in out
    assert "  client-breaking: response-property-enum-value-added" in out
    assert out.rstrip().endswith(
        "FAIL: 1.0.0 is the same version; the change needs 2.0.0 (or a pre-release of it, e.g. 2.0.0-alpha)."
    )


def test_breaking_change_in_0x_needs_the_minor(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = check(*pair(tmp_path, bump("0.1.1", new_state), base_version="0.1.0"), capsys)
    assert code == 1
    assert "rule: a breaking change on 0.x needs a minor bump: 0.1.0 → 0.2.0\n" in out
    assert "FAIL: 0.1.1 is below 0.2.0" in out


def test_breaking_change_after_a_pre_release_may_ship_as_its_release(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, head = pair(tmp_path, bump("0.1.0-beta", new_state), base_version="0.1.0-alpha")
    code, out = check(base, head, capsys)
    assert code == 0
    assert "rule: a breaking change on 0.x needs a minor bump, which the release 0.1.0 of the pre-release makes" in out
    assert "0.1.0-alpha → 0.1.0\n" in out
    assert out.rstrip().endswith("OK: 0.1.0-beta satisfies it.")


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
    assert "changes: descriptions, examples or other ungraded text only" in out
    assert "rule: a change that adds and breaks nothing needs a patch bump: 1.0.0 → 1.0.1" in out
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
    assert out.startswith("## [Unreleased]\n\nContract changes: 1 breaking for typed clients, 1 deprecated, 1 changed.")
    sections = dict(re.findall(r"### (.+)\n\n((?:- .+\n)+)", out))
    assert sections["`POST /api/v1/tasks/{task_id}/action/restart`"] == (
        "- Request field `comment` may now be up to 4,000 characters (was 1,000).\n"
    )
    assert sections["`GET /api/v1/tasks/{task_id}`"] == "- **Deprecated:** Operation deprecated (sunset 2099-12-31).\n"
    assert sections["Shared by several operations"] == (
        "- ⚠️ **Breaking for typed clients:** Response field `Task.state` has a new value `PAUSED` (a typed client's"
        " closed enum rejects a value it does not know) — `response-property-enum-value-added`; reaches"
        " `GET /api/v1/tasks/{task_id}`,"
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


def test_release_check_applies_the_scheme_given_on_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, head = pair(tmp_path, bump("2024.1", new_state), base_version="2024.0")
    assert check(base, head, capsys)[0] == 2  # semver, the default, cannot read 2024.0
    assert main(["check", str(base), "--head", str(head), "--scheme", "calver"]) == 0
    out = capsys.readouterr().out
    assert "info.version: 2024.0 -> 2024.1 (calver versions)" in out
    assert "rule: on calendar versions a breaking change needs a later version: 2024.0 → 2024.1 or later" in out


def test_release_check_reads_the_scheme_from_the_config(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "severities.yaml"
    text = (REPO / "tools" / "accessgov_tools" / "diffcheck" / "severities.yaml").read_text(encoding="utf-8")
    config.write_text(text.replace("  scheme: semver", "  scheme: integer"), encoding="utf-8")
    base, head = pair(tmp_path, bump("10", new_field), base_version="10")
    found = change(str(base), str(head), config=config)
    ok, out = verdict(found)
    assert ok
    assert "rule: on integer versions only a breaking change needs a later version, so an addition may keep 10" in out


def test_a_version_the_scheme_cannot_read_exits_2_with_the_hint(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, head = pair(tmp_path, bump("2024-02-01"), base_version="2024-01-15")
    assert main(["check", str(base), "--head", str(head)]) == 2
    assert "`versioning.scheme` (calver, integer)" in capsys.readouterr().err


def test_descriptions_have_their_own_section_beside_other_changes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def edits(doc: Doc) -> None:
        longer_comment(doc)
        doc["components"]["schemas"]["Task"]["properties"]["state"]["description"] = "Where the task is."
        doc["paths"]["/api/v1/tasks/{task_id}"]["get"]["summary"] = "Read a task"
        doc["paths"]["/api/v1/tasks/{task_id}"]["get"]["responses"]["200"]["description"] = "the task, read"

    assert main(["changelog", str(pair(tmp_path, edits)[0]), "--head", str(tmp_path / "head")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("## [Unreleased]\n\nContract changes: 1 changed, 3 documentation.")
    assert out.endswith(
        "### Documentation\n\n"
        "- Summaries changed: `GET /api/v1/tasks/{task_id}`.\n"
        "- Descriptions changed: `GET /api/v1/tasks/{task_id}` response 200, `Task.state`.\n"
    ), out


def test_enum_values_added_and_removed_are_one_line_each(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def values(doc: Doc) -> None:
        state = doc["components"]["schemas"]["Task"]["properties"]["state"]
        state["enum"] = ["OPEN", *[f"STATE_{i}" for i in range(40)]]
        body = doc["paths"]["/api/v1/tasks/{task_id}/action/restart"]["post"]["requestBody"]
        body["content"]["application/json"]["schema"]["properties"]["mode"] = {"type": "string", "enum": ["A"]}

    def fewer(doc: Doc) -> None:
        values(doc)
        body = doc["paths"]["/api/v1/tasks/{task_id}/action/restart"]["post"]["requestBody"]
        body["content"]["application/json"]["schema"]["properties"]["mode"]["enum"] = ["A", "B", "C"]

    base_doc, head_doc = contract(), contract()
    fewer(base_doc)
    values(head_doc)
    base, head = write(tmp_path / "base", base_doc), write(tmp_path / "head", head_doc)
    assert main(["changelog", str(base), "--head", str(head)]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("- ")]
    assert len(lines) == 1, lines
    assert "Request field `mode` no longer takes the values `B` and `C`" in lines[0]
    base_doc, head_doc = contract(), contract()
    values(head_doc)
    base, head = write(tmp_path / "b2", base_doc), write(tmp_path / "h2", head_doc)
    assert main(["changelog", str(base), "--head", str(head)]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if "has new values" in line]
    assert len(lines) == 1
    assert "`STATE_0`, `STATE_1`" in lines[0] and "`STATE_38` and `STATE_39`" in lines[0]


def test_const_enum_values_are_named_as_sent_on_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Discord's spelling: `oneOf` of `{title, const}`; the line names the consts, JSON-spelt, never the titles."""

    def level(values: list[Any]) -> Callable[[Doc], None]:
        def edit(doc: Doc) -> None:
            members = [{"title": f"Title {i}", "const": value} for i, value in enumerate(values)]
            doc["components"]["schemas"]["Task"]["properties"]["level"] = {"oneOf": members}

        return edit

    base_doc, head_doc = contract(), contract()
    level([1, True])(base_doc)
    level([1, True, 2, 10, False])(head_doc)
    base, head = write(tmp_path / "base", base_doc), write(tmp_path / "head", head_doc)
    assert main(["changelog", str(base), "--head", str(head)]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if "`Task.level`" in line]
    assert len(lines) == 1, lines
    assert "has new values `2`, `10` and `false`" in lines[0] and "Title" not in lines[0]
