"""A non-editable install of the server (its wheel, as `pip install .` builds it) into a fresh virtual environment
starts the reference server, and holds nothing else.

Run from a directory outside the repository, so the installed package data (the bundle, the public variant, the
Alembic migrations) is what they read. The environment holds only the package and its dependencies: the server's
clean venv of the run (`server_venv`, tests/support/venvs.py), whose sources were deleted after the build.
"""

from __future__ import annotations

import socket
import subprocess
import time
from pathlib import Path

import httpx
import pytest

from tests.support import loopback
from tests.support.venvs import ProductVenv

# One worker runs the users of the server's clean venv (with test_wheel.py): none waits while another builds it.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("server-venv")]

REPO = Path(__file__).resolve().parents[2]
TOKEN = {"Authorization": "Bearer demo-admin-token"}
ENTITLEMENTS = "/api/v1/apps/app-github/entitlements"


def _port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _get(process: subprocess.Popen[bytes], url: str, headers: dict[str, str]) -> httpx.Response:
    deadline = time.monotonic() + 60
    while True:
        assert process.poll() is None, f"exited with {process.returncode}"
        try:
            return loopback.get(url, headers=headers, timeout=5)
        except httpx.TransportError:
            assert time.monotonic() < deadline, f"{url} did not answer"
            time.sleep(0.2)


def test_installed_package_starts_the_server_and_the_stub(server_venv: ProductVenv, tmp_path: Path) -> None:
    venv = server_venv.root
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
        assert loopback.get(base + "/openapi.json").json()["info"]["title"]
    finally:
        server.terminate()
        server.wait(15)

    # The wheel holds the server only (tests/server/test_wheel.py): no `generated`, so neither the models nor the
    # mock stub (the checkout's; `accessgov-tools mock` serves it, tests/tools/test_install.py).
    assert not (server_venv.site_packages / "generated").exists()
    stub = subprocess.run(
        [venv / "bin" / "python", "-c", "import generated.stub_server"], cwd=work, env=env, capture_output=True
    )
    assert stub.returncode != 0 and b"ModuleNotFoundError" in stub.stderr
