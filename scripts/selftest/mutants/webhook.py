"""Webhook mutants: each row of the webhook error table, idempotency, CIDR and processing order (the JWT
method's are in webhook_jwt.py)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
import uuid
from collections.abc import Callable

from scripts.selftest.asgi import Forward, Handler, Request, Response, path_param
from scripts.selftest.mutants.base import BODY_LIMIT, WINDOW_SECONDS, Mutant, let_through, now, refuse
from scripts.selftest.target import Fixtures

UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")


def _missing(name: str) -> Callable[[Request], bool]:
    return lambda request: not request.header(name)


def _skew(request: Request) -> int | None:
    """Webhook-Timestamp minus now, when it is whole seconds."""
    value = request.header("webhook-timestamp") or ""
    return int(value) - now() if value.isdigit() else None


def _with_now(request: Request) -> Request:
    return request.with_header("webhook-timestamp", str(now()))


def _non_v4(request: Request) -> bool:
    value = request.header("webhook-event-id") or ""
    return bool(UUID.match(value)) and uuid.UUID(value).version != 4


def _as_v4(request: Request) -> Request:
    """The same id with its version and variant bits set to v4's: still one event per id sent."""
    raw = bytearray(uuid.UUID(request.header("webhook-event-id") or "").bytes)
    raw[6] = (raw[6] & 0x0F) | 0x40
    raw[8] = (raw[8] & 0x3F) | 0x80
    return request.with_header("webhook-event-id", str(uuid.UUID(bytes=bytes(raw))))


def _not_json(request: Request) -> bool:
    try:
        json.loads(request.body)
    except ValueError:
        return True
    return False


def _signature_matches(request: Request, key: bytes) -> bool:
    """Whether Webhook-Signature is HMAC-SHA256 under `key` over `{timestamp}.{event id}.{body}`."""
    message = f"{request.header('webhook-timestamp') or ''}.{request.header('webhook-event-id') or ''}.".encode()
    digest = hmac.new(key, message + request.body, hashlib.sha256).digest()
    expected = base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
    return hmac.compare_digest(expected, request.header("webhook-signature") or "")


def _hmac_key_decoded(fixtures: Fixtures) -> dict[str, Handler]:
    """Verifies with the secret base64url-DECODED as the key (rule: the key is the secret string, UTF-8)."""

    async def handle(request: Request, forward: Forward) -> Response:
        listener_id = path_param(request, "webhook", "listener_id")
        secret = fixtures.hmac_secrets.get(listener_id)
        if secret is None or not request.header("webhook-signature"):
            return await forward(request)
        key = base64.urlsafe_b64decode(secret + "=" * (-len(secret) % 4))
        if not _signature_matches(request, key):
            return Response.error(401, "SIGNATURE_MISMATCH", "Webhook-Signature does not match the request")
        return await forward(fixtures.resign(request))

    return {"webhook": handle}


def _auth_before_shape(fixtures: Fixtures) -> dict[str, Handler]:
    """Authenticates before the shape checks: a mis-signed request with a bad header gets 401, not 400."""

    async def handle(request: Request, forward: Forward) -> Response:
        secret = fixtures.hmac_secrets.get(path_param(request, "webhook", "listener_id"))
        if secret is not None:
            if not request.header("webhook-signature"):
                return Response.error(401, "MISSING_AUTHENTICATION", "the Webhook-Signature header is required")
            if not _signature_matches(request, secret.encode()):
                return Response.error(401, "SIGNATURE_MISMATCH", "Webhook-Signature does not match the request")
        return await forward(request)

    return {"webhook": handle}


def _event(request: Request) -> tuple[str, str]:
    return path_param(request, "webhook", "listener_id"), (request.header("webhook-event-id") or "").lower()


def _duplicate_answered_200(_: Fixtures) -> dict[str, Handler]:
    first: dict[tuple[str, str], Response] = {}

    async def handle(request: Request, forward: Forward) -> Response:
        response = await forward(request)
        if response.status == 200:
            first.setdefault(_event(request), response)
        elif response.status == 409 and _event(request) in first:
            return first[_event(request)]
        return response

    return {"webhook": handle}


def _duplicate_across_listeners(_: Fixtures) -> dict[str, Handler]:
    seen: dict[str, str] = {}

    async def handle(request: Request, forward: Forward) -> Response:
        listener_id, event_id = _event(request)
        if seen.get(event_id, listener_id) != listener_id:
            return Response.error(409, "DUPLICATE_EVENT", f"event {event_id} was already received")
        response = await forward(request)
        if response.status == 200:
            seen.setdefault(event_id, listener_id)
        return response

    return {"webhook": handle}


def _duplicate_before_auth(_: Fixtures) -> dict[str, Handler]:
    seen: set[tuple[str, str]] = set()

    async def handle(request: Request, forward: Forward) -> Response:
        if _event(request) in seen:
            return Response.error(409, "DUPLICATE_EVENT", "event already received by this listener")
        response = await forward(request)
        if response.status == 200:
            seen.add(_event(request))
        return response

    return {"webhook": handle}


def _cidr_ignored(fixtures: Fixtures) -> dict[str, Handler]:
    async def handle(request: Request, forward: Forward) -> Response:
        address = fixtures.allowed_address(path_param(request, "webhook", "listener_id"))
        if address is not None:
            client = request.scope.get("client") or ("127.0.0.1", 0)
            request = Request({**request.scope, "client": (address, client[1])}, request.body)
        return await forward(request)

    return {"webhook": handle}


MUTANTS = [
    Mutant(
        "webhook-missing-timestamp-accepted",
        "webhook",
        "A request without Webhook-Timestamp is processed (200) instead of 400 MISSING_HEADER.",
        let_through(_missing("webhook-timestamp"), _with_now),
    ),
    Mutant(
        "webhook-missing-event-id-accepted",
        "webhook",
        "A request without Webhook-Event-Id is processed under a generated id instead of 400 MISSING_HEADER.",
        let_through(_missing("webhook-event-id"), lambda r: r.with_header("webhook-event-id", str(uuid.uuid4()))),
    ),
    Mutant(
        "webhook-missing-auth-accepted",
        "webhook",
        "A request with neither Webhook-Signature nor Authorization is processed instead of 401.",
        let_through(lambda r: not r.header("webhook-signature") and not r.header("authorization")),
    ),
    Mutant(
        "webhook-content-type-ignored",
        "webhook",
        "A body sent without Content-Type application/json is processed instead of 400.",
        let_through(
            lambda r: not (r.header("content-type") or "").lower().startswith("application/json"),
            lambda r: r.with_header("content-type", "application/json"),
        ),
    ),
    Mutant(
        "webhook-stale-timestamp-accepted",
        "webhook",
        "The timestamp window reaches 15 minutes into the past: a timestamp 5-15 minutes old is processed.",
        let_through(lambda r: (s := _skew(r)) is not None and -900 <= s < -WINDOW_SECONDS, _with_now),
    ),
    Mutant(
        "webhook-future-timestamp-accepted",
        "webhook",
        "Only the past edge of the window is checked: a timestamp more than 5 minutes ahead is processed.",
        let_through(lambda r: (s := _skew(r)) is not None and s > WINDOW_SECONDS, _with_now),
    ),
    Mutant(
        "webhook-timestamp-window-narrow",
        "webhook",
        "The window is 2 minutes, not 5: a timestamp 2-5 minutes off is refused 400 TIMESTAMP_OUT_OF_WINDOW.",
        refuse(
            "webhook",
            lambda r: (s := _skew(r)) is not None and 120 < abs(s) <= WINDOW_SECONDS,
            400,
            "TIMESTAMP_OUT_OF_WINDOW",
            "Webhook-Timestamp is outside the window",
        ),
    ),
    Mutant(
        "webhook-non-v4-event-id-accepted",
        "webhook",
        "Any UUID is taken as an event id: a version 1 or 7 UUID is processed instead of 400 INVALID_EVENT_ID.",
        let_through(_non_v4, _as_v4),
    ),
    Mutant(
        "webhook-invalid-json-accepted",
        "webhook",
        "A body that is not JSON is processed (as a JSON string) instead of 400 INVALID_JSON.",
        let_through(_not_json, lambda r: r.with_body(json.dumps(r.body.decode("utf-8", "replace")).encode())),
    ),
    Mutant(
        "webhook-oversized-body-accepted",
        "webhook",
        "No 64 KB limit: a larger body is processed (truncated to an empty object) instead of 413.",
        let_through(lambda r: len(r.body) > BODY_LIMIT, lambda r: r.with_body(b"{}")),
    ),
    Mutant(
        "webhook-body-limit-64000",
        "webhook",
        "64 KB taken as 64,000 bytes: a body of 64,001-65,536 bytes is refused 413.",
        refuse(
            "webhook",
            lambda r: 64_000 < len(r.body) <= BODY_LIMIT,
            413,
            "PAYLOAD_TOO_LARGE",
            "the body exceeds 64000 bytes",
        ),
    ),
    Mutant(
        "webhook-hmac-mismatch-accepted",
        "webhook",
        "The HMAC signature is not compared: a wrong Webhook-Signature is processed instead of 401.",
        let_through(lambda r: bool(r.header("webhook-signature"))),
    ),
    Mutant(
        "webhook-hmac-key-decoded",
        "webhook",
        "The HMAC key is the base64url-decoded secret, not the secret string: every correct signature is 401.",
        _hmac_key_decoded,
    ),
    Mutant(
        "webhook-duplicate-answered-200",
        "webhook",
        "A replayed Webhook-Event-Id is answered 200 (the first response again) instead of 409.",
        _duplicate_answered_200,
    ),
    Mutant(
        "webhook-duplicate-across-listeners",
        "webhook",
        "Idempotency is global, not per listener: an event id seen by another listener is refused 409.",
        _duplicate_across_listeners,
    ),
    Mutant(
        "webhook-duplicate-before-auth",
        "webhook",
        "Idempotency is checked before authentication: a replay with a bad signature gets 409, not 401.",
        _duplicate_before_auth,
    ),
    Mutant(
        "webhook-auth-before-shape",
        "webhook",
        "Authentication runs before the shape checks: a mis-signed request with a bad header gets 401, not 400.",
        _auth_before_shape,
    ),
    Mutant(
        "webhook-cidr-ignored",
        "webhook",
        "The listener's allowed CIDR ranges are not enforced: a source outside them is processed, not 403.",
        _cidr_ignored,
    ),
]

