"""A non-editable `pip install .` into a fresh virtual environment starts the reference server and the stub.

Run from a directory outside the repository, so the installed package data (the bundle, the variants, the
Alembic migrations) is what they read.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[2]
TOKEN = {"Authorization": "Bearer demo-admin-token"}
ENTITLEMENTS = "/api/v1/apps/app-github/entitlements"


def _run(*command: str | Path, cwd: Path) -> str:
    done = subprocess.run([str(c) for c in command], cwd=cwd, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{command} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def _port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _get(process: subprocess.Popen[bytes], url: str, headers: dict[str, str]) -> httpx.Response:
    deadline = time.monotonic() + 60
    while True:
        assert process.poll() is None, f"exited with {process.returncode}"
        try:
            return httpx.get(url, headers=headers, timeout=5)
        except httpx.TransportError:
            assert time.monotonic() < deadline, f"{url} did not answer"
            time.sleep(0.2)


def test_installed_package_starts_the_server_and_the_stub(tmp_path: Path) -> None:
    source = tmp_path / "source"
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info", "build")
    for part in ("accessgov", "generated"):
        shutil.copytree(REPO / part, source / part, ignore=ignore)
    for part in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / part, source / part)
    venv = tmp_path / "venv"
    _run(sys.executable, "-m", "venv", venv, cwd=tmp_path)
    _run(
        venv / "bin" / "python", "-m", "pip", "install", "--quiet", "--disable-pip-version-check", source, cwd=tmp_path
    )
    shutil.rmtree(source)  # nothing may be read from the sources any more
    work = tmp_path / "elsewhere"
    work.mkdir()

    port = _port()
    env = {"PATH": str(venv / "bin"), "DATABASE_URL": f"sqlite:///{work / 'accessgov.db'}"}
    server = subprocess.Popen(
        [venv / "bin" / "accessgov", "serve", "--demo", "--port", str(port)],
        cwd=work,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        base = f"http://127.0.0.1:{port}"
        assert _get(server, base + ENTITLEMENTS, TOKEN).status_code == 200
        assert httpx.get(base + "/openapi.json").json()["info"]["title"]
    finally:
        server.terminate()
        server.wait(15)

    port = _port()
    stub = subprocess.Popen(
        [venv / "bin" / "python", "-m", "generated.stub_server", "--port", str(port)],
        cwd=work,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        response = _get(stub, f"http://127.0.0.1:{port}{ENTITLEMENTS}", {**TOKEN, "Prefer": "code=404"})
        assert (response.status_code, response.json()["code"]) == (404, "NOT_FOUND")
    finally:
        stub.terminate()
        stub.wait(15)
