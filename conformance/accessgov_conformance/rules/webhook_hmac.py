"""HMAC listener rules: what the signature covers and how it is keyed."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from collections.abc import Callable
from typing import Any

from ..context import Context
from ..registry import Variant, rule, variants
from ..signing import b64url
from ._webhook import SECTION_ERRORS, accepted, hmac_listener

FAMILY = "webhook-hmac"
SCHEME = "spec/components/securitySchemes/webhookHmac"
SECTION = "Authentication > HMAC method"


@rule(
    "WH-HMAC-001",
    family=FAMILY,
    title="The HMAC signature is checked",
    text="A signature made with another secret is answered 401 SIGNATURE_MISMATCH.",
    spec="spec/components/schemas/Error.yaml#/description (SIGNATURE_MISMATCH)",
    requirements=SECTION_ERRORS,
)
def wrong_secret(ctx: Context) -> None:
    listener = hmac_listener(ctx)
    other = base64.urlsafe_b64encode(ctx.rng.randbytes(32)).rstrip(b"=").decode()
    ctx.expect(ctx.deliver(listener, secret=other), 401, code="SIGNATURE_MISMATCH")


@rule(
    "WH-HMAC-002",
    family=FAMILY,
    title="An HMAC listener requires Webhook-Signature",
    text="A delivery without Webhook-Signature, or with an empty one, is answered 401 MISSING_AUTHENTICATION.",
    spec="spec/components/schemas/Error.yaml#/description (MISSING_AUTHENTICATION)",
    requirements=SECTION_ERRORS,
    mock=True,
)
def missing_signature(ctx: Context) -> None:
    listener = hmac_listener(ctx)
    ctx.expect(ctx.deliver(listener, omit=("Webhook-Signature",)), 401, code="MISSING_AUTHENTICATION", what="absent")
    exchange = ctx.deliver(listener, extra_headers={"Webhook-Signature": ""})
    ctx.expect(exchange, 401, code="MISSING_AUTHENTICATION", what="empty value")


# what is forged -> `deliver`'s overrides making the signature cover something other than what is sent
Forgeries = Callable[[Context], dict[str, dict[str, Any]]]


def mismatched(ctx: Context, forgeries: Forgeries) -> None:
    """Each delivery, signed over an input other than the one sent, is 401 SIGNATURE_MISMATCH."""
    listener = hmac_listener(ctx)
    for what, overrides in forgeries(ctx).items():
        ctx.expect(ctx.deliver(listener, **overrides), 401, code="SIGNATURE_MISMATCH", what=what)


variants(
    FAMILY,
    mismatched,
    (
        Variant[Forgeries](
            "WH-HMAC-003",
            title="The signature covers the exact body",
            text="A body changed after signing (one byte), or a signature over the input without the body, is 401.",
            spec=f"{SCHEME} (signature input {{timestamp}}.{{event_id}}.{{body}})",
            requirements=f"{SECTION} (6. any change to the body invalidates the signature)",
            value=lambda ctx: {
                "body changed after signing": {"body": b'{"amount":43}', "sign_body": b'{"amount":42}'},
                "body left out of the input": {"sign_body": b""},
            },
        ),
        Variant[Forgeries](
            "WH-HMAC-004",
            title="The signature covers the timestamp",
            text="A delivery whose Webhook-Timestamp differs (by 1 s, within the window) from the signed one, or "
            "signed over an input without the timestamp, is 401.",
            spec=f"{SCHEME} (signature input {{timestamp}}.{{event_id}}.{{body}})",
            requirements=f"{SECTION} (2. the signature input)",
            value=lambda ctx: {
                "timestamp - 1 s": {"sign_timestamp": str(ctx.now() - 1)},
                "timestamp left out": {"sign_timestamp": ""},
            },
        ),
        Variant[Forgeries](
            "WH-HMAC-005",
            title="The signature covers the event id",
            text="A delivery whose Webhook-Event-Id differs from the signed one, or signed over an input without the "
            "event id, is 401.",
            spec=f"{SCHEME} (signature input {{timestamp}}.{{event_id}}.{{body}})",
            requirements=f"{SECTION} (2. the signature input)",
            value=lambda ctx: {
                "another event id signed": {"sign_event_id": ctx.event_id()},
                "event id left out": {"sign_event_id": ""},
            },
        ),
    ),
)


@rule(
    "WH-HMAC-006",
    family=FAMILY,
    title="The HMAC key is the secret text, not its decoded bytes",
    text="A signature keyed with the base64url-decoded secret is answered 401 (the key is the secret string as "
    "given, UTF-8).",
    spec=f"{SCHEME} (key)",
    requirements=f"{SECTION} (3. the key is the secret string as given)",
)
def key_not_decoded(ctx: Context) -> None:
    listener = hmac_listener(ctx)
    secret = listener.secret or ""
    try:
        key = base64.urlsafe_b64decode(secret + "=" * (-len(secret) % 4))
    except ValueError:
        key = secret.encode()[::-1]
    event_id, timestamp, body = ctx.event_id(), str(ctx.now()), b'{"conformance":true}'
    digest = hmac.new(key, f"{timestamp}.{event_id}.".encode() + body, hashlib.sha256).digest()
    exchange = ctx.deliver(
        listener, body=body, event_id=event_id, timestamp=timestamp, extra_headers={"Webhook-Signature": b64url(digest)}
    )
    ctx.expect(exchange, 401, code="SIGNATURE_MISMATCH")


@rule(
    "WH-HMAC-007",
    family=FAMILY,
    title="The signature is base64url without padding over {timestamp}.{event_id}.{body}",
    text="A delivery signed exactly as the contract says, over a body with non-ASCII UTF-8, is accepted (200).",
    spec=f"{SCHEME} (test vector: spec/paths/api_v1_webhooks_incoming_{{listener_id}}.yaml#/post/x-hmac-test-vector)",
    requirements=f"{SECTION} (4. the signature)",
)
def exact_signature(ctx: Context) -> None:
    listener = hmac_listener(ctx)
    accepted(ctx, ctx.deliver(listener, body='{"name":"Zoë","n":[1,2.5]}'.encode()), what="non-ASCII body")
    accepted(ctx, ctx.deliver(listener, body=b'{ "n" : [ 1 , 2 ] }\n'), what="body with whitespace")


def _digest(key: bytes, message: bytes, algorithm: str = "sha256") -> bytes:
    return hmac.new(key, message, algorithm).digest()


def _spoiled(ctx: Context, signature: Callable[[str, str, bytes, bytes], str], what: str) -> None:
    """A delivery whose Webhook-Signature is `signature(timestamp, event_id, body, key)`: 401 SIGNATURE_MISMATCH."""
    listener = hmac_listener(ctx)
    event_id, timestamp, body = ctx.event_id(), str(ctx.now()), b'{"conformance":true}'
    value = signature(timestamp, event_id, body, (listener.secret or "").encode())
    exchange = ctx.deliver(
        listener, body=body, event_id=event_id, timestamp=timestamp, extra_headers={"Webhook-Signature": value}
    )
    ctx.expect(exchange, 401, code="SIGNATURE_MISMATCH", what=what)


OTHER_INPUTS: dict[str, Callable[[str, str, bytes], bytes]] = {
    "body only": lambda ts, eid, body: body,
    "{timestamp}.{body}": lambda ts, eid, body: f"{ts}.".encode() + body,
    "{event_id}.{timestamp}.{body} (Standard Webhooks' order)": lambda ts, eid, body: f"{eid}.{ts}.".encode() + body,
    "{timestamp}:{event_id}:{body}": lambda ts, eid, body: f"{ts}:{eid}:".encode() + body,
    "{timestamp}{event_id}{body}": lambda ts, eid, body: f"{ts}{eid}".encode() + body,
    "lines": lambda ts, eid, body: f"{ts}\n{eid}\n".encode() + body,
    "re-serialized body": lambda ts, eid, body: f"{ts}.{eid}.".encode() + json.dumps(json.loads(body)).encode(),
}


@rule(
    "WH-HMAC-008",
    family=FAMILY,
    title="The signature input is exactly {timestamp}.{event_id}.{body}",
    text="Signatures over other inputs (the body only, without the event id, Standard Webhooks' "
    "{id}.{timestamp}.{body}, other separators, none, newlines, the body re-serialized) are 401.",
    spec=f"{SCHEME} (signature input {{timestamp}}.{{event_id}}.{{body}})",
    requirements=f"{SECTION} (2. the signature input)",
)
def other_inputs(ctx: Context) -> None:
    for name, message in OTHER_INPUTS.items():
        _spoiled(ctx, _signed_over(message), name)


def _signed_over(message: Callable[[str, str, bytes], bytes]) -> Callable[[str, str, bytes, bytes], str]:
    """A correct HMAC signature, made over the signature input `message` builds instead of the contract's."""
    return lambda ts, eid, body, key: b64url(_digest(key, message(ts, eid, body)))


@rule(
    "WH-HMAC-009",
    family=FAMILY,
    title="The MAC is HMAC-SHA256",
    text="HMAC-SHA1, HMAC-SHA512 and an unkeyed SHA-256 of the right input are 401.",
    spec=f"{SCHEME} (HMAC-SHA256)",
    requirements=f"{SECTION} (4. the signature)",
)
def other_algorithms(ctx: Context) -> None:
    def message(ts: str, eid: str, body: bytes) -> bytes:
        return f"{ts}.{eid}.".encode() + body

    _spoiled(ctx, lambda ts, eid, body, key: b64url(_digest(key, message(ts, eid, body), "sha1")), "HMAC-SHA1")
    _spoiled(ctx, lambda ts, eid, body, key: b64url(_digest(key, message(ts, eid, body), "sha512")), "HMAC-SHA512")
    _spoiled(ctx, lambda ts, eid, body, key: b64url(hashlib.sha256(message(ts, eid, body)).digest()), "SHA-256")


def _good(ts: str, eid: str, body: bytes, key: bytes) -> bytes:
    return _digest(key, f"{ts}.{eid}.".encode() + body)


ENCODINGS: dict[str, Callable[[bytes], str]] = {
    "padded": lambda digest: base64.urlsafe_b64encode(digest).decode(),
    "standard base64": lambda digest: base64.b64encode(digest).decode().rstrip("="),
    "standard base64, padded": lambda digest: base64.b64encode(digest).decode(),
    "hex": lambda digest: digest.hex(),
    "upper-case hex": lambda digest: digest.hex().upper(),
    "upper-cased": lambda digest: b64url(digest).upper(),
    "lower-cased": lambda digest: b64url(digest).lower(),
    "truncated to 32 characters": lambda digest: b64url(digest)[:32],
    "last character dropped": lambda digest: b64url(digest)[:-1],
}


@rule(
    "WH-HMAC-010",
    family=FAMILY,
    title="The signature is base64url without padding, as computed",
    text="The right digest padded, in standard base64 (+/, with and without padding), in hex (either case), "
    "upper- or lower-cased, or truncated is 401 SIGNATURE_MISMATCH.",
    spec=f"{SCHEME} (base64url, no padding)",
    requirements=f"{SECTION} (4. base64url-encoded without padding)",
)
def other_encodings(ctx: Context) -> None:
    listener = hmac_listener(ctx)
    key = (listener.secret or "").encode()
    # A delivery whose signature holds both - and _, so the standard alphabet and letter case really differ.
    for attempt in range(200):
        event_id, timestamp, body = ctx.event_id(), str(ctx.now()), f'{{"n":{attempt}}}'.encode()
        digest = _good(timestamp, event_id, body, key)
        text = b64url(digest)
        if "-" in text and "_" in text and text.lower() != text and text.upper() != text:
            break
    for name, encode in ENCODINGS.items():
        exchange = ctx.deliver(
            listener,
            body=body,
            event_id=event_id,
            timestamp=timestamp,
            extra_headers={"Webhook-Signature": encode(digest)},
        )
        ctx.expect(exchange, 401, code="SIGNATURE_MISMATCH", what=name)


HEADER_FORMS: dict[str, Callable[[str, str], str]] = {
    "v1, prefix": lambda good, bad: f"v1,{good}",
    "v2, prefix": lambda good, bad: f"v2,{good}",
    "v1= prefix": lambda good, bad: f"v1={good}",
    "space-separated, right one last": lambda good, bad: f"{bad} {good}",
    "space-separated, right one first": lambda good, bad: f"{good} {bad}",
    "v1, list": lambda good, bad: f"v1,{bad} v1,{good}",
    "comma-separated": lambda good, bad: f"{bad},{good}",
    "space inside": lambda good, bad: f"{good[:20]} {good[20:]}",
}


@rule(
    "WH-HMAC-011",
    family=FAMILY,
    title="Webhook-Signature holds exactly one bare signature",
    text="The right signature with a version prefix (v1, v2, v1=), in a space- or comma-separated list beside a "
    "wrong one (either order, with v1, prefixes), or split by a space is 401 SIGNATURE_MISMATCH.",
    spec=f"{SCHEME} (the header holds exactly one signature)",
    requirements=f"{SECTION} (5. the signature is sent in Webhook-Signature)",
)
def header_forms(ctx: Context) -> None:
    listener = hmac_listener(ctx)
    key = (listener.secret or "").encode()
    bad = b64url(hashlib.sha256(b"not the signature").digest())
    for name, form in HEADER_FORMS.items():
        event_id, timestamp, body = ctx.event_id(), str(ctx.now()), b'{"conformance":true}'
        good = b64url(_good(timestamp, event_id, body, key))
        exchange = ctx.deliver(
            listener,
            body=body,
            event_id=event_id,
            timestamp=timestamp,
            extra_headers={"Webhook-Signature": form(good, bad)},
        )
        ctx.expect(exchange, 401, code="SIGNATURE_MISMATCH", what=name)


@rule(
    "WH-HMAC-012",
    family=FAMILY,
    title="The signature covers the header texts as sent",
    text="Signed over the texts as sent, a timestamp with a leading zero and an upper-case event id are accepted "
    "(200): the input is not rebuilt from parsed values.",
    spec=f"{SCHEME} (the Webhook-Timestamp value, the Webhook-Event-Id value)",
    requirements=f"{SECTION} (2. the signature input)",
)
def header_texts_as_sent(ctx: Context) -> None:
    listener = hmac_listener(ctx)
    accepted(ctx, ctx.deliver(listener, timestamp=f"0{ctx.now()}"), what="timestamp with a leading zero")
    accepted(ctx, ctx.deliver(listener, event_id=ctx.event_id().upper()), what="upper-case event id")
