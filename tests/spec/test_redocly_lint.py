"""`redocly.yaml`: Redocly CLI's recommended rules plus this contract's own, on the split spec and the bundle.

Each configured rule passes on the real spec and catches a deliberately broken copy, naming the spec/ file.
Needs the pinned @redocly/cli (`npm ci --prefix tools/redocly`); missing tooling fails under CI=true.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from accessgov_tools import lint
from accessgov_tools.build_docs import REDOCLY
from accessgov_tools.bundle import REPO
from accessgov_tools.lint import redocly_counts, redocly_lint

# One group: the broken copies' Redocly run (`reports`) is made once, not on each worker.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("redocly-lint")]


@pytest.fixture(scope="module", autouse=True)
def _tooling() -> None:
    if not REDOCLY.exists():
        if os.environ.get("CI") == "true":
            pytest.fail("Redocly CLI is not installed (CI=true: `make lint` installs it)")
        pytest.skip("Redocly CLI is not installed: npm ci --prefix tools/redocly")


def replace(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _remove_summary(spec: Path) -> None:
    replace(spec / "paths/api_v1_tasks_{task_id}_action_restart.yaml", "  summary: Restart a task\n", "")


def _error_response_without_body(spec: Path) -> None:
    (spec / "components/responses/NotFound.yaml").write_text("description: Not found.\n", encoding="utf-8")


# The broken copies of spec/, by name: each test below reads Redocly's report on one.
BROKEN: dict[str, Callable[[Path], None]] = {
    "union-member": lambda s: replace(s / "components/schemas/TaskType.yaml", "[grant]", "[grants]"),
    "no-tags": lambda s: replace(s / "paths/api_v1_tasks_{task_id}_action_restart.yaml", "tags: [Task]", "tags: []"),
    "no-summary": _remove_summary,
    "error-without-body": _error_response_without_body,
    "error-not-json": lambda s: replace(s / "components/responses/Forbidden.yaml", "application/json:", "text/plain:"),
    "unused-component": lambda s: replace(
        s / "openapi.yaml", "  schemas:\n", "  schemas:\n    Orphan:\n      type: object\n"
    ),
    "error-code-case": lambda s: replace(
        s / "components/parameters/PageSize.yaml", "x-error-code: INVALID_PAGE_SIZE", "x-error-code: invalidPageSize"
    ),
    "broken-example": lambda s: replace(
        s / "components/examples/EntitlementsFirstPage.yaml", "displayName: Admin", "displayName: 7"
    ),
}


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Redocly's report on each broken copy (`BROKEN`), each of which fails: one Redocly run lints them all (a
    run's start-up and configuration cost about what a copy's lint does), its output, listed per file, split by
    the copy each file is in."""
    roots = {}
    for name, edit in BROKEN.items():
        spec = tmp_path_factory.mktemp(f"redocly-{name}") / "spec"
        shutil.copytree(REPO / "spec", spec)
        edit(spec)
        roots[name] = spec
    result = redocly_lint([str(spec / "openapi.yaml") for spec in roots.values()], capture=True)
    output = result.stdout + result.stderr
    assert result.returncode == 1, output
    blocks = [block for block in re.split(r"\n\s*\n", result.stdout) if block.strip()]
    assert all(block.splitlines()[0].endswith(":") for block in blocks), output  # `file:`, then its problems
    owner = {}
    for block in blocks:
        owners = [name for name, spec in roots.items() if f"/{spec.parent.name}/spec/" in block.splitlines()[0]]
        assert len(owners) == 1, (owners, block)
        owner[block] = owners[0]
    found = {}
    for name in roots:
        report = "\n\n".join(block for block in blocks if owner[block] == name)
        # Redocly fails on an error, not on a warning: alone, this copy would fail the run.
        assert redocly_counts(report)[0] > 0, f"{name}: no error of its own in\n{output}"
        found[name] = report
    return found


def test_the_spec_and_the_bundle_lint_clean() -> None:
    """No false positive, including on the `oneOf`-over-`required` unions (TaskType, PolicyStepInstance, Field)."""
    result = redocly_lint(capture=True)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "spec/openapi.yaml" in output and "generated/openapi.yaml" in output
    assert "warning" not in output.lower().replace("deprecation warning", "")


def test_required_name_missing_from_a_union_member_is_an_error(reports: dict[str, str]) -> None:
    out = reports["union-member"]
    assert "no-required-schema-properties-undefined" in out and "TaskType.yaml" in out


def test_operation_without_tags(reports: dict[str, str]) -> None:
    assert "rule/operation-tags" in reports["no-tags"]


def test_operation_without_summary(reports: dict[str, str]) -> None:
    assert "operation-summary" in reports["no-summary"]


def test_error_response_without_body(reports: dict[str, str]) -> None:
    out = reports["error-without-body"]
    assert "rule/error-response-body" in out and "NotFound.yaml" in out


def test_error_response_not_json(reports: dict[str, str]) -> None:
    assert "rule/error-response-json-body" in reports["error-not-json"]


def test_unused_component(reports: dict[str, str]) -> None:
    out = reports["unused-component"]
    assert "no-unused-components" in out and "Orphan" in out


def test_x_error_code_must_be_upper_snake(reports: dict[str, str]) -> None:
    assert "rule/x-error-code-upper-snake" in reports["error-code-case"]


def test_broken_example_names_the_example_file(reports: dict[str, str]) -> None:
    out = reports["broken-example"]
    assert "no-invalid-media-type-examples" in out and "EntitlementsFirstPage.yaml" in out


def test_make_lint_counts_redocly_findings_in_its_summary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`make lint`'s last line counts Redocly's findings next to the house rules' (it said 0 after 2 errors)."""
    spec = tmp_path / "spec"
    shutil.copytree(REPO / "spec", spec)
    replace(spec / "paths/readyz.yaml", "summary:", "x-summary:")
    replace(spec / "paths/metrics.yaml", "summary:", "x-summary:")
    config = tmp_path / "redocly.yaml"
    config.write_text(f"apis:\n  copy:\n    root: {spec / 'openapi.yaml'}\nextends: [recommended]\n")
    monkeypatch.setattr(lint, "redocly_lint", lambda capture=True: redocly_lint(config=config, capture=capture))
    assert lint.main(["--redocly"]) == 1
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last.startswith("lint: 2 finding(s): Redocly CLI 2 (2 error(s), 0 warning(s)), house rules 0 in "), last
