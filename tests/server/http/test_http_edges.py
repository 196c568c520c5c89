"""What `accessgov serve`'s HTTP protocols answer themselves (issue 32, item 4), on real processes and sockets, for
both parsers: head limits (431), requests the parser refuses (400) and the connection cap (503), each as the
contract's `Error` body with one access-log line; and the access log's `client` as the failure limiter sees it."""

from __future__ import annotations

import contextlib
import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from accessgov.http.edge import HeaderLimits
from accessgov.http.engine import load_bundle
from tests.support import loopback
from tests.support.server_process import ADMIN, ENTITLEMENTS, Served, accessgov_serve, read_until_closed

# `accessgov serve` processes; one worker runs the module, so that each parser's server (`served`) starts once.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("http-edges")]

BUNDLE = load_bundle()
ERROR = Draft202012Validator({"$ref": "#/components/schemas/Error", "components": BUNDLE["components"]})
LIMITS = HeaderLimits()
CLOSED_WITHIN = 30
LOG_WITHIN = 10
FORWARDED_CLIENT = "203.0.113.9"


@pytest.fixture(scope="module", params=["httptools", "h11"])
def served(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    data = tmp_path_factory.mktemp(f"edges-{request.param}")
    # Loopback is a trusted proxy here: the access log must then name the forwarded client.
    env = {"ACCESSGOV_TRUSTED_PROXIES": "127.0.0.1/32", "ACCESSGOV_AUTH_FAILURE_LIMIT": "off"}
    with accessgov_serve(data, "--http", request.param, env=env) as served:
        yield served


def exchange(served: Served, raw: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send `raw` on a new connection; (status, headers, body) of the one response, read until the server closes."""
    with served.connect() as sock:
        # Refused before all of it was read: the answer is still waiting to be read.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            sock.sendall(raw)
        sock.shutdown(socket.SHUT_WR)
        received = read_until_closed(sock, CLOSED_WITHIN)
    head, _, body = received.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = {name.lower(): value.strip() for name, _, value in (line.partition(":") for line in lines)}
    return int(status_line.split()[1]), headers, body


def request(path: str = ENTITLEMENTS, extra: list[bytes] = (), method: bytes = b"GET") -> bytes:  # type: ignore[assignment]
    lines = [method + b" " + path.encode() + b" HTTP/1.1", b"Host: x", b"Authorization: Bearer demo-admin-token"]
    return b"\r\n".join([*lines, *extra]) + b"\r\n\r\n"


def expect_error(served: Served, raw: bytes, status: int, code: str) -> dict[str, Any]:
    got, headers, body = exchange(served, raw)
    assert got == status, body[:300]
    assert headers["content-type"] == "application/json"
    assert int(headers["content-length"]) == len(body)
    error = json.loads(body)
    assert not list(ERROR.iter_errors(error)), error
    assert error["code"] == code, error
    assert len(body) < 2048
    line = log_line(served, headers["x-request-id"])
    assert (line["status"], line["error_code"], line["client"]) == (status, code, "127.0.0.1"), line
    return error


def log_line(served: Served, request_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + LOG_WITHIN
    while True:
        for text in served.output().splitlines():
            if text.startswith("{") and request_id in text:
                line: dict[str, Any] = json.loads(text)
                if line.get("request_id") == request_id:
                    return line
        assert time.monotonic() < deadline, f"no access-log line for {request_id}:\n{served.output()[-3000:]}"
        time.sleep(0.1)


def test_a_100_kb_header_line_is_431(served: Served) -> None:
    error = expect_error(served, request(extra=[b"X-Big: " + b"a" * 100_000]), 431, "REQUEST_HEADERS_TOO_LARGE")
    assert "a" * 100 not in json.dumps(error)


def test_10000_header_lines_are_431(served: Served) -> None:
    extra = [b"X-H%d: v" % index for index in range(10_000)]
    expect_error(served, request(extra=extra), 431, "REQUEST_HEADERS_TOO_LARGE")


def test_one_header_line_more_than_the_limit_is_431(served: Served) -> None:
    own = 2  # Host, Authorization
    fits = [b"X-H%d: v" % index for index in range(LIMITS.count - own)]
    status, _, body = exchange(served, request(extra=fits))
    assert status == 200, body[:300]
    expect_error(served, request(extra=[*fits, b"X-One-More: v"]), 431, "REQUEST_HEADERS_TOO_LARGE")


def test_a_line_just_within_the_limit_is_served(served: Served) -> None:
    name = b"X-Fits"
    status, _, body = exchange(served, request(extra=[name + b": " + b"a" * (LIMITS.line_bytes - len(name))]))
    assert status == 200, body[:300]
    over = name + b": " + b"a" * (LIMITS.line_bytes - len(name) + 1)
    expect_error(served, request(extra=[over]), 431, "REQUEST_HEADERS_TOO_LARGE")


def test_many_lines_within_the_line_limit_over_the_head_limit_are_431(served: Served) -> None:
    extra = [b"X-H%d: " % index + b"a" * 4000 for index in range(12)]  # 48 KB, 12 lines of 4 KB
    expect_error(served, request(extra=extra), 431, "REQUEST_HEADERS_TOO_LARGE")


def test_an_over_long_request_line_is_431(served: Served) -> None:
    path = ENTITLEMENTS + "?page_token=" + "A" * (LIMITS.line_bytes + 10)
    expect_error(served, request(path=path), 431, "REQUEST_HEADERS_TOO_LARGE")


def test_a_head_that_keeps_growing_is_431_without_waiting_for_its_end(served: Served) -> None:
    with served.connect() as sock:
        sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nX-Endless: ")
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            for _ in range(64):  # 4 MB in all, never a line end
                sock.sendall(b"a" * 65536)
        received = read_until_closed(sock, CLOSED_WITHIN)
    assert received.startswith(b"HTTP/1.1 431 "), received[:200]


@pytest.mark.parametrize("raw", [b"GARBAGE\r\n\r\n", b"GET / HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n"])
def test_a_request_the_parser_refuses_is_400_error(served: Served, raw: bytes) -> None:
    expect_error(served, raw, 400, "INVALID_ARGUMENT")


def test_the_access_log_names_the_client_the_limiter_counts(served: Served) -> None:
    forwarded = {**ADMIN, "X-Forwarded-For": f"198.51.100.1, {FORWARDED_CLIENT}", "X-Request-Id": "edges-forwarded"}
    response = loopback.get(served.base_url + ENTITLEMENTS, headers=forwarded, timeout=30)
    assert response.status_code == 200
    assert log_line(served, "edges-forwarded")["client"] == FORWARDED_CLIENT
    direct = loopback.get(served.base_url + ENTITLEMENTS, headers={**ADMIN, "X-Request-Id": "edges-direct"}, timeout=30)
    assert direct.status_code == 200
    assert log_line(served, "edges-direct")["client"] == "127.0.0.1"


@pytest.mark.parametrize("http", ["httptools", "h11"])
def test_the_connection_cap_answers_an_error_body(tmp_path: Path, http: str) -> None:
    with accessgov_serve(tmp_path, "--http", http, "--limit-concurrency", "4", "--head-timeout", "60") as served:
        idle = [served.connect() for _ in range(4)]
        try:
            deadline = time.monotonic() + CLOSED_WITHIN
            while True:  # until the server has accepted the idle connections
                response = loopback.get(served.base_url + ENTITLEMENTS, headers=ADMIN, timeout=10)
                if response.status_code == 503 or time.monotonic() > deadline:
                    break
                time.sleep(0.1)
            assert response.status_code == 503, response.text
            assert response.headers["content-type"] == "application/json"
            assert response.headers["connection"] == "close"
            body = response.json()
            assert body["code"] == "SERVICE_UNAVAILABLE" and not list(ERROR.iter_errors(body)), body
            line = log_line(served, response.headers["x-request-id"])
            assert (line["status"], line["error_code"], line["method"]) == (503, "SERVICE_UNAVAILABLE", "GET")
        finally:
            for sock in idle:
                sock.close()
        # Once the idle connections are gone, requests are served again.
        deadline = time.monotonic() + CLOSED_WITHIN
        while (status := loopback.get(served.base_url + ENTITLEMENTS, headers=ADMIN, timeout=10).status_code) != 200:
            assert time.monotonic() < deadline, status
            time.sleep(0.1)
