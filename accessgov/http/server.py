"""Serving the app: `accessgov serve`'s options and uvicorn behind the edge (`accessgov.http.edge`: deadlines, head
limits, the connection cap, one write per response), a draining shutdown, and worker processes that die with their
supervisor. What the edge answers itself: docs/edges.md, "Request heads".
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import functools
import logging
import os
import shutil
import signal
import socket
import sys
import tempfile
from collections.abc import Iterator
from typing import Any

import uvicorn
from uvicorn.supervisors.multiprocess import Multiprocess

from accessgov.config import (
    DEFAULTS,
    Settings,
    export_to_workers,
    metrics_directory,
    set_metrics_directory,
    supervisor_pid,
)
from accessgov.http import gc_tuning
from accessgov.http.edge import EdgeConfig, HeaderLimits, HttpToolsEdgeProtocol
from accessgov.observability.access_log import EdgeLog

log = logging.getLogger(__name__)

# The edge's own defaults are the mock's (its vendored copy imports nothing of the package); the server's: these.
DEFAULT_HEADER_LIMITS = HeaderLimits(
    line_bytes=DEFAULTS.max_header_line_bytes, count=DEFAULTS.max_headers, head_bytes=DEFAULTS.max_head_bytes
)

HOST = "127.0.0.1"
PORT = 8080
PR_SET_PDEATHSIG = 1


@functools.cache
def _edge_log(log: bool) -> EdgeLog:
    """The process's one `EdgeLog` (its lines buffered per loop turn like the app's)."""
    return EdgeLog(log=log)


def log_edge_answer(method: str | None, status: int, code: str, client: str | None, request_id: bytes) -> None:
    """An edge answer's access-log line and request metrics (`EdgeConfig.edge_log` with the JSON access log)."""
    _edge_log(True).answered(method, status, code, client, request_id)


def count_edge_answer(method: str | None, status: int, code: str, client: str | None, request_id: bytes) -> None:
    """An edge answer's request metrics only (the JSON access log off)."""
    _edge_log(False).answered(method, status, code, client, request_id)


def header_limits(settings: Settings) -> HeaderLimits:
    """The request-head limits of `settings` (431 beyond any of them)."""
    return HeaderLimits(
        line_bytes=settings.max_header_line_bytes, count=settings.max_headers, head_bytes=settings.max_head_bytes
    )


def http_parser(settings: Settings) -> str:
    """The HTTP parser `settings` chose; by default httptools, h11 where httptools is not installed."""
    return settings.http if "http" in settings.model_fields_set or HttpToolsEdgeProtocol else "h11"


def uvicorn_config(
    app: Any, settings: Settings, *, host: str = HOST, port: int = PORT, log_level: str = "info", **kwargs: Any
) -> EdgeConfig:
    """The uvicorn configuration for `settings`, listening on `host:port` (proxy headers off:
    ACCESSGOV_TRUSTED_PROXIES is the only place where forwarded addresses are trusted)."""
    return EdgeConfig(
        app,
        host=host,
        port=port,
        workers=settings.workers,
        http=http_parser(settings),
        loop="auto",
        log_level=log_level,
        access_log=settings.access_log == "uvicorn",
        timeout_keep_alive=settings.keep_alive,
        limit_concurrency=settings.limit_concurrency or None,
        backlog=settings.backlog,
        timeout_graceful_shutdown=settings.graceful_shutdown,
        timeout_request_head=settings.head_timeout,
        timeout_request_body=settings.body_timeout,
        header_limits=header_limits(settings),
        edge_log=log_edge_answer if settings.access_log == "json" else count_edge_answer,
        **kwargs,
    )


def die_with_supervisor() -> None:
    """Ask Linux to SIGTERM this worker when its supervisor dies, even by SIGKILL (no orphaned workers)."""
    supervisor = supervisor_pid()
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
    if metrics_directory():
        yield
        return
    directory = tempfile.mkdtemp(prefix="accessgov-metrics-")
    set_metrics_directory(directory)
    try:
        yield
    finally:
        set_metrics_directory(None)
        shutil.rmtree(directory, ignore_errors=True)


def bind(host: str = HOST, port: int = PORT) -> socket.socket:
    """The listening socket, bound before anything else is done or printed: an address in use is one message that
    says what to do, not a start-up banner followed by uvicorn's traceback."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as error:
        sock.close()
        where = f"{host}:{port}"
        if error.errno == errno.EADDRINUSE:
            raise SystemExit(
                f"accessgov: {where} is already in use (another server is listening there): stop it, or choose "
                f"another port with --port (make run PORT={port + 1})"
            ) from None
        raise SystemExit(f"accessgov: cannot listen on {where}: {error.strerror}") from None
    sock.set_inheritable(True)  # the workers under uvicorn's supervisor serve it
    return sock


def serve(
    app: Any,
    settings: Settings,
    sock: socket.socket | None = None,
    *,
    host: str = HOST,
    port: int = PORT,
    log_level: str = "info",
) -> None:
    """Run `app` (one process), or with several workers `app` as the import string (`module:factory`) of the app
    factory each of `settings.workers` processes calls under uvicorn's supervisor (`accessgov.app.worker_app`), on
    `sock` (`bind(host, port)` when not given)."""
    sock = sock or bind(host, port)
    listen: dict[str, Any] = {"host": host, "port": port, "log_level": log_level}
    if settings.workers > 1:
        export_to_workers(settings, os.getpid())  # the workers inherit the environment and load their settings
        config = uvicorn_config(app, settings, factory=True, **listen)
        with _metrics_directory():
            Multiprocess(config, sockets=[sock]).run()
        return
    gc_tuning.set_young_threshold(settings.gc_threshold)
    uvicorn.Server(uvicorn_config(app, settings, **listen)).run(sockets=[sock])
