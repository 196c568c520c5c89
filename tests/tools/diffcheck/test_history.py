"""The diff on real public API histories (`-m history`, not in `make test`): every pair of
`tools/accessgov_tools/diffcheck/histories.yaml` gets a verdict, within its CPU-time and memory bounds, never a crash.

Needs local git mirrors: `HISTORY_MIRRORS=DIR pytest -m history tests/tools/diffcheck/test_history.py` (or
`make diff-history HISTORY_MIRRORS=DIR`). The script's own behaviour is tested on a small repository made here.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest
import yaml

from accessgov_tools import loader
from accessgov_tools.diffcheck.history import Bounds, Pair, extract, git_dir, load_manifest, main, run_pair

PAIRS, BOUNDS = load_manifest()
_COMMIT = re.compile(r"^[0-9a-f]{40}$")


@pytest.fixture(scope="module")
def mirrors() -> Path:
    value = os.environ.get("HISTORY_MIRRORS")
    if not value:
        pytest.skip(
            "HISTORY_MIRRORS is not set: this lane reads the revisions named in "
            "tools/accessgov_tools/diffcheck/histories.yaml "
            "from local git mirrors (make diff-history HISTORY_MIRRORS=DIR)"
        )
    path = Path(value)
    if not path.is_dir():
        pytest.skip(f"HISTORY_MIRRORS={value} is not a directory")
    return path


@pytest.mark.history
@pytest.mark.slow
@pytest.mark.parametrize("pair", PAIRS, ids=lambda p: p.label.replace(" ", ":"))
def test_a_real_revision_pair_gets_a_verdict_within_its_bounds(pair: Pair, mirrors: Path) -> None:
    git = git_dir(mirrors, pair.repo)
    if git is None:
        pytest.skip(f"no git mirror of {pair.repo} under {mirrors}")
    outcome = run_pair(pair, git, BOUNDS)
    assert outcome.status == "ok", outcome


def test_the_manifest_names_commits_not_documents() -> None:
    repos = {p.repo for p in PAIRS}
    assert {"stripe/openapi", "box/box-openapi", "discord/discord-api-spec"} <= repos
    for pair in PAIRS:
        assert _COMMIT.match(pair.base) and _COMMIT.match(pair.head) and pair.base != pair.head, pair
    assert all(sum(p.repo == repo for p in PAIRS) >= 10 for repo in repos)
    assert BOUNDS.seconds > 0 and BOUNDS.megabytes > 0


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True)
    return done.stdout.strip()


def _commit(repo: Path, document: dict[str, object], message: str) -> str:
    (repo / "api").mkdir(exist_ok=True)
    (repo / "api" / "openapi.yaml").write_text(yaml.safe_dump(document), encoding="utf-8")
    _git(repo, "add", "api/openapi.yaml")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", message)
    return _git(repo, "rev-parse", "HEAD")


def _document(status_type: str, version: str) -> dict[str, object]:
    schema = {"type": "object", "required": ["id"], "properties": {"id": {"type": status_type}}}
    ok = {"description": "OK", "content": {"application/json": {"schema": schema}}}
    return {
        "openapi": "3.1.0",
        "info": {"title": "t", "version": version},
        "paths": {"/a": {"get": {"responses": {"200": ok}}}},
    }


@pytest.mark.slow
def test_a_pair_is_read_from_a_mirror_and_diffed_in_a_bounded_child(tmp_path: Path) -> None:
    repo = tmp_path / "acme+api"
    repo.mkdir()
    _git(repo, "init", "-q")
    before = _commit(repo, _document("string", "1"), "first")
    after = _commit(repo, _document("integer", "2"), "second")
    git = git_dir(tmp_path, "acme/api")
    assert git is not None
    outcome = run_pair(Pair("acme/api", "api/openapi.yaml", before, after), git, Bounds(60, 1024))
    assert (outcome.status, outcome.breaking, outcome.findings) == ("ok", 1, 1)
    assert outcome.cpu_seconds > 0 and outcome.peak_megabytes > 0
    missing = run_pair(Pair("acme/api", "api/other.yaml", before, after), git, Bounds(60, 1024))
    assert missing.status.startswith("unreadable")
    tight = run_pair(Pair("acme/api", "api/openapi.yaml", before, after), git, Bounds(60, 1))
    assert tight.status.startswith("over the memory bound")


def test_a_missing_mirror_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(tmp_path), "--only", "stripe/openapi"]) == 2
    assert "stripe/openapi" in capsys.readouterr().err


@pytest.mark.history
@pytest.mark.slow
@pytest.mark.parametrize(
    "pair", [p for p in PAIRS if p.path.endswith(".yaml")], ids=lambda p: p.label.replace(" ", ":")
)
def test_a_real_yaml_revision_reads_the_same_through_both_constructors(
    pair: Pair, mirrors: Path, tmp_path: Path
) -> None:
    """The loader's direct constructor against PyYAML's (same 1.2 rules) on real documents (Stripe's YAML)."""
    git = git_dir(mirrors, pair.repo)
    if git is None:
        pytest.skip(f"no git mirror of {pair.repo} under {mirrors}")
    path = tmp_path / "head.yaml"
    extract(git, pair.head, pair.path, path)
    node = loader.compose(path)
    data, same_read = loader.load_with_nodes(path)
    assert data == loader._Constructor12().construct_document(node)
    assert same_read is not None and [k.value for k, _ in same_read.value] == [k.value for k, _ in node.value]
