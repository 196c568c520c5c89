"""Fetching and caching the JWKS of JWT listeners (httpx, short timeout, TTL, rate-limited refetch)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import httpx
import jwt

from accessgov.verification.errors import WebhookAuthError


@dataclass
class _Entry:
    keys: dict[str, jwt.PyJWK] = field(default_factory=dict)
    fetched_at: float = float("-inf")
    attempted_at: float = float("-inf")


class JwksCache:
    """Keys by JWKS URL and `kid`. A fresh document is fetched when the cached one is older than the TTL,
    or when a `kid` is unknown — at most once per `refetch_interval_seconds` per URL, so a stream of tokens
    with made-up `kid`s cannot make the service hammer the sender's JWKS endpoint."""

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
        self.clock = clock
        self._entries: dict[str, _Entry] = {}
        self._lock = threading.Lock()

    def get_key(self, jwks_url: str, kid: str) -> jwt.PyJWK:
        """The key `kid` of the JWKS at `jwks_url`; `WebhookAuthError` when unreachable or unknown."""
        with self._lock:
            entry = self._entries.setdefault(jwks_url, _Entry())
            now = self.clock()
            never = entry.fetched_at == float("-inf")
            due = now - entry.attempted_at >= self.refetch_interval
            stale = now - entry.fetched_at >= self.ttl
            if never and not due:
                raise WebhookAuthError("JWKS_UNREACHABLE", "the JWKS could not be fetched recently; retry later")
            if due and (stale or kid not in entry.keys):
                entry.attempted_at = now
                entry.keys = self._fetch(jwks_url)
                entry.fetched_at = now
        key = entry.keys.get(kid)
        if key is None:
            raise WebhookAuthError("UNKNOWN_KID", f"no key with kid {kid!r} in the listener's JWKS", "kid")
        return key

    def _fetch(self, jwks_url: str) -> dict[str, jwt.PyJWK]:
        try:
            response = self.client.get(jwks_url, headers={"Accept": "application/json"})
        except httpx.HTTPError as error:
            raise WebhookAuthError("JWKS_UNREACHABLE", f"the JWKS could not be fetched: {error}") from None
        if response.status_code != 200:
            raise WebhookAuthError("JWKS_UNREACHABLE", f"the JWKS answered {response.status_code}")
        try:
            document = response.json()
        except (json.JSONDecodeError, ValueError):
            raise WebhookAuthError("JWKS_UNREACHABLE", "the JWKS is not JSON") from None
        raw_keys = document.get("keys") if isinstance(document, dict) else None
        if not isinstance(raw_keys, list):
            raise WebhookAuthError("JWKS_UNREACHABLE", "the JWKS has no keys array")
        keys: dict[str, jwt.PyJWK] = {}
        for raw in raw_keys:
            if not isinstance(raw, dict) or not isinstance(raw.get("kid"), str):
                continue
            try:
                keys[raw["kid"]] = jwt.PyJWK(raw)
            except (jwt.PyJWKError, jwt.InvalidKeyError, ValueError, TypeError, KeyError):
                continue  # One unusable key does not disable the others.
        return keys
