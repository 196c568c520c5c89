"""Every Python block of the repository README and of the client README runs, as written, in a virtual
environment holding only the client package, against the reference server (its URL substituted for the
documented `http://127.0.0.1:8080`)."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from tests.sdk.conftest import CLIENT_DIR, REPO

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("sdk-venv")]  # with test_client_install.py: one venv build

READMES = {"README.md": REPO / "README.md", "generated/client/README.md": CLIENT_DIR / "README.md"}
DOCUMENTED_URL = "http://127.0.0.1:8080"
BLOCK = re.compile(r"^```python\n(.*?)^```$", re.DOTALL | re.MULTILINE)


def python_blocks(text: str) -> list[str]:
    """The ```python fenced blocks of a Markdown text, in order."""
    return [match.group(1) for match in BLOCK.finditer(text)]


SNIPPETS = [
    pytest.param(block, id=f"{name}#{index}")
    for name, path in READMES.items()
    for index, block in enumerate(python_blocks(path.read_text(encoding="utf-8")), start=1)
]


def run_in(python: Path, code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    # cwd outside the repository and a clean environment: only the installed packages can be imported.
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(cwd), "PYTHONWARNINGS": "error::DeprecationWarning"}
    return subprocess.run(
        [str(python), "-c", code], cwd=cwd, env=env, capture_output=True, text=True, timeout=120, check=False
    )


def test_the_readmes_have_the_documented_snippets() -> None:
    texts = {name: path.read_text(encoding="utf-8") for name, path in READMES.items()}
    client = python_blocks(texts["generated/client/README.md"])
    joined = "\n".join(client)
    for needle in ("AsyncAccessGov", "ClientCredentials", ".paginate(", "WebhookSender", "except NotFoundError"):
        assert needle in joined, f"client README: no snippet uses {needle}"
    assert python_blocks(texts["README.md"]), "README.md has no Python snippet"


@pytest.mark.parametrize("code", SNIPPETS)
def test_snippet_runs_against_the_reference_server(
    code: str, sdk_python: Path, server_url: str, tmp_path: Path
) -> None:
    assert DOCUMENTED_URL in code or "https://example.accessgov.example" in code, "snippet names no server"
    done = run_in(sdk_python, code.replace(DOCUMENTED_URL, server_url), tmp_path)
    assert done.returncode == 0, f"snippet failed:\n{code}\n--- stdout\n{done.stdout}\n--- stderr\n{done.stderr}"


def test_the_clean_venv_cannot_import_the_server(sdk_python: Path, tmp_path: Path) -> None:
    done = run_in(sdk_python, "import accessgov", tmp_path)
    assert done.returncode != 0 and "No module named 'accessgov'" in done.stderr
    listed = run_in(
        sdk_python,
        "import importlib.metadata as m; print(sorted(d.metadata['Name'].lower() for d in m.distributions()))",
        tmp_path,
    )
    assert listed.returncode == 0, listed.stderr
    for server_only in ("sqlalchemy", "psycopg", "uvicorn", "starlette", "accessgov"):
        assert f"'{server_only}'" not in listed.stdout, f"{server_only} was installed with the client"
    assert "'accessgov-client'" in listed.stdout
