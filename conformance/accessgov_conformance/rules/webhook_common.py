"""Webhook rules that hold whatever the listener's method: headers, content type, timestamp text and window, event
id, JSON body, size, idempotency per listener, processing order, source CIDR ranges, automation outcomes."""

from __future__ import annotations

from collections.abc import Callable

from ..config import Listener
from ..context import Context, Exchange
from ..registry import Variant, rule, variants
from ..verdicts import Fail, NotApplicable
from ._webhook import (
    SECTION_ERRORS,
    SECTION_HEADERS,
    WH,
    accepted,
    any_listener,
    hmac_listener,
    in_one_second,
    inside_outside,
    runs,
    send_raw,
    signed_headers,
    uuid_v1,
    uuid_version,
)

FAMILY = "webhook"
WINDOW = 300
WINDOW_INSIDE = 298  # seconds; 2 s short of the 300 s limit, for the clock reads and the request's latency
WINDOW_OUTSIDE = 302
MAX_BODY = 64 * 1024
FORWARDING = ("X-Forwarded-For", "Forwarded", "X-Real-IP", "True-Client-IP", "CF-Connecting-IP")
TS_SPEC = "spec/components/parameters/WebhookTimestamp.yaml#/description"
EID_SPEC = "spec/components/parameters/WebhookEventId.yaml#/description"
PAYLOAD_SPEC = "spec/components/schemas/WebhookPayload.yaml#/description"
CT_SPEC = f"{WH}#/post/requestBody/description"
FORGED = b'{"other":1}'  # what a wrong credential is made over (`deliver`'s sign_body): another body than sent


def _outside(ctx: Context) -> Listener:
    """A listener whose CIDR ranges exclude the kit's address (HMAC or JWT)."""
    found = [item for item in ctx.config.listeners if not item.source_allowed]
    if not found:
        raise NotApplicable("the configuration names no listener whose CIDR ranges exclude the kit's address")
    return found[0]


def _restricted(ctx: Context) -> Listener:
    """A CIDR-restricted listener whose ranges include the kit's address and whose automation runs."""
    found = [item for item in ctx.config.listeners if item.cidr_restricted and runs(item)]
    if not found:
        raise NotApplicable("the configuration names no CIDR-restricted listener whose ranges include the kit")
    return found[0]


def _delivered_once(ctx: Context) -> tuple[Listener, str]:
    """A listener and a fresh event id it has just accepted: what a replay is sent again with."""
    listener = any_listener(ctx)
    event_id = ctx.event_id()
    accepted(ctx, ctx.deliver(listener, event_id=event_id), what="first delivery")
    return listener, event_id


def _padded_body(size: int) -> bytes:
    """A JSON object of exactly `size` bytes."""
    prefix, suffix = b'{"pad":"', b'"}'
    return prefix + b"x" * (size - len(prefix) - len(suffix)) + suffix


def _forwarded(header: str, address: str) -> str:
    if header != "Forwarded":
        return address
    return f'for="[{address}]"' if ":" in address else f"for={address}"


@rule(
    "WH-ACCEPT-001",
    family=FAMILY,
    title="A correctly authenticated delivery is accepted",
    text="A delivery with valid headers and credential is answered 200 with a WebhookAcceptedResponse naming "
    "its event id, its run not skipped (the listener's automation is published and enabled).",
    spec=f"{WH}#/post/responses/200",
    requirements=SECTION_ERRORS,
    mock=True,
)
def accept(ctx: Context) -> None:
    accepted(ctx, ctx.deliver(any_listener(ctx)))


def missing_header(ctx: Context, header: str) -> None:
    ctx.expect(ctx.deliver(any_listener(ctx), omit=(header,)), 400, code="MISSING_HEADER")


variants(
    FAMILY,
    missing_header,
    (
        Variant(
            "WH-HDR-001",
            title="Webhook-Timestamp is required",
            text="A delivery without Webhook-Timestamp is answered 400 MISSING_HEADER.",
            spec="spec/components/parameters/WebhookTimestamp.yaml#/required",
            requirements=SECTION_HEADERS,
            value="Webhook-Timestamp",
            mock=True,
        ),
        Variant(
            "WH-HDR-002",
            title="Webhook-Event-Id is required",
            text="A delivery without Webhook-Event-Id is answered 400 MISSING_HEADER.",
            spec="spec/components/parameters/WebhookEventId.yaml#/required",
            requirements=SECTION_HEADERS,
            value="Webhook-Event-Id",
            mock=True,
        ),
    ),
)


REFUSED_TYPES = (
    "text/plain",
    "text/json",
    "application/jsonx",
    "application/json-patch+json",
    "multipart/form-data; boundary=x",
    "application/x-www-form-urlencoded",
)


@rule(
    "WH-HDR-003",
    family=FAMILY,
    title="Content-Type must be application/json",
    text="A delivery whose media type is not application/json (text/plain, text/json, application/jsonx, "
    "application/json-patch+json, multipart/form-data, form-urlencoded) is answered 400 INVALID_CONTENT_TYPE; "
    "one without Content-Type 400 (MISSING_HEADER or INVALID_CONTENT_TYPE).",
    spec=CT_SPEC,
    requirements=SECTION_HEADERS,
    mock=True,
)
def wrong_content_type(ctx: Context) -> None:
    listener = any_listener(ctx)
    for media in REFUSED_TYPES:
        ctx.expect(ctx.deliver(listener, content_type=media), 400, code="INVALID_CONTENT_TYPE", what=media)
    body = ctx.expect(ctx.deliver(listener, content_type=None), 400, what="no Content-Type")
    if body.get("code") not in ("MISSING_HEADER", "INVALID_CONTENT_TYPE"):
        raise Fail(f"no Content-Type: Error.code is {body.get('code')!r}, not MISSING_HEADER or INVALID_CONTENT_TYPE")


ALLOWED_TYPES = (
    "application/json; charset=utf-8",
    'application/json; charset="utf-8"',
    "application/json;charset=UTF-8",
    "Application/JSON",
)


@rule(
    "WH-HDR-004",
    family=FAMILY,
    title="application/json with parameters or in other letter case is accepted",
    text='Deliveries with Content-Type `application/json; charset=utf-8`, `application/json; charset="utf-8"`, '
    "`application/json;charset=UTF-8` and `Application/JSON` are accepted (200).",
    spec=CT_SPEC,
    requirements=SECTION_HEADERS,
)
def content_type_parameters(ctx: Context) -> None:
    listener = any_listener(ctx)
    for media in ALLOWED_TYPES:
        accepted(ctx, ctx.deliver(listener, content_type=media), what=f"Content-Type {media}")


def _timestamp_forms(now: int) -> dict[str, str]:
    text = str(now)
    return {
        "fraction": f"{text}.5",
        "fraction-zero": f"{text}.0",
        "iso-8601": "2026-01-01T00:00:00Z",
        "milliseconds": f"{text}000",
        "plus-sign": f"+{text}",
        "minus-sign": f"-{text}",
        "exponent": f"{text[0]}.{text[1:]}e{len(text) - 1}",
        "inner-space": f"{text[:5]} {text[5:]}",
        "hex": hex(now),
        "empty": "",
    }


@rule(
    "WH-TS-001",
    family=FAMILY,
    title="Webhook-Timestamp is whole Unix seconds in ASCII digits",
    text="A timestamp that is not decimal seconds (a fraction, .0, ISO 8601, milliseconds, a + or - sign, an "
    "exponent, a space inside, hex, empty, other scripts' digits) is answered 400 INVALID_TIMESTAMP.",
    spec="spec/components/parameters/WebhookTimestamp.yaml#/schema",
    requirements=SECTION_HEADERS,
    mock=True,
)
def timestamp_format(ctx: Context) -> None:
    listener = any_listener(ctx)
    for name, value in _timestamp_forms(ctx.now()).items():
        ctx.expect(ctx.deliver(listener, timestamp=value), 400, code="INVALID_TIMESTAMP", what=f"timestamp {name}")
    if listener.method == "hmac":
        arabic = str(ctx.now()).translate(str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩")).encode()
        body = b'{"conformance":true}'
        headers = signed_headers(ctx, listener, body, timestamp=arabic, event_id=ctx.event_id())
        exchange = send_raw(ctx, listener, body, headers)
        ctx.expect(exchange, 400, code="INVALID_TIMESTAMP", what="timestamp in Arabic-Indic digits")


@rule(
    "WH-TS-004",
    family=FAMILY,
    title="A timestamp with leading zeros is the same number",
    text="A Webhook-Timestamp of now with a leading 0 (still at most 12 digits, signed as sent) is accepted (200).",
    spec=TS_SPEC,
    requirements=SECTION_HEADERS,
)
def timestamp_leading_zero(ctx: Context) -> None:
    accepted(ctx, ctx.deliver(any_listener(ctx), timestamp=f"0{ctx.now()}"))


def _stamped(ctx: Context, exchange: Exchange, offset: int) -> None:
    """A delivery stamped `offset` s from now: accepted inside the window, 400 TIMESTAMP_OUT_OF_WINDOW outside."""
    what = f"timestamp now{offset:+d} s"
    if abs(offset) <= WINDOW:
        accepted(ctx, exchange, what=what)
    else:
        ctx.expect(exchange, 400, code="TIMESTAMP_OUT_OF_WINDOW", what=what)


def window_both_ways(ctx: Context, seconds: int) -> None:
    listener = any_listener(ctx)
    for offset in (-seconds, seconds):
        _stamped(ctx, ctx.deliver(listener, timestamp_offset=offset), offset)


variants(
    FAMILY,
    window_both_ways,
    (
        Variant(
            "WH-TS-002",
            title="A timestamp just inside the 5-minute window is accepted (both directions)",
            text=f"Deliveries stamped now-{WINDOW_INSIDE} s and now+{WINDOW_INSIDE} s are accepted (200).",
            spec=TS_SPEC,
            requirements="Limits (Webhook-Timestamp skew)",
            value=WINDOW_INSIDE,
        ),
        Variant(
            "WH-TS-003",
            title="A timestamp just outside the 5-minute window is refused (both directions)",
            text=f"Deliveries stamped now-{WINDOW_OUTSIDE} s and now+{WINDOW_OUTSIDE} s are answered 400 "
            "TIMESTAMP_OUT_OF_WINDOW.",
            spec=TS_SPEC,
            requirements="Limits (Webhook-Timestamp skew)",
            value=WINDOW_OUTSIDE,
        ),
    ),
)


@rule(
    "WH-TS-005",
    family=FAMILY,
    title="The window is exactly 300 s, inclusive",
    text="Stamped now-300 and now+300 a delivery is accepted; now-301 and now+301 it is 400 "
    "TIMESTAMP_OUT_OF_WINDOW. The four go within one second of the kit's clock, early in it and, when an "
    "edge is wrong, again mid-second: an edge fails when both batches get it wrong (clocks a fraction apart).",
    spec=TS_SPEC,
    requirements="Limits (Webhook-Timestamp skew)",
)
def window_edges(ctx: Context) -> None:
    listener = any_listener(ctx)
    offsets = (-WINDOW, WINDOW, -WINDOW - 1, WINDOW + 1)

    def sender(offset: int) -> Callable[[], Exchange]:
        return lambda: ctx.deliver(listener, timestamp_offset=offset)

    def judged(start: float) -> dict[int, Fail]:
        """The edges the target got wrong in a batch started `start` s into a second of the kit's clock."""
        wrong: dict[int, Fail] = {}
        batch = in_one_second(ctx, [sender(offset) for offset in offsets], start)
        for offset, exchange in zip(offsets, batch, strict=True):
            try:
                _stamped(ctx, exchange, offset)
            except Fail as failure:
                wrong[offset] = failure
        return wrong

    # A target whose clock is a fraction of a second off the kit's reads another whole second at some moments of
    # the kit's: an edge counts as wrong only when two batches, early and mid-second, both get it wrong.
    early = judged(0.05)
    if early:
        both = [offset for offset in judged(0.5) if offset in early]
        if both:
            raise early[both[0]]


def _event_id_forms(ctx: Context) -> dict[str, str]:
    good = ctx.event_id()
    bad_variant = good[:19] + "c" + good[20:]
    return {
        "not-uuid": "not-a-uuid",
        "braces": "{" + good + "}",
        "urn": "urn:uuid:" + good,
        "no-hyphens": good.replace("-", ""),
        "nil": "00000000-0000-0000-0000-000000000000",
        "max": "ffffffff-ffff-ffff-ffff-ffffffffffff",
        "bad-variant": bad_variant,
        "trailing-character": good + "0",
        "empty": "",
    }


@rule(
    "WH-EID-001",
    family=FAMILY,
    title="Webhook-Event-Id must be a canonical UUID",
    text="An event id that is not a hyphenated 8-4-4-4-12 UUID v4 (text, braces, urn:uuid:, no hyphens, nil, "
    "max, another variant, a trailing character, empty) is answered 400 INVALID_EVENT_ID.",
    spec="spec/components/parameters/WebhookEventId.yaml#/schema",
    requirements=SECTION_HEADERS,
    mock=True,
)
def event_id_not_uuid(ctx: Context) -> None:
    listener = any_listener(ctx)
    for name, value in _event_id_forms(ctx).items():
        # An empty value goes in as a header override: `deliver` reads an empty event_id as "make one up".
        exchange = ctx.deliver(listener, extra_headers={"Webhook-Event-Id": value}) if not value else None
        exchange = exchange or ctx.deliver(listener, event_id=value)
        ctx.expect(exchange, 400, code="INVALID_EVENT_ID", what=f"event id {name}")


@rule(
    "WH-EID-002",
    family=FAMILY,
    title="Webhook-Event-Id must be a UUID of version 4",
    text="Well-formed UUIDs of versions 1, 3, 5 and 7 are answered 400 INVALID_EVENT_ID.",
    spec=EID_SPEC,
    requirements=SECTION_HEADERS,
    mock=True,
)
def event_id_not_v4(ctx: Context) -> None:
    listener = any_listener(ctx)
    for version in (1, 3, 5, 7):
        value = uuid_v1(ctx) if version == 1 else uuid_version(ctx, version)
        exchange = ctx.deliver(listener, event_id=value)
        ctx.expect(exchange, 400, code="INVALID_EVENT_ID", what=f"UUID version {version}")


@rule(
    "WH-EID-003",
    family=FAMILY,
    title="An upper- or mixed-case UUID v4 is a valid event id",
    text="A Webhook-Event-Id of upper-case hex digits, and one of mixed case (the spec's pattern allows A-F), are "
    "accepted (200).",
    spec="spec/components/parameters/WebhookEventId.yaml#/schema/pattern",
    requirements=SECTION_HEADERS,
    mock=True,
)
def event_id_upper_case(ctx: Context) -> None:
    listener = any_listener(ctx)
    accepted(ctx, ctx.deliver(listener, event_id=ctx.event_id().upper()), what="upper case")
    mixed = "".join(ch.upper() if i % 2 else ch for i, ch in enumerate(ctx.event_id()))
    accepted(ctx, ctx.deliver(listener, event_id=mixed), what="mixed case")


NOT_JSON = {
    "truncated": b'{"orderId": ',
    "nan": b'{"amount":NaN}',
    "infinity": b'{"amount":Infinity}',
    "minus-infinity": b"-Infinity",
    "empty": b"",
    "bom": b'\xef\xbb\xbf{"conformance":true}',
    "invalid-utf8": b'{"name":"\xff\xfe"}',
    "trailing-garbage": b'{"conformance":true} x',
    "two-values": b'{"a":1}{"b":2}',
    "single-quotes": b"{'a':1}",
    "lone-high-surrogate": b'{"name":"\\ud800"}',
    "lone-low-surrogate": b'["x\\udc00"]',
    "huge-number": b'{"amount":1e400}',
}
# JSON text beyond the grammar (info.description "JSON text": strings are Unicode text, numbers a double holds).
STRICT_JSON = ("lone-high-surrogate", "lone-low-surrogate", "huge-number")


@rule(
    "WH-JSON-001",
    family=FAMILY,
    title="The body must be JSON text",
    text="Correctly signed bodies that are not JSON text (truncated, NaN, Infinity, -Infinity, empty, a UTF-8 "
    "BOM, invalid UTF-8, trailing garbage, two values, single quotes, an unpaired surrogate escape, a number a "
    "double cannot hold) are answered 400 INVALID_JSON.",
    spec=PAYLOAD_SPEC,
    requirements=SECTION_ERRORS,
    mock=True,
)
def body_not_json(ctx: Context) -> None:
    listener = any_listener(ctx)
    for name, body in NOT_JSON.items():
        if ctx.config.is_mock and name in STRICT_JSON:
            continue  # a mock's JSON parser is its framework's: held to the grammar only
        ctx.expect(ctx.deliver(listener, body=body), 400, code="INVALID_JSON", what=f"body {name}")


ANY_JSON = {
    "array": b'[1,"two",{"three":3}]',
    "string": b'"text"',
    "number": b"42",
    "boolean": b"true",
    "null": b"null",
    "duplicate-keys": b'{"a":1,"a":2}',
    "whitespace": b' \n{ "a" : [ 1 , 2 ] }\n',
}


@rule(
    "WH-JSON-002",
    family=FAMILY,
    title="Any JSON value is a valid body",
    text="Correctly signed JSON bodies that are not objects (an array, a string, a number, true, null), an object "
    "with a duplicate member name and one with insignificant whitespace are accepted (200).",
    spec="spec/components/schemas/WebhookPayload.yaml",
    requirements="Events (the event payload is the JSON body; field names defined by the sender)",
    mock=True,
)
def any_json_value(ctx: Context) -> None:
    listener = any_listener(ctx)
    for name, body in ANY_JSON.items():
        accepted(ctx, ctx.deliver(listener, body=body), what=f"body {name}")


@rule(
    "WH-JSON-003",
    family=FAMILY,
    title="Deeply nested JSON is refused or accepted, never an error of the server",
    text="A body of 20,000 nested arrays (40 KB) is answered 400 INVALID_JSON or 200, never a 5xx.",
    spec=PAYLOAD_SPEC,
    requirements=SECTION_ERRORS,
)
def deep_nesting(ctx: Context) -> None:
    exchange = ctx.deliver(any_listener(ctx), body=b"[" * 20_000 + b"]" * 20_000)
    if exchange.status == 200:
        accepted(ctx, exchange, what="deeply nested body")
    else:
        ctx.expect(exchange, 400, code="INVALID_JSON", what="deeply nested body")


def _sized(ctx: Context, exchange: Exchange, size: int, what: str = "", event_id: str | None = None) -> None:
    """A delivery of a `size`-byte body: accepted up to the limit, 413 PAYLOAD_TOO_LARGE beyond it."""
    if size <= MAX_BODY:
        accepted(ctx, exchange, event_id, what=what)
    else:
        ctx.expect(exchange, 413, code="PAYLOAD_TOO_LARGE", what=what)


def body_size(ctx: Context, size: int) -> None:
    _sized(ctx, ctx.deliver(any_listener(ctx), body=_padded_body(size)), size)


variants(
    FAMILY,
    body_size,
    (
        Variant(
            "WH-SIZE-001",
            title="A body of exactly 64 KB is accepted",
            text=f"A JSON body of {MAX_BODY} bytes is within the limit (200).",
            spec=f"{WH}#/post/requestBody/description",
            requirements="Limits (Webhook body size)",
            value=MAX_BODY,
        ),
        Variant(
            "WH-SIZE-002",
            title="A body over 64 KB is refused",
            text=f"A JSON body of {MAX_BODY + 1} bytes is answered 413 PAYLOAD_TOO_LARGE.",
            spec="spec/components/responses/PayloadTooLarge.yaml",
            requirements="Limits (Webhook body size)",
            value=MAX_BODY + 1,
        ),
    ),
)


@rule(
    "WH-SIZE-003",
    family=FAMILY,
    title="A chunked body is held to the same 64 KB",
    text=f"Correctly signed JSON bodies sent with Transfer-Encoding: chunked (no Content-Length): {MAX_BODY} "
    f"bytes are accepted (200), {MAX_BODY + 1} bytes answered 413 PAYLOAD_TOO_LARGE.",
    spec=f"{WH}#/post/requestBody/description",
    requirements="Limits (Webhook body size)",
)
def chunked_over_limit(ctx: Context) -> None:
    listener = hmac_listener(ctx)
    for size in (MAX_BODY, MAX_BODY + 1):
        body, event_id = _padded_body(size), ctx.event_id()
        headers = signed_headers(ctx, listener, body, timestamp=str(ctx.now()), event_id=event_id)
        exchange = send_raw(ctx, listener, body, headers, chunked=True)
        _sized(ctx, exchange, size, f"a chunked body of {size} bytes", event_id)


@rule(
    "WH-IDEM-001",
    family=FAMILY,
    title="A repeated event id on the same listener is a duplicate",
    text="A second delivery with the same Webhook-Event-Id to the same listener is answered 409 DUPLICATE_EVENT.",
    spec="spec/components/responses/DuplicateEvent.yaml",
    requirements="Events (Idempotency)",
)
def duplicate(ctx: Context) -> None:
    listener, event_id = _delivered_once(ctx)
    ctx.expect(ctx.deliver(listener, event_id=event_id), 409, code="DUPLICATE_EVENT", what="second delivery")


@rule(
    "WH-IDEM-004",
    family=FAMILY,
    title="The event id alone decides a replay: another body is still a duplicate",
    text="A second delivery with the same Webhook-Event-Id and another (correctly signed) body is answered 409 "
    "DUPLICATE_EVENT.",
    spec="spec/components/responses/DuplicateEvent.yaml#/description",
    requirements="Events (Idempotency)",
)
def duplicate_other_body(ctx: Context) -> None:
    listener = any_listener(ctx)
    event_id = ctx.event_id()
    accepted(ctx, ctx.deliver(listener, event_id=event_id, body=b'{"n":1}'), what="first delivery")
    exchange = ctx.deliver(listener, event_id=event_id, body=b'{"n":2}')
    ctx.expect(exchange, 409, code="DUPLICATE_EVENT", what="same event id, another body")


@rule(
    "WH-IDEM-005",
    family=FAMILY,
    title="The same event id in other letter case is a duplicate",
    text="After a delivery with a lower-case Webhook-Event-Id, the same UUID in upper case is answered 409 "
    "DUPLICATE_EVENT; after an upper-case one, the lower-case id is too.",
    spec=EID_SPEC,
    requirements="Events (Idempotency)",
)
def duplicate_other_case(ctx: Context) -> None:
    listener = any_listener(ctx)
    for first, second in ((str.lower, str.upper), (str.upper, str.lower)):
        event_id = ctx.event_id()
        accepted(ctx, ctx.deliver(listener, event_id=first(event_id)), what=f"first delivery ({first.__name__})")
        exchange = ctx.deliver(listener, event_id=second(event_id))
        ctx.expect(exchange, 409, code="DUPLICATE_EVENT", what=f"the same id in {second.__name__} case")


@rule(
    "WH-IDEM-002",
    family=FAMILY,
    title="Idempotency is per listener",
    text="The same Webhook-Event-Id delivered to another listener is not a duplicate (200 on both).",
    spec=EID_SPEC,
    requirements="Events (Idempotency: same event ID for the same listener)",
)
def per_listener(ctx: Context) -> None:
    reachable = [item for item in ctx.config.listeners if runs(item)]
    if len(reachable) < 2:
        raise NotApplicable("the configuration names no second listener the kit may reach whose automation runs")
    first, second = reachable[:2]
    event_id = ctx.event_id()
    accepted(ctx, ctx.deliver(first, event_id=event_id), what=f"listener {first.id}")
    accepted(ctx, ctx.deliver(second, event_id=event_id), what=f"same event id on listener {second.id}")


@rule(
    "WH-IDEM-003",
    family=FAMILY,
    title="A refused delivery does not consume its event id",
    text="After a 400 (timestamp outside the window), a 400 (body not JSON), a 401 (wrong signature) or a 413 "
    "(body too large) the same event id is still accepted once (200).",
    spec="spec/components/responses/DuplicateEvent.yaml#/description",
    requirements="Endpoints > Inbound webhook listener (processing order)",
)
def refused_not_consumed(ctx: Context) -> None:
    listener = any_listener(ctx)
    # what, the status, and the refused delivery of an event id
    refusals: list[tuple[str, int, Callable[[str], Exchange]]] = [
        ("stale timestamp", 400, lambda event_id: ctx.deliver(listener, event_id=event_id, timestamp_offset=-3600)),
        ("body not JSON", 400, lambda event_id: ctx.deliver(listener, b"{not json", event_id=event_id)),
        ("body too large", 413, lambda event_id: ctx.deliver(listener, _padded_body(MAX_BODY + 1), event_id=event_id)),
    ]

    def signed_over_another_body(event_id: str) -> Exchange:
        return ctx.deliver(listener, event_id=event_id, sign_body=FORGED)

    if listener.method == "hmac":
        refusals.append(("wrong signature", 401, signed_over_another_body))
    for what, status, refused in refusals:
        event_id = ctx.event_id()
        ctx.expect(refused(event_id), status, what=what)
        accepted(ctx, ctx.deliver(listener, event_id=event_id), what=f"same event id after the {status} ({what})")


@rule(
    "WH-ORDER-001",
    family=FAMILY,
    title="The request's shape is checked before its credential",
    text="A delivery with a wrong credential and a missing Webhook-Timestamp, or a body that is not JSON, is "
    "answered 400 (MISSING_HEADER, INVALID_JSON), not 401.",
    spec=f"{WH}#/post/description",
    requirements="Endpoints > Inbound webhook listener (processing order)",
    mock=True,
)
def shape_before_auth(ctx: Context) -> None:
    listener = any_listener(ctx)
    exchange = ctx.deliver(listener, omit=("Webhook-Timestamp",), sign_body=FORGED)
    ctx.expect(exchange, 400, code="MISSING_HEADER", what="no timestamp, wrong credential")
    exchange = ctx.deliver(listener, body=b"{not json", sign_body=FORGED)
    ctx.expect(exchange, 400, code="INVALID_JSON", what="body not JSON, wrong credential")


@rule(
    "WH-ORDER-002",
    family=FAMILY,
    title="The shape is checked before idempotency",
    text="A replay of an accepted event id with a timestamp outside the window is answered 400, not 409.",
    spec=f"{WH}#/post/description",
    requirements="Endpoints > Inbound webhook listener (processing order)",
)
def shape_before_idempotency(ctx: Context) -> None:
    listener, event_id = _delivered_once(ctx)
    exchange = ctx.deliver(listener, event_id=event_id, timestamp_offset=-3600)
    ctx.expect(exchange, 400, code="TIMESTAMP_OUT_OF_WINDOW", what="stale replay")


@rule(
    "WH-ORDER-003",
    family=FAMILY,
    title="Authentication is checked before idempotency",
    text="A replay of an accepted event id with a wrong credential is answered 401, not 409; one without a "
    "credential 401 MISSING_AUTHENTICATION.",
    spec="spec/components/responses/WebhookUnauthorized.yaml#/description",
    requirements="Endpoints > Inbound webhook listener (processing order)",
)
def auth_before_idempotency(ctx: Context) -> None:
    listener, event_id = _delivered_once(ctx)
    ctx.expect(ctx.deliver(listener, event_id=event_id, sign_body=FORGED), 401, what="forged replay")
    header = "Webhook-Signature" if listener.method == "hmac" else "Authorization"
    exchange = ctx.deliver(listener, event_id=event_id, omit=(header,))
    ctx.expect(exchange, 401, code="MISSING_AUTHENTICATION", what="unauthenticated replay")


@rule(
    "WH-404-001",
    family=FAMILY,
    title="An unknown listener is 404",
    text="A correctly formed delivery to a listener id the target does not have is answered 404 NOT_FOUND.",
    spec=f"{WH}#/post/responses/404",
    requirements="Endpoints > Inbound webhook listener",
)
def unknown_listener(ctx: Context) -> None:
    listener = any_listener(ctx)
    unknown = f"wh_conformance_unknown_{ctx.rng.getrandbits(32):08x}"
    ctx.expect(ctx.deliver(listener, path_listener_id=unknown), 404, code="NOT_FOUND")


def source_refused(ctx: Context, forged: bool) -> None:
    """A delivery to a listener whose ranges exclude the kit, its credential made over another body if `forged`."""
    sign_body = FORGED if forged else None
    ctx.expect(ctx.deliver(_outside(ctx), sign_body=sign_body), 403, code="SOURCE_NOT_ALLOWED")


variants(
    FAMILY,
    source_refused,
    (
        Variant(
            "WH-CIDR-001",
            title="A source outside the listener's CIDR ranges is refused",
            text="A correctly authenticated delivery from an address outside the listener's allowed ranges is "
            "answered 403 SOURCE_NOT_ALLOWED.",
            spec="spec/components/responses/WebhookForbidden.yaml",
            requirements="Authentication > IP restriction",
            value=False,
        ),
        Variant(
            "WH-CIDR-002",
            title="The source is checked before the credential",
            text="A delivery with a wrong credential from outside the allowed ranges is answered 403, not 401.",
            spec=f"{WH}#/post/description",
            requirements="Endpoints > Inbound webhook listener (processing order)",
            value=True,
        ),
    ),
)


@rule(
    "WH-CIDR-003",
    family=FAMILY,
    title="A source inside the listener's CIDR ranges is served",
    text="A listener restricted to ranges that include the kit's address accepts its deliveries (200).",
    spec="spec/components/responses/WebhookForbidden.yaml#/description",
    requirements="Authentication > IP restriction",
)
def cidr_allowed(ctx: Context) -> None:
    accepted(ctx, ctx.deliver(_restricted(ctx)))


def forwarding_changes_nothing(ctx: Context, excluded: bool) -> None:
    """Deliveries from the kit (not a trusted proxy) naming, in each forwarding header, an address on the other side
    of the listener's ranges than the kit: refused as the kit is when the ranges exclude it, else accepted."""
    listener = _outside(ctx) if excluded else _restricted(ctx)
    inside, outside = inside_outside(listener)
    address = inside if excluded else outside
    if address is None:
        where = "pick an address in" if excluded else "pick an address off"
        raise NotApplicable(f"listener {listener.id}: the configuration gives no allowed_cidrs to {where}")
    for header in FORWARDING:
        exchange = ctx.deliver(listener, extra_headers={header: _forwarded(header, address)})
        if excluded:
            ctx.expect(exchange, 403, code="SOURCE_NOT_ALLOWED", what=f"{header}: {address}")
        else:
            accepted(ctx, exchange, what=f"{header}: {address}")


variants(
    FAMILY,
    forwarding_changes_nothing,
    (
        Variant(
            "WH-CIDR-004",
            title="A forwarding header cannot get a refused source in",
            text="From the kit (not a trusted proxy), deliveries to a listener whose ranges exclude it, each naming "
            "an address inside the ranges in X-Forwarded-For, Forwarded, X-Real-IP, True-Client-IP or "
            "CF-Connecting-IP, are answered 403 SOURCE_NOT_ALLOWED.",
            spec="spec/components/responses/WebhookForbidden.yaml#/description",
            requirements="Authentication > IP restriction",
            value=True,
        ),
        Variant(
            "WH-CIDR-005",
            title="A forwarding header cannot lock an allowed source out",
            text="From the kit (not a trusted proxy), deliveries to a listener whose ranges include it, each naming "
            "an address outside the ranges in X-Forwarded-For, Forwarded, X-Real-IP, True-Client-IP or "
            "CF-Connecting-IP, are accepted (200).",
            spec="spec/components/responses/WebhookForbidden.yaml#/description",
            requirements="Authentication > IP restriction",
            value=False,
        ),
    ),
)


def _skipping(ctx: Context, published: bool) -> Listener:
    found = [
        item
        for item in ctx.config.listeners
        if item.source_allowed and item.automation_published == published and item.trigger_enabled != published
    ]
    if not found:
        kind = "trigger_enabled = false" if published else "automation_published = false"
        raise NotApplicable(f"the configuration names no reachable listener with {kind}")
    return found[0]


def skipped_and_replayed(ctx: Context, published: bool) -> None:
    """A listener whose automation is published but its trigger disabled (or unpublished, its trigger enabled):
    a delivery is accepted, its run skipped with a reason, and its replay is a duplicate."""
    listener = _skipping(ctx, published)
    event_id = ctx.event_id()
    exchange: Exchange = ctx.deliver(listener, event_id=event_id)
    accepted(ctx, exchange, event_id, what=f"listener {listener.id}", skipped=True)
    ctx.expect(ctx.deliver(listener, event_id=event_id), 409, code="DUPLICATE_EVENT", what="replay")


variants(
    FAMILY,
    skipped_and_replayed,
    (
        Variant(
            "WH-RUN-001",
            title="A disabled trigger: accepted, the run skipped with its reason",
            text="A delivery to a listener whose trigger is disabled is answered 200 naming the event, with "
            "automationRun.status AUTOMATION_RUN_STATUS_SKIPPED and a reason; its replay is 409.",
            spec="spec/components/schemas/WebhookAcceptedResponse.yaml#/description",
            requirements="Errors (When the automation does not run despite 200 ...)",
            value=True,
        ),
        Variant(
            "WH-RUN-002",
            title="An unpublished automation: accepted, the run skipped with its reason",
            text="A delivery to a listener whose automation is unpublished is answered 200 naming the event, with "
            "automationRun.status AUTOMATION_RUN_STATUS_SKIPPED and a reason; its replay is 409.",
            spec="spec/components/schemas/AutomationRunStatus.yaml#/description",
            requirements="Endpoints > Inbound webhook listener (runs only when published and enabled)",
            value=False,
        ),
    ),
)


@rule(
    "WH-RUN-003",
    family=FAMILY,
    title="Each accepted delivery names a run of its own",
    text="Three deliveries to a listener, one to a second listener and one to each listener whose run is skipped "
    "are each answered 200 naming an automationRun.id no other delivery of the run was answered with: a run per "
    "accepted event.",
    spec="spec/components/schemas/AutomationRun.yaml#/description",
    requirements="Endpoints > Inbound webhook listener (the 200 names the run)",
)
def run_per_delivery(ctx: Context) -> None:
    first = any_listener(ctx)
    others = [item for item in ctx.config.listeners if item.source_allowed and item is not first]
    seen: dict[str, str] = {}
    for number, listener in enumerate([first, first, first, *others], 1):
        skipped = not runs(listener)
        what = f"delivery {number} (listener {listener.id})"
        body = accepted(ctx, ctx.deliver(listener), what=what, skipped=skipped)
        run = body.get("automationRun")
        run_id = run.get("id") if isinstance(run, dict) else None
        if not isinstance(run_id, str) or not run_id:
            raise Fail(f"{what}: the 200 names no run (automationRun.id {run_id!r})")
        if run_id in seen:
            raise Fail(f"{what} was answered with run {run_id!r}, already the run of {seen[run_id]}: one run per event")
        seen[run_id] = what
