"""The validation proxy: an ASGI app forwarding every request to an implementation and checking both ways.

A request is forwarded as it came (method, raw path, query, headers, body; hop-by-hop headers dropped) with
`httpx.AsyncClient`, and the response is streamed back. The request is checked against the contract (problems
are logged with `side: "request"` — the client's fault, counted apart), the response too: an undocumented status,
a content type or required header the contract does not promise, a body its schema rejects, or a 2xx answer to a
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

    def __init__(
        self, upstream: str, contract: Contract, *, errors: bool = False, client: httpx.AsyncClient | None = None
    ) -> None:
        self.upstream = httpx.URL(upstream.rstrip("/"))
        self.contract = contract
        self.errors = errors
        self.violations = Violations()
        self._client = client

    @property
    def client(self) -> httpx.AsyncClient:
        if self._client is None:
            limits = httpx.Limits(max_connections=256, max_keepalive_connections=256)
            self._client = httpx.AsyncClient(timeout=httpx.Timeout(60.0), limits=limits, follow_redirects=False)
        return self._client

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                else:
                    if self._client is not None:
                        await self._client.aclose()
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
        request = self.client.build_request(
            scope["method"],
            self.upstream.copy_with(raw_path=self.upstream.raw_path.rstrip(b"/") + raw_path),
            headers=[(k, v) for k, v in scope["headers"] if k.lower() not in REQUEST_DROPPED],
            content=body,
        )
        try:
            response = await self.client.send(request, stream=True)
        except httpx.HTTPError as error:
            await _send_json(send, 502, {"code": "UPSTREAM_UNREACHABLE", "message": f"{type(error).__name__}: {error}"})
            return
        try:
            await self._relay(response, operation, invalid_request, context, send)
        finally:
            await response.aclose()

    async def _relay(
        self,
        response: httpx.Response,
        operation: OperationContract | None,
        invalid_request: bool,
        context: dict[str, Any],
        send: Send,
    ) -> None:
        raw_headers = [(k, v) for k, v in response.headers.raw if k.lower() not in HOP_BY_HOP]
        context = {**context, "status": response.status_code}
        if self.errors and operation is not None:
            body = b"".join([chunk async for chunk in response.aiter_raw()])
            entries = self._check(operation, response, body, invalid_request, context)
            if entries:
                await _send_json(send, 502, {"code": "CONTRACT_VIOLATION", "violations": entries})
                return
            await send({"type": "http.response.start", "status": response.status_code, "headers": raw_headers})
            await send({"type": "http.response.body", "body": body})
            return
        await send({"type": "http.response.start", "status": response.status_code, "headers": raw_headers})
        buffered: list[bytes] | None = []
        size = 0
        async for chunk in response.aiter_raw():
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
            if buffered is not None:
                size += len(chunk)
                if size <= MAX_CHECKED_BODY:
                    buffered.append(chunk)
                else:
                    buffered = None
        await send({"type": "http.response.body", "body": b""})
        if operation is not None:
            self._check(operation, response, None if buffered is None else b"".join(buffered), invalid_request, context)

    def _check(
        self,
        operation: OperationContract,
        response: httpx.Response,
        body: bytes | None,
        invalid_request: bool,
        context: dict[str, Any],
    ) -> list[dict[str, Any]]:
        headers = {k.lower(): v for k, v in response.headers.items()}
        problems = operation.check_response(response.status_code, headers, _decoded(body, headers))
        if invalid_request and 200 <= response.status_code < 300:
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
