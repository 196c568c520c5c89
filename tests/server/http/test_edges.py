"""The edges of `accessgov serve` on real processes and sockets: deadlines, draining shutdown, workers that do not
outlive their supervisor (the connection cap: test_http_edges.py). Bounds are generous; speed is the benchmark's
business."""

from __future__ import annotations

import json
import os
import signal
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from accessgov.demo.seed import DEMO_HMAC_LISTENER_ID, DEMO_HMAC_SECRET
from accessgov.webhooks import signing
from tests.support import loopback
from tests.support.server_process import (
    ADMIN,
    ENTITLEMENTS,
    Served,
    accessgov_serve,
    alive,
    children,
    read_until_closed,
)

# One worker: the module's servers (one per HTTP parser, shared by the deadline tests) start once.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("edges")]

WEBHOOK = f"/api/v1/webhooks/incoming/{DEMO_HMAC_LISTENER_ID}"
DISCONNECT_WITHIN = 30


@pytest.fixture(scope="module", params=["httptools", "h11"])
def served(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """`accessgov serve` with the HTTP parser of the parameter, 1 s for a request head and between two body chunks,
    and a 60 s keep-alive (a kept-alive connection waits on its next head's deadline, not on the keep-alive): the
    head's and the body's deadline tests share it, each on connections of its own."""
    options = ("--http", request.param, "--head-timeout", "1", "--body-timeout", "1", "--keep-alive", "60")
    with accessgov_serve(tmp_path_factory.mktemp("deadlines"), *options) as served:
        yield served


def test_partial_request_head_is_disconnected(served: Served) -> None:
    request = (
        b"GET " + ENTITLEMENTS.encode() + b" HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer demo-admin-token\r\n\r\n"
    )
    # Three connections at once (their deadlines run side by side): no head, a head cut off, and a whole request
    # with a partial head pipelined behind it: the next head on a kept-alive connection is bounded too.
    with served.connect() as idle, served.connect() as cut, served.connect() as pipelined:
        cut.sendall(b"GET " + ENTITLEMENTS.encode() + b" HTTP/1.1\r\nHost: x\r\nAuthorization: Bea")
        pipelined.sendall(request + b"GET / HTTP/1.1\r\nHo")
        assert read_until_closed(idle, DISCONNECT_WITHIN) == b""
        assert read_until_closed(cut, DISCONNECT_WITHIN) == b""
        assert read_until_closed(pipelined, DISCONNECT_WITHIN).startswith(b"HTTP/1.1 200 ")
    # A head that keeps arriving byte by byte is bounded as a whole, not per byte.
    with served.connect() as sock:
        sock.settimeout(DISCONNECT_WITHIN)
        closed = False
        for byte in b"GET " + ENTITLEMENTS.encode() + b" HTTP/1.1\r\nX-Slow: " + b"a" * 200:
            try:
                sock.sendall(bytes([byte]))
            except (BrokenPipeError, ConnectionResetError):
                closed = True
                break
            time.sleep(0.1)
        assert closed or read_until_closed(sock, DISCONNECT_WITHIN) == b""
    assert loopback.get(served.base_url + ENTITLEMENTS, headers=ADMIN, timeout=10).status_code == 200


def test_stalled_request_body_is_disconnected(served: Served) -> None:
    body = json.dumps({"orderId": "A-1"}).encode()
    headers = signing.hmac_headers(DEMO_HMAC_SECRET, body)
    head = [f"POST {WEBHOOK} HTTP/1.1", "Host: x", "Content-Type: application/json", f"Content-Length: {len(body)}"]
    head += [f"{name}: {value}" for name, value in headers.items()]
    with served.connect() as sock:
        sock.sendall(("\r\n".join(head) + "\r\n\r\n").encode() + body[:5])
        assert read_until_closed(sock, DISCONNECT_WITHIN) == b""
    # The same delivery, sent whole, is accepted: the stalled one was never recorded.
    response = loopback.post(served.base_url + WEBHOOK, content=body, headers=headers, timeout=10)
    assert response.status_code == 200, response.text


def stopped_listening(served: Served, within: float = 30) -> None:
    """Wait until `served` refuses new connections: SIGTERM closed its listening socket."""
    deadline = time.monotonic() + within
    while True:
        try:
            served.connect().close()
        except ConnectionRefusedError:
            return
        assert time.monotonic() < deadline, "the server still accepts connections after SIGTERM"
        time.sleep(0.05)


def test_sigterm_drains_a_request_in_flight(tmp_path: Path) -> None:
    body = json.dumps({"orderId": "in-flight"}).encode()
    headers = signing.hmac_headers(DEMO_HMAC_SECRET, body)
    head = [f"POST {WEBHOOK} HTTP/1.1", "Host: x", "Content-Type: application/json", f"Content-Length: {len(body)}"]
    head += [f"{name}: {value}" for name, value in headers.items()]
    with accessgov_serve(tmp_path, "--graceful-shutdown", "20", "--body-timeout", "20") as served:
        with served.connect() as sock:
            sock.sendall(("\r\n".join(head) + "\r\n\r\n").encode() + body[:5])
            time.sleep(0.5)  # the request is in flight: its handler waits for the rest of the body
            served.process.send_signal(signal.SIGTERM)
            stopped_listening(served)  # it is shutting down, with the request in flight ...
            assert served.process.poll() is None, "the server exited with a request in flight"
            sock.sendall(body[5:])
            response = read_until_closed(sock, DISCONNECT_WITHIN)
        assert response.startswith(b"HTTP/1.1 200 "), response[:300]
        assert b"AUTOMATION_RUN_STATUS_QUEUED" in response
        # uvicorn re-raises the signal it handled once it has shut down: exiting "by SIGTERM" is the clean end.
        assert served.process.wait(DISCONNECT_WITHIN) in (0, -signal.SIGTERM)


def test_workers_serve_and_exit_when_the_supervisor_is_killed(tmp_path: Path) -> None:
    with accessgov_serve(tmp_path, "--workers", "2") as served:
        workers = children(served.process.pid)
        assert len(workers) >= 2, workers
        for _ in range(10):
            assert loopback.get(served.base_url + ENTITLEMENTS, headers=ADMIN, timeout=10).status_code == 200
        body = b'{"orderId":"A-7"}'
        response = loopback.post(
            served.base_url + WEBHOOK, content=body, headers=signing.hmac_headers(DEMO_HMAC_SECRET, body), timeout=10
        )
        assert response.status_code == 200, response.text
        os.kill(served.process.pid, signal.SIGKILL)
        served.process.wait(10)
        deadline = time.monotonic() + DISCONNECT_WITHIN
        while survivors := [pid for pid in workers if alive(pid)]:
            assert time.monotonic() < deadline, f"workers {survivors} outlived their supervisor"
            time.sleep(0.2)
        with socket.socket() as probe:
            assert probe.connect_ex(("127.0.0.1", served.port)) != 0, "something still listens on the port"
