"""Shape checks of an inbound webhook request: headers, timestamp window, event id, body."""

from __future__ import annotations

import re
import uuid

from accessgov.webhooks.errors import WebhookRequestError
from accessgov.webhooks.protocol import TIMESTAMP_WINDOW_SECONDS

_DIGITS = re.compile(r"[0-9]{1,12}")  # used with fullmatch: `$` would accept a trailing newline
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
# Version 4, RFC 4122 variant: what every valid event id looks like, checked without building a UUID.
_UUID4 = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-4[0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}")


def parse_timestamp(value: str | None, now: float, window_seconds: int = TIMESTAMP_WINDOW_SECONDS) -> int:
    """`Webhook-Timestamp` as whole Unix seconds, within `window_seconds` of `now` in either direction."""
    if value is None or value == "":
        raise WebhookRequestError("MISSING_HEADER", "the Webhook-Timestamp header is required", "Webhook-Timestamp")
    if not _DIGITS.fullmatch(value):
        raise WebhookRequestError(
            "INVALID_TIMESTAMP", "Webhook-Timestamp must be whole Unix seconds (digits only)", "Webhook-Timestamp"
        )
    timestamp = int(value)
    skew = abs(timestamp - int(now))
    if skew > window_seconds:
        raise WebhookRequestError(
            "TIMESTAMP_OUT_OF_WINDOW",
            f"Webhook-Timestamp is {skew} seconds away from the server time (limit {window_seconds})",
            "Webhook-Timestamp",
        )
    return timestamp


def parse_event_id(value: str | None) -> uuid.UUID:
    """`Webhook-Event-Id` as a UUID of version 4 (RFC 4122 variant); other versions are rejected."""
    if value and _UUID4.fullmatch(value):
        return uuid.UUID(value)
    if value is None or value == "":
        raise WebhookRequestError("MISSING_HEADER", "the Webhook-Event-Id header is required", "Webhook-Event-Id")
    if not _UUID.fullmatch(value):
        raise WebhookRequestError("INVALID_EVENT_ID", "Webhook-Event-Id is not a UUID", "Webhook-Event-Id")
    parsed = uuid.UUID(value)
    if parsed.version != 4 or parsed.variant != uuid.RFC_4122:
        raise WebhookRequestError(
            "INVALID_EVENT_ID",
            f"Webhook-Event-Id must be a UUID version 4, not version {parsed.version}",
            "Webhook-Event-Id",
        )
    return parsed


def is_canonical_uuid4(value: str) -> bool:
    """Whether `value` is a version 4 UUID in the canonical 8-4-4-4-12 form (either case): `parse_event_id`
    accepts it, whatever object it would build."""
    return _UUID4.fullmatch(value) is not None


def check_event_id(value: str | None) -> None:
    """`parse_event_id`'s verdict without its UUID object, for a caller that keeps the text (a delivery)."""
    if value and is_canonical_uuid4(value):
        return
    parse_event_id(value)
