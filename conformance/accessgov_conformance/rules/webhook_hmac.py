"""HMAC listener rules: what the signature covers and how it is keyed."""

from __future__ import annotations

import base64
import hashlib
import hmac

from ..context import Context
from ..registry import rule
from ..signing import b64url
from ._webhook import SEED_ERRORS, accepted

FAMILY = "webhook-hmac"
SCHEME = "spec/components/securitySchemes/webhookHmac"
SEED = "Authentication > HMAC method"


@rule(
    "WH-HMAC-001",
    family=FAMILY,
    title="The HMAC signature is checked",
    text="A signature made with another secret is answered 401 SIGNATURE_MISMATCH.",
    spec="spec/components/schemas/Error.yaml#/description (SIGNATURE_MISMATCH)",
    seed=SEED_ERRORS,
)
def wrong_secret(ctx: Context) -> None:
    listener = ctx.listener("hmac")
    other = base64.urlsafe_b64encode(ctx.rng.randbytes(32)).rstrip(b"=").decode()
    ctx.expect(ctx.deliver(listener, secret=other), 401, code="SIGNATURE_MISMATCH")


@rule(
    "WH-HMAC-002",
    family=FAMILY,
    title="An HMAC listener requires Webhook-Signature",
    text="A delivery without Webhook-Signature is answered 401 MISSING_AUTHENTICATION.",
    spec="spec/components/schemas/Error.yaml#/description (MISSING_AUTHENTICATION)",
    seed=SEED_ERRORS,
    mock=True,
)
def missing_signature(ctx: Context) -> None:
    listener = ctx.listener("hmac")
    ctx.expect(ctx.deliver(listener, omit=("Webhook-Signature",)), 401, code="MISSING_AUTHENTICATION")


@rule(
    "WH-HMAC-003",
    family=FAMILY,
    title="The signature covers the exact body",
    text="A body changed after signing (one byte), or a signature over the input without the body, is 401.",
    spec=f"{SCHEME} (signature input {{timestamp}}.{{event_id}}.{{body}})",
    seed=f"{SEED} (6. any change to the body invalidates the signature)",
)
def body_covered(ctx: Context) -> None:
    listener = ctx.listener("hmac")
    changed = ctx.deliver(listener, body=b'{"amount":43}', sign_body=b'{"amount":42}')
    ctx.expect(changed, 401, code="SIGNATURE_MISMATCH", what="body changed after signing")
    ctx.expect(ctx.deliver(listener, sign_body=b""), 401, code="SIGNATURE_MISMATCH", what="body left out of the input")


@rule(
    "WH-HMAC-004",
    family=FAMILY,
    title="The signature covers the timestamp",
    text="A delivery whose Webhook-Timestamp differs (by 1 s, within the window) from the signed one, or signed "
    "over an input without the timestamp, is 401.",
    spec=f"{SCHEME} (signature input {{timestamp}}.{{event_id}}.{{body}})",
    seed=f"{SEED} (2. the signature input)",
)
def timestamp_covered(ctx: Context) -> None:
    listener = ctx.listener("hmac")
    signed = str(ctx.now() - 1)
    ctx.expect(ctx.deliver(listener, sign_timestamp=signed), 401, code="SIGNATURE_MISMATCH", what="timestamp - 1 s")
    ctx.expect(ctx.deliver(listener, sign_timestamp=""), 401, code="SIGNATURE_MISMATCH", what="timestamp left out")


@rule(
    "WH-HMAC-005",
    family=FAMILY,
    title="The signature covers the event id",
    text="A delivery whose Webhook-Event-Id differs from the signed one, or signed over an input without the "
    "event id, is 401.",
    spec=f"{SCHEME} (signature input {{timestamp}}.{{event_id}}.{{body}})",
    seed=f"{SEED} (2. the signature input)",
)
def event_id_covered(ctx: Context) -> None:
    listener = ctx.listener("hmac")
    other = ctx.deliver(listener, sign_event_id=ctx.event_id())
    ctx.expect(other, 401, code="SIGNATURE_MISMATCH", what="another event id signed")
    ctx.expect(ctx.deliver(listener, sign_event_id=""), 401, code="SIGNATURE_MISMATCH", what="event id left out")


@rule(
    "WH-HMAC-006",
    family=FAMILY,
    title="The HMAC key is the secret text, not its decoded bytes",
    text="A signature keyed with the base64url-decoded secret is answered 401 (the key is the secret string as "
    "given, UTF-8).",
    spec=f"{SCHEME} (key)",
    seed=f"{SEED} (3. the key is the secret string as given)",
)
def key_not_decoded(ctx: Context) -> None:
    listener = ctx.listener("hmac")
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
    seed=f"{SEED} (4. the signature)",
)
def exact_signature(ctx: Context) -> None:
    listener = ctx.listener("hmac")
    accepted(ctx, ctx.deliver(listener, body='{"name":"Zoë","n":[1,2.5]}'.encode()))
