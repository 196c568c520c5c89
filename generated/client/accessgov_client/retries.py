"""Retries: httpx-retries' `RetryTransport` over the bounded transport (`transport.py`) under every client, with the
policy chosen per request. `timeout=` is one deadline for the whole call, its retries included: each attempt gets
what is left of it; a wait that would end past it is not started (the call ends at once with the last answer's
typed error, or the last error); an attempt that ran it out is not repeated (`DeadlineExceededError`). A caller
that asked for 3 s gets an answer or an error within 3 s, whatever the server does.

Idempotent requests (GET, and operations the contract marks `x-idempotent`, such as a webhook delivery, which is
idempotent by its event id) get the client's policy; the others (a task restart) are sent once. A call may
override that with `retry=False`, `retry=True` or its own `Retry`.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Final

import httpx
from httpx_retries import Retry, RetryTransport

from .catalog import Catalog
from .transport import (
    CALL_DEADLINE,
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
# httpx's own timeouts (a phase limit such as `connect` within the deadline) are retried in the time left; a deadline
# that ran out (DeadlineExceededError, a TimeoutException of none of these kinds) is not, nor an answer over the cap.
RETRY_EXCEPTIONS: Final = (
    httpx.ConnectTimeout,
    httpx.ReadTimeout,
    httpx.WriteTimeout,
    httpx.PoolTimeout,
    httpx.NetworkError,
    httpx.RemoteProtocolError,
)
_CALL_ENDS: ContextVar[float | None] = ContextVar("accessgov_client_call_ends", default=None)


class _NoTimeToRetry(Exception):
    """A retry's wait would end at or past the call's deadline: the call ends now with what the last attempt got."""

    def __init__(self, last: httpx.Response | Exception) -> None:
        super().__init__("no time left to retry")
        self.last = last


class CallRetry(Retry):
    """httpx-retries' policy within the call's deadline: a wait (backoff or `Retry-After`) that would end at or past
    it is not started, and the call ends at once with the last attempt's answer or error."""

    def wait(self, response: httpx.Response | Exception) -> float:
        """How long to wait before the next attempt, as httpx-retries reckons it: the server's `Retry-After`
        (capped), else the backoff; never more than what is left of the policy's `total_timeout` for waits."""
        seconds = 0.0
        if isinstance(response, httpx.Response) and self.respect_retry_after_header:
            text = response.headers.get("Retry-After", "").strip()
            with contextlib.suppress(ValueError):
                seconds = max(min(self.parse_retry_after(text), self.max_backoff_wait), 0.0) if text else 0.0
        if seconds == 0.0 and self.attempts_made > 0:
            seconds = self.backoff_strategy()
        if self.total_timeout is not None:
            seconds = min(seconds, max(0.0, self.total_timeout - self.elapsed_sleep))
        return seconds

    def next_wait(self, response: httpx.Response | Exception) -> float:
        """The wait before the next attempt; `_NoTimeToRetry` when it would end at or past the call's deadline."""
        seconds = self.wait(response)
        ends = _CALL_ENDS.get()
        if ends is not None and time.monotonic() + seconds >= ends:
            raise _NoTimeToRetry(response)
        return seconds

    def sleep(self, response: httpx.Response | Exception) -> None:
        seconds = self.next_wait(response)
        time.sleep(seconds)
        self.elapsed_sleep += seconds

    async def asleep(self, response: httpx.Response | Exception) -> None:
        seconds = self.next_wait(response)
        await asyncio.sleep(seconds)
        self.elapsed_sleep += seconds


def _bounded(policy: Retry) -> CallRetry:
    """`policy` as a `CallRetry` (the same settings, read from its public attributes)."""
    return CallRetry(
        total=policy.total,
        allowed_methods=ALL_METHODS,
        status_forcelist=policy.status_forcelist,
        retry_on_exceptions=policy.retryable_exceptions,
        backoff_factor=policy.backoff_factor,
        respect_retry_after_header=policy.respect_retry_after_header,
        max_backoff_wait=policy.max_backoff_wait,
        backoff_jitter=policy.backoff_jitter,
        attempts_made=policy.attempts_made,
        total_timeout=policy.total_timeout,
        elapsed_sleep=policy.elapsed_sleep,
        validate_response=policy.validate_response,
    )


# 3 retries after the first attempt; waits of about 1, 2, 4 s (full jitter: uniformly 0..wait), or the server's
# Retry-After (capped at 30 s), all within the call's deadline.
DEFAULT_RETRY: Final = CallRetry(
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
    return _bounded(retry)


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


class CallTransport(RetryTransport):
    """`RetryTransport` whose request carries its call's deadline (`CALL_DEADLINE`), fixed as the call starts: the
    request's `read` timeout from now; every attempt and wait of the call ends by it."""

    @contextlib.contextmanager
    def _call(self, request: httpx.Request) -> Iterator[None]:
        seconds = (request.extensions.get("timeout") or {}).get("read")
        ends = time.monotonic() + seconds if seconds is not None else None
        request.extensions[CALL_DEADLINE] = ends
        token = _CALL_ENDS.set(ends)
        try:
            yield
        finally:
            _CALL_ENDS.reset(token)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        with self._call(request):
            try:
                return super().handle_request(request)
            except _NoTimeToRetry as stop:
                return _last(stop)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        with self._call(request):  # a context variable: it follows this task's awaits
            try:
                return await super().handle_async_request(request)
            except _NoTimeToRetry as stop:
                return _last(stop)


def _last(stop: _NoTimeToRetry) -> httpx.Response:
    """The last attempt's answer (read whole by the bounded transport, so still readable once closed), or its error
    raised."""
    if isinstance(stop.last, httpx.Response):
        return stop.last
    raise stop.last


def sync_transport(verify: bool | str = True, max_bytes: int = DEFAULT_MAX_RESPONSE_BYTES) -> RetryTransport:
    """The transport of every sync SDK client: bounded (one deadline per call, `max_bytes`), no retries unless the
    request's `retry` extension asks for them."""
    bounded = BoundedTransport(DeadlineTransport(verify=verify), max_bytes=max_bytes)
    return CallTransport(transport=bounded, retry=NO_RETRY)


def async_transport(verify: bool | str = True, max_bytes: int = DEFAULT_MAX_RESPONSE_BYTES) -> RetryTransport:
    """`sync_transport` for `httpx.AsyncClient`."""
    bounded = AsyncBoundedTransport(AsyncDeadlineTransport(verify=verify), max_bytes=max_bytes)
    return CallTransport(transport=bounded, retry=NO_RETRY)
