"""Fetching and caching the JWKS of JWT listeners: on the event loop, one overall deadline per fetch (connect,
head and body: a sender dripping bytes costs a socket for at most `timeout_seconds`, never a thread), one fetch
at a time per URL (concurrent requests await it, no lock held)."""

from __future__ import annotations

import asyncio
import json
import ssl
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
import jwt

from accessgov.errors import quoted
from accessgov.observability import metrics
from accessgov.webhooks.errors import WebhookAuthError

MAX_JWKS_BYTES = 256 * 1024  # A JWKS is a few KB; the cap keeps a hostile or broken endpoint from filling memory.
# Building an SSL context reads the CA bundle (~0.1 s): once per process, shared by every fetch.
_SSL_CONTEXT: ssl.SSLContext | None = None


def _ssl_context() -> ssl.SSLContext:
    global _SSL_CONTEXT
    if _SSL_CONTEXT is None:
        _SSL_CONTEXT = httpx.create_ssl_context()
    return _SSL_CONTEXT


@dataclass
class _Entry:
    """The cache state of one JWKS URL."""

    keys: dict[str, jwt.PyJWK] = field(default_factory=dict)
    fetched_at: float | None = None  # last successful fetch
    attempted_at: float | None = None  # last fetch attempt, successful or not
    failure: WebhookAuthError | None = None  # why that last attempt failed, if it did
    inflight: asyncio.Future[dict[str, jwt.PyJWK]] | None = None


class JwksCache:
    """Signing keys by JWKS URL and `kid`: a document is used for `ttl_seconds` (never longer, even when the
    refetch fails). An unknown `kid` or a failed fetch leads to at most one fetch per `refetch_interval_seconds`
    per URL (meanwhile: UNKNOWN_KID, or JWKS_UNREACHABLE), so made-up `kid`s cannot hammer the sender's endpoint.
    `clock` and `transport` let tests run without waiting or sockets."""

    def __init__(
        self,
        *,
        ttl_seconds: float = 300,
        refetch_interval_seconds: float = 30,
        timeout_seconds: float = 3.0,
        clock: Callable[[], float] = time.monotonic,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.ttl = ttl_seconds
        self.refetch_interval = refetch_interval_seconds
        self.timeout = timeout_seconds
        self.clock = clock
        self.transport = transport
        self._entries: dict[str, _Entry] = {}
        self.fetches = 0

    async def get_key(self, jwks_url: str, kid: str) -> jwt.PyJWK:
        """The key `kid` of the JWKS at `jwks_url`; `WebhookAuthError` when unreachable or unknown."""
        entry = self._entries.setdefault(jwks_url, _Entry())
        if entry.inflight is not None:  # someone is fetching this URL: wait for that fetch, do not start one
            keys = await asyncio.shield(entry.inflight)
            return _pick(keys, kid)
        now = self.clock()
        fresh = entry.fetched_at is not None and now - entry.fetched_at < self.ttl
        if fresh and kid in entry.keys:
            return entry.keys[kid]
        recently_tried = entry.attempted_at is not None and now - entry.attempted_at < self.refetch_interval
        if recently_tried and entry.failure is not None:
            raise WebhookAuthError("JWKS_UNREACHABLE", "the JWKS could not be fetched recently; retry later")
        if fresh and recently_tried:
            raise _unknown_kid(kid)
        entry.attempted_at = now
        future: asyncio.Future[dict[str, jwt.PyJWK]] = asyncio.get_running_loop().create_future()
        entry.inflight = future
        try:
            keys = await self._fetch(jwks_url)
        except WebhookAuthError as error:
            entry.failure = error
            future.set_exception(error)
            future.exception()  # marked retrieved: waiters re-raise it
            raise
        finally:
            entry.inflight = None
        entry.keys, entry.fetched_at, entry.failure = keys, now, None
        future.set_result(keys)
        return _pick(keys, kid)

    async def _fetch(self, jwks_url: str) -> dict[str, jwt.PyJWK]:
        self.fetches += 1
        try:
            keys = await self._fetch_once(jwks_url)
        except BaseException:
            metrics.jwks_fetch(ok=False)
            raise
        metrics.jwks_fetch(ok=True)
        return keys

    async def _fetch_once(self, jwks_url: str) -> dict[str, jwt.PyJWK]:
        try:
            async with asyncio.timeout(self.timeout):
                body = await self._download(jwks_url)
        except WebhookAuthError:
            raise
        except TimeoutError:
            raise WebhookAuthError("JWKS_UNREACHABLE", f"the JWKS took longer than {self.timeout:g} s") from None
        except Exception as error:  # httpx errors, bad URLs, anything: the JWKS is unreachable, not a 500
            raise WebhookAuthError(
                "JWKS_UNREACHABLE", f"the JWKS could not be fetched: {type(error).__name__}"
            ) from None
        try:
            document = json.loads(body)
        except (ValueError, RecursionError):  # includes invalid UTF-8 and absurd nesting
            raise WebhookAuthError("JWKS_UNREACHABLE", "the JWKS is not JSON") from None
        raw_keys = document.get("keys") if isinstance(document, dict) else None
        if not isinstance(raw_keys, list):
            raise WebhookAuthError("JWKS_UNREACHABLE", "the JWKS has no keys array")
        keys: dict[str, jwt.PyJWK] = {}
        for raw in raw_keys:
            key = _parse_key(raw)
            if key is not None:
                keys.setdefault(raw["kid"], key)  # on a duplicate kid the first usable key wins
        return keys

    async def _download(self, jwks_url: str) -> bytes:
        """The response body of a 200 answer, at most MAX_JWKS_BYTES (the caller bounds the time)."""
        async with (
            httpx.AsyncClient(
                verify=_ssl_context(), transport=self.transport, follow_redirects=False, timeout=self.timeout
            ) as client,
            client.stream("GET", jwks_url, headers={"Accept": "application/json"}) as response,
        ):
            if response.status_code != 200:
                raise WebhookAuthError("JWKS_UNREACHABLE", f"the JWKS answered HTTP {response.status_code}")
            chunks: list[bytes] = []
            size = 0
            async for chunk in response.aiter_bytes():
                size += len(chunk)
                if size > MAX_JWKS_BYTES:
                    raise WebhookAuthError("JWKS_UNREACHABLE", f"the JWKS is larger than {MAX_JWKS_BYTES} bytes")
                chunks.append(chunk)
        return b"".join(chunks)


def _pick(keys: dict[str, jwt.PyJWK], kid: str) -> jwt.PyJWK:
    if kid not in keys:
        raise _unknown_kid(kid)
    return keys[kid]


def _unknown_kid(kid: str) -> WebhookAuthError:
    return WebhookAuthError("UNKNOWN_KID", f"no key with kid {quoted(kid)} in the listener's JWKS", "kid")


def _parse_key(raw: Any) -> jwt.PyJWK | None:
    """A signature key of the JWKS, or None for members that cannot be used (skipped, not fatal)."""
    if not isinstance(raw, dict) or not isinstance(raw.get("kid"), str):
        return None
    if raw.get("use", "sig") != "sig":  # an encryption key must not verify signatures
        return None
    try:
        return jwt.PyJWK(raw)
    except Exception:  # Key parsing fails in many library-specific ways; one bad key is skipped, not fatal.
        return None
