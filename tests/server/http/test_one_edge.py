"""One edge for every server of the repository (issue 39, item 4): the reference server, the mock and the validation
proxy, each under both parsers, hold the same request-head limits at their exact boundaries, refuse one oversized
read of a head at once, and quote a client's value in an error as the server does (docs/edges.md)."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from accessgov.http.edge import HeaderLimits
from tests.support import loopback
from tests.support.server_process import ADMIN, ENTITLEMENTS, accessgov_serve, free_port, read_until_closed, stop

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("one-edge")]

LIMITS = HeaderLimits()
CLOSED_WITHIN = 30
STARTUP_SECONDS = 60
# The upstream of the proxy takes larger heads, so that what is refused at a boundary is the proxy's own edge.
ROOMY_UPSTREAM = {"ACCESSGOV_MAX_HEADERS": "400", "ACCESSGOV_MAX_HEAD_BYTES": str(256 * 1024)}


@dataclass
class Target:
    kind: str
    http: str
    port: int

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


@contextlib.contextmanager
def _process(command: list[str], port: int, log: Path, env: dict[str, str]) -> Iterator[None]:
    with log.open("wb") as sink:
        process = subprocess.Popen(command, env={**os.environ, **env}, stdout=sink, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + STARTUP_SECONDS
        while True:
            assert process.poll() is None, f"{command} exited with {process.returncode}:\n{log.read_text()}"
            try:
                loopback.get(f"http://127.0.0.1:{port}{ENTITLEMENTS}", headers=ADMIN, timeout=2)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, f"{command} did not answer:\n{log.read_text()}"
                time.sleep(0.1)
        yield
    finally:
        stop(process)


@pytest.fixture(scope="module")
def upstream(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    env = {"ACCESSGOV_AUTH_FAILURE_LIMIT": "off", **ROOMY_UPSTREAM}
    with accessgov_serve(tmp_path_factory.mktemp("upstream"), env=env) as served:
        yield served.base_url


@pytest.fixture(
    scope="module",
    params=[(kind, http) for kind in ("server", "mock", "proxy") for http in ("httptools", "h11")],
    ids=lambda param: f"{param[0]}-{param[1]}",
)
def target(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, upstream: str) -> Iterator[Target]:
    kind, http = request.param
    data = tmp_path_factory.mktemp(f"{kind}-{http}")
    if kind == "server":
        env = {"ACCESSGOV_AUTH_FAILURE_LIMIT": "off"}
        with accessgov_serve(data, "--http", http, env=env) as served:
            yield Target(kind, http, served.port)
        return
    port = free_port()
    if kind == "mock":
        command = [sys.executable, "-m", "generated.stub_server", "--port", str(port), "--http", http]
    else:
        command = [sys.executable, "-m", "accessgov.cli", "proxy", "--upstream", upstream, "--port", str(port)]
    with _process(command, port, data / "process.log", {"ACCESSGOV_HTTP": http}):
        yield Target(kind, http, port)


def exchange(target: Target, raw: bytes) -> tuple[int, bytes]:
    with socket.create_connection(("127.0.0.1", target.port), timeout=5) as sock:
        # No half-close: uvicorn closes a connection at the client's EOF, before a proxied answer arrives.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            sock.sendall(raw)
        received = read_until_closed(sock, CLOSED_WITHIN)
    head, _, body = received.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 "), received[:200]
    return int(head.split()[1]), body


def head(target_path: bytes = ENTITLEMENTS.encode(), lines: list[bytes] | None = None) -> bytes:
    """A GET whose head holds Host, Authorization, Connection and `lines`."""
    own = [b"Host: x", b"Authorization: Bearer demo-admin-token", b"Connection: close"]
    return b"\r\n".join([b"GET " + target_path + b" HTTP/1.1", *own, *(lines or [])]) + b"\r\n\r\n"


OWN_LINES = 3
OWN_SIZE = len(b"Hostx" + b"Authorization" + b"Bearer demo-admin-token" + b"Connection" + b"close")


def served(target: Target, raw: bytes) -> None:
    """Past the edge: whatever the app answers (a 400 of its own for a value it refuses included)."""
    status, body = exchange(target, raw)
    assert status != 431 and b"not valid HTTP/1.1" not in body, body[:300]


def refused(target: Target, raw: bytes) -> None:
    status, body = exchange(target, raw)
    assert status == 431, body[:300]
    error = json.loads(body)
    assert error["code"] == "REQUEST_HEADERS_TOO_LARGE" and isinstance(error["message"], str), error


def filler(total: int, room: int) -> list[bytes]:
    """Header lines whose names and values add up to exactly `total` bytes, at most `room` of them."""
    lines: list[bytes] = []
    while total > 0:
        name = b"X-F%03d" % len(lines)
        size = min(LIMITS.line_bytes, total)
        assert size > len(name) and len(lines) < room
        lines.append(name + b": " + b"a" * (size - len(name)))
        total -= size
    return lines


def test_a_header_line_at_the_limit_is_served_and_one_byte_more_refused(target: Target) -> None:
    name = b"X-Line"
    served(target, head(lines=[name + b": " + b"a" * (LIMITS.line_bytes - len(name))]))
    refused(target, head(lines=[name + b": " + b"a" * (LIMITS.line_bytes - len(name) + 1)]))


def test_the_header_count_at_the_limit_is_served_and_one_more_refused(target: Target) -> None:
    fits = [b"X-H%d: v" % index for index in range(LIMITS.count - OWN_LINES)]
    served(target, head(lines=fits))
    refused(target, head(lines=[*fits, b"X-One-More: v"]))


def test_the_request_target_at_the_limit_is_served_and_one_byte_more_refused(target: Target) -> None:
    base = ENTITLEMENTS.encode() + b"?page_token="
    served(target, head(base + b"A" * (LIMITS.line_bytes - len(base))))
    refused(target, head(base + b"A" * (LIMITS.line_bytes - len(base) + 1)))


def test_the_target_counts_in_the_head_total_at_its_exact_boundary(target: Target) -> None:
    base = ENTITLEMENTS.encode() + b"?page_token="
    path = base + b"A" * (LIMITS.line_bytes - len(base))  # 8 KB target
    rest = LIMITS.head_bytes - len(path) - OWN_SIZE
    room = LIMITS.count - OWN_LINES
    served(target, head(path, filler(rest, room)))
    refused(target, head(path, filler(rest + 1, room)))


def test_one_oversized_read_of_a_head_is_refused_at_once(target: Target) -> None:
    # A head timeout closes without an answer: a 431 shows the read itself was refused.
    with socket.create_connection(("127.0.0.1", target.port), timeout=5) as sock:
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 65536)
        received = read_until_closed(sock, CLOSED_WITHIN)
    assert received.startswith(b"HTTP/1.1 431 "), received[:200]


def test_an_error_quotes_at_most_64_characters_of_a_value(target: Target) -> None:
    value = "z" * 3000
    response = loopback.get(f"{target.base_url}/api/v1/apps/{value}/entitlements", headers=ADMIN, timeout=30)
    assert response.status_code == 400, response.text[:300]
    error = response.json()
    assert "z" * 65 not in response.text and len(error["message"]) <= 1024, error
