"""Fetching and caching the JWKS of JWT listeners (httpx, short timeout, TTL, rate-limited refetch)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
import jwt

from accessgov.verification.errors import WebhookAuthError

MAX_JWKS_BYTES = 256 * 1024  # A JWKS is a few KB; the cap keeps a hostile or broken endpoint from filling memory.


@dataclass
class _Entry:
    """The cache state of one JWKS URL; `lock` serialises fetches of that URL only."""

    keys: dict[str, jwt.PyJWK] = field(default_factory=dict)
    fetched_at: float | None = None  # last successful fetch
    attempted_at: float | None = None  # last fetch attempt, successful or not
    failed: bool = False  # whether that last attempt failed
    lock: threading.Lock = field(default_factory=threading.Lock)


class JwksCache:
    """Signing keys by JWKS URL and `kid`.

    A document is used for `ttl_seconds`, then fetched again. A `kid` missing from a fresh document triggers a
    refetch (key rotation), but at most once per `refetch_interval_seconds` per URL, so a stream of tokens with
    made-up `kid`s cannot make the service hammer the sender's endpoint. A failed fetch is remembered for the
    same interval: until then requests fail with JWKS_UNREACHABLE without new attempts. Keys whose TTL has
    passed are never used, even when the refetch fails. Thread-safe; `clock` is injectable for tests.
    """

    def __init__(
        self,
        *,
        client: httpx.Client | None = None,
        ttl_seconds: float = 300,
        refetch_interval_seconds: float = 30,
        timeout_seconds: float = 3.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.client = client or httpx.Client(timeout=timeout_seconds, follow_redirects=False)
        self.ttl = ttl_seconds
        self.refetch_interval = refetch_interval_seconds
        self.timeout = timeout_seconds
        self.clock = clock
        self._entries: dict[str, _Entry] = {}
        self._entries_lock = threading.Lock()

    def _entry(self, jwks_url: str) -> _Entry:
        with self._entries_lock:
            return self._entries.setdefault(jwks_url, _Entry())

    def get_key(self, jwks_url: str, kid: str) -> jwt.PyJWK:
        """The key `kid` of the JWKS at `jwks_url`; `WebhookAuthError` when unreachable or unknown."""
        entry = self._entry(jwks_url)
        # Holding the URL's lock across the fetch makes concurrent first requests wait for one fetch
        # instead of each fetching; other URLs are not blocked.
        with entry.lock:
            now = self.clock()
            fresh = entry.fetched_at is not None and now - entry.fetched_at < self.ttl
            if fresh and kid in entry.keys:
                return entry.keys[kid]
            recently_tried = entry.attempted_at is not None and now - entry.attempted_at < self.refetch_interval
            if recently_tried and entry.failed:
                raise WebhookAuthError("JWKS_UNREACHABLE", "the JWKS could not be fetched recently; retry later")
            if fresh and recently_tried:
                raise _unknown_kid(kid)
            entry.attempted_at = now
            try:
                keys = self._fetch(jwks_url)
            except WebhookAuthError:
                entry.failed = True
                raise
            entry.keys, entry.fetched_at, entry.failed = keys, now, False
        if kid not in keys:
            raise _unknown_kid(kid)
        return keys[kid]

    def _fetch(self, jwks_url: str) -> dict[str, jwt.PyJWK]:
        try:
            body = self._download(jwks_url)
        except httpx.HTTPError as error:
            raise WebhookAuthError("JWKS_UNREACHABLE", f"the JWKS could not be fetched: {error}") from None
        try:
            document = json.loads(body)
        except ValueError:  # includes invalid UTF-8
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

    def _download(self, jwks_url: str) -> bytes:
        """The response body of a 200 answer, at most MAX_JWKS_BYTES, within about `timeout` seconds."""
        deadline = time.monotonic() + self.timeout  # httpx timeouts are per read; this bounds a slow drip
        with self.client.stream(
            "GET", jwks_url, headers={"Accept": "application/json"}, timeout=self.timeout, follow_redirects=False
        ) as response:
            if response.status_code != 200:
                raise WebhookAuthError("JWKS_UNREACHABLE", f"the JWKS answered HTTP {response.status_code}")
            chunks: list[bytes] = []
            size = 0
            for chunk in response.iter_bytes():
                size += len(chunk)
                if size > MAX_JWKS_BYTES:
                    raise WebhookAuthError("JWKS_UNREACHABLE", f"the JWKS is larger than {MAX_JWKS_BYTES} bytes")
                if time.monotonic() > deadline:
                    raise WebhookAuthError("JWKS_UNREACHABLE", "the JWKS took too long to download")
                chunks.append(chunk)
        return b"".join(chunks)


def _unknown_kid(kid: str) -> WebhookAuthError:
    return WebhookAuthError("UNKNOWN_KID", f"no key with kid {kid!r} in the listener's JWKS", "kid")


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
