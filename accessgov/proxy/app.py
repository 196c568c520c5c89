"""The validation proxy: an ASGI app forwarding every request to an implementation and checking both ways.

A request is forwarded as it came (method, raw path without its dot segments and under the upstream's base path
(`paths.py`, else 400 `INVALID_PATH`), query, headers, body; hop-by-hop headers dropped) over a
pool of keep-alive connections (httpcore, the transport under httpx: httpx's client layer cost ~1.5 ms a request
here), and the response is streamed back (small ones in one piece). The request is checked against the contract
(problems are logged with `side: "request"` — the client's fault, counted apart), the response too: an undocumented
status, a content type or required header the contract does not promise, a body its schema rejects, or a 2xx answer to a
request the contract says is invalid. Each violation is one JSON log line (logger `accessgov.proxy`) and
counted; `GET /__proxy/violations` reports the counts. With `errors=True` a violating response is replaced by
a 502 whose body lists the violations (the response is then buffered up to what is checked, 4 MiB, instead of
streamed). The upstream is bounded too: 5 s to connect, 30 s for any read or write and for the whole exchange (a
drip is a 502 too), at most 64 MiB of answer (more is a 502 `UPSTREAM_TOO_LARGE`, or a cut connection once the
answer is under way). What the proxy answers
itself (400, 413, the report's 401/403, 502), always as the contract's `Error`: docs/edges.md ("Validation proxy").
"""

from __future__ import annotations

import asyncio
import collections
import hmac
import ipaddress
import json
import logging
import re
import uuid
import zlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any
from urllib.parse import parse_qsl, quote

import httpcore
import httpx

from accessgov.config import DEFAULTS
from accessgov.proxy.contract import Contract, OperationContract, Problem
from accessgov.proxy.paths import PathRefused, decoded, normalised

log = logging.getLogger("accessgov.proxy")

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]

# RFC 9110 section 7.6.1; `host` and `content-length` are set again by the client for the upstream.
HOP_BY_HOP = frozenset(
    b"connection keep-alive proxy-authenticate proxy-authorization proxy-connection te trailer transfer-encoding"
    b" upgrade".split()
)
REQUEST_DROPPED = HOP_BY_HOP | {b"host", b"content-length"}
MAX_CHECKED_BODY = 4 * 1024 * 1024  # larger responses are streamed through with status and headers checked only
SMALL_BODY = 256 * 1024  # buffered and sent in one piece; larger bodies are streamed
REPORT_PATH = "/__proxy/violations"
# The upstream is untrusted too: 5 s to connect, 30 s for any one read or write (a silent upstream is a 502), and
# at most MAX_CHECKED_BODY of its answer is ever held in memory.
UPSTREAM_TIMEOUT = 30.0
UPSTREAM_CONNECT_TIMEOUT = 5.0
# The whole exchange with the upstream (connect to its answer's last byte) ends within `upstream_timeout` too: an
# upstream dripping a byte every second never lets one read time out, and would hold the connection forever. An
# answer larger than MAX_UPSTREAM_BODY (declared or relayed) is refused (502) or cut there.
MAX_UPSTREAM_BODY = 64 * 1024 * 1024
RECENT = 100
# What the proxy answers itself carries X-Request-Id as every answer of the contract does: the client's when valid.
REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}", re.ASCII)
DEFAULT_MAX_BODY = (
    DEFAULTS.proxy_max_body
)  # requests to operations whose contract states no limit, and to unknown paths


class UpstreamRefused(Exception):
    """An answer of the upstream the proxy does not relay: `code` says why (the 502's `code`)."""

    code = "UPSTREAM_INVALID"


class UpstreamTooLarge(UpstreamRefused):
    """The upstream's answer is larger than the proxy relays (`max_upstream_body`)."""

    code = "UPSTREAM_TOO_LARGE"


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
        self,
        upstream: str,
        contract: Contract,
        *,
        errors: bool = False,
        max_body: int = DEFAULT_MAX_BODY,
        report_token: str | None = None,
        upstream_timeout: float = UPSTREAM_TIMEOUT,
        max_upstream_body: int = MAX_UPSTREAM_BODY,
    ) -> None:
        self.upstream = httpx.URL(upstream.rstrip("/"))
        # Every forwarded path stays under this one (paths.py): the upstream's path, without its query.
        self.base_path = self.upstream.raw_path.partition(b"?")[0].rstrip(b"/")
        self.contract = contract
        self.errors = errors
        self.max_body = max_body
        self.report_token = report_token or None
        self.violations = Violations()
        phases = dict.fromkeys(("read", "write", "pool"), upstream_timeout)
        self.upstream_timeouts = {"connect": min(upstream_timeout, UPSTREAM_CONNECT_TIMEOUT), **phases}
        self.upstream_deadline = upstream_timeout
        self.max_upstream_body = max_upstream_body
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
        try:
            path = normalised(scope.get("raw_path") or quote(scope["path"]).encode())
        except PathRefused as refused:
            # Not forwarded, the body not read: a path that could leave the upstream's base path, or that
            # upstreams read in different ways, is the client's error.
            request_id = _request_id({"x-request-id": _header(scope, b"x-request-id")})
            reason = str(refused)
            await _send_error(send, 400, "INVALID_PATH", reason, location="path", close=True, request_id=request_id)
            return
        if path == REPORT_PATH.encode() and scope["method"] == "GET":
            await self._report(scope, send)
            return
        await self._forward(scope, path, receive, send)

    async def _report(self, scope: Scope, send: Send) -> None:
        """The counts, for loopback peers only, or for the holder of the proxy's token when it was given one."""
        if self.report_token is not None:
            scheme, _, token = _header(scope, b"authorization").partition(" ")
            if scheme.lower() != "bearer" or not hmac.compare_digest(
                token.strip().encode(), self.report_token.encode()
            ):
                await _send_error(send, 401, "UNAUTHENTICATED", "the violations report needs the proxy's token")
                return
        elif not _loopback(scope):
            await _send_error(send, 403, "PERMISSION_DENIED", "the violations report answers loopback clients only")
            return
        await _send_json(send, 200, self.violations.report())

    async def _forward(self, scope: Scope, path: bytes, receive: Receive, send: Send) -> None:
        """Forward to the upstream's base path + `path` (normalised), the query as it came."""
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        found = self.contract.find(scope["method"], decoded(path))
        context: dict[str, Any] = {"method": scope["method"]}
        operation: OperationContract | None = None
        path_params: dict[str, str] = {}
        limit = self.max_body
        if found is not None:
            operation, path_params = found
            context.update(path=operation.path, operation=operation.operation_id)
            limit = operation.max_body or self.max_body
        body = await _read_body(receive, limit, headers.get("content-length", ""))
        if body is None:
            if operation is not None:
                self.violations.record("request", Problem("request.body_size", f"body over {limit} bytes"), context)
            message = f"the request body exceeds {limit} bytes"
            await _send_error(
                send, 413, "PAYLOAD_TOO_LARGE", message, location="body", close=True, request_id=_request_id(headers)
            )
            return
        invalid_request = False
        if operation is not None:
            query = dict(_query(scope))
            for problem in operation.check_request(path_params, query, headers, body):
                invalid_request = True
                self.violations.record("request", problem, context)
        target = self.base_path + path
        if scope.get("query_string"):
            target += b"?" + scope["query_string"]
        url = httpcore.URL(
            scheme=self.upstream.raw_scheme, host=self.upstream.raw_host, port=self.upstream.port, target=target
        )
        forwarded = [(k, v) for k, v in scope["headers"] if k.lower() not in REQUEST_DROPPED]
        forwarded.insert(0, (b"host", self.upstream.netloc))
        if body or scope["method"] not in ("GET", "HEAD", "DELETE", "OPTIONS"):
            forwarded.append((b"content-length", str(len(body)).encode()))
        started = False

        async def relay(message: dict[str, Any]) -> None:
            nonlocal started
            started = True
            await send(message)

        try:
            async with asyncio.timeout(self.upstream_deadline):
                timeouts = {"timeout": self.upstream_timeouts}
                stream = self.pool.stream(scope["method"], url, headers=forwarded, content=body, extensions=timeouts)
                async with stream as response:
                    await self._relay(response, operation, invalid_request, context, relay)
        except (httpcore.NetworkError, httpcore.TimeoutException, httpcore.ProtocolError, TimeoutError) as error:
            # The exception is the proxy's business (its log), not the client's.
            log.warning(
                "upstream %s unreachable for %s: %s: %s", self.upstream, scope["method"], type(error).__name__, error
            )
            if started:  # the answer is under way: ending the connection is all that is left to say
                return
            if isinstance(error, TimeoutError):
                message = f"the upstream server did not answer within {self.upstream_deadline:g} s"
            else:
                message = "the upstream server could not be reached"
            await _send_error(send, 502, "UPSTREAM_UNREACHABLE", message, request_id=_request_id(headers))
        except UpstreamRefused as error:
            log.warning("upstream %s answered %s: %s", self.upstream, scope["method"], error)
            if started:
                return
            await _send_error(send, 502, error.code, str(error), request_id=_request_id(headers))

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
        if not 200 <= status <= 599:  # no HTTP/1.1 final status (a 1xx here is a protocol switch, never relayed)
            raise UpstreamRefused(f"the upstream answered with status {status}, which is no final HTTP status")
        declared = headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self.max_upstream_body:
            raise UpstreamTooLarge(f"the upstream's answer declares more than {self.max_upstream_body} bytes")
        small = declared.isdigit() and int(declared) <= SMALL_BODY
        stream = self._capped(response.aiter_stream())
        if small or (self.errors and operation is not None):
            # One write for a small response (separate header and body segments cost a delayed-ACK round), and
            # errors mode must see the body before it decides what to send: up to what is checked, the rest of a
            # larger one is streamed after it (its status and headers checked, as without --errors).
            parts, size = [], 0
            async for chunk in stream:
                parts.append(chunk)
                size += len(chunk)
                if size > MAX_CHECKED_BODY:
                    break
            body = b"".join(parts)
            whole = size <= MAX_CHECKED_BODY
            checked = body if whole else None
            entries = self._check(operation, status, headers, checked, invalid_request, context) if operation else []
            if entries and self.errors:
                message = "the upstream's response violates the contract"
                await _send_json(send, 502, {"code": "CONTRACT_VIOLATION", "message": message, "violations": entries})
                return
            await send({"type": "http.response.start", "status": status, "headers": raw_headers})
            await send({"type": "http.response.body", "body": body, "more_body": not whole})
            if not whole:
                async for chunk in stream:
                    await send({"type": "http.response.body", "body": chunk, "more_body": True})
                await send({"type": "http.response.body", "body": b""})
            return
        await send({"type": "http.response.start", "status": status, "headers": raw_headers})
        buffered: list[bytes] | None = []
        size = 0
        async for chunk in stream:
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

    async def _capped(self, stream: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
        """`stream`, ended with `UpstreamTooLarge` once it passes `max_upstream_body` bytes."""
        size = 0
        async for chunk in stream:
            size += len(chunk)
            if size > self.max_upstream_body:
                raise UpstreamTooLarge(f"the upstream's answer exceeds {self.max_upstream_body} bytes")
            yield chunk

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
        inflater = zlib.decompressobj(wbits=47)  # 47: gzip or zlib header, detected
        try:
            decoded = inflater.decompress(body, MAX_CHECKED_BODY)
        except zlib.error:
            return b"\x00"  # not what it says it is: checked as a body no schema accepts
        return None if inflater.unconsumed_tail else decoded  # beyond what is checked: as a large body
    return None  # an encoding we cannot undo: status, type and headers are still checked


def _query(scope: Scope) -> list[tuple[str, str]]:
    return parse_qsl(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True)


async def _read_body(receive: Receive, limit: int, declared: str) -> bytes | None:
    """The request body, or None as soon as it is known to exceed `limit` (declared or received): nothing more of it
    is kept or read."""
    if declared.isdigit() and int(declared) > limit:
        return None
    parts = []
    size = 0
    while True:
        message = await receive()
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return None
        parts.append(chunk)
        if not message.get("more_body", False):
            return b"".join(parts)


def _header(scope: Scope, name: bytes) -> str:
    return next((value.decode("latin-1") for key, value in scope["headers"] if key == name), "")


def _loopback(scope: Scope) -> bool:
    client = scope.get("client")
    try:
        address = ipaddress.ip_address(client[0]) if client else None
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address is not None and address.is_loopback


def _request_id(headers: dict[str, str]) -> str:
    sent = headers.get("x-request-id", "")
    return sent if REQUEST_ID.fullmatch(sent) else uuid.uuid4().hex


async def _send_error(
    send: Send,
    status: int,
    code: str,
    message: str,
    *,
    location: str | None = None,
    close: bool = False,
    request_id: str | None = None,
) -> None:
    """The contract's `Error` body, for what the proxy answers itself."""
    details = [{"location": location, "reason": message}] if location else []
    value = {"code": code, "message": message, "details": details}
    await _send_json(send, status, value, close=close, request_id=request_id)


async def _send_json(
    send: Send, status: int, value: Any, *, close: bool = False, request_id: str | None = None
) -> None:
    body = json.dumps(value, sort_keys=True).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if request_id is not None:
        headers.append((b"x-request-id", request_id.encode()))
    if close:  # the rest of the request body was not read
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
