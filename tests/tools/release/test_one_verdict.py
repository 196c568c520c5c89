"""One verdict from three tools: `make diff`, `make changelog` and `make release-check` on every fixture pair.

Each tool runs through its command line on the same two files. They agree when the checks `make diff` fails on
(its exit status and its JSON report) are exactly the checks the changelog marks ⚠️ and the checks release
check lists as breaking, and release check asks for a major change exactly when `make diff` fails.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from accessgov_tools.bundle import REPO, bundle, dump_yaml
from accessgov_tools.diffcheck.cli import main as diff_main
from accessgov_tools.diffcheck.config import load_config
from accessgov_tools.diffcheck.model import Severity
from accessgov_tools.diffcheck.rules import CHECKS
from accessgov_tools.release.cli import main as release_main
from tests.tools.diffcheck.diff_fixtures import FIXTURES, cached_load_config

_MARKED = re.compile(r"^- ⚠️ \*\*Breaking[^*]*:\*\* .* — ((?:`[^`]+`(?:, )?)+)", re.MULTILINE)
_LISTED = re.compile(r"^  (?:breaking|client-breaking): (\S+):", re.MULTILINE)
_RULE = re.compile(r"^rule: (.*)$", re.MULTILINE)


@pytest.fixture(autouse=True)
def _config_parsed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tools read `severities.yaml` as they do (their `--config`, its default), parsed once per process."""
    monkeypatch.setattr("accessgov_tools.diffcheck.cli.load_config", cached_load_config)
    monkeypatch.setattr("accessgov_tools.diffcheck.pipeline.load_config", cached_load_config)


def _run(capsys: pytest.CaptureFixture[str], run: object, argv: list[str]) -> tuple[int, str]:
    assert callable(run)
    status = run(argv)
    return status, capsys.readouterr().out


def verdicts(base: Path, head: Path, capsys: pytest.CaptureFixture[str], none: Path) -> dict[str, object]:
    """What each tool says about base -> head: the failing check ids and whether a major change is needed."""
    status, out = _run(
        capsys,
        diff_main,
        ["--base-file", str(base), "--head-file", str(head), "--format", "json", "--accepted", str(none)],
    )
    report = json.loads(out)
    gate = {f["id"] for f in report["findings"] if f["severity"] in ("breaking", "client-breaking")}
    _, changelog = _run(capsys, release_main, ["changelog", str(base), "--head", str(head), "--accepted", str(none)])
    marked = {c for group in _MARKED.findall(changelog) for c in re.findall(r"`([^`]+)`", group)}
    _, check = _run(capsys, release_main, ["check", str(base), "--head", str(head), "--accepted", str(none)])
    rule = _RULE.search(check)
    assert rule is not None, check
    return {
        "diff fails": status == 1,
        "diff": gate,
        "changelog": marked,
        "release-check": set(_LISTED.findall(check)),
        "release-check needs a major": rule[1].startswith("a breaking change"),
        "diff summary": report["summary"]["breaking"] + report["summary"]["client-breaking"],
    }


@pytest.mark.parametrize("check_id", sorted(p.name for p in FIXTURES.iterdir() if (p / "base.yaml").exists()))
def test_the_three_tools_agree(check_id: str, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    folder = FIXTURES / check_id
    for head in ("fail.yaml", "pass.yaml"):
        said = verdicts(folder / "base.yaml", folder / head, capsys, tmp_path / "no-acceptances.yaml")
        assert said["diff"] == said["changelog"] == said["release-check"], (head, said)
        assert said["diff fails"] == said["release-check needs a major"] == bool(said["diff"]), (head, said)
        if head == "fail.yaml" and load_config().grade(check_id).breaks:
            assert check_id in said["changelog"], said  # the pair that triggers a breaking check: all three say so


def _remove_ticket_action_id(spec: Path) -> None:
    path = spec / "components/schemas/TaskActionsServiceRestartResponse.yaml"
    text = path.read_text(encoding="utf-8")
    start = text.index("  ticketActionId:\n")
    end = text.find("\n  ", text.index("\n", text.index("description:", start)))
    path.write_text(text[:start] + (text[end + 1 :] if end != -1 else ""), encoding="utf-8")


def _require_reason(spec: Path) -> None:
    path = spec / "components/schemas/TaskActionsServiceRestartRequest.yaml"
    text = path.read_text(encoding="utf-8")
    new = "type: object\nrequired: [reason]\nproperties:\n  reason:\n    type: string\n"
    path.write_text(text.replace("type: object\nproperties:\n", new, 1), encoding="utf-8")


def _narrow_expand_mask(spec: Path) -> None:
    path = spec / "components/schemas/TaskExpandMask.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("        - app_user_last_usage\n", ""), encoding="utf-8")


@pytest.mark.slow  # bundles the contract twice a case
@pytest.mark.parametrize(
    ("edit", "check", "grade"),
    [
        (_remove_ticket_action_id, "response-optional-property-removed", "client-breaking"),
        (_require_reason, "new-required-request-property", "breaking"),
        (_narrow_expand_mask, "request-property-enum-value-removed", "breaking"),
    ],
)
def test_the_issues_three_changes_on_the_contract(
    edit: Callable[[Path], None], check: str, grade: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The closing note's three changes to `spec/`: one verdict, the grade the table gives."""
    shutil.copytree(REPO / "spec", tmp_path / "head")
    base = tmp_path / "base.yaml"
    base.write_text(dump_yaml(bundle(tmp_path / "head" / "openapi.yaml")), encoding="utf-8")
    edit(tmp_path / "head")
    head = tmp_path / "head.yaml"
    head.write_text(dump_yaml(bundle(tmp_path / "head" / "openapi.yaml")), encoding="utf-8")
    said = verdicts(base, head, capsys, tmp_path / "no-acceptances.yaml")
    assert said["diff"] == said["changelog"] == said["release-check"] == {check}, said
    assert said["diff fails"] and said["release-check needs a major"]
    assert load_config().grade(check).value == grade


IMPLIED = sorted(check for check in CHECKS if check.endswith("-implied"))


def test_every_implied_format_is_graded_info_by_a_named_policy() -> None:
    """The 12 `*-format-*-implied` checks: info by a decision written in severities.yaml, not by default."""
    assert len(IMPLIED) == 12
    config = load_config()
    deciding = [name for name, policy in config.policies.items() if set(IMPLIED) <= set(policy.checks)]
    assert deciding == ["implied-formats"], deciding
    assert {config.grade(check) for check in IMPLIED} == {Severity.INFO}


@pytest.mark.parametrize("check_id", IMPLIED)
def test_an_implied_format_gets_one_verdict(check_id: str, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Its fixture pair: the diff reports it (info) and passes, no tool marks it breaking, no major is asked."""
    folder = FIXTURES / check_id
    said = verdicts(folder / "base.yaml", folder / "fail.yaml", capsys, tmp_path / "no-acceptances.yaml")
    assert said["diff"] == said["changelog"] == said["release-check"] == set(), said
    assert not said["diff fails"] and not said["release-check needs a major"]
    status, out = _run(
        capsys,
        diff_main,
        ["--base-file", str(folder / "base.yaml"), "--head-file", str(folder / "fail.yaml"), "--format", "json"],
    )
    assert status == 0
    assert {(f["id"], f["severity"]) for f in json.loads(out)["findings"]} >= {(check_id, "info")}
