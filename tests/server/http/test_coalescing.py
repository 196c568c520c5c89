"""A response leaves in one write: `CoalescingTransport` alone, and inside both of the server's HTTP protocols."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
import uvicorn

from accessgov.http import edge
from accessgov.http.coalescing import CoalescingTransport
from tests.support.protocols import PEER, RecordingTransport, drive

HEAD = b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n"
App = Callable[[dict[str, Any], Any, Any], Awaitable[None]]


@dataclass
class Wrapped:
    """A `CoalescingTransport` over a recording one, on a loop of its own."""

    loop: asyncio.AbstractEventLoop
    inner: RecordingTransport = field(default_factory=RecordingTransport)

    def __post_init__(self) -> None:
        self.transport = CoalescingTransport(self.inner, self.loop)

    def end_of_step(self) -> None:
        self.loop.run_until_complete(asyncio.sleep(0))


@pytest.fixture
def wrapped() -> Iterator[Wrapped]:
    loop = asyncio.new_event_loop()
    yield Wrapped(loop)
    loop.close()


def test_a_head_and_its_body_leave_in_one_write(wrapped: Wrapped) -> None:
    transport, inner = wrapped.transport, wrapped.inner
    transport.write(HEAD)
    assert inner.sent == []
    transport.write(b"ok")
    assert inner.sent == [HEAD + b"ok"]
    wrapped.end_of_step()
    assert inner.sent == [HEAD + b"ok"]  # the scheduled flush finds nothing held


def test_a_head_alone_leaves_at_the_end_of_its_step(wrapped: Wrapped) -> None:
    transport, inner = wrapped.transport, wrapped.inner
    transport.write(HEAD)  # a HEAD response, a 100 Continue, or a stream that awaits before its first chunk
    wrapped.end_of_step()
    assert inner.sent == [HEAD]
    transport.write(b"chunk")  # not held: nothing follows a body
    assert inner.sent == [HEAD, b"chunk"]


def test_bytes_leave_in_the_order_written(wrapped: Wrapped) -> None:
    transport, inner = wrapped.transport, wrapped.inner
    for data in (b"HTTP/1.1 100 Continue\r\n\r\n", HEAD, b"ok", b"more", HEAD):
        transport.write(data)
    wrapped.end_of_step()
    assert b"".join(inner.sent) == b"HTTP/1.1 100 Continue\r\n\r\n" + HEAD + b"okmore" + HEAD
    assert inner.sent == [b"HTTP/1.1 100 Continue\r\n\r\n" + HEAD, b"ok", b"more", HEAD]


def test_close_sends_what_is_held_first(wrapped: Wrapped) -> None:
    transport, inner = wrapped.transport, wrapped.inner
    transport.write(HEAD)
    assert transport.get_write_buffer_size() == len(HEAD)
    transport.close()
    assert (inner.sent, inner.calls) == ([HEAD], ["write", "close"])


def test_abort_drops_what_is_held(wrapped: Wrapped) -> None:
    transport, inner = wrapped.transport, wrapped.inner
    transport.write(HEAD)
    transport.abort()
    wrapped.end_of_step()
    assert (inner.sent, inner.calls) == ([], ["abort"])


def test_a_head_held_when_the_peer_left_is_dropped(wrapped: Wrapped) -> None:
    transport, inner = wrapped.transport, wrapped.inner
    transport.write(HEAD)
    inner.closing = True  # the connection was lost before the step ended
    wrapped.end_of_step()
    assert inner.sent == []


def test_everything_else_is_the_transport_s_own(wrapped: Wrapped) -> None:
    transport, inner = wrapped.transport, wrapped.inner
    assert transport.get_extra_info("peername") == PEER
    transport.pause_reading()
    transport.resume_reading()
    assert inner.calls == ["pause_reading", "resume_reading"]
    assert transport.is_closing() is False


async def _ok(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] != "http":
        return
    await receive()
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})
    await send({"type": "http.response.body", "body": b"ok"})


async def _streamed(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] != "http":
        return
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await asyncio.sleep(0)  # the head is not held past this step
    await send({"type": "http.response.body", "body": b"a", "more_body": True})
    await send({"type": "http.response.body", "body": b"b"})


def _serve(http: str, app: App, request: bytes) -> RecordingTransport:
    """`request` through the server's protocol for `http` on a recording transport, until the app is done."""
    protocol_class = edge.PROTOCOLS[http]
    if protocol_class is None:
        pytest.fail(f"{http} is not installed")
    return drive(uvicorn.Config(app=app, http=protocol_class, lifespan="off", log_level="warning"), request)


HTTP = pytest.mark.parametrize("http", ["httptools", "h11"])
GET = b"GET / HTTP/1.1\r\nHost: x\r\n\r\n"


@HTTP
def test_each_response_of_the_server_is_one_write(http: str) -> None:
    transport = _serve(http, _ok, GET + GET)  # two pipelined requests: two responses, a write each
    sent = [data for data in transport.sent if data]  # h11 also writes its end of message, b"": no system call
    responses = [data for data in sent if data.startswith(b"HTTP/1.1 200")]
    assert len(sent) == len(responses) == 2, transport.sent
    assert all(response.endswith(b"\r\n\r\nok") for response in responses)


@HTTP
def test_a_streamed_response_and_a_head_request_still_arrive_whole(http: str) -> None:
    streamed = b"".join(_serve(http, _streamed, GET).sent)
    assert streamed.startswith(b"HTTP/1.1 200") and b"transfer-encoding: chunked" in streamed.lower()
    assert streamed.endswith(b"\r\n\r\n1\r\na\r\n1\r\nb\r\n0\r\n\r\n")
    head = [data for data in _serve(http, _ok, b"HEAD / HTTP/1.1\r\nHost: x\r\n\r\n").sent if data]
    assert len(head) == 1 and head[0].startswith(b"HTTP/1.1 200") and head[0].endswith(b"\r\n\r\n")
