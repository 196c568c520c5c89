"""Every command shown in README.md and docs/*.md runs (docs/testing.md has the convention).

Shell blocks run in bash in a copy of the working tree against a reference server on a free loopback port: `make X`
as `make -n X`, `curl` with `--fail-with-body`. A block marked `<!-- not-run: reason -->` is only checked for its
`make` targets."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.repository.blocks import DOCUMENTS, MARKER, REPO, Block, all_blocks, blocks, make_invocations, shell_blocks
from tests.support.harness import seeded_server

# One worker runs the module: the server and the work directory the blocks share are made once, not once per worker.
pytestmark = pytest.mark.xdist_group("doc-commands")

DOCUMENTED_URL = "http://127.0.0.1:8080"
VENV_BIN = Path(sys.executable).parent
# Prepended to every shell block: what "runs" means for make and curl here.
PRELUDE = """set -euo pipefail
make() { command make --no-print-directory -n "$@" >/dev/null; }
curl() { command curl --fail-with-body --silent --show-error --max-time 60 "$@"; }
"""
SHELL_BLOCKS = shell_blocks()


def makefile_targets() -> set[str]:
    text = (REPO / "Makefile").read_text(encoding="utf-8")
    return {name for line in re.findall(r"^([A-Za-z0-9_ .$()/-]+?):(?!=)", text, re.MULTILINE) for name in line.split()}


def test_the_documents_have_shell_blocks() -> None:
    assert len(DOCUMENTS) > 1 and any(block.path.name == "README.md" for block in SHELL_BLOCKS)


def test_every_not_run_marker_gives_a_reason_and_sits_on_a_block() -> None:
    for path in DOCUMENTS:
        text = path.read_text(encoding="utf-8")
        marked = [block for block in blocks(path) if block.not_run is not None]
        assert len(MARKER.findall(text)) == len(marked), f"{path.name}: a not-run marker not right before a fence"
        for block in marked:
            assert block.not_run and block.not_run.strip(), f"{block.where}: a not-run marker without a reason"


def test_every_make_target_named_in_a_shell_block_exists() -> None:
    targets = makefile_targets()
    for block in SHELL_BLOCKS:
        for arguments in make_invocations(block.body):
            # Options, variables and a synopsis' [optional parts] are not targets.
            named = [word for word in arguments if word[0] not in "-[" and "=" not in word and word != "]"]
            assert named, f"{block.where}: `make` without a target"
            missing = [word for word in named if word not in targets]
            assert not missing, f"{block.where}: no Makefile target {missing}"


def test_the_readme_stays_short() -> None:
    # 300 lines, and 25 more for the second SDK's section (the TypeScript SDK's own README holds the rest).
    assert len((REPO / "README.md").read_text(encoding="utf-8").splitlines()) <= 325


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """(base URL, database URL) of the reference server with the demo tenant, on a free loopback port. Its key file
    is its own, so the commands (which inherit the environment) open what it sealed whatever other tests set."""
    directory = tmp_path_factory.mktemp("docs-server")
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("ACCESSGOV_SECRET_KEY", raising=False)
        patch.setenv("ACCESSGOV_SECRET_KEY_FILE", str(directory / "secret.keys"))
        with seeded_server(directory) as (base_url, config, _sessions):
            yield base_url, config.database_url


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the working tree's files (tracked and new, not ignored): a documented command may write (a tag,
    a build directory), and must not write into the repository the tests run from."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        check=True,
    ).stdout.decode()
    copy = tmp_path_factory.mktemp("docs-workdir")
    for name in filter(None, listed.split("\0")):
        source = REPO / name
        if source.is_file():  # a deleted file is still listed until its deletion is staged
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, copy / name)
    return copy


def failure(block: Block, ran: str, done: subprocess.CompletedProcess[str]) -> str:
    return f"{block.where} failed:\n{ran}\n--- stdout\n{done.stdout}\n--- stderr\n{done.stderr}"


def runnable(block: Block) -> bool:
    return block.not_run is None


@pytest.mark.slow
@pytest.mark.parametrize("block", [pytest.param(block, id=block.where) for block in SHELL_BLOCKS if runnable(block)])
def test_shell_block_runs(block: Block, server: tuple[str, str], workdir: Path) -> None:
    base_url, database_url = server
    script = block.body.replace(DOCUMENTED_URL, base_url).replace(".venv/bin/", f"{VENV_BIN}/")
    env = {**os.environ, "DATABASE_URL": database_url, "PATH": f"{VENV_BIN}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(
        ["bash", "-c", PRELUDE + script], cwd=workdir, env=env, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, failure(block, script, done)


# The READMEs' Python blocks are the SDK's: tests/sdk/test_readme_snippets.py runs them in a clean venv. Any other
# document's Python block runs here, as written, against the server; the test exists only while such blocks do (an
# empty parameter set would be a skip that checks nothing).
DOCS_PYTHON = [block for block in all_blocks() if block.language == "python" and block.path.name != "README.md"]

if DOCS_PYTHON:

    @pytest.mark.slow
    @pytest.mark.parametrize("block", [pytest.param(block, id=block.where) for block in DOCS_PYTHON if runnable(block)])
    def test_python_block_runs(block: Block, server: tuple[str, str], workdir: Path) -> None:
        """A document's Python block runs against the server."""
        base_url, database_url = server
        code = block.body.replace(DOCUMENTED_URL, base_url)
        env = {**os.environ, "DATABASE_URL": database_url}  # the SDK is installed (make setup)
        done = subprocess.run(
            [sys.executable, "-c", code], cwd=workdir, env=env, capture_output=True, text=True, timeout=300, check=False
        )
        assert done.returncode == 0, failure(block, code, done)
