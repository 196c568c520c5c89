"""The HTTP edge every server of this repository runs behind: the reference server (`accessgov.http.server`), the
validation proxy and the mock (which carries a copy of this module, made by accessgov_tools/generate_stub.py, so it
imports nothing of the package but `.coalescing`: the standard library, uvicorn, h11 and orjson only).

uvicorn's h11 and httptools protocols, subclassed with request-head and body-idle deadlines, request-head size
limits counted alike by both parsers, a connection cap, and what they answer without the app as the contract's
`Error` body; each response leaves in one write (`coalescing`). uvicorn bounds neither a request head that never
completes (slowloris) nor a body that stalls: the head timer runs from the connection (or the first byte of the
next request) until the head is complete, the body timer between body chunks; when one fires the connection is
closed (the contract documents no 408 and no request exists yet to answer). The rules: docs/edges.md.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple, cast

import h11
import orjson
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from .coalescing import CoalescingTransport

log = logging.getLogger(__name__)

DEFAULT_HEAD_TIMEOUT = 10.0
DEFAULT_BODY_TIMEOUT = 10.0


@dataclass(frozen=True)
class HeaderLimits:
    """The request-head limits (431 `REQUEST_HEADERS_TOO_LARGE` beyond any of them), the same for both parsers:
    the request target counts as a line and in the total, separators in neither."""

    line_bytes: int = 8 * 1024  # the request target, or one header line (name and value)
    count: int = 100  # header lines
    head_bytes: int = 32 * 1024  # the whole head: the target and every header's name and value


DEFAULT_HEADER_LIMITS = HeaderLimits()

# What the edge's answers are logged with: (method, status, error code, client address, request id).
EdgeLogger = Callable[[str | None, int, str, str | None, bytes], None]


def new_request_id() -> bytes:
    # 32 random hex digits, as uuid4().hex was, for a third of its cost (no UUID object).
    return os.urandom(16).hex().encode()


class Refusal(NamedTuple):
    """An answer the edge gives without the app: the contract's `Error` with this status and code."""

    status: int
    code: str
    message: str

    def body(self) -> bytes:
        return orjson.dumps({"code": self.code, "message": self.message})


class _Deadlines:
    """Head and body-idle timers for a uvicorn HTTP protocol (mixed in before the protocol class)."""

    loop: asyncio.AbstractEventLoop
    transport: asyncio.Transport
    flow: Any
    client: tuple[str, int] | None

    def __init__(self, config: uvicorn.Config, *args: Any, **kwargs: Any) -> None:
        super().__init__(config, *args, **kwargs)  # type: ignore[call-arg]  # the protocol's
        self._head_timeout: float = getattr(config, "timeout_request_head", DEFAULT_HEAD_TIMEOUT)
        self._body_timeout: float = getattr(config, "timeout_request_body", DEFAULT_BODY_TIMEOUT)
        self._head_timer: asyncio.TimerHandle | None = None
        self._body_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # asyncio types the argument as any transport; a stream server's connection is a stream transport.
        stream = cast(asyncio.Transport, transport)
        # a mixin: the protocol class after it in the MRO defines connection_made, which mypy cannot see here
        super().connection_made(CoalescingTransport.around(stream, self.loop))  # type: ignore[misc]
        self._arm_head()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_deadlines()
        super().connection_lost(exc)  # type: ignore[misc]

    def _arm_head(self) -> None:
        if self._head_timer is None and self._head_timeout > 0:  # armed once per head: the bound is total
            self._head_timer = self.loop.call_later(self._head_timeout, self._expire, "request head")

    def _cancel_head(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _arm_body(self) -> None:
        self._cancel_body()
        if self._body_timeout > 0:
            self._body_timer = self.loop.call_later(self._body_timeout, self._expire, "request body")

    def _cancel_body(self) -> None:
        if self._body_timer is not None:
            self._body_timer.cancel()
            self._body_timer = None

    def _expire(self, what: str) -> None:
        if what == "request body" and self.flow is not None and self.flow.read_paused:
            # Reading is paused because the app has not consumed what arrived: the stall is ours, not the client's.
            self._body_timer = None
            self._arm_body()
            return
        self._head_timer = self._body_timer = None
        log.info("closing connection from %s: no complete %s in time", self.client, what)
        self.transport.close()

    def _cancel_deadlines(self) -> None:
        self._cancel_head()
        self._cancel_body()


class _HeadTooLarge(Exception):
    """Raised in a parser callback: the head crossed a `HeaderLimits` bound (answered 431)."""


def _too_large(problem: str) -> Refusal:
    return Refusal(431, "REQUEST_HEADERS_TOO_LARGE", problem)


def _not_logged(method: str | None, status: int, code: str, client: str | None, request_id: bytes) -> None:
    return None


_STATUS_LINES = {400: b"HTTP/1.1 400 Bad Request\r\n", 431: b"HTTP/1.1 431 Request Header Fields Too Large\r\n"}


class EdgeAnswers:
    """What a uvicorn HTTP protocol answers without the app, as the contract's `Error` (logged by the config's
    `edge_log`, when it has one); and the head limits (mixed in before the protocol class, with `_Deadlines`).

    The connection cap is applied here, not by uvicorn (its `limit_concurrency` is cleared on the protocol): the
    same test, the app swapped for `_over_capacity` while the cap is reached.
    """

    app: Any
    transport: asyncio.Transport
    client: tuple[str, int] | None
    connections: set[Any]
    tasks: set[Any]
    limit_concurrency: int | None

    def __init__(self, config: uvicorn.Config, *args: Any, **kwargs: Any) -> None:
        super().__init__(config, *args, **kwargs)  # type: ignore[call-arg]  # the protocol's
        limits: HeaderLimits = getattr(config, "header_limits", DEFAULT_HEADER_LIMITS)
        self._line_bytes, self._max_headers, self._head_bytes = limits.line_bytes, limits.count, limits.head_bytes
        self._edge_log: EdgeLogger = getattr(config, "edge_log", None) or _not_logged
        self._cap, self.limit_concurrency = self.limit_concurrency, None
        self._app = self.app
        self._refusal: Refusal | None = None  # set by a parser callback before it raises

    def _choose_app(self) -> None:
        """The app for the request whose head just completed: `_over_capacity` at the connection cap."""
        cap = self._cap
        at_cap = cap is not None and (len(self.connections) >= cap or len(self.tasks) >= cap)
        self.app = self._over_capacity if at_cap else self._app

    def _too_large(self, what: str) -> _HeadTooLarge:
        self._refusal = _too_large(what)
        return _HeadTooLarge(what)

    def send_400_response(self, msg: str) -> None:
        """uvicorn's answer to a request its parser refuses: 431 when a head limit was crossed, else 400."""
        error = self._refusal or Refusal(400, "INVALID_ARGUMENT", "the request is not valid HTTP/1.1")
        self._refusal = None
        request_id = new_request_id()
        body = error.body()
        head = b"".join(
            (
                _STATUS_LINES[error.status],
                b"content-type: application/json\r\ncontent-length: ",
                str(len(body)).encode(),
                b"\r\nconnection: close\r\nx-request-id: ",
                request_id,
                b"\r\n\r\n",
            )
        )
        self.transport.write(head + body)
        self.transport.close()
        self._edge_log(self._method(), error.status, error.code, self._peer(), request_id)

    def _method(self) -> str | None:
        return None

    def _peer(self) -> str | None:
        return self.client[0] if self.client else None

    async def _over_capacity(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        error = Refusal(503, "SERVICE_UNAVAILABLE", "the server is at its connection limit; retry later")
        request_id = new_request_id()
        body = error.body()
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"connection", b"close"),
            (b"x-request-id", request_id),
        ]
        await send({"type": "http.response.start", "status": 503, "headers": headers})
        await send({"type": "http.response.body", "body": body})
        self._edge_log(scope.get("method"), 503, error.code, self._peer(), request_id)


class _LimitedConnection(h11.Connection):
    """h11's server connection with the head limits checked on each request it parses; a refusal's status
    (h11's own 431 for a head beyond `max_incomplete_event_size` included) kept in `refusal` for the protocol."""

    def __init__(self, limits: HeaderLimits) -> None:
        # h11 counts separators too: a line's length of slack, as httptools' bound on a head not yet complete.
        super().__init__(h11.SERVER, max_incomplete_event_size=limits.head_bytes + limits.line_bytes)
        self.limits = limits
        self.refusal: Refusal | None = None

    def next_event(self) -> Any:
        try:
            event = super().next_event()
        except h11.RemoteProtocolError as error:
            if error.error_status_hint == 431:
                self.refusal = _too_large(f"the request head exceeds {self.limits.head_bytes} bytes")
            raise
        if type(event) is h11.Request:
            self._check(event)
        return event

    def _check(self, event: h11.Request) -> None:
        limits = self.limits
        headers = event.headers
        longest = total = len(event.target)
        for name, value in headers:  # one pass: the longest line and the total
            size = len(name) + len(value)
            total += size
            longest = max(longest, size)
        if len(headers) > limits.count:
            problem = f"more than {limits.count} header lines"
        elif longest > limits.line_bytes:
            problem = f"the request line or a header line exceeds {limits.line_bytes} bytes"
        elif total > limits.head_bytes:
            # h11's own bound is on a head still incomplete: one that arrived whole is parsed whatever its size.
            problem = f"the request head exceeds {limits.head_bytes} bytes"
        else:
            return
        self.refusal = _too_large(problem)
        raise h11.RemoteProtocolError(problem, error_status_hint=431)


class H11EdgeProtocol(EdgeAnswers, _Deadlines, H11Protocol):
    """uvicorn's h11 protocol with request-head and body-idle deadlines, head limits and `Error` answers."""

    conn: _LimitedConnection

    def __init__(self, config: uvicorn.Config, *args: Any, **kwargs: Any) -> None:
        super().__init__(config, *args, **kwargs)
        self.conn = _LimitedConnection(getattr(config, "header_limits", DEFAULT_HEADER_LIMITS))

    def handle_events(self) -> None:
        self._choose_app()
        super().handle_events()

    def send_400_response(self, msg: str) -> None:
        self._refusal, self.conn.refusal = self.conn.refusal, None
        super().send_400_response(msg)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        state = self.conn.their_state
        if state is h11.IDLE:  # h11 buffers a partial head without an event
            self._arm_head()
        elif state is h11.SEND_BODY:
            self._cancel_head()
            self._arm_body()
        else:
            self._cancel_deadlines()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if self.conn.their_state is h11.IDLE and self.conn.trailing_data[0] and not self.transport.is_closing():
            self._arm_head()  # part of a pipelined head arrived with the previous request


def _httptools_protocol() -> type[asyncio.Protocol] | None:
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
    except ImportError:  # httptools is optional: h11 serves the same requests, a little slower
        return None

    class HttpToolsEdgeProtocol(EdgeAnswers, _Deadlines, HttpToolsProtocol):
        """uvicorn's httptools protocol with request-head and body-idle deadlines, head limits and `Error`
        answers. httptools buffers a header until its line is complete: `data_received` bounds what a head that
        never completes may buffer, as h11 does (the head and a line's length of slack, separators counted), from
        the read it begins in; the callbacks check each line, the count and the total exactly."""

        def __init__(self, config: uvicorn.Config, *args: Any, **kwargs: Any) -> None:
            super().__init__(config, *args, **kwargs)
            self._in_head = False
            self._head_size = 0  # the target and the names and values of the head's complete lines (the callbacks)
            self._header_count = 0
            self._head_received = 0  # bytes read since the head began, separators included
            self._read_body = 0  # body bytes the parser gave from the current read
            self._began_at = -1  # `_read_body` when the head in progress began in the current read, else -1

        def data_received(self, data: bytes) -> None:
            self._read_body, self._began_at = 0, -1
            if self._in_head:
                self._head_received += len(data)
            super().data_received(data)
            if not self._in_head:
                return
            if self._began_at >= 0:
                # Begun in this read: all of it but the bodies parsed before it (a pipelined request's head, too,
                # when one ended in the same read: an upper bound). One oversized read is refused at once.
                self._head_received = len(data) - self._began_at
            if self._head_received > self._head_bytes + self._line_bytes and not self.transport.is_closing():
                self._too_large(f"the request head exceeds {self._head_bytes} bytes")
                self.send_400_response("")

        def on_message_begin(self) -> None:
            super().on_message_begin()
            self._in_head = True
            self._head_size = self._header_count = self._head_received = 0
            self._began_at = self._read_body
            self._arm_head()

        def on_url(self, url: bytes) -> None:
            self.url += url
            self._head_size += len(url)  # the target counts in the total, as h11's check counts it
            if len(self.url) > self._line_bytes:
                raise self._too_large(f"the request line exceeds {self._line_bytes} bytes")

        def on_header(self, name: bytes, value: bytes) -> None:
            size = len(name) + len(value)
            self._header_count += 1
            self._head_size += size
            if size > self._line_bytes:
                raise self._too_large(f"a header line exceeds {self._line_bytes} bytes")
            if self._header_count > self._max_headers:
                raise self._too_large(f"more than {self._max_headers} header lines")
            if self._head_size > self._head_bytes:
                raise self._too_large(f"the request head exceeds {self._head_bytes} bytes")
            name = name.lower()  # uvicorn's on_header from here on
            if name == b"expect" and value.lower() == b"100-continue":
                self.expect_100_continue = True
            self.headers.append((name, value))

        def on_headers_complete(self) -> None:
            self._in_head = False
            self._cancel_head()
            self._arm_body()  # until the body is complete; a request without one completes right away
            self._choose_app()
            super().on_headers_complete()

        def _method(self) -> str | None:
            method = self.scope.get("method") if self.scope else None
            return method if isinstance(method, str) else None

        def on_body(self, body: bytes) -> None:
            self._read_body += len(body)
            self._arm_body()
            super().on_body(body)

        def on_message_complete(self) -> None:
            self._cancel_body()
            super().on_message_complete()

    HttpToolsEdgeProtocol.__module__ = __name__
    HttpToolsEdgeProtocol.__qualname__ = "HttpToolsEdgeProtocol"
    return HttpToolsEdgeProtocol


HttpToolsEdgeProtocol = _httptools_protocol()
PROTOCOLS: dict[str, type[asyncio.Protocol] | None] = {"h11": H11EdgeProtocol, "httptools": HttpToolsEdgeProtocol}


class EdgeConfig(uvicorn.Config):
    """uvicorn's Config plus what the edge protocols read: the two request deadlines, the head limits and the
    logger of their answers (a module-level function or None: the config is pickled into worker processes)."""

    def __init__(
        self,
        app: Any,
        *,
        timeout_request_head: float = DEFAULT_HEAD_TIMEOUT,
        timeout_request_body: float = DEFAULT_BODY_TIMEOUT,
        header_limits: HeaderLimits = DEFAULT_HEADER_LIMITS,
        edge_log: EdgeLogger | None = None,
        http: str = "auto",
        **kwargs: Any,
    ) -> None:
        protocol = PROTOCOLS.get("httptools" if http == "auto" else http) or (
            H11EdgeProtocol if http == "auto" else None
        )
        if protocol is None:
            raise SystemExit(f"HTTP implementation {http!r} is not available (h11 or httptools)")
        # proxy_headers off: uvicorn would otherwise take the client address from X-Forwarded-For for loopback
        # peers; which forwarded addresses to trust is the app's decision, never the edge's.
        kwargs.setdefault("proxy_headers", False)
        kwargs.setdefault("server_header", False)
        super().__init__(app, http=protocol, **kwargs)
        self.timeout_request_head = timeout_request_head
        self.timeout_request_body = timeout_request_body
        self.header_limits = header_limits
        self.edge_log = edge_log
