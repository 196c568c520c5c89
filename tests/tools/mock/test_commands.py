"""`accessgov proxy` and `python -m generated.stub_server` as the README runs them: real processes, real HTTP."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.conformance.selftest import mutants
from tests.conformance.selftest.target import serve_variants
from tests.support import loopback

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[3]
ACCESSGOV = Path(sys.executable).parent / "accessgov"
ENTITLEMENTS = "/api/v1/apps/app-github/entitlements"


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _started(command: list[str], url: str) -> subprocess.Popen[str]:
    process = subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while True:
        if process.poll() is not None:
            raise AssertionError(f"{command} exited: {process.communicate()}")
        try:
            loopback.get(url, timeout=1)
            return process
        except httpx.TransportError:
            if time.monotonic() > deadline:
                process.kill()
                raise AssertionError(f"{command} did not start") from None
            time.sleep(0.1)


def _stop(process: subprocess.Popen[str]) -> tuple[str, str]:
    process.terminate()
    return process.communicate(timeout=15)


def test_accessgov_proxy_logs_one_json_line_per_violation() -> None:
    port = _free_port()
    with serve_variants({"teapot": mutants.BY_ID["restart-undocumented-status"].build}) as (urls, _fixtures):
        teapot = urls["teapot"]
        base = f"http://127.0.0.1:{port}"
        process = _started([str(ACCESSGOV), "proxy", "--upstream", teapot, "--port", str(port)], base + "/__proxy/x")
        try:
            headers = {"Authorization": "Bearer demo-admin-token"}
            assert loopback.get(base + ENTITLEMENTS, headers=headers).status_code == 200
            assert loopback.post(base + "/api/v1/tasks/t/action/restart", json={}, headers=headers).status_code == 418
            report = loopback.get(base + "/__proxy/violations").json()
        finally:
            _out, err = _stop(process)
    assert report["violations"] == 1
    lines = [json.loads(line) for line in err.splitlines() if line.startswith("{")]
    assert [(line["side"], line["kind"], line["status"]) for line in lines] == [("response", "response.status", 418)]


def test_stub_module_serves_examples() -> None:
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    command = [sys.executable, "-m", "generated.stub_server", "--port", str(port), "--seed", "3"]
    process = _started(command, base + "/")
    try:
        response = loopback.get(
            base + ENTITLEMENTS, headers={"Authorization": "Bearer x", "Prefer": "example=lastPage"}
        )
    finally:
        _stop(process)
    assert (response.status_code, response.json()["nextPageToken"]) == (200, "")
