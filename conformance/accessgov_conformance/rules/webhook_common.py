"""Webhook rules that hold whatever the listener's method: headers, timestamp window, event id, body, size,
idempotency per listener, processing order, source CIDR ranges."""

from __future__ import annotations

from ..config import Listener
from ..context import Context
from ..registry import Fail, NotApplicable, rule
from ._webhook import SEED_ERRORS, SEED_HEADERS, WH, accepted, any_listener, uuid_v1

FAMILY = "webhook"
WINDOW_INSIDE = 298  # seconds; 2 s short of the 300 s limit, for the clock reads and the request's latency
WINDOW_OUTSIDE = 302
MAX_BODY = 64 * 1024


def _outside(ctx: Context) -> Listener:
    """A listener whose CIDR ranges exclude the kit's address (HMAC or JWT)."""
    found = [item for item in ctx.config.listeners if not item.source_allowed]
    if not found:
        raise NotApplicable("the configuration names no listener whose CIDR ranges exclude the kit's address")
    return found[0]


def _padded_body(size: int) -> bytes:
    """A JSON object of exactly `size` bytes."""
    prefix, suffix = b'{"pad":"', b'"}'
    return prefix + b"x" * (size - len(prefix) - len(suffix)) + suffix


@rule(
    "WH-ACCEPT-001",
    family=FAMILY,
    title="A correctly authenticated delivery is accepted",
    text="A delivery with valid headers and credential is answered 200 with a WebhookAcceptedResponse naming "
    "its event id.",
    spec=f"{WH}#/post/responses/200",
    seed=SEED_ERRORS,
    mock=True,
)
def accept(ctx: Context) -> None:
    accepted(ctx, ctx.deliver(any_listener(ctx)))


@rule(
    "WH-HDR-001",
    family=FAMILY,
    title="Webhook-Timestamp is required",
    text="A delivery without Webhook-Timestamp is answered 400 MISSING_HEADER.",
    spec="spec/components/parameters/WebhookTimestamp.yaml#/required",
    seed=SEED_HEADERS,
    mock=True,
)
def missing_timestamp(ctx: Context) -> None:
    ctx.expect(ctx.deliver(any_listener(ctx), omit=("Webhook-Timestamp",)), 400, code="MISSING_HEADER")


@rule(
    "WH-HDR-002",
    family=FAMILY,
    title="Webhook-Event-Id is required",
    text="A delivery without Webhook-Event-Id is answered 400 MISSING_HEADER.",
    spec="spec/components/parameters/WebhookEventId.yaml#/required",
    seed=SEED_HEADERS,
    mock=True,
)
def missing_event_id(ctx: Context) -> None:
    ctx.expect(ctx.deliver(any_listener(ctx), omit=("Webhook-Event-Id",)), 400, code="MISSING_HEADER")


@rule(
    "WH-HDR-003",
    family=FAMILY,
    title="Content-Type must be application/json",
    text="A delivery whose Content-Type is text/plain is answered 400 INVALID_CONTENT_TYPE; one without "
    "Content-Type 400 (MISSING_HEADER or INVALID_CONTENT_TYPE).",
    spec="spec/components/responses/WebhookBadRequest.yaml#/description",
    seed=SEED_HEADERS,
    mock=True,
)
def wrong_content_type(ctx: Context) -> None:
    listener = any_listener(ctx)
    ctx.expect(ctx.deliver(listener, content_type="text/plain"), 400, code="INVALID_CONTENT_TYPE", what="text/plain")
    body = ctx.expect(ctx.deliver(listener, content_type=None), 400, what="no Content-Type")
    if body.get("code") not in ("MISSING_HEADER", "INVALID_CONTENT_TYPE"):
        raise Fail(f"no Content-Type: Error.code is {body.get('code')!r}, not MISSING_HEADER or INVALID_CONTENT_TYPE")


@rule(
    "WH-TS-001",
    family=FAMILY,
    title="Webhook-Timestamp is whole Unix seconds",
    text="A timestamp that is not decimal seconds (here milliseconds-with-a-dot and ISO 8601) is answered 400 "
    "INVALID_TIMESTAMP.",
    spec="spec/components/parameters/WebhookTimestamp.yaml#/schema",
    seed=SEED_HEADERS,
    mock=True,
)
def timestamp_format(ctx: Context) -> None:
    listener = any_listener(ctx)
    for value in (f"{ctx.now()}.5", "2026-01-01T00:00:00Z"):
        ctx.expect(ctx.deliver(listener, timestamp=value), 400, code="INVALID_TIMESTAMP", what=f"timestamp {value}")


@rule(
    "WH-TS-002",
    family=FAMILY,
    title="A timestamp just inside the 5-minute window is accepted (both directions)",
    text=f"Deliveries stamped now-{WINDOW_INSIDE} s and now+{WINDOW_INSIDE} s are accepted (200).",
    spec="spec/components/parameters/WebhookTimestamp.yaml#/description",
    seed="Limits (Webhook-Timestamp skew)",
)
def window_inside(ctx: Context) -> None:
    listener = any_listener(ctx)
    for offset in (-WINDOW_INSIDE, WINDOW_INSIDE):
        accepted(ctx, ctx.deliver(listener, timestamp_offset=offset), what=f"timestamp now{offset:+d} s")


@rule(
    "WH-TS-003",
    family=FAMILY,
    title="A timestamp just outside the 5-minute window is refused (both directions)",
    text=f"Deliveries stamped now-{WINDOW_OUTSIDE} s and now+{WINDOW_OUTSIDE} s are answered 400 "
    "TIMESTAMP_OUT_OF_WINDOW.",
    spec="spec/components/parameters/WebhookTimestamp.yaml#/description",
    seed="Limits (Webhook-Timestamp skew)",
)
def window_outside(ctx: Context) -> None:
    listener = any_listener(ctx)
    for offset in (-WINDOW_OUTSIDE, WINDOW_OUTSIDE):
        exchange = ctx.deliver(listener, timestamp_offset=offset)
        ctx.expect(exchange, 400, code="TIMESTAMP_OUT_OF_WINDOW", what=f"timestamp now{offset:+d} s")


@rule(
    "WH-EID-001",
    family=FAMILY,
    title="Webhook-Event-Id must be a UUID",
    text="An event id that is not a UUID is answered 400 INVALID_EVENT_ID.",
    spec="spec/components/parameters/WebhookEventId.yaml#/schema",
    seed=SEED_HEADERS,
    mock=True,
)
def event_id_not_uuid(ctx: Context) -> None:
    ctx.expect(ctx.deliver(any_listener(ctx), event_id="not-a-uuid"), 400, code="INVALID_EVENT_ID")


@rule(
    "WH-EID-002",
    family=FAMILY,
    title="Webhook-Event-Id must be a UUID of version 4",
    text="A well-formed UUID of another version (1) is answered 400 INVALID_EVENT_ID.",
    spec="spec/components/parameters/WebhookEventId.yaml#/description",
    seed=SEED_HEADERS,
    mock=True,
)
def event_id_not_v4(ctx: Context) -> None:
    ctx.expect(ctx.deliver(any_listener(ctx), event_id=uuid_v1(ctx)), 400, code="INVALID_EVENT_ID")


@rule(
    "WH-EID-003",
    family=FAMILY,
    title="An upper-case UUID v4 is a valid event id",
    text="A Webhook-Event-Id of upper-case hex digits (the spec's pattern allows A-F) is accepted (200).",
    spec="spec/components/parameters/WebhookEventId.yaml#/schema/pattern",
    seed=SEED_HEADERS,
    mock=True,
)
def event_id_upper_case(ctx: Context) -> None:
    accepted(ctx, ctx.deliver(any_listener(ctx), event_id=ctx.event_id().upper()))


@rule(
    "WH-JSON-001",
    family=FAMILY,
    title="The body must be valid JSON",
    text="A correctly signed body that is not JSON is answered 400 INVALID_JSON.",
    spec="spec/components/responses/WebhookBadRequest.yaml#/description",
    seed=SEED_ERRORS,
    mock=True,
)
def body_not_json(ctx: Context) -> None:
    ctx.expect(ctx.deliver(any_listener(ctx), body=b'{"orderId": '), 400, code="INVALID_JSON")


@rule(
    "WH-JSON-002",
    family=FAMILY,
    title="Any JSON value is a valid body",
    text="Correctly signed bodies that are JSON but not objects (an array, a string, null) are accepted (200).",
    spec="spec/components/schemas/WebhookPayload.yaml",
    seed="Events (the event payload is the JSON body; field names defined by the sender)",
    mock=True,
)
def any_json_value(ctx: Context) -> None:
    listener = any_listener(ctx)
    for body in (b'[1,"two",{"three":3}]', b'"text"', b"null"):
        accepted(ctx, ctx.deliver(listener, body=body), what=f"body {body.decode()}")


@rule(
    "WH-SIZE-001",
    family=FAMILY,
    title="A body of exactly 64 KB is accepted",
    text=f"A JSON body of {MAX_BODY} bytes is within the limit (200).",
    spec=f"{WH}#/post/requestBody/description",
    seed="Limits (Webhook body size)",
)
def body_at_limit(ctx: Context) -> None:
    accepted(ctx, ctx.deliver(any_listener(ctx), body=_padded_body(MAX_BODY)))


@rule(
    "WH-SIZE-002",
    family=FAMILY,
    title="A body over 64 KB is refused",
    text=f"A JSON body of {MAX_BODY + 1} bytes is answered 413 PAYLOAD_TOO_LARGE.",
    spec="spec/components/responses/PayloadTooLarge.yaml",
    seed="Limits (Webhook body size)",
)
def body_over_limit(ctx: Context) -> None:
    ctx.expect(ctx.deliver(any_listener(ctx), body=_padded_body(MAX_BODY + 1)), 413, code="PAYLOAD_TOO_LARGE")


@rule(
    "WH-IDEM-001",
    family=FAMILY,
    title="A repeated event id on the same listener is a duplicate",
    text="A second delivery with the same Webhook-Event-Id to the same listener is answered 409 DUPLICATE_EVENT.",
    spec="spec/components/responses/DuplicateEvent.yaml",
    seed="Events (Idempotency)",
)
def duplicate(ctx: Context) -> None:
    listener = any_listener(ctx)
    event_id = ctx.event_id()
    accepted(ctx, ctx.deliver(listener, event_id=event_id), what="first delivery")
    ctx.expect(ctx.deliver(listener, event_id=event_id), 409, code="DUPLICATE_EVENT", what="second delivery")


@rule(
    "WH-IDEM-002",
    family=FAMILY,
    title="Idempotency is per listener",
    text="The same Webhook-Event-Id delivered to another listener is not a duplicate (200 on both).",
    spec="spec/components/parameters/WebhookEventId.yaml#/description",
    seed="Events (Idempotency: same event ID for the same listener)",
)
def per_listener(ctx: Context) -> None:
    reachable = [item for item in ctx.config.listeners if item.source_allowed]
    if len(reachable) < 2:
        ctx.listener("hmac", index=1)  # raises NotApplicable: a second listener is needed
    first, second = reachable[:2]
    event_id = ctx.event_id()
    accepted(ctx, ctx.deliver(first, event_id=event_id), what=f"listener {first.id}")
    accepted(ctx, ctx.deliver(second, event_id=event_id), what=f"same event id on listener {second.id}")


@rule(
    "WH-IDEM-003",
    family=FAMILY,
    title="A refused delivery does not consume its event id",
    text="After a 400 (timestamp outside the window) the same event id is still accepted once (200).",
    spec="spec/components/responses/WebhookBadRequest.yaml#/description",
    seed="Endpoints > Inbound webhook listener (processing order)",
)
def refused_not_consumed(ctx: Context) -> None:
    listener = any_listener(ctx)
    event_id = ctx.event_id()
    ctx.expect(ctx.deliver(listener, event_id=event_id, timestamp_offset=-3600), 400, what="stale delivery")
    accepted(ctx, ctx.deliver(listener, event_id=event_id), what="same event id, valid delivery")


@rule(
    "WH-ORDER-001",
    family=FAMILY,
    title="The request's shape is checked before its credential",
    text="A delivery missing Webhook-Timestamp and carrying a wrong credential is answered 400, not 401.",
    spec=f"{WH}#/post/description",
    seed="Endpoints > Inbound webhook listener (processing order)",
    mock=True,
)
def shape_before_auth(ctx: Context) -> None:
    listener = any_listener(ctx)
    exchange = ctx.deliver(listener, omit=("Webhook-Timestamp",), sign_body=b'{"other":1}')
    ctx.expect(exchange, 400, code="MISSING_HEADER")


@rule(
    "WH-ORDER-002",
    family=FAMILY,
    title="The shape is checked before idempotency",
    text="A replay of an accepted event id with a timestamp outside the window is answered 400, not 409.",
    spec=f"{WH}#/post/description",
    seed="Endpoints > Inbound webhook listener (processing order)",
)
def shape_before_idempotency(ctx: Context) -> None:
    listener = any_listener(ctx)
    event_id = ctx.event_id()
    accepted(ctx, ctx.deliver(listener, event_id=event_id), what="first delivery")
    exchange = ctx.deliver(listener, event_id=event_id, timestamp_offset=-3600)
    ctx.expect(exchange, 400, code="TIMESTAMP_OUT_OF_WINDOW", what="stale replay")


@rule(
    "WH-ORDER-003",
    family=FAMILY,
    title="Authentication is checked before idempotency",
    text="A replay of an accepted event id with a wrong credential is answered 401, not 409.",
    spec=f"{WH}#/post/description",
    seed="Endpoints > Inbound webhook listener (processing order)",
)
def auth_before_idempotency(ctx: Context) -> None:
    listener = any_listener(ctx)
    event_id = ctx.event_id()
    accepted(ctx, ctx.deliver(listener, event_id=event_id), what="first delivery")
    ctx.expect(ctx.deliver(listener, event_id=event_id, sign_body=b'{"other":1}'), 401, what="forged replay")


@rule(
    "WH-404-001",
    family=FAMILY,
    title="An unknown listener is 404",
    text="A correctly formed delivery to a listener id the target does not have is answered 404 NOT_FOUND.",
    spec=f"{WH}#/post/responses/404",
    seed="Endpoints > Inbound webhook listener",
)
def unknown_listener(ctx: Context) -> None:
    listener = any_listener(ctx)
    unknown = f"wh_conformance_unknown_{ctx.rng.getrandbits(32):08x}"
    ctx.expect(ctx.deliver(listener, path_listener_id=unknown), 404, code="NOT_FOUND")


@rule(
    "WH-CIDR-001",
    family=FAMILY,
    title="A source outside the listener's CIDR ranges is refused",
    text="A correctly authenticated delivery from an address outside the listener's allowed ranges is answered "
    "403 SOURCE_NOT_ALLOWED.",
    spec="spec/components/responses/WebhookForbidden.yaml",
    seed="Authentication > IP restriction",
)
def cidr_refused(ctx: Context) -> None:
    listener = _outside(ctx)
    ctx.expect(ctx.deliver(listener), 403, code="SOURCE_NOT_ALLOWED")


@rule(
    "WH-CIDR-002",
    family=FAMILY,
    title="The source is checked before the credential",
    text="A delivery with a wrong credential from outside the allowed ranges is answered 403, not 401.",
    spec=f"{WH}#/post/description",
    seed="Endpoints > Inbound webhook listener (processing order)",
)
def cidr_before_auth(ctx: Context) -> None:
    listener = _outside(ctx)
    ctx.expect(ctx.deliver(listener, sign_body=b'{"other":1}'), 403, code="SOURCE_NOT_ALLOWED")


@rule(
    "WH-CIDR-003",
    family=FAMILY,
    title="A source inside the listener's CIDR ranges is served",
    text="A listener restricted to ranges that include the kit's address accepts its deliveries (200).",
    spec="spec/components/responses/WebhookForbidden.yaml#/description",
    seed="Authentication > IP restriction",
)
def cidr_allowed(ctx: Context) -> None:
    restricted = [item for item in ctx.config.listeners if item.cidr_restricted and item.source_allowed]
    if not restricted:
        raise NotApplicable("the configuration names no CIDR-restricted listener whose ranges include the kit")
    accepted(ctx, ctx.deliver(restricted[0]))
