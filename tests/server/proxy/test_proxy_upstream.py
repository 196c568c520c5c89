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


def _raw(data: bytes) -> hostile.Behaviour:
    return lambda sock: sock.sendall(data)


def _endless_headers(sock: hostile.Counted) -> None:
    sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n")
    while True:
        sock.sendall(b"X-A: " + b"a" * 100 + b"\r\n")


def _1xx_flood(sock: hostile.Counted) -> None:
    while True:
        sock.sendall(b"HTTP/1.1 102 Processing\r\n\r\n")


def _head_then_nothing(sock: hostile.Counted) -> None:
    sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{")
    time.sleep(60)


HEADERS_100K = b"".join(b"X-%d: v\r\n" % i for i in range(100_000))
# What the upstream sends -> the 502's code and what its message says. The drips would take minutes, the floods
# never end: the exchange's deadline (TIMEOUT here, 30 s by default) or a bound ends each before the answer starts.
UPSTREAM_FAULTS: dict[str, tuple[str | hostile.Behaviour, str, str]] = {
    "slow-drip": ("slow-drip", "UPSTREAM_UNREACHABLE", f"did not answer within {TIMEOUT:g} s"),
    "slow-body-with-errors": ("slow-body", "UPSTREAM_UNREACHABLE", f"did not answer within {TIMEOUT:g} s"),
    "head-then-nothing-with-errors": (_head_then_nothing, "UPSTREAM_UNREACHABLE", "did not answer within"),
    "1xx-flood": (_1xx_flood, "UPSTREAM_UNREACHABLE", "did not answer within"),
    "huge-body": ("huge-body", "UPSTREAM_TOO_LARGE", "declares more than 67108864 bytes"),
    "endless-headers": (_endless_headers, "UPSTREAM_UNREACHABLE", "could not be reached"),
    "100k-headers": (
        _raw(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n" + HEADERS_100K + b"\r\n{}"),
        "UPSTREAM_UNREACHABLE",
        "",
    ),
    "status-999": (_raw(b"HTTP/1.1 999 Weird\r\nContent-Length: 2\r\n\r\n{}"), "UPSTREAM_INVALID", "status 999"),
    "not-http": ("not-http", "UPSTREAM_UNREACHABLE", "could not be reached"),
    "hang-up": ("hang-up", "UPSTREAM_UNREACHABLE", "could not be reached"),
    "garbage-status-line": (_raw(b"HTTZ/9 abc\r\n\r\n"), "UPSTREAM_UNREACHABLE", "could not be reached"),
    "nul-in-a-header": (
        _raw(b"HTTP/1.1 200 OK\r\nX-Bad: a\x00b\r\nContent-Length: 2\r\n\r\n{}"),
        "UPSTREAM_UNREACHABLE",
        "",
    ),
    "two-lengths": (
        _raw(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 50\r\n\r\n{}"),
        "UPSTREAM_UNREACHABLE",
        "",
    ),
    "negative-length": (_raw(b"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n{}"), "UPSTREAM_UNREACHABLE", ""),
}


@pytest.mark.parametrize("case", UPSTREAM_FAULTS)
def test_a_hostile_upstream_is_a_502_error_body_before_the_answer_starts(case: str) -> None:
    behaviour, code, message = UPSTREAM_FAULTS[case]
    with hostile.serve(behaviour) as upstream:
        proxy = ValidationProxy(
            upstream.base_url, CONTRACT, errors=case.endswith("with-errors"), upstream_timeout=TIMEOUT
        )
        with serve(proxy) as base_url:
            answer = get(base_url, ENTITLEMENTS)
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 502"), head[:200]
    error = json.loads(body)
    assert error["code"] == code and message in error["message"], error
    assert set(error) == {"code", "message", "details"}


def test_an_answer_under_way_that_never_ends_is_cut_at_the_cap_or_the_deadline() -> None:
    with hostile.serve("chunked-flood") as upstream:
        proxy = ValidationProxy(upstream.base_url, CONTRACT, upstream_timeout=60.0, max_upstream_body=4 * 1024 * 1024)
        with serve(proxy) as base_url:
            answer = get(base_url, ENTITLEMENTS)
    assert answer.startswith(b"HTTP/1.1 200") and 4 * 1024 * 1024 <= len(answer) < 6 * 1024 * 1024
    with hostile.serve("chunked-stall") as upstream:
        proxy = ValidationProxy(upstream.base_url, CONTRACT, upstream_timeout=TIMEOUT)
        with serve(proxy) as base_url:
            answer = get(base_url, ENTITLEMENTS)  # returns: the proxy closed the connection at the deadline
    assert answer.startswith(b"HTTP/1.1 200") and len(answer) < 10_000
