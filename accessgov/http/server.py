"""Serving the app under uvicorn with edges that hold: request-head and body-idle deadlines, a connection cap,
a draining shutdown, and worker processes that die with their supervisor. Each response leaves in one write
(`coalescing`).

uvicorn bounds idle keep-alive connections but not a request head that never completes (slowloris) nor a body
that stalls, so the HTTP protocols are subclassed with two timers: the head timer runs from the connection (or
the first byte of the next request) until the head is complete; the body timer runs between body chunks. When
one fires the connection is closed: the contract documents no 408 and no request exists yet to answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import logging
import os
import shutil
import signal
import sys
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.supervisors.multiprocess import Multiprocess

from accessgov.http import heap
from accessgov.http.coalescing import CoalescingTransport

log = logging.getLogger(__name__)

DEFAULT_HEAD_TIMEOUT = 10.0
DEFAULT_BODY_TIMEOUT = 10.0
DEFAULT_LIMIT_CONCURRENCY = 1000
DEFAULT_BACKLOG = 2048
DEFAULT_GRACEFUL_SHUTDOWN = 10
DEFAULT_KEEP_ALIVE = 5
SUPERVISOR_PID_ENV = "ACCESSGOV_SUPERVISOR_PID"
PR_SET_PDEATHSIG = 1
MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"  # read by prometheus-client when it is imported


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

    def connection_made(self, transport: asyncio.Transport) -> None:
        super().connection_made(CoalescingTransport.around(transport, self.loop))  # type: ignore[misc]
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


class H11EdgeProtocol(_Deadlines, H11Protocol):
    """uvicorn's h11 protocol with request-head and body-idle deadlines."""

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

    class HttpToolsEdgeProtocol(_Deadlines, HttpToolsProtocol):
        """uvicorn's httptools protocol with request-head and body-idle deadlines."""

        def on_message_begin(self) -> None:
            super().on_message_begin()
            self._arm_head()

        def on_headers_complete(self) -> None:
            self._cancel_head()
            self._arm_body()  # until the body is complete; a request without one completes right away
            super().on_headers_complete()

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


def _seconds(env: Mapping[str, str], name: str, default: float) -> float:
    value = env.get(name, "")
    return float(value) if value.strip() else default


def _count(env: Mapping[str, str], name: str, default: int) -> int:
    value = env.get(name, "")
    return int(value) if value.strip() else default


@dataclass(frozen=True)
class ServeOptions:
    """How `accessgov serve` listens; every field has an `ACCESSGOV_*` variable and a command-line option."""

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

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ) -> ServeOptions:
        default = cls()
        return cls(
            workers=_count(env, "ACCESSGOV_WORKERS", default.workers),
            http=env.get("ACCESSGOV_HTTP", "").strip() or default.http,
            head_timeout=_seconds(env, "ACCESSGOV_HEAD_TIMEOUT", default.head_timeout),
            body_timeout=_seconds(env, "ACCESSGOV_BODY_TIMEOUT", default.body_timeout),
            keep_alive=_count(env, "ACCESSGOV_KEEP_ALIVE", default.keep_alive),
            limit_concurrency=_count(env, "ACCESSGOV_LIMIT_CONCURRENCY", default.limit_concurrency),
            backlog=_count(env, "ACCESSGOV_BACKLOG", default.backlog),
            graceful_shutdown=_count(env, "ACCESSGOV_GRACEFUL_SHUTDOWN", default.graceful_shutdown),
            access_log=env.get("ACCESSGOV_ACCESS_LOG", "").strip().lower() or default.access_log,
            gc_threshold=_count(env, "ACCESSGOV_GC_THRESHOLD", default.gc_threshold),
        )


class EdgeConfig(uvicorn.Config):
    """uvicorn's Config plus the two request deadlines the edge protocols read (pickled into workers)."""

    def __init__(self, app: Any, *, timeout_request_head: float, timeout_request_body: float, **kwargs: Any) -> None:
        super().__init__(app, **kwargs)
        self.timeout_request_head = timeout_request_head
        self.timeout_request_body = timeout_request_body


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


def worker_app() -> Any:
    """App factory for worker processes (`accessgov serve --workers N`)."""
    from accessgov.app import create_app
    from accessgov.config import ServerConfig

    die_with_supervisor()
    app = create_app(ServerConfig.from_env())
    heap.set_young_threshold(ServeOptions.from_env().gc_threshold)
    return app


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
    """Run `app` (one process), or `worker_app` in `options.workers` processes under uvicorn's supervisor."""
    if options.workers > 1:
        os.environ[SUPERVISOR_PID_ENV] = str(os.getpid())  # inherited by the spawned workers
        os.environ["ACCESSGOV_GC_THRESHOLD"] = str(options.gc_threshold)  # the workers read their options from it
        config = uvicorn_config("accessgov.http.server:worker_app", options, factory=True)
        sock = config.bind_socket()
        with _metrics_directory():
            Multiprocess(config, sockets=[sock]).run()
        return
    heap.set_young_threshold(options.gc_threshold)
    uvicorn.Server(uvicorn_config(app, options)).run()
