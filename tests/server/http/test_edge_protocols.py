"""The edge protocols of `accessgov serve` driven in process (no sockets): head limits answered 431, parser refusals
400 and the connection cap 503, each the contract's `Error` with one access-log line; a request within the limits
reaches the app. tests/server/http/test_http_edges.py holds the same over real connections."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from accessgov.config import Settings
from accessgov.http.edge import PROTOCOLS, HeaderLimits
from accessgov.http.engine import load_bundle
from accessgov.http.server import uvicorn_config
from accessgov.observability.access_log import EdgeLog
from tests.support.protocols import PEER, RecordingTransport
from tests.support.protocols import drive as drive_protocol

BUNDLE = load_bundle()
ERROR = Draft202012Validator({"$ref": "#/components/schemas/Error", "components": BUNDLE["components"]})
LIMITS = HeaderLimits()
HEAD = b"GET /api/v1/apps/app-github/entitlements HTTP/1.1\r\nHost: x\r\n"
# The client's own lines in HEAD (Host) leave this many for a test's extra lines.
ROOM = LIMITS.count - 1


async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] == "http":
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})
        await send({"type": "http.response.body", "body": b"{}"})


@pytest.fixture(params=sorted(name for name, cls in PROTOCOLS.items() if cls is not None))
def http(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def log_pipe() -> Iterator[tuple[int, int]]:
    read, write = os.pipe()
    os.set_blocking(read, False)
    yield read, write
    os.close(read)
    os.close(write)


def drive(
    http: str, log_fd: int, data: bytes, *, limit_concurrency: int = 1000, read: int = 65536
) -> RecordingTransport:
    """Feed `data` to a new connection of the `http` protocol, in reads of `read` bytes, and let the app run."""

    def log_to_pipe(protocol: Any) -> None:
        protocol._edge_log = EdgeLog(stream_fd=log_fd).answered

    config = uvicorn_config(app, Settings(http=http, limit_concurrency=limit_concurrency))
    return drive_protocol(config, data, read=read, prepare=log_to_pipe)


def answer(transport: RecordingTransport) -> tuple[int, dict[str, str], bytes]:
    head, _, body = transport.written.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = {name.lower(): value.strip() for name, _, value in (line.partition(":") for line in lines)}
    return int(status_line.split()[1]), headers, body


def logged(read_fd: int) -> list[dict[str, Any]]:
    try:
        text = os.read(read_fd, 1 << 20).decode()
    except BlockingIOError:
        return []
    return [json.loads(line) for line in text.splitlines()]


def expect_refusal(
    transport: RecordingTransport, read_fd: int, status: int, code: str, method: str | None = None
) -> dict[str, Any]:
    got, headers, body = answer(transport)
    assert got == status, transport.written[:300]
    assert headers["content-type"] == "application/json" and int(headers["content-length"]) == len(body)
    error: dict[str, Any] = json.loads(body)
    assert error["code"] == code and not list(ERROR.iter_errors(error)), error
    assert transport.closing
    (line,) = logged(read_fd)
    expected = {"status": status, "error_code": code, "client": PEER[0], "operation": "edge", "method": method}
    assert {key: line.get(key) for key in expected} == expected, line
    assert line["request_id"] == headers["x-request-id"]
    return error


def lines(count: int, size: int = 1) -> bytes:
    return b"".join(b"X-H%d: %s\r\n" % (index, b"a" * size) for index in range(count))


def test_a_request_within_the_limits_reaches_the_app(http: str, log_pipe: tuple[int, int]) -> None:
    value = b"a" * (LIMITS.line_bytes - len(b"X-H0"))
    transport = drive(http, log_pipe[1], HEAD + lines(ROOM - 1) + b"X-H0: " + value + b"\r\n\r\n")
    assert answer(transport)[0] == 200, transport.written[:300]
    assert logged(log_pipe[0]) == []  # the app's own access log writes the line of a request it answered


@pytest.mark.parametrize("read", [1024, 7, 65536])
def test_a_head_near_the_limit_in_many_reads_reaches_the_app(http: str, log_pipe: tuple[int, int], read: int) -> None:
    size = (LIMITS.head_bytes - 200) // ROOM - len(b"X-H00: \r\n")  # name and value within the head limit, all lines
    transport = drive(http, log_pipe[1], HEAD + lines(ROOM, size) + b"\r\n", read=read)
    assert answer(transport)[0] == 200, transport.written[:300]


@pytest.mark.parametrize(
    "extra",
    [
        pytest.param(b"X-Big: " + b"a" * 100_000 + b"\r\n", id="100KB-line"),
        pytest.param(lines(10_000), id="10000-lines"),
        pytest.param(lines(ROOM + 1), id="one-line-too-many"),
        pytest.param(b"X-Over: " + b"a" * (LIMITS.line_bytes - len(b"X-Over") + 1) + b"\r\n", id="line-plus-one"),
        pytest.param(lines(12, 4000), id="48KB-head"),
    ],
)
def test_heads_beyond_the_limits_are_431(http: str, log_pipe: tuple[int, int], extra: bytes) -> None:
    transport = drive(http, log_pipe[1], HEAD + extra + b"\r\n")
    error = expect_refusal(transport, log_pipe[0], 431, "REQUEST_HEADERS_TOO_LARGE")
    assert len(json.dumps(error)) < 300


def test_a_head_that_never_ends_is_431_before_it_ends(http: str, log_pipe: tuple[int, int]) -> None:
    transport = drive(http, log_pipe[1], HEAD + b"X-Endless: " + b"a" * (4 << 20))
    expect_refusal(transport, log_pipe[0], 431, "REQUEST_HEADERS_TOO_LARGE")


def test_an_over_long_request_line_is_431(http: str, log_pipe: tuple[int, int]) -> None:
    target = b"/api/v1/apps/app-github/entitlements?page_token=" + b"A" * LIMITS.line_bytes
    transport = drive(http, log_pipe[1], b"GET " + target + b" HTTP/1.1\r\nHost: x\r\n\r\n")
    expect_refusal(transport, log_pipe[0], 431, "REQUEST_HEADERS_TOO_LARGE")


@pytest.mark.parametrize("raw", [b"GARBAGE\r\n\r\n", b"GET / HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n"])
def test_a_request_the_parser_refuses_is_400(http: str, log_pipe: tuple[int, int], raw: bytes) -> None:
    transport = drive(http, log_pipe[1], raw)
    expect_refusal(transport, log_pipe[0], 400, "INVALID_ARGUMENT")


def test_the_connection_cap_is_503_error(http: str, log_pipe: tuple[int, int]) -> None:
    transport = drive(http, log_pipe[1], HEAD + b"\r\n", limit_concurrency=1)  # this connection is the one allowed
    got, headers, body = answer(transport)
    assert got == 503 and headers["connection"] == "close", transport.written[:300]
    assert json.loads(body)["code"] == "SERVICE_UNAVAILABLE" and not list(ERROR.iter_errors(json.loads(body)))
    (line,) = logged(log_pipe[0])
    assert (line["status"], line["error_code"], line["method"], line["client"]) == (
        503,
        "SERVICE_UNAVAILABLE",
        "GET",
        PEER[0],
    )


def _head_of_exact_size(total: int) -> bytes:
    """A head whose target and header names and values add up to exactly `total` bytes (what the limit counts),
    the target at the line limit."""
    target = b"/api/v1/apps/app-github/entitlements?page_token=" + b"A" * (LIMITS.line_bytes - 48)
    assert len(target) == LIMITS.line_bytes
    rest = total - len(target) - len(b"Hostx")
    filler = []
    index = 0
    while rest > 0:
        name = b"X-F%02d" % index
        size = min(LIMITS.line_bytes, rest) - len(name)
        filler.append(name + b": " + b"a" * size + b"\r\n")
        rest -= len(name) + size
        index += 1
    return b"GET " + target + b" HTTP/1.1\r\nHost: x\r\n" + b"".join(filler) + b"\r\n"


@pytest.mark.parametrize("read", [65536, 1 << 20])
def test_the_request_target_counts_in_the_head_total(http: str, log_pipe: tuple[int, int], read: int) -> None:
    transport = drive(http, log_pipe[1], _head_of_exact_size(LIMITS.head_bytes), read=read)
    assert answer(transport)[0] == 200, transport.written[:300]
    transport = drive(http, log_pipe[1], _head_of_exact_size(LIMITS.head_bytes + 1), read=read)
    expect_refusal(transport, log_pipe[0], 431, "REQUEST_HEADERS_TOO_LARGE")


def test_one_oversized_read_that_never_ends_is_431_at_once(http: str, log_pipe: tuple[int, int]) -> None:
    # One read of a 64 KB header line, then nothing: refused on that read, not at the head timeout.
    transport = drive(http, log_pipe[1], HEAD + b"X-Big: " + b"a" * 65536, read=1 << 20)
    expect_refusal(transport, log_pipe[0], 431, "REQUEST_HEADERS_TOO_LARGE")


def test_a_pipelined_body_does_not_count_against_the_next_head(http: str, log_pipe: tuple[int, int]) -> None:
    body = b"{" + b" " * 60_000 + b"}"
    post = b"POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n" % len(body) + body
    transport = drive(http, log_pipe[1], post + HEAD + b"X-Partial: abc", read=1 << 20)
    assert answer(transport)[0] == 200, transport.written[:300]
    assert b" 431 " not in transport.written
