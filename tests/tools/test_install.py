"""The reviewers' tools install alone: a non-editable `pip install './tools[mock]'` into a fresh virtual environment
gives the `accessgov-tools` console script and no server (`import accessgov` fails), and its commands work on a copy
of the checkout's contract, outside the repository: bundle, validate, lint (the house rules), mock.

The environment is the tools' clean venv of the run (`tools_venv`, tests/support/venvs.py); only the tools and their
dependencies are in it.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from pathlib import Path

import httpx
import pytest

from tests.support import loopback
from tests.support.venvs import ProductVenv

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
TOKEN = {"Authorization": "Bearer demo-admin-token"}
SERVER_PACKAGES = ("accessgov", "sqlalchemy", "uvloop", "starlette", "alembic", "psycopg")


def _run(command: list[str | Path], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {"PATH": str(command[0]).rsplit("/", 1)[0], "HOME": str(cwd)}
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=300, check=False)


def _port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_the_tools_install_without_the_server_and_work_on_a_checkout(tools_venv: ProductVenv, tmp_path: Path) -> None:
    venv = tools_venv.root
    tools = venv / "bin" / "accessgov-tools"
    python = venv / "bin" / "python"

    for package in SERVER_PACKAGES:
        imported = _run([python, "-c", f"import {package}"], cwd=tmp_path)
        assert imported.returncode != 0 and "ModuleNotFoundError" in imported.stderr, package

    # A checkout of the contract somewhere else: the tools find it from the working directory.
    checkout = tmp_path / "checkout"
    for part in ("spec", "overlays"):
        shutil.copytree(REPO / part, checkout / part)
    shutil.copytree(REPO / "generated", checkout / "generated", ignore=shutil.ignore_patterns("__pycache__"))
    (checkout / "generated" / "openapi.yaml").unlink()

    listed = _run([tools, "--help"], cwd=checkout)
    assert listed.returncode == 0, listed.stderr
    for command in ("bundle", "lint", "validate", "overlay", "diff", "changelog", "release-check", "generate"):
        assert command in listed.stdout
    bundled = _run([tools, "bundle"], cwd=checkout)
    assert bundled.returncode == 0, bundled.stderr
    assert (checkout / "generated" / "openapi.yaml").read_bytes() == (REPO / "generated" / "openapi.yaml").read_bytes()
    validated = _run([tools, "validate"], cwd=checkout)
    assert validated.returncode == 0 and "valid OpenAPI 3.1" in validated.stdout, validated.stdout + validated.stderr
    linted = _run([tools, "lint"], cwd=checkout)
    assert linted.returncode == 0, linted.stdout + linted.stderr

    port = _port()
    mock = subprocess.Popen(
        [tools, "mock", "--port", str(port)],
        cwd=checkout,
        env={"PATH": str(venv / "bin")},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            assert mock.poll() is None, mock.stderr.read() if mock.stderr else mock.returncode
            try:
                response = loopback.get(
                    f"http://127.0.0.1:{port}/api/v1/apps/app-github/entitlements",
                    headers={**TOKEN, "Prefer": "code=404"},
                    timeout=5,
                )
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, "the mock did not answer"
                time.sleep(0.2)
        assert (response.status_code, response.json()["code"]) == (404, "NOT_FOUND")
    finally:
        mock.terminate()
        mock.wait(15)
