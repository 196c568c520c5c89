"""The validation proxy: an ASGI app forwarding every request to an implementation and checking both ways.

A request is forwarded as it came (method, raw path, query, headers, body; hop-by-hop headers dropped) over a
pool of keep-alive connections (httpcore, the transport under httpx: httpx's client layer cost ~1.5 ms a request
here), and the response is streamed back (small ones in one piece). The request is checked against the contract
(problems are logged with `side: "request"` — the client's fault, counted apart), the response too: an undocumented
status, a content type or required header the contract does not promise, a body its schema rejects, or a 2xx answer to a
request the contract says is invalid. Each violation is one JSON log line (logger `accessgov.proxy`) and
counted; `GET /__proxy/violations` reports the counts. With `errors=True` a violating response is replaced by
a 502 whose body lists the violations (the response is then buffered instead of streamed).
"""

from __future__ import annotations

import collections
import json
import logging
import zlib
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import parse_qsl

import httpcore
import httpx

from accessgov.proxy.contract import Contract, OperationContract, Problem

log = logging.getLogger("accessgov.proxy")

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]

# RFC 9110 section 7.6.1; `host` and `content-length` are set again by the client for the upstream.
HOP_BY_HOP = frozenset(
    {
        b"connection",
        b"keep-alive",
        b"proxy-authenticate",
        b"proxy-authorization",
        b"proxy-connection",
        b"te",
        b"trailer",
        b"transfer-encoding",
        b"upgrade",
    }
)
REQUEST_DROPPED = HOP_BY_HOP | {b"host", b"content-length"}
MAX_CHECKED_BODY = 4 * 1024 * 1024  # larger responses are streamed through with status and headers checked only
SMALL_BODY = 256 * 1024  # buffered and sent in one piece; larger bodies are streamed
REPORT_PATH = "/__proxy/violations"
RECENT = 100


class Violations:
    """Counts and the most recent violations, for `GET /__proxy/violations` and tests."""

    def __init__(self) -> None:
        self.by_kind: collections.Counter[str] = collections.Counter()
        self.responses = 0
        self.requests = 0
        self.recent: collections.deque[dict[str, Any]] = collections.deque(maxlen=RECENT)

    def record(self, side: str, problem: Problem, context: dict[str, Any]) -> dict[str, Any]:
        entry = {"event": "contract_violation", "side": side, "kind": problem.kind, **context}
        entry["message"] = problem.message
        if side == "response":
            self.responses += 1
        else:
            self.requests += 1
        self.by_kind[problem.kind] += 1
        self.recent.append(entry)
        log.warning(json.dumps(entry, sort_keys=True))
        return entry

    def report(self) -> dict[str, Any]:
        return {
            "violations": self.responses,
            "invalidRequests": self.requests,
            "byKind": dict(sorted(self.by_kind.items())),
            "recent": list(self.recent),
        }


class ValidationProxy:
    """`ValidationProxy(upstream_url, Contract(bundle), errors=False)`: an ASGI app."""

    def __init__(self, upstream: str, contract: Contract, *, errors: bool = False) -> None:
        self.upstream = httpx.URL(upstream.rstrip("/"))
        self.contract = contract
        self.errors = errors
        self.violations = Violations()
        self._pool: httpcore.AsyncConnectionPool | None = None

    @property
    def pool(self) -> httpcore.AsyncConnectionPool:
        if self._pool is None:
            self._pool = httpcore.AsyncConnectionPool(max_connections=256, keepalive_expiry=30.0)
        return self._pool

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                else:
                    if self._pool is not None:
                        await self._pool.aclose()
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        if scope["type"] != "http":
            return
        if scope["path"] == REPORT_PATH and scope["method"] == "GET":
            await _send_json(send, 200, self.violations.report())
            return
        await self._forward(scope, receive, send)

    async def _forward(self, scope: Scope, receive: Receive, send: Send) -> None:
        body = await _read_body(receive)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        context = {"method": scope["method"], "path": scope["path"]}
        found = self.contract.find(scope["method"], scope["path"])
        operation: OperationContract | None = None
        invalid_request = False
        if found is not None:
            operation, path_params = found
            context["operation"] = operation.operation_id
            query = dict(_query(scope))
            for problem in operation.check_request(path_params, query, headers, body):
                invalid_request = True
                self.violations.record("request", problem, context)
        raw_path = scope.get("raw_path") or scope["path"].encode()
        if scope.get("query_string"):
            raw_path += b"?" + scope["query_string"]
        url = httpcore.URL(
            scheme=self.upstream.raw_scheme,
            host=self.upstream.raw_host,
            port=self.upstream.port,
            target=self.upstream.raw_path.rstrip(b"/") + raw_path,
        )
        forwarded = [(k, v) for k, v in scope["headers"] if k.lower() not in REQUEST_DROPPED]
        forwarded.insert(0, (b"host", self.upstream.netloc))
        if body or scope["method"] not in ("GET", "HEAD", "DELETE", "OPTIONS"):
            forwarded.append((b"content-length", str(len(body)).encode()))
        try:
            async with self.pool.stream(scope["method"], url, headers=forwarded, content=body) as response:
                await self._relay(response, operation, invalid_request, context, send)
        except (httpcore.NetworkError, httpcore.TimeoutException, httpcore.ProtocolError) as error:
            # Only before the response started: once it has, the connection to the client is broken anyway.
            await _send_json(send, 502, {"code": "UPSTREAM_UNREACHABLE", "message": f"{type(error).__name__}: {error}"})

    async def _relay(
        self,
        response: httpcore.Response,
        operation: OperationContract | None,
        invalid_request: bool,
        context: dict[str, Any],
        send: Send,
    ) -> None:
        raw_headers = [(k, v) for k, v in response.headers if k.lower() not in HOP_BY_HOP]
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in raw_headers}
        status = response.status
        context = {**context, "status": status}
        declared = headers.get("content-length", "")
        small = declared.isdigit() and int(declared) <= SMALL_BODY
        if small or (self.errors and operation is not None):
            # One write for a small response (separate header and body segments cost a delayed-ACK round), and
            # errors mode must see the whole body before it decides what to send.
            body = b"".join([chunk async for chunk in response.aiter_stream()])
            entries = self._check(operation, status, headers, body, invalid_request, context) if operation else []
            if entries and self.errors:
                await _send_json(send, 502, {"code": "CONTRACT_VIOLATION", "violations": entries})
                return
            await send({"type": "http.response.start", "status": status, "headers": raw_headers})
            await send({"type": "http.response.body", "body": body})
            return
        await send({"type": "http.response.start", "status": status, "headers": raw_headers})
        buffered: list[bytes] | None = []
        size = 0
        async for chunk in response.aiter_stream():
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
            if buffered is not None:
                size += len(chunk)
                if size <= MAX_CHECKED_BODY:
                    buffered.append(chunk)
                else:
                    buffered = None
        await send({"type": "http.response.body", "body": b""})
        if operation is not None:
            checked = None if buffered is None else b"".join(buffered)
            self._check(operation, status, headers, checked, invalid_request, context)

    def _check(
        self,
        operation: OperationContract,
        status: int,
        headers: dict[str, str],
        body: bytes | None,
        invalid_request: bool,
        context: dict[str, Any],
    ) -> list[dict[str, Any]]:
        problems = operation.check_response(status, headers, _decoded(body, headers))
        if invalid_request and 200 <= status < 300:
            problems.append(Problem("response.accepted_invalid_request", "a request the contract rejects got 2xx"))
        return [self.violations.record("response", problem, context) for problem in problems]


def _decoded(body: bytes | None, headers: dict[str, str]) -> bytes | None:
    encoding = headers.get("content-encoding", "identity").lower()
    if body is None or encoding == "identity":
        return body
    if encoding in ("gzip", "deflate"):
        return zlib.decompress(body, wbits=47)  # 47: gzip or zlib header, detected
    return None  # an encoding we cannot undo: status, type and headers are still checked


def _query(scope: Scope) -> list[tuple[str, str]]:
    return parse_qsl(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True)


async def _read_body(receive: Receive) -> bytes:
    parts = []
    while True:
        message = await receive()
        parts.append(message.get("body", b""))
        if not message.get("more_body", False):
            return b"".join(parts)


async def _send_json(send: Send, status: int, value: Any) -> None:
    body = json.dumps(value, sort_keys=True).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
