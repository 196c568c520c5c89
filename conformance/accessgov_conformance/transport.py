"""The kit's HTTP client, bounded against a wrong or hostile target.

- A total deadline per request: every socket operation (connect, TLS, each read and write) gets only the time
  left until the request's deadline, so a server that drips one byte a second ends at `--timeout`, not after it.
- Caps on the bytes received and on the bytes after decompression: gzip and deflate are decoded here in bounded
  steps (a bomb stops at the cap, it is never inflated whole); other codings were not asked for and are refused.
- Direct connections only (no proxy from the environment), since a proxied request would escape these bounds.

A violated bound raises a `TargetError` (an `httpx.TransportError`) whose message says what the target did.
"""

from __future__ import annotations

import contextvars
import socket
import ssl
import time
import zlib
from collections.abc import Iterable
from typing import Any

import httpcore
import httpx

MAX_RESPONSE_BYTES = 8 * 1024 * 1024  # the contract's answers are a few kB; a page of 100 items stays far below
ACCEPT_ENCODING = "gzip, deflate"
_DEADLINE: contextvars.ContextVar[float | None] = contextvars.ContextVar("deadline", default=None)
_CHUNK = 64 * 1024


class TargetError(httpx.TransportError):
    """The target broke one of the kit's bounds; the message says how."""


class DeadlineExceeded(TargetError):
    pass


class ResponseTooLarge(TargetError):
    pass


class UndecodableBody(TargetError):
    pass


def _time_left(timeout: float | None) -> float | None:
    """`timeout` clamped to what is left of the current request's deadline."""
    deadline = _DEADLINE.get()
    if deadline is None:
        return timeout
    left = deadline - time.monotonic()
    if left <= 0:
        raise httpcore.ReadTimeout("the request's deadline has passed")
    return left if timeout is None else min(timeout, left)


class _Stream(httpcore.NetworkStream):
    def __init__(self, inner: httpcore.NetworkStream) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, _time_left(timeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, _time_left(timeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self, ssl_context: ssl.SSLContext, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore.NetworkStream:
        return _Stream(self._inner.start_tls(ssl_context, server_hostname, _time_left(timeout)))

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _Backend(httpcore.NetworkBackend):
    def __init__(self) -> None:
        self._inner = httpcore.SyncBackend()

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        return _Stream(self._inner.connect_tcp(host, port, _time_left(timeout), local_address, socket_options))

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.NetworkStream:
        return _Stream(self._inner.connect_unix_socket(path, _time_left(timeout), socket_options))

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


class _DeadlineTransport(httpx.HTTPTransport):
    """httpx's transport over a connection pool whose sockets honour the request's deadline."""

    def __init__(self, *, verify: bool = True) -> None:
        super().__init__(verify=verify, trust_env=False)
        # httpx takes no network backend: the pool it built is replaced by the same one over ours (`_pool` is
        # what HTTPTransport sends through in httpx 0.27 and 0.28, the versions the kit allows).
        self._pool = httpcore.ConnectionPool(
            ssl_context=httpx.create_ssl_context(verify=verify, trust_env=False),
            max_connections=10,
            max_keepalive_connections=5,
            keepalive_expiry=5.0,
            network_backend=_Backend(),
        )


class BoundedTransport(httpx.BaseTransport):
    """Sends through `inner`, reads the whole answer within the deadline and the caps, returns it decoded.

    The returned response carries the decoded body and no `Content-Encoding`/`Content-Length` of the coded one
    (httpx would otherwise decode it again)."""

    def __init__(self, inner: httpx.BaseTransport, *, timeout: float, max_bytes: int = MAX_RESPONSE_BYTES) -> None:
        self.inner = inner
        self.timeout = timeout
        self.max_bytes = max_bytes

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        where = f"{request.method} {request.url.path}"
        token = _DEADLINE.set(time.monotonic() + self.timeout)
        try:
            response = self.inner.handle_request(request)
            try:
                raw = self._read(response, where)
            finally:
                response.close()
        except httpx.TimeoutException as error:
            raise DeadlineExceeded(f"{where}: no complete answer within {self.timeout:g} s (--timeout)") from error
        finally:
            _DEADLINE.reset(token)
        headers = httpx.Headers(response.headers)
        codings = [item.strip().lower() for item in headers.get("content-encoding", "").split(",") if item.strip()]
        body = raw
        for coding in reversed(codings):
            body = self._decode(coding, body, where)
        if codings:
            del headers["content-encoding"]
            headers["content-length"] = str(len(body))
        return httpx.Response(
            response.status_code, headers=headers, content=body, request=request, extensions=response.extensions
        )

    def _read(self, response: httpx.Response, where: str) -> bytes:
        chunks: list[bytes] = []
        size = 0
        stream = response.stream
        if not isinstance(stream, httpx.SyncByteStream):  # an httpx.Client's transport answers with a sync stream
            raise TypeError(f"{where}: the transport answered with an async stream")
        for chunk in stream:
            size += len(chunk)
            if size > self.max_bytes:
                raise ResponseTooLarge(f"{where}: the answer exceeds {self.max_bytes} bytes (the kit's cap)")
            chunks.append(chunk)
            _time_left(None)  # a stream that never stalls still ends at the deadline
        return b"".join(chunks)

    def _decode(self, coding: str, data: bytes, where: str) -> bytes:
        if coding == "identity":
            return data
        if coding not in ("gzip", "x-gzip", "deflate"):
            raise UndecodableBody(f"{where}: Content-Encoding {coding!r}, which the kit did not accept")
        wbits = 16 + zlib.MAX_WBITS if coding != "deflate" else zlib.MAX_WBITS
        if coding == "deflate" and data[:1] and (data[0] & 0x0F) != 8:
            wbits = -zlib.MAX_WBITS  # raw deflate, as some servers send it
        decoder = zlib.decompressobj(wbits)
        out = bytearray()
        pending = data
        try:
            while pending:
                out += decoder.decompress(pending, self.max_bytes + 1 - len(out))
                if len(out) > self.max_bytes:
                    raise ResponseTooLarge(
                        f"{where}: the {coding} answer decompresses to more than {self.max_bytes} bytes (the kit's cap)"
                    )
                if decoder.eof or not decoder.unconsumed_tail:
                    break
                pending = decoder.unconsumed_tail
        except zlib.error as error:
            raise UndecodableBody(f"{where}: the {coding} body does not decode ({error})") from error
        return bytes(out)

    def close(self) -> None:
        self.inner.close()


def client(timeout: float, *, verify: bool = True) -> httpx.Client:
    """The client of a run: bounded as the module says, no redirects followed."""
    return httpx.Client(
        transport=BoundedTransport(_DeadlineTransport(verify=verify), timeout=timeout),
        timeout=timeout,
        follow_redirects=False,
        trust_env=False,
        headers={"Accept-Encoding": ACCEPT_ENCODING},
    )


def describe(error: httpx.HTTPError) -> str:
    """What went wrong talking to the target, in one line a user can act on."""
    if isinstance(error, TargetError):
        return str(error)
    request = getattr(error, "_request", None)
    host = f"{request.url.host}:{request.url.port or ''}".rstrip(":") if request is not None else "the target"
    cause: BaseException | None = error
    while cause is not None:
        if isinstance(cause, socket.gaierror):
            return f"the address {request.url.host if request is not None else ''} does not resolve ({cause})"
        if isinstance(cause, ssl.SSLError):
            return f"TLS with {host} failed: {cause}"
        if isinstance(cause, ConnectionRefusedError):
            return f"nothing listens at {host} (connection refused)"
        cause = cause.__cause__ or cause.__context__
    if isinstance(error, httpx.ConnectTimeout):
        return f"no connection to {host} within the timeout"
    if isinstance(error, httpx.TimeoutException):
        return f"no answer from {host} within the timeout"
    if isinstance(error, httpx.RemoteProtocolError):
        return f"{host} did not answer in HTTP/1.1 ({error or 'the connection closed without a response'})"
    return f"could not talk to {host}: {type(error).__name__}: {error}"
