"""Retries: httpx-retries' `RetryTransport` over the bounded transport (`transport.py`) under every client, with the
policy chosen per request. Each attempt has its own deadline (`timeout=`), so a call takes at most `1 + total`
deadlines plus the waits between them (`max_backoff_wait` each at most).

Idempotent requests (GET, and operations the contract marks `x-idempotent`, such as a webhook delivery, which is
idempotent by its event id) get the client's policy; the others (a task restart) are sent once. A call may
override that with `retry=False`, `retry=True` or its own `Retry`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Final

import httpx
from httpx_retries import Retry, RetryTransport

from .catalog import Catalog
from .transport import (
    DEFAULT_MAX_RESPONSE_BYTES,
    DEFAULT_TIMEOUT,
    AsyncBoundedTransport,
    AsyncDeadlineTransport,
    BoundedTransport,
    DeadlineTransport,
)

__all__ = ["DEFAULT_RETRY", "DEFAULT_TIMEOUT", "NO_RETRY", "Retry", "RetryChooser", "call_retry", "retry_policy"]

# Which requests may be repeated is decided per request (RetryChooser), so the policy itself allows every method.
ALL_METHODS: Final = ("GET", "HEAD", "OPTIONS", "PUT", "DELETE", "TRACE", "POST", "PATCH")
RETRY_STATUSES: Final = (429, *range(500, 600))
RETRY_EXCEPTIONS: Final = (httpx.TimeoutException, httpx.NetworkError, httpx.RemoteProtocolError)
# A deadline that ran out (DeadlineExceededError) is a TimeoutException: retried. An answer over the size cap is not.
# 3 retries after the first attempt; waits of about 1, 2, 4 s (full jitter: uniformly 0..wait), or the server's
# Retry-After (capped at 30 s).
DEFAULT_RETRY: Final = Retry(
    total=3,
    backoff_factor=0.5,
    backoff_jitter=1.0,
    max_backoff_wait=30.0,
    allowed_methods=ALL_METHODS,
    status_forcelist=RETRY_STATUSES,
    retry_on_exceptions=RETRY_EXCEPTIONS,
)
NO_RETRY: Final = Retry(total=0, allowed_methods=ALL_METHODS)

_UNSET: Final = object()
_CALL_RETRY: ContextVar[object] = ContextVar("accessgov_client_call_retry", default=_UNSET)


def retry_policy(retry: Retry | bool | None) -> Retry | None:
    """A client's policy: `True` is `DEFAULT_RETRY`, `False`/`None` none, a `Retry` that one (for every method:
    whether a request may be repeated is decided by its idempotency, not by the policy's method list)."""
    if retry is True:
        return DEFAULT_RETRY
    if retry is None or retry is False:
        return None
    if not isinstance(retry, Retry):
        raise TypeError(f"retry must be a bool, None or an httpx_retries.Retry, not {type(retry).__name__}")
    return retry.copy_with(allowed_methods=ALL_METHODS)


@contextlib.contextmanager
def call_retry(choice: Retry | None) -> Iterator[None]:
    """Within the block, requests use `choice` (`None`: no retry) instead of the per-request default."""
    token = _CALL_RETRY.set(choice)
    try:
        yield
    finally:
        _CALL_RETRY.reset(token)


class RetryChooser:
    """httpx request hook that puts the retry policy for each request into its `retry` extension."""

    def __init__(self, policy: Retry | None, catalog: Catalog) -> None:
        self.policy = policy
        self.catalog = catalog

    def choose(self, request: httpx.Request) -> Retry:
        override = _CALL_RETRY.get()
        if override is not _UNSET:
            return override if isinstance(override, Retry) else NO_RETRY
        if self.policy is None or not self.catalog.is_idempotent(request.method, request.url.path):
            return NO_RETRY
        return self.policy

    def __call__(self, request: httpx.Request) -> None:
        request.extensions.setdefault("retry", self.choose(request))

    async def hook_async(self, request: httpx.Request) -> None:
        self(request)


def sync_transport(verify: bool | str = True, max_bytes: int = DEFAULT_MAX_RESPONSE_BYTES) -> RetryTransport:
    """The transport of every sync SDK client: bounded (deadline per attempt, `max_bytes`), no retries unless the
    request's `retry` extension asks for them."""
    bounded = BoundedTransport(DeadlineTransport(verify=verify), max_bytes=max_bytes)
    return RetryTransport(transport=bounded, retry=NO_RETRY)


def async_transport(verify: bool | str = True, max_bytes: int = DEFAULT_MAX_RESPONSE_BYTES) -> RetryTransport:
    """`sync_transport` for `httpx.AsyncClient`."""
    bounded = AsyncBoundedTransport(AsyncDeadlineTransport(verify=verify), max_bytes=max_bytes)
    return RetryTransport(transport=bounded, retry=NO_RETRY)
