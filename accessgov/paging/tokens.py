"""Page tokens: opaque, signed, bound to a collection, versioned, with a maximum age."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import math
import struct
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from accessgov import base64url
from accessgov.jsoncodec import dumps_bytes
from accessgov.paging.errors import PageTokenError
from accessgov.paging.limits import DEFAULT_MAX_AGE_SECONDS, MAX_TOKEN_CHARS, TOKEN_VERSION, Cursor, CursorValue

_MAC_BYTES = 16
_HEADER = struct.Struct(">BQ")  # version, issued_at
_LENGTH = struct.Struct(">I")
_MAC_LABEL = b"accessgov/page-token\x00"


class PageTokenCodec:
    """Issues and verifies page tokens: signed, bound to a collection, versioned, with an optional max age.

    `secret` is the server's key (at least 32 random bytes recommended; every worker needs the same one); tokens
    signed with one of `previous` (keys rotated out, still in their grace) verify too, each until its Unix time in
    `previous_until` (checked per token, so a grace ends when it says, whenever the keys were last loaded; no
    entry: no end). `set_keys` swaps them.
    Tokens older than `max_age_seconds` are rejected (``None``: they never expire); so are tokens issued more
    than `clock_skew_seconds` in the future. `clock` returns the current Unix time (injectable for tests).
    """

    def __init__(
        self,
        secret: bytes,
        *,
        max_age_seconds: int | None = DEFAULT_MAX_AGE_SECONDS,
        clock: Callable[[], float] = time.time,
        clock_skew_seconds: int = 300,
        previous: Sequence[bytes] = (),
        previous_until: Sequence[float] = (),
    ) -> None:
        if max_age_seconds is not None and max_age_seconds <= 0:
            raise ValueError("max_age_seconds must be positive or None")
        self.clock = clock
        self.set_keys(secret, previous, previous_until)
        self.max_age_seconds = max_age_seconds
        self.clock_skew_seconds = clock_skew_seconds

    def set_keys(self, secret: bytes, previous: Sequence[bytes] = (), previous_until: Sequence[float] = ()) -> None:
        """Sign with `secret` from now on; accept tokens signed with `previous` too, each until its `previous_until`
        Unix time (when given)."""
        if not isinstance(secret, bytes | bytearray) or not secret or not all(previous):
            raise ValueError("the page token secret must be non-empty bytes")
        if previous_until and len(previous_until) != len(previous):
            raise ValueError("previous_until needs one time per previous key")
        self._secret, self._previous = bytes(secret), tuple(bytes(key) for key in previous)
        self._until = tuple(previous_until) or (math.inf,) * len(self._previous)
        # The label absorbed once per key: a token's MAC copies this state instead of keying a new HMAC (OpenSSL
        # looks the digest up and pads the key on every `hmac.new`).
        self._keyed = {key: hmac.new(key, _MAC_LABEL, hashlib.sha256) for key in (self._secret, *self._previous)}

    @property
    def keys(self) -> tuple[bytes, tuple[bytes, ...]]:
        """(signing key, previous keys) as set."""
        return self._secret, self._previous

    def encode(self, collection: str, cursor: Sequence[CursorValue]) -> str:
        """A token resuming `collection` after the item whose sort key is `cursor` (str and int values)."""
        values = _check_cursor(cursor)
        if values is None:
            raise ValueError(f"a cursor is a non-empty sequence of str and int values, got {cursor!r}")
        # Compact JSON; orjson, since json.dumps with separators builds an encoder per call (~3x the cost).
        body = dumps_bytes(values)
        signed = _HEADER.pack(TOKEN_VERSION, max(0, int(self.clock()))) + body
        raw = signed + self._mac(collection, signed)
        return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")

    def decode(self, token: str, collection: str) -> Cursor:
        """The cursor inside `token`, if this server issued it for `collection` and it has not expired.

        Raises `PageTokenError` otherwise.
        """
        if not isinstance(token, str):
            raise PageTokenError(f"page_token must be a string, got {type(token).__name__}")
        if len(token) > MAX_TOKEN_CHARS:
            raise PageTokenError("page_token is too long; pass the nextPageToken of the previous response")
        raw = _b64decode(token)
        if len(raw) < _HEADER.size + _MAC_BYTES + 2:  # 2: the shortest JSON array, "[]"
            raise PageTokenError(
                "page_token is truncated or malformed; pass the nextPageToken of the previous response"
            )
        version, issued_at = _HEADER.unpack_from(raw)
        if version != TOKEN_VERSION:
            raise PageTokenError(
                f"page_token has an unsupported format (version {version}); restart from the first page",
                reason="version",
            )
        signed, mac = raw[:-_MAC_BYTES], raw[-_MAC_BYTES:]
        if not self._verifies(collection, signed, mac):
            raise PageTokenError(
                "page_token is not valid for this listing: it was altered, or issued for another listing "
                "(other filters or parent) or by another server",
                reason="signature",
            )
        now = self.clock()
        if issued_at > now + self.clock_skew_seconds:
            raise PageTokenError("page_token was issued in the future; restart from the first page", reason="expired")
        if self.max_age_seconds is not None and now - issued_at > self.max_age_seconds:
            raise PageTokenError("page_token has expired; restart from the first page", reason="expired")
        try:
            values = json.loads(signed[_HEADER.size :].decode())
        except (UnicodeDecodeError, ValueError):
            values = None
        cursor = _check_cursor(values) if isinstance(values, list) else None
        if cursor is None:  # only with a leaked secret or a bug: it was signed
            raise PageTokenError("page_token carries no valid cursor", reason="cursor")
        return cursor

    def _verifies(self, collection: str, signed: bytes, mac: bytes) -> bool:
        # The current key first; keys in their rotation grace only for tokens it did not sign (no key id is
        # carried: the token format stays as it was, and a rotated-out key costs one more HMAC at most).
        if hmac.compare_digest(mac, self._mac(collection, signed)):
            return True
        if not self._previous:
            return False
        now = self.clock()
        return any(
            now < until and hmac.compare_digest(mac, self._mac(collection, signed, key))
            for key, until in zip(self._previous, self._until, strict=True)
        )

    def _mac(self, collection: str, signed: bytes, key: bytes | None = None) -> bytes:
        """HMAC-SHA256(key, label | len(collection) | collection | signed), truncated."""
        name = collection.encode()
        mac = self._keyed[key or self._secret].copy()
        mac.update(_LENGTH.pack(len(name)) + name + signed)
        return mac.digest()[:_MAC_BYTES]


def collection_key(name: str, filters: Mapping[str, Any] | None = None) -> str:
    """What a page token is bound to: the collection `name` plus a hash of the `filters` of the listing.

    A token issued for one set of filters (or search query, or parent) is then rejected for another, since
    its cursor means nothing there. Filters are hashed from canonical JSON: key order does not matter, and
    ``None``/empty filters leave `name` unchanged.
    """
    if not filters:
        return name
    canonical = json.dumps(filters, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return f"{name}#filters={hashlib.sha256(canonical.encode()).hexdigest()}"


def _b64decode(token: str) -> bytes:
    # Several strings decode to the same bytes (unused low bits of the last character): only ours is valid.
    raw = base64url.decode_canonical(token.encode("ascii")) if token and token.isascii() else None
    if raw is None:
        raise PageTokenError("page_token is malformed; pass the nextPageToken of the previous response")
    return raw


def _check_cursor(values: Any) -> Cursor | None:
    if type(values) is tuple and values and all(type(value) is str for value in values):
        return values  # what the listings pass (one string key): spares the ABC and bool checks below
    if isinstance(values, str | bytes) or not isinstance(values, Sequence) or not values:
        return None
    if not all(isinstance(v, str | int) and not isinstance(v, bool) for v in values):
        return None
    return tuple(values)
