"""The SDK's HTTP transport, bounded against its server (the conformance kit sends through it too).

- A total deadline per attempt, from connecting to the last body byte: every socket operation (connect, TLS, each
  read and write) gets only what is left of it, so a server that drips one byte every half second ends at the
  deadline, not after it (`DeadlineExceededError`). The deadline is the request's `read` timeout (the SDK's
  `timeout=`); the other phase limits (`connect`, 5 s by default) hold within it. A request whose `CALL_DEADLINE`
  extension names an earlier instant (the SDK's calls: `retries.py`) ends by that one: its retries share the call's
  deadline.
- Caps on the bytes received and on the bytes after decompression (`ResponseTooLargeError`): gzip and deflate are
  decoded here in bounded steps, so a bomb stops at the cap and is never inflated whole. Only those codings are
  asked for; another one, or more than two stacked, is refused (`UndecodableResponseError`).
- Direct connections only: httpx uses no proxy from the environment once a transport is given, and a proxied
  connection would escape these bounds.

Every answer is read whole within the bounds (the contract's answers are JSON documents of a few kB) and handed up
decoded, without its `Content-Encoding`.
"""

from __future__ import annotations

import contextlib
import functools
import os
import ssl
import time
import zlib
from collections.abc import AsyncIterable, Iterable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Final

import httpcore
import httpx

from .exceptions import DeadlineExceededError, ResponseTooLargeError, UndecodableResponseError

__all__ = [
    "ACCEPT_ENCODING",
    "CALL_DEADLINE",
    "CONNECT_TIMEOUT",
    "DEFAULT_MAX_RESPONSE_BYTES",
    "DEFAULT_TIMEOUT",
    "AsyncBoundedTransport",
    "AsyncDeadlineTransport",
    "BoundedTransport",
    "DeadlineTransport",
    "Wording",
    "byte_cap",
    "timeout_of",
]

CONNECT_TIMEOUT: Final = 5.0
# Connecting must be quick; a page or a restart may take a while, but never forever.
DEFAULT_TIMEOUT: Final = httpx.Timeout(30.0, connect=CONNECT_TIMEOUT)
# The contract's answers are a few kB; a page of 1,000 items stays far below.
DEFAULT_MAX_RESPONSE_BYTES: Final = 8 * 1024 * 1024
ACCEPT_ENCODING: Final = "gzip, deflate"
MAX_CODINGS: Final = 2  # stacked codings beyond this are refused: each layer costs a bounded inflate
_LIMITS: Final = httpx.Limits(max_connections=100, max_keepalive_connections=20)  # httpx's defaults


def timeout_of(value: httpx.Timeout | float | None) -> httpx.Timeout:
    """The `httpx.Timeout` of a `timeout=` option: seconds are the deadline, connecting within at most 5 s of them;
    an `httpx.Timeout` as given (its `read` is the deadline); `None` lifts every limit."""
    if isinstance(value, httpx.Timeout):
        return value
    if value is None:
        return httpx.Timeout(None)
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise ValueError(f"timeout must be a positive number of seconds, an httpx.Timeout or None, not {value!r}")
    return httpx.Timeout(float(value), connect=min(float(value), CONNECT_TIMEOUT))


@dataclass(frozen=True)
class Wording:
    """How error messages name the bounds: the SDK names its options, the kit its flags."""

    deadline: str = "timeout: the deadline of each attempt"
    cap: str = "max_response_bytes"
    client: str = "the SDK"


# A request extension: the `time.monotonic()` instant by which the whole call (every attempt) must end.
CALL_DEADLINE: Final = "accessgov_call_deadline"


class _Deadline:
    """The deadline of one attempt, and whether it (not a phase limit) bounds the operation under way."""

    __slots__ = ("at", "binding", "seconds")

    def __init__(self, seconds: float, call_ends: float | None = None) -> None:
        self.seconds = seconds
        self.at = time.monotonic() + seconds if call_ends is None else min(time.monotonic() + seconds, call_ends)
        self.binding = False

    def passed(self) -> bool:
        return time.monotonic() >= self.at

    def clamp(self, timeout: float | None, error: type[Exception]) -> float:
        """`timeout` cut to what is left; `error` (httpcore's, which httpx maps) once nothing is."""
        left = self.at - time.monotonic()
        self.binding = timeout is None or left <= timeout
        if left <= 0:
            raise error("the attempt's deadline has passed")
        return left if timeout is None or self.binding else timeout


SDK_WORDING: Final = Wording()
_DEADLINE: ContextVar[_Deadline | None] = ContextVar("accessgov_client_deadline", default=None)


def _within(timeout: float | None, error: type[Exception]) -> float | None:
    deadline = _DEADLINE.get()
    return timeout if deadline is None else deadline.clamp(timeout, error)


class _Stream(httpcore.NetworkStream):
    def __init__(self, inner: httpcore.NetworkStream) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, _within(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, _within(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self, ssl_context: ssl.SSLContext, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore.NetworkStream:
        return _Stream(self._inner.start_tls(ssl_context, server_hostname, _within(timeout, httpcore.ConnectTimeout)))

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
        left = _within(timeout, httpcore.ConnectTimeout)
        return _Stream(self._inner.connect_tcp(host, port, left, local_address, socket_options))

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.NetworkStream:
        return _Stream(self._inner.connect_unix_socket(path, _within(timeout, httpcore.ConnectTimeout), socket_options))

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


class _AsyncStream(httpcore.AsyncNetworkStream):
    def __init__(self, inner: httpcore.AsyncNetworkStream) -> None:
        self._inner = inner

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return await self._inner.read(max_bytes, _within(timeout, httpcore.ReadTimeout))

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        await self._inner.write(buffer, _within(timeout, httpcore.WriteTimeout))

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def start_tls(
        self, ssl_context: ssl.SSLContext, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore.AsyncNetworkStream:
        left = _within(timeout, httpcore.ConnectTimeout)
        return _AsyncStream(await self._inner.start_tls(ssl_context, server_hostname, left))

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _AsyncBackend(httpcore.AsyncNetworkBackend):
    def __init__(self) -> None:
        self._inner = httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        left = _within(timeout, httpcore.ConnectTimeout)
        return _AsyncStream(await self._inner.connect_tcp(host, port, left, local_address, socket_options))

    async def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.AsyncNetworkStream:
        left = _within(timeout, httpcore.ConnectTimeout)
        return _AsyncStream(await self._inner.connect_unix_socket(path, left, socket_options))

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


def _ssl_context(verify: bool | str | ssl.SSLContext, trust_env: bool) -> ssl.SSLContext:
    if verify is True:
        environment = (os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR")) if trust_env else (None, None)
        return _trust_store(trust_env, *environment)
    return httpx.create_ssl_context(verify=verify, trust_env=trust_env)


@functools.lru_cache(maxsize=4)
def _trust_store(trust_env: bool, cert_file: str | None, cert_dir: str | None) -> ssl.SSLContext:
    """The default verifying context, made once per trust store and shared by every client: loading the CA bundle
    costs ~50 ms of CPU, and an `SSLContext` is safe to share between connections and threads. `cert_file` and
    `cert_dir` (what httpx reads from the environment) are the cache key: a changed variable loads its store."""
    return httpx.create_ssl_context(verify=True, trust_env=trust_env)


class DeadlineTransport(httpx.HTTPTransport):
    """httpx's transport over a connection pool whose sockets honour the attempt's deadline.

    httpx takes no network backend: the pool it built is replaced by the same one over ours (`_pool` is what
    `HTTPTransport` sends through in httpx 0.27 and 0.28, the versions the SDK allows)."""

    def __init__(self, *, verify: bool | str | ssl.SSLContext = True, trust_env: bool = True) -> None:
        context = _ssl_context(verify, trust_env)
        super().__init__(verify=context, trust_env=trust_env, limits=_LIMITS)
        self._pool = httpcore.ConnectionPool(
            ssl_context=context,
            max_connections=_LIMITS.max_connections,
            max_keepalive_connections=_LIMITS.max_keepalive_connections,
            keepalive_expiry=_LIMITS.keepalive_expiry,
            network_backend=_Backend(),
        )


class AsyncDeadlineTransport(httpx.AsyncHTTPTransport):
    """`DeadlineTransport` for `httpx.AsyncClient` (anyio underneath, as httpcore's own default)."""

    def __init__(self, *, verify: bool | str | ssl.SSLContext = True, trust_env: bool = True) -> None:
        context = _ssl_context(verify, trust_env)
        super().__init__(verify=context, trust_env=trust_env, limits=_LIMITS)
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=context,
            max_connections=_LIMITS.max_connections,
            max_keepalive_connections=_LIMITS.max_keepalive_connections,
            keepalive_expiry=_LIMITS.keepalive_expiry,
            network_backend=_AsyncBackend(),
        )


class _Attempt:
    """One attempt of one request: its deadline, what it has read, and how its errors read."""

    def __init__(self, request: httpx.Request, max_bytes: int, wording: Wording) -> None:
        self.request = request
        self.max_bytes = max_bytes
        self.wording = wording
        self.where = f"{request.method} {request.url.path}"
        seconds = (request.extensions.get("timeout") or {}).get("read")
        self.deadline = _Deadline(seconds, request.extensions.get(CALL_DEADLINE)) if seconds is not None else None
        self.size = 0
        self.chunks: list[bytes] = []
        request.headers["Accept-Encoding"] = ACCEPT_ENCODING  # only what is decoded here in bounded steps

    @contextlib.contextmanager
    def bounded(self) -> Iterator[None]:
        """Within the block, sockets honour this attempt's deadline, and a timeout it caused is the deadline's."""
        token = _DEADLINE.set(self.deadline)
        try:
            yield
        except httpx.TimeoutException as error:
            raised = self.timed_out(error)
            if raised is error:
                raise
            raise raised from error
        finally:
            _DEADLINE.reset(token)

    def check_time_left(self) -> None:
        """An attempt that starts once its call's deadline has passed (after a retry's wait) is not sent."""
        if self.deadline is not None and self.deadline.passed():
            raise self.expired()

    def expired(self) -> DeadlineExceededError:
        seconds = self.deadline.seconds if self.deadline is not None else 0.0
        message = f"{self.where}: no complete answer within {seconds:g} s ({self.wording.deadline})"
        return DeadlineExceededError(message, request=self.request)

    def timed_out(self, error: httpx.TimeoutException) -> httpx.TimeoutException:
        """The error to raise for a timeout: the deadline's when it ran out, else the phase limit's (`connect`)."""
        return self.expired() if self.deadline is not None and self.deadline.binding else error

    def too_large(self, what: str, more: str = "") -> ResponseTooLargeError:
        message = f"{self.where}: {what} {self.max_bytes} bytes ({self.wording.cap}){more}"
        return ResponseTooLargeError(message, request=self.request)

    def start(self, response: httpx.Response) -> None:
        """Refuse at once an answer that announces more than the cap: none of it is read."""
        declared = response.headers.get("content-length", "").strip()
        if declared.isascii() and declared.isdigit() and int(declared) > self.max_bytes:
            raise self.too_large("the answer exceeds", f": Content-Length {int(declared)}")

    def add(self, chunk: bytes) -> None:
        self.size += len(chunk)
        if self.size > self.max_bytes:
            raise self.too_large("the answer exceeds")
        self.chunks.append(chunk)
        if self.deadline is not None and self.deadline.passed():  # a stream that never stalls ends too
            raise self.expired()

    def response(self, response: httpx.Response) -> httpx.Response:
        """The answer with its body decoded (no `Content-Encoding`, the decoded `Content-Length`)."""
        headers = httpx.Headers(response.headers)
        raw = headers.get("content-encoding", "")
        codings = [item.strip().lower() for item in raw.split(",") if item.strip().lower() not in ("", "identity")]
        if len(codings) > MAX_CODINGS:
            stacked = f"{len(codings)} content codings ({raw[:100]!r})"
            message = f"{self.where}: {stacked}, more than {self.wording.client} decodes"
            raise UndecodableResponseError(message, request=self.request)
        body = b"".join(self.chunks)
        self.chunks = []
        for coding in reversed(codings):
            body = self._decode(coding, body)
        if "content-encoding" in headers:
            del headers["content-encoding"]
            headers["content-length"] = str(len(body))
        return httpx.Response(
            response.status_code, headers=headers, content=body, request=self.request, extensions=response.extensions
        )

    def _decode(self, coding: str, data: bytes) -> bytes:
        if coding not in ("gzip", "x-gzip", "deflate"):
            message = f"{self.where}: Content-Encoding {coding!r}, which {self.wording.client} did not accept"
            raise UndecodableResponseError(message, request=self.request)
        wbits = zlib.MAX_WBITS | 16 if coding != "deflate" else zlib.MAX_WBITS
        if coding == "deflate" and not _zlib_header(data):
            wbits = -zlib.MAX_WBITS  # raw deflate, as some servers send it
        decoder = zlib.decompressobj(wbits)
        out = bytearray()
        pending = data
        try:
            while pending:
                # Never more than one byte past the cap per step: the bomb is never inflated whole.
                out += decoder.decompress(pending, self.max_bytes + 1 - len(out))
                if len(out) > self.max_bytes:
                    raise self.too_large(f"the {coding} answer decompresses to more than")
                if decoder.eof or not decoder.unconsumed_tail:
                    break
                pending = decoder.unconsumed_tail
        except zlib.error as error:
            message = f"{self.where}: the {coding} body does not decode ({error})"
            raise UndecodableResponseError(message, request=self.request) from error
        return bytes(out)


def _zlib_header(data: bytes) -> bool:
    """Whether `data` starts with a zlib header (RFC 1950: method 8, a check that divides by 31)."""
    return len(data) >= 2 and data[0] & 0x0F == 8 and (data[0] << 8 | data[1]) % 31 == 0


class BoundedTransport(httpx.BaseTransport):
    """Sends through `inner` (a `DeadlineTransport`), reads the whole answer within the attempt's deadline and
    `max_bytes`, and returns it decoded."""

    def __init__(
        self,
        inner: httpx.BaseTransport | None = None,
        *,
        max_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
        wording: Wording = SDK_WORDING,
    ) -> None:
        self.inner = inner if inner is not None else DeadlineTransport()
        self.max_bytes = byte_cap(max_bytes)
        self.wording = wording

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        attempt = _Attempt(request, self.max_bytes, self.wording)
        attempt.check_time_left()
        with attempt.bounded():
            response = self.inner.handle_request(request)
            try:
                attempt.start(response)
                for chunk in _sync_stream(response):
                    attempt.add(chunk)
            finally:
                response.close()
        return attempt.response(response)

    def close(self) -> None:
        self.inner.close()


class AsyncBoundedTransport(httpx.AsyncBaseTransport):
    """`BoundedTransport` for `httpx.AsyncClient`."""

    def __init__(
        self,
        inner: httpx.AsyncBaseTransport | None = None,
        *,
        max_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
        wording: Wording = SDK_WORDING,
    ) -> None:
        self.inner = inner if inner is not None else AsyncDeadlineTransport()
        self.max_bytes = byte_cap(max_bytes)
        self.wording = wording

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        attempt = _Attempt(request, self.max_bytes, self.wording)
        attempt.check_time_left()
        with attempt.bounded():  # the deadline is a context variable: it follows the awaits of this task
            response = await self.inner.handle_async_request(request)
            try:
                attempt.start(response)
                async for chunk in _async_stream(response):
                    attempt.add(chunk)
            finally:
                await response.aclose()
        return attempt.response(response)

    async def aclose(self) -> None:
        await self.inner.aclose()


def _sync_stream(response: httpx.Response) -> Iterable[bytes]:
    if not isinstance(response.stream, Iterable):  # an httpx.Client's transport answers with a sync stream
        raise TypeError("the transport answered with an async stream")
    return response.stream


def _async_stream(response: httpx.Response) -> AsyncIterable[bytes]:
    if not isinstance(response.stream, AsyncIterable):
        raise TypeError("the transport answered with a sync stream")
    return response.stream


def byte_cap(value: int) -> int:
    """A valid `max_response_bytes`: a whole number of bytes >= 1."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"max_response_bytes must be a whole number of bytes >= 1, not {value!r}")
    return value
