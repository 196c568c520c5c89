"""The TypeScript SDK's test session: the package built and installed from its tarball (harness.build), the
reference server (`accessgov serve --demo`, a real process on a free loopback port) with a JWT listener made with
the `accessgov` CLI and a JWKS served beside it, and the contract's mock (`accessgov-tools mock`). All of it once
per session: the TypeScript tests run in one xdist group."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from accessgov.config import DEFAULT_TENANT_BASE_URL
from tests.sdk_ts.harness import REPO, Built, build
from tests.support import loopback
from tests.support.jwks import JwksServer
from tests.support.keys import make_keys
from tests.support.server_process import accessgov_serve, free_port, stop

STARTUP_SECONDS = 60


@dataclass(frozen=True)
class Servers:
    """What the node tests are pointed at, as the environment variables they read."""

    env: dict[str, str]

    @property
    def server_url(self) -> str:
        return self.env["ACCESSGOV_SERVER"]


def _jwt_listener(database_url: str, jwks_url: str) -> tuple[str, str]:
    """A JWT listener made as an operator makes one: (its id, its URL under the tenant base URL: the JWT `aud`)."""
    done = subprocess.run(
        [sys.executable, "-m", "accessgov.cli", "listeners", "create", "--auth", "jwt", "--jwks-url", jwks_url],
        env={**os.environ, "DATABASE_URL": database_url},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    listener_id = done.stdout.split()[1]
    url = next(line.split(" ", 1)[1] for line in done.stdout.splitlines() if line.startswith("url: "))
    return listener_id, url


@pytest.fixture(scope="session")
def reference_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    data = tmp_path_factory.mktemp("sdk-ts-server")
    keys = make_keys()
    key_dir = data / "keys"
    key_dir.mkdir()
    for name in ("rsa", "ec", "ed"):
        (key_dir / f"{name}.pem").write_bytes(getattr(keys, name))
    with JwksServer(keys.jwks()) as jwks, accessgov_serve(data) as served:
        listener_id, audience = _jwt_listener(served.database_url, jwks.url)
        yield {
            "ACCESSGOV_SERVER": served.base_url,
            "ACCESSGOV_JWT_LISTENER_URL": f"{served.base_url}/api/v1/webhooks/incoming/{listener_id}",
            "ACCESSGOV_JWT_AUDIENCE": audience,
            "ACCESSGOV_TENANT_BASE_URL": DEFAULT_TENANT_BASE_URL,
            "ACCESSGOV_JWT_KEYS": str(key_dir),
        }


@pytest.fixture(scope="session")
def mock_server() -> Iterator[str]:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    command = [sys.executable, "-m", "accessgov_tools", "mock", "--host", "127.0.0.1", "--port", str(port)]
    process = subprocess.Popen(command, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + STARTUP_SECONDS
    try:
        while True:
            assert process.poll() is None, (
                f"the mock exited: {process.stderr.read().decode() if process.stderr else ''}"
            )
            try:
                loopback.get(f"{url}/api/v1/apps/a/entitlements", headers={"Authorization": "Bearer x"}, timeout=2)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, "the mock did not start"
                time.sleep(0.1)
        yield url
    finally:
        stop(process)


@pytest.fixture(scope="session")
def servers(reference_server: dict[str, str], mock_server: str) -> Servers:
    return Servers(
        {
            **reference_server,
            "ACCESSGOV_MOCK": mock_server,
            "ACCESSGOV_BUNDLE": str(REPO / "generated" / "openapi.json"),
        }
    )


@pytest.fixture(scope="session")
def built(tmp_path_factory: pytest.TempPathFactory, reference_server: dict[str, str]) -> Built:
    """The package packed and installed into an empty project, compiled there with its tests, examples and the
    documentation's programs (which name the reference server started for this session)."""
    return build(Path(tmp_path_factory.mktemp("sdk-ts")), reference_server["ACCESSGOV_SERVER"])
