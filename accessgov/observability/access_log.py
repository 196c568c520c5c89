"""A pure ASGI middleware (no BaseHTTPMiddleware: no extra task or body copy per request): the request id, one
JSON access-log line and the request metrics. The line's fields and the `X-Request-Id` rule: docs/operations.md
("Logs, metrics, health"); what it never holds and the `client` it names: docs/edges.md ("Access log").

Lines leave at the end of the loop turn with the turn's others (`line_writer`). Answers the HTTP edge gives
without the app (400, 431, 503) get theirs from `EdgeLog`: operation `edge`, the TCP peer as client.
"""

from __future__ import annotations

import math
import re
import sys
import time
from collections.abc import Awaitable, Callable, MutableMapping, Sequence
from datetime import UTC, datetime
from typing import Any

import orjson

from accessgov.http.edge import new_request_id
from accessgov.observability import metrics
from accessgov.observability.line_writer import LineWriter
from accessgov.observability.log_text import escape
from accessgov.webhooks import cidr
from accessgov.webhooks.cidr import Network

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

REQUEST_ID_HEADER = b"x-request-id"
_SANE_ID = re.compile(rb"[A-Za-z0-9._:-]{1,128}")
_UUID = re.compile(rb"[0-9A-Fa-f-]{36}")
ERROR_CODE_KEY = "accessgov.error_code"  # set by the engine when an ApiError becomes the response
WEBHOOK_OPERATION = "svc.api.webhooks.v1.IncomingWebhookService.Receive"
EDGE_OPERATION = "edge"  # the operation of an answer the HTTP edge gave without the app


def _operation(scope: Scope) -> tuple[str, str]:
    """(operation id, path template) of the route that answered, from the endpoint the router chose."""
    operation = getattr(scope.get("endpoint"), "__self__", None)
    entry = getattr(operation, "entry", None)
    if entry is None:
        return "unmatched", ""
    return entry["operation_id"], entry["path"]


def _stderr_fd() -> int:
    """stderr's descriptor; 2 when sys.stderr was replaced by an object without one (a test's capture)."""
    try:
        return sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):  # io.UnsupportedOperation is an OSError and a ValueError
        return 2


def client_of(scope: Scope, trusted_proxies: Sequence[Network]) -> str | None:
    """The client as the failure limiter sees it: the TCP peer, or behind a trusted proxy the forwarded client
    (every X-Forwarded-For line, in order, as `RequestContext.client_address` reads them)."""
    client = scope.get("client")
    peer = client[0] if client else None
    if not trusted_proxies or peer is None:
        return peer
    lines = [value.decode("latin-1") for name, value in scope["headers"] if name == b"x-forwarded-for"]
    address = cidr.client_address(peer, ",".join(lines) or None, trusted_proxies)
    return str(address) if address is not None else peer


def _line(
    timestamps: _Timestamps,
    method: str | None,
    route: str,
    operation: str,
    status: int,
    seconds: float,
    request_id: bytes,
    client: str | None,
    code: str | None,
) -> dict[str, Any]:
    line: dict[str, Any] = {
        "ts": timestamps.now(),
        "level": "error" if status >= 500 else "info",
        "event": "request",
        "method": method,
        "route": route or None,
        "operation": operation,
        "status": status,
        "duration_ms": round(seconds * 1000, 3),
        "request_id": request_id.decode("ascii"),
        "client": client,
    }
    if code:
        line["error_code"] = str(code)
    return line


class EdgeLog:
    """The access-log line and request metrics of an answer the HTTP edge gives without the app (one per process,
    shared by its connections: `accessgov.http.server`)."""

    def __init__(self, *, log: bool = True, stream_fd: int | None = None) -> None:
        self.log = log
        self.lines = LineWriter(stream_fd if stream_fd is not None else _stderr_fd())
        self.timestamps = _Timestamps()

    def answered(
        self, method: str | None, status: int, code: str, client: str | None, request_id: bytes, seconds: float = 0.0
    ) -> None:
        metrics.observe_request(EDGE_OPERATION, status, seconds)
        if self.log:  # the method of a request the edge refused may be anything the client sent
            method = escape(method) if method is not None else None
            line = _line(self.timestamps, method, "", EDGE_OPERATION, status, seconds, request_id, client, code)
            self.lines.write(orjson.dumps(line) + b"\n")


class AccessLogMiddleware:
    """Request id, JSON access log (unless `log=False`) and request metrics around an ASGI app."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        log: bool = True,
        stream_fd: int | None = None,
        trusted_proxies: Sequence[Network] = (),
    ) -> None:
        self.app = app
        self.log = log
        self.lines = LineWriter(stream_fd if stream_fd is not None else _stderr_fd())
        self.timestamps = _Timestamps()
        self.trusted_proxies = tuple(trusted_proxies)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        request_id = None
        event_id = None
        for name, value in scope["headers"]:
            if name == REQUEST_ID_HEADER:
                request_id = value if _SANE_ID.fullmatch(value) else None
            elif name == b"webhook-event-id":
                event_id = value
        if request_id is None:
            request_id = new_request_id()
        status = 500

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message["headers"] = [*message.get("headers", ()), (REQUEST_ID_HEADER, request_id)]
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            seconds = time.perf_counter() - started
            operation, route = _operation(scope)
            metrics.observe_request(operation, status, seconds)
            code = scope.get(ERROR_CODE_KEY)
            if operation == WEBHOOK_OPERATION:
                _count_delivery(status, code)
            if self.log:
                client = client_of(scope, self.trusted_proxies)
                line = _line(
                    self.timestamps, scope["method"], route, operation, status, seconds, request_id, client, code
                )
                if operation == WEBHOOK_OPERATION:
                    listener_id = scope.get("path_params", {}).get("listener_id")  # the client's text: escaped
                    line["listener_id"] = escape(listener_id) if listener_id is not None else None
                    # Only a well-formed UUID is echoed: the header is the sender's text, the log is ours.
                    line["event_id"] = (
                        event_id.decode("ascii").lower() if event_id and _UUID.fullmatch(event_id) else None
                    )
                self.lines.write(orjson.dumps(line) + b"\n")


class _Timestamps:
    """`datetime.now(UTC).isoformat(timespec="milliseconds")`, with the date and time formatted once a second."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.clock = clock
        self.second = -1
        self.prefix = ""

    def now(self) -> str:
        now = self.clock()
        second = math.floor(now)
        micros = round((now - second) * 1e6)  # rounded to the microsecond as datetime.fromtimestamp rounds
        if micros >= 1_000_000:
            second, micros = second + 1, micros - 1_000_000
        if second != self.second:
            self.second, self.prefix = second, datetime.fromtimestamp(second, UTC).strftime("%Y-%m-%dT%H:%M:%S")
        return f"{self.prefix}.{micros // 1000:03d}+00:00"


def _count_delivery(status: int, code: str | None) -> None:
    if status == 200:
        metrics.delivery("accepted")
    elif code == "DUPLICATE_EVENT":
        metrics.delivery("duplicate", "DUPLICATE_EVENT")
    else:
        metrics.delivery("rejected", str(code) if code else f"HTTP_{status}")
