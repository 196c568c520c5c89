"""Identifiers and time shared by the repositories."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime


def utcnow() -> datetime:
    """The current time, aware and in UTC (the default wherever a `now` is not injected)."""
    return datetime.now(UTC)


def sortable_id(now: datetime) -> str:
    """A 32-hex-digit id that sorts by creation time: 48-bit milliseconds since the epoch + 80 random bits
    (ULID-like, so ids of audit rows list in the order they were written)."""
    millis = int(now.timestamp() * 1000) & (2**48 - 1)
    return f"{millis:012x}{secrets.token_hex(10)}"


LISTENER_ID_PREFIX = "wh_"


def listener_id() -> str:
    """A URL-safe, unguessable listener id (it appears in the webhook URL): `wh_` and 128 random bits as
    base64url. The prefix keeps a leading `-` (which command lines read as an option) out of every id."""
    return LISTENER_ID_PREFIX + secrets.token_urlsafe(16)
