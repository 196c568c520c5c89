"""A pure ASGI middleware (no BaseHTTPMiddleware: no extra task or body copy per request): the request id, one
JSON access-log line and the request metrics.

- `X-Request-Id`: taken from the request when it is a sane token (1-128 of `[A-Za-z0-9._:-]`), else 32 new
  random hex digits; echoed on every response, errors included.
- One line per request on stderr, written at the end of the loop turn together with the turn's other lines
  (`line_writer`: writes of at most PIPE_BUF bytes cut at line ends, so workers sharing stderr do not
  interleave): ts, level, method, route (the path template), operation, status,
  duration_ms, request_id, client, and listener_id / event_id for webhook deliveries. Never a header value
  other than the request and event ids, never a body, token, secret or signature.
"""

from __future__ import annotations

import math
import os
import re
import sys
import time
from collections.abc import Awaitable, Callable, MutableMapping
from datetime import UTC, datetime
from typing import Any

import orjson

from accessgov.observability import metrics
from accessgov.observability.line_writer import LineWriter

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


class AccessLogMiddleware:
    """Request id, JSON access log (unless `log=False`) and request metrics around an ASGI app."""

    def __init__(self, app: ASGIApp, *, log: bool = True, stream_fd: int | None = None) -> None:
        self.app = app
        self.log = log
        self.lines = LineWriter(stream_fd if stream_fd is not None else _stderr_fd())
        self.timestamps = _Timestamps()

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
            # 32 random hex digits, as uuid4().hex was, for a third of its cost (no UUID object).
            request_id = os.urandom(16).hex().encode()
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
                self._write(scope, operation, route, status, seconds, request_id, code, event_id)

    def _write(
        self,
        scope: Scope,
        operation: str,
        route: str,
        status: int,
        seconds: float,
        request_id: bytes,
        code: str | None,
        event_id: bytes | None,
    ) -> None:
        client = scope.get("client")
        line: dict[str, Any] = {
            "ts": self.timestamps.now(),
            "level": "error" if status >= 500 else "info",
            "event": "request",
            "method": scope["method"],
            "route": route or None,
            "operation": operation,
            "status": status,
            "duration_ms": round(seconds * 1000, 3),
            "request_id": request_id.decode("ascii"),
            "client": client[0] if client else None,
        }
        if code:
            line["error_code"] = str(code)
        if operation == WEBHOOK_OPERATION:
            line["listener_id"] = scope.get("path_params", {}).get("listener_id")
            # Only a well-formed UUID is echoed: the header is the sender's text, the log is ours.
            line["event_id"] = event_id.decode("ascii").lower() if event_id and _UUID.fullmatch(event_id) else None
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
