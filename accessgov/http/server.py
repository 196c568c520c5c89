"""Serving the app under uvicorn with edges that hold: request-head and body-idle deadlines, request-head size
limits, a connection cap, a draining shutdown, and worker processes that die with their supervisor. Each
response leaves in one write (`coalescing`).

uvicorn bounds neither a request head that never completes (slowloris) nor a body that stalls, so the HTTP
protocols are subclassed with two timers: the head timer runs from the connection (or the first byte of the next
request) until the head is complete, the body timer between body chunks. When one fires the connection is closed:
the contract documents no 408 and no request exists yet to answer. What the protocols answer themselves
(`EdgeAnswers`: 400, 431 beyond the `HeaderLimits`, 503 at the connection cap): docs/edges.md, "Request heads".
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import functools
import logging
import os
import shutil
import signal
import sys
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar, cast

import h11
import orjson
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.supervisors.multiprocess import Multiprocess

from accessgov.config import HeaderLimits
from accessgov.errors import (
    ApiError,
    ErrorCode,
    InvalidRequest,
    RequestHeadersTooLarge,
    ServiceUnavailable,
)
from accessgov.http import heap
from accessgov.http.coalescing import CoalescingTransport
from accessgov.observability.access_log import EdgeLog, new_request_id
from accessgov.observability.metrics import MULTIPROC_ENV

log = logging.getLogger(__name__)

DEFAULT_HEAD_TIMEOUT = 10.0
DEFAULT_BODY_TIMEOUT = 10.0
DEFAULT_LIMIT_CONCURRENCY = 1000
DEFAULT_BACKLOG = 2048
DEFAULT_GRACEFUL_SHUTDOWN = 10
DEFAULT_KEEP_ALIVE = 5
SUPERVISOR_PID_ENV = "ACCESSGOV_SUPERVISOR_PID"
PR_SET_PDEATHSIG = 1
DEFAULT_HEADER_LIMITS = HeaderLimits()


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


@functools.cache
def _edge_log(log: bool) -> EdgeLog:
    """The process's one `EdgeLog` (its lines buffered per loop turn like the app's)."""
    return EdgeLog(log=log)


_STATUS_LINES = {400: b"HTTP/1.1 400 Bad Request\r\n", 431: b"HTTP/1.1 431 Request Header Fields Too Large\r\n"}


class EdgeAnswers:
    """What a uvicorn HTTP protocol answers without the app, as the contract's `Error` with an access-log line;
    and the head limits (mixed in before the protocol class, with `_Deadlines`).

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
        self._edge = _edge_log(getattr(config, "json_access_log", True))
        self._cap, self.limit_concurrency = self.limit_concurrency, None
        self._app = self.app
        self._refusal: ApiError | None = None  # set by a parser callback before it raises

    def _choose_app(self) -> None:
        """The app for the request whose head just completed: `_over_capacity` at the connection cap."""
        cap = self._cap
        at_cap = cap is not None and (len(self.connections) >= cap or len(self.tasks) >= cap)
        self.app = self._over_capacity if at_cap else self._app

    def _too_large(self, what: str) -> _HeadTooLarge:
        self._refusal = RequestHeadersTooLarge(ErrorCode.REQUEST_HEADERS_TOO_LARGE, what)
        return _HeadTooLarge(what)

    def send_400_response(self, msg: str) -> None:
        """uvicorn's answer to a request its parser refuses: 431 when a head limit was crossed, else 400."""
        error = self._refusal or InvalidRequest(ErrorCode.INVALID_ARGUMENT, "the request is not valid HTTP/1.1")
        self._refusal = None
        request_id = new_request_id()
        body = orjson.dumps(error.body())
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
        self._edge.answered(self._method(), error.status, error.code.value, self._peer(), request_id)

    def _method(self) -> str | None:
        return None

    def _peer(self) -> str | None:
        return self.client[0] if self.client else None

    async def _over_capacity(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        error = ServiceUnavailable(ErrorCode.SERVICE_UNAVAILABLE, "the server is at its connection limit; retry later")
        request_id = new_request_id()
        body = orjson.dumps(error.body())
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"connection", b"close"),
            (b"x-request-id", request_id),
        ]
        await send({"type": "http.response.start", "status": 503, "headers": headers})
        await send({"type": "http.response.body", "body": body})
        self._edge.answered(scope.get("method"), 503, error.code.value, self._peer(), request_id)


class _LimitedConnection(h11.Connection):
    """h11's server connection with the head limits checked on each request it parses; a refusal's status
    (h11's own 431 for a head beyond `max_incomplete_event_size` included) kept in `refusal` for the protocol."""

    def __init__(self, limits: HeaderLimits) -> None:
        # h11 counts separators too: a line's length of slack, as httptools' bound on a head not yet complete.
        super().__init__(h11.SERVER, max_incomplete_event_size=limits.head_bytes + limits.line_bytes)
        self.limits = limits
        self.refusal: ApiError | None = None

    def next_event(self) -> Any:
        try:
            event = super().next_event()
        except h11.RemoteProtocolError as error:
            if error.error_status_hint == 431:
                self.refusal = RequestHeadersTooLarge(
                    ErrorCode.REQUEST_HEADERS_TOO_LARGE, f"the request head exceeds {self.limits.head_bytes} bytes"
                )
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
        self.refusal = RequestHeadersTooLarge(ErrorCode.REQUEST_HEADERS_TOO_LARGE, problem)
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
        never completes may buffer, the callbacks check each line, the count and the total."""

        def __init__(self, config: uvicorn.Config, *args: Any, **kwargs: Any) -> None:
            super().__init__(config, *args, **kwargs)
            self._in_head = False
            self._head_size = 0  # names and values of the head's complete lines (the callbacks)
            self._header_count = 0
            # Bytes read since the head began, but the first read's: what httptools may be buffering of a line not
            # yet complete. Separators count here, not in `_head_size`: a line's length of slack over the limit.
            self._head_received = 0

        def data_received(self, data: bytes) -> None:
            if self._in_head:
                self._head_received += len(data)
            super().data_received(data)
            if (
                self._in_head
                and self._head_received > self._head_bytes + self._line_bytes
                and not self.transport.is_closing()
            ):
                self._too_large(f"the request head exceeds {self._head_bytes} bytes")
                self.send_400_response("")

        def on_message_begin(self) -> None:
            super().on_message_begin()
            self._in_head = True
            self._head_size = self._header_count = self._head_received = 0
            self._arm_head()

        def on_url(self, url: bytes) -> None:
            self.url += url
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


N = TypeVar("N", int, float)


def _number(env: Mapping[str, str], name: str, default: N) -> N:
    """`env[name]` read as `default`'s type (int or float), or `default` when unset or blank."""
    value = env.get(name, "")
    return type(default)(value) if value.strip() else default


@dataclass(frozen=True)
class ServeOptions:
    """How `accessgov serve` listens; every field has an `ACCESSGOV_*` variable and, but for the head limits, a
    command-line option."""

    host: str = "127.0.0.1"
    port: int = 8080
    workers: int = 1
    http: str = "httptools" if HttpToolsEdgeProtocol else "h11"
    head_timeout: float = DEFAULT_HEAD_TIMEOUT
    body_timeout: float = DEFAULT_BODY_TIMEOUT
    keep_alive: int = DEFAULT_KEEP_ALIVE
    limit_concurrency: int = DEFAULT_LIMIT_CONCURRENCY
    backlog: int = DEFAULT_BACKLOG
    graceful_shutdown: int = DEFAULT_GRACEFUL_SHUTDOWN
    log_level: str = "info"
    # "json": the app's JSON access log (uvicorn's off); "uvicorn": uvicorn's text access log; "off": neither.
    access_log: str = "json"
    gc_threshold: int = heap.DEFAULT_YOUNG_THRESHOLD  # see `accessgov.http.heap`
    # ACCESSGOV_MAX_HEADER_LINE_BYTES, ACCESSGOV_MAX_HEADERS and ACCESSGOV_MAX_HEAD_BYTES
    header_limits: HeaderLimits = DEFAULT_HEADER_LIMITS

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ) -> ServeOptions:
        default = cls()
        return cls(
            workers=_number(env, "ACCESSGOV_WORKERS", default.workers),
            http=env.get("ACCESSGOV_HTTP", "").strip() or default.http,
            head_timeout=_number(env, "ACCESSGOV_HEAD_TIMEOUT", default.head_timeout),
            body_timeout=_number(env, "ACCESSGOV_BODY_TIMEOUT", default.body_timeout),
            keep_alive=_number(env, "ACCESSGOV_KEEP_ALIVE", default.keep_alive),
            limit_concurrency=_number(env, "ACCESSGOV_LIMIT_CONCURRENCY", default.limit_concurrency),
            backlog=_number(env, "ACCESSGOV_BACKLOG", default.backlog),
            graceful_shutdown=_number(env, "ACCESSGOV_GRACEFUL_SHUTDOWN", default.graceful_shutdown),
            access_log=env.get("ACCESSGOV_ACCESS_LOG", "").strip().lower() or default.access_log,
            gc_threshold=_number(env, "ACCESSGOV_GC_THRESHOLD", default.gc_threshold),
            header_limits=HeaderLimits.from_env(env),
        )


class EdgeConfig(uvicorn.Config):
    """uvicorn's Config plus what the edge protocols read: the two request deadlines, the head limits and whether
    their answers get a JSON access-log line (pickled into workers)."""

    def __init__(
        self,
        app: Any,
        *,
        timeout_request_head: float,
        timeout_request_body: float,
        header_limits: HeaderLimits = DEFAULT_HEADER_LIMITS,
        json_access_log: bool = True,
        **kwargs: Any,
    ) -> None:
        super().__init__(app, **kwargs)
        self.timeout_request_head = timeout_request_head
        self.timeout_request_body = timeout_request_body
        self.header_limits = header_limits
        self.json_access_log = json_access_log


def uvicorn_config(app: Any, options: ServeOptions, **kwargs: Any) -> EdgeConfig:
    """The uvicorn configuration for `options`. proxy_headers stays off: uvicorn would otherwise rewrite the client
    address from X-Forwarded-For for loopback peers, bypassing the listener CIDR checks and
    ACCESSGOV_TRUSTED_PROXIES (the only place where forwarded addresses are trusted)."""
    protocol = PROTOCOLS.get(options.http)
    if protocol is None:
        raise SystemExit(f"HTTP implementation {options.http!r} is not available (h11 or httptools)")
    return EdgeConfig(
        app,
        host=options.host,
        port=options.port,
        workers=options.workers,
        http=protocol,
        loop="auto",
        log_level=options.log_level,
        proxy_headers=False,
        server_header=False,
        access_log=options.access_log == "uvicorn",
        timeout_keep_alive=options.keep_alive,
        limit_concurrency=options.limit_concurrency or None,
        backlog=options.backlog,
        timeout_graceful_shutdown=options.graceful_shutdown,
        timeout_request_head=options.head_timeout,
        timeout_request_body=options.body_timeout,
        header_limits=options.header_limits,
        json_access_log=options.access_log == "json",
        **kwargs,
    )


def die_with_supervisor() -> None:
    """Ask Linux to SIGTERM this worker when its supervisor dies, even by SIGKILL (no orphaned workers)."""
    supervisor = int(os.environ.get(SUPERVISOR_PID_ENV, "0"))
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0) != 0:
            log.warning("prctl(PR_SET_PDEATHSIG) failed: errno %d", ctypes.get_errno())
    if supervisor and os.getppid() != supervisor:  # it died before prctl took effect
        os.kill(os.getpid(), signal.SIGTERM)


@contextlib.contextmanager
def _metrics_directory() -> Iterator[None]:
    """prometheus-client's multiprocess mode for the workers: each writes its samples under one directory (a
    temporary one, removed at exit, unless the operator set PROMETHEUS_MULTIPROC_DIR), and `/metrics` on any
    worker sums them. Set before the workers start, so their prometheus-client picks the file-backed values."""
    if os.environ.get(MULTIPROC_ENV):
        yield
        return
    directory = tempfile.mkdtemp(prefix="accessgov-metrics-")
    os.environ[MULTIPROC_ENV] = directory
    try:
        yield
    finally:
        os.environ.pop(MULTIPROC_ENV, None)
        shutil.rmtree(directory, ignore_errors=True)


def serve(app: Any, options: ServeOptions) -> None:
    """Run `app` (one process), or with several workers `app` as the import string (`module:factory`) of the app
    factory each of `options.workers` processes calls under uvicorn's supervisor (`accessgov.app.worker_app`)."""
    if options.workers > 1:
        os.environ[SUPERVISOR_PID_ENV] = str(os.getpid())  # inherited by the spawned workers
        os.environ["ACCESSGOV_GC_THRESHOLD"] = str(options.gc_threshold)  # the workers read their options from it
        config = uvicorn_config(app, options, factory=True)
        sock = config.bind_socket()
        with _metrics_directory():
            Multiprocess(config, sockets=[sock]).run()
        return
    heap.set_young_threshold(options.gc_threshold)
    uvicorn.Server(uvicorn_config(app, options)).run()
