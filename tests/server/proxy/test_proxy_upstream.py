"""The validation proxy bounded against its upstream (issue 44, the threat model's "proxy" row): a silent upstream
is a 502 `UPSTREAM_UNREACHABLE` once a read times out, and with `--errors` a large answer is relayed after the part
that is checked instead of being held whole (loopback servers of tests/support/hostile.py)."""

from __future__ import annotations

import json
import socket
import time

import pytest

from accessgov.http.engine import load_bundle
from accessgov.proxy.app import MAX_CHECKED_BODY, ValidationProxy
from accessgov.proxy.contract import Contract
from tests.support import hostile
from tests.support.harness import serve

pytestmark = pytest.mark.slow

CONTRACT = Contract(load_bundle())
ENTITLEMENTS = "/api/v1/apps/app-github/entitlements"
TIMEOUT = 1.0


def get(base_url: str, path: str) -> bytes:
    """Everything the proxy sends for `GET path` until it closes the connection."""
    host, port = base_url.removeprefix("http://").rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=60) as sock:
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: p\r\nAuthorization: Bearer t\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while chunk := sock.recv(1 << 20):
            data += chunk
    return data


def test_a_silent_upstream_is_a_502_after_the_read_timeout() -> None:
    with hostile.serve("silent") as upstream:
        proxy = ValidationProxy(upstream.base_url, CONTRACT, upstream_timeout=TIMEOUT)
        with serve(proxy) as base_url:
            started = time.monotonic()
            answer = get(base_url, ENTITLEMENTS)
            seconds = time.monotonic() - started
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 502"), head
    assert json.loads(body)["code"] == "UPSTREAM_UNREACHABLE"
    assert seconds < 30 * TIMEOUT, seconds  # the read timeout ended it, not the default 30 s


def stalled_after(size: int) -> hostile.Behaviour:
    """Announces twice `size` bytes, sends `size`, then never the rest."""

    def act(sock: hostile.Counted) -> None:
        head = f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Request-Id: x\r\nContent-Length: {2 * size}"
        sock.sendall(head.encode() + b"\r\n\r\n" + b" " * size)
        time.sleep(60)

    return act


def test_with_errors_a_large_answer_is_relayed_past_what_is_checked_not_held_whole() -> None:
    size = MAX_CHECKED_BODY + 1024 * 1024
    with hostile.serve(stalled_after(size)) as upstream:
        proxy = ValidationProxy(upstream.base_url, CONTRACT, errors=True, upstream_timeout=TIMEOUT)
        with serve(proxy) as base_url:
            answer = get(base_url, ENTITLEMENTS)
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200"), head[:200]
    # What the upstream sent reached the client although the answer never completed: the proxy did not wait for
    # the whole body, and cut the connection once the upstream stalled past the read timeout.
    assert len(body) == size
