"""The kit's HTTP client, bounded against a wrong or hostile target by the SDK's transport
(`accessgov_client.transport`): a total deadline per request (`--timeout`, connect to last body byte), caps on the
bytes received and after decompression (gzip and deflate decoded in bounded steps, other codings refused), direct
connections only, no redirects followed.

A violated bound raises a `TargetError` (an `httpx.TransportError`) whose message says what the target did.
"""

from __future__ import annotations

import functools
import socket
import ssl

import httpx
from accessgov_client.exceptions import TransportBoundError
from accessgov_client.transport import DEFAULT_MAX_RESPONSE_BYTES, BoundedTransport, DeadlineTransport, Wording

MAX_RESPONSE_BYTES = DEFAULT_MAX_RESPONSE_BYTES  # the contract's answers are a few kB
TargetError = TransportBoundError
# What the messages name: the kit's flag and its cap.
KIT_WORDING = Wording(deadline="--timeout", cap="the kit's cap", client="the kit")


@functools.cache
def tls_context(verify: bool) -> ssl.SSLContext:
    """The TLS settings of every client the process makes (certifi's CA bundle when `verify`): made once, since
    loading the bundle costs ~0.1 CPU-s and a process may run the kit many times (its tests, the self-test)."""
    return httpx.create_ssl_context(verify=verify, trust_env=False)


def client(timeout: float, *, verify: bool = True) -> httpx.Client:
    """The client of a run: every phase and the whole request within `timeout`, no redirects followed."""
    inner = DeadlineTransport(verify=tls_context(verify), trust_env=False)
    return httpx.Client(
        transport=BoundedTransport(inner, max_bytes=MAX_RESPONSE_BYTES, wording=KIT_WORDING),
        timeout=timeout,
        follow_redirects=False,
        trust_env=False,
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
