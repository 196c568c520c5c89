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
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import uvicorn
from uvicorn.supervisors.multiprocess import Multiprocess

from accessgov.config import DEFAULTS, Settings
from accessgov.http import gc_tuning
from accessgov.http.edge import EdgeConfig, HeaderLimits, HttpToolsEdgeProtocol
from accessgov.observability.access_log import EdgeLog
from accessgov.observability.metrics import MULTIPROC_ENV

log = logging.getLogger(__name__)

# The edge's own defaults are the mock's (its vendored copy imports nothing of the package); the server's: these.
DEFAULT_HEADER_LIMITS = HeaderLimits(
    line_bytes=DEFAULTS.max_header_line_bytes, count=DEFAULTS.max_headers, head_bytes=DEFAULTS.max_head_bytes
)

SUPERVISOR_PID_ENV = "ACCESSGOV_SUPERVISOR_PID"
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


@dataclass(frozen=True)
class ServeOptions:
    """How `accessgov serve` listens: `Settings`' serve variables (their defaults here), over which the command line
    sets host, port and log level."""

    host: str = "127.0.0.1"
    port: int = 8080
    workers: int = DEFAULTS.workers
    http: str = DEFAULTS.http if HttpToolsEdgeProtocol else "h11"
    head_timeout: float = DEFAULTS.head_timeout
    body_timeout: float = DEFAULTS.body_timeout
    keep_alive: int = DEFAULTS.keep_alive
    limit_concurrency: int = DEFAULTS.limit_concurrency
    backlog: int = DEFAULTS.backlog
    graceful_shutdown: int = DEFAULTS.graceful_shutdown
    log_level: str = "info"
    # "json": the app's JSON access log (uvicorn's off); "uvicorn": uvicorn's text access log; "off": neither.
    access_log: str = DEFAULTS.access_log
    gc_threshold: int = DEFAULTS.gc_threshold  # see `accessgov.http.gc_tuning`
    header_limits: HeaderLimits = DEFAULT_HEADER_LIMITS

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ) -> ServeOptions:
        """The options `env` gives (SettingsError for a variable with a wrong value)."""
        return cls.from_settings(Settings.from_env(env))

    @classmethod
    def from_settings(cls, settings: Settings, **listen: Any) -> ServeOptions:
        """The serve settings of `settings`; `listen`: host, port, log level."""
        chosen = "http" in settings.model_fields_set  # else the default, h11 where httptools is not installed
        return cls(
            workers=settings.workers,
            http=settings.http if chosen or HttpToolsEdgeProtocol else "h11",
            head_timeout=settings.head_timeout,
            body_timeout=settings.body_timeout,
            keep_alive=settings.keep_alive,
            limit_concurrency=settings.limit_concurrency,
            backlog=settings.backlog,
            graceful_shutdown=settings.graceful_shutdown,
            access_log=settings.access_log,
            gc_threshold=settings.gc_threshold,
            header_limits=HeaderLimits(
                line_bytes=settings.max_header_line_bytes,
                count=settings.max_headers,
                head_bytes=settings.max_head_bytes,
            ),
            **listen,
        )


def uvicorn_config(app: Any, options: ServeOptions, **kwargs: Any) -> EdgeConfig:
    """The uvicorn configuration for `options` (proxy headers off: ACCESSGOV_TRUSTED_PROXIES is the only place where
    forwarded addresses are trusted)."""
    return EdgeConfig(
        app,
        host=options.host,
        port=options.port,
        workers=options.workers,
        http=options.http,
        loop="auto",
        log_level=options.log_level,
        access_log=options.access_log == "uvicorn",
        timeout_keep_alive=options.keep_alive,
        limit_concurrency=options.limit_concurrency or None,
        backlog=options.backlog,
        timeout_graceful_shutdown=options.graceful_shutdown,
        timeout_request_head=options.head_timeout,
        timeout_request_body=options.body_timeout,
        header_limits=options.header_limits,
        edge_log=log_edge_answer if options.access_log == "json" else count_edge_answer,
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


def bind(options: ServeOptions) -> socket.socket:
    """The listening socket, bound before anything else is done or printed: an address in use is one message that
    says what to do, not a start-up banner followed by uvicorn's traceback."""
    family = socket.AF_INET6 if ":" in options.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((options.host, options.port))
    except OSError as error:
        sock.close()
        where = f"{options.host}:{options.port}"
        if error.errno == errno.EADDRINUSE:
            raise SystemExit(
                f"accessgov: {where} is already in use (another server is listening there): stop it, or choose "
                f"another port with --port (make run PORT={options.port + 1})"
            ) from None
        raise SystemExit(f"accessgov: cannot listen on {where}: {error.strerror}") from None
    sock.set_inheritable(True)  # the workers under uvicorn's supervisor serve it
    return sock


def serve(app: Any, options: ServeOptions, sock: socket.socket | None = None) -> None:
    """Run `app` (one process), or with several workers `app` as the import string (`module:factory`) of the app
    factory each of `options.workers` processes calls under uvicorn's supervisor (`accessgov.app.worker_app`), on
    `sock` (`bind(options)` when not given)."""
    sock = sock or bind(options)
    if options.workers > 1:
        os.environ[SUPERVISOR_PID_ENV] = str(os.getpid())  # inherited by the spawned workers
        os.environ["ACCESSGOV_GC_THRESHOLD"] = str(options.gc_threshold)  # the workers read their options from it
        config = uvicorn_config(app, options, factory=True)
        with _metrics_directory():
            Multiprocess(config, sockets=[sock]).run()
        return
    gc_tuning.set_young_threshold(options.gc_threshold)
    uvicorn.Server(uvicorn_config(app, options)).run(sockets=[sock])
