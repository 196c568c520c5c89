"""`redocly.yaml`: Redocly CLI's recommended rules plus this contract's own, on the split spec and the bundle.

Each configured rule passes on the real spec and catches a deliberately broken copy, naming the spec/ file.
Needs the pinned @redocly/cli (`npm ci --prefix tools/redocly`); missing tooling fails under CI=true.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from accessgov_tools import lint
from accessgov_tools.build_docs import REDOCLY
from accessgov_tools.bundle import REPO
from accessgov_tools.lint import redocly_lint

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module", autouse=True)
def _tooling() -> None:
    if not REDOCLY.exists():
        if os.environ.get("CI") == "true":
            pytest.fail("Redocly CLI is not installed (CI=true: `make lint` installs it)")
        pytest.skip("Redocly CLI is not installed: npm ci --prefix tools/redocly")


def lint_copy(tmp_path: Path, edit: Callable[[Path], None]) -> str:
    """Redocly's report on a copy of spec/ changed by `edit`; asserts that it failed."""
    spec = tmp_path / "spec"
    shutil.copytree(REPO / "spec", spec)
    edit(spec)
    result = redocly_lint([str(spec / "openapi.yaml")], capture=True)
    assert result.returncode == 1, result.stdout + result.stderr
    return result.stdout + result.stderr


def replace(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_the_spec_and_the_bundle_lint_clean() -> None:
    """No false positive, including on the `oneOf`-over-`required` unions (TaskType, PolicyStepInstance, Field)."""
    result = redocly_lint(capture=True)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "spec/openapi.yaml" in output and "generated/openapi.yaml" in output
    assert "warning" not in output.lower().replace("deprecation warning", "")


def test_required_name_missing_from_a_union_member_is_an_error(tmp_path: Path) -> None:
    out = lint_copy(tmp_path, lambda s: replace(s / "components/schemas/TaskType.yaml", "[grant]", "[grants]"))
    assert "no-required-schema-properties-undefined" in out and "TaskType.yaml" in out


def test_operation_without_tags(tmp_path: Path) -> None:
    out = lint_copy(
        tmp_path, lambda s: replace(s / "paths/api_v1_tasks_{task_id}_action_restart.yaml", "tags: [Task]", "tags: []")
    )
    assert "rule/operation-tags" in out


def test_operation_without_summary(tmp_path: Path) -> None:
    out = lint_copy(
        tmp_path,
        lambda s: replace(s / "paths/api_v1_tasks_{task_id}_action_restart.yaml", "  summary: Restart a task\n", ""),
    )
    assert "operation-summary" in out


def test_error_response_without_body(tmp_path: Path) -> None:
    def edit(spec: Path) -> None:
        (spec / "components/responses/NotFound.yaml").write_text("description: Not found.\n", encoding="utf-8")

    out = lint_copy(tmp_path, edit)
    assert "rule/error-response-body" in out and "NotFound.yaml" in out


def test_error_response_not_json(tmp_path: Path) -> None:
    out = lint_copy(
        tmp_path, lambda s: replace(s / "components/responses/Forbidden.yaml", "application/json:", "text/plain:")
    )
    assert "rule/error-response-json-body" in out


def test_unused_component(tmp_path: Path) -> None:
    out = lint_copy(
        tmp_path, lambda s: replace(s / "openapi.yaml", "  schemas:\n", "  schemas:\n    Orphan:\n      type: object\n")
    )
    assert "no-unused-components" in out and "Orphan" in out


def test_x_error_code_must_be_upper_snake(tmp_path: Path) -> None:
    out = lint_copy(
        tmp_path,
        lambda s: replace(
            s / "components/parameters/PageSize.yaml",
            "x-error-code: INVALID_PAGE_SIZE",
            "x-error-code: invalidPageSize",
        ),
    )
    assert "rule/x-error-code-upper-snake" in out


def test_broken_example_names_the_example_file(tmp_path: Path) -> None:
    out = lint_copy(
        tmp_path,
        lambda s: replace(s / "components/examples/EntitlementsFirstPage.yaml", "displayName: Admin", "displayName: 7"),
    )
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
