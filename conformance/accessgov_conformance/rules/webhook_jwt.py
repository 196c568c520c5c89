"""JWT listener rules: the token's signature, `kid`, algorithm and each required claim."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa

from ..context import Context
from ..registry import Fail, rule
from ..signing import MISSING
from ._webhook import SEED_ERRORS, accepted

FAMILY = "webhook-jwt"
SCHEME = "spec/components/securitySchemes/webhookJwt"
SEED = "Authentication > JWT method (Required claims)"


def _refused(ctx: Context, what: str, code: str | tuple[str, ...], **options: Any) -> None:
    """A delivery to the JWT listener with `options` (see `Context.deliver`) is 401 with one of `code`."""
    listener = ctx.listener("jwt")
    exchange = ctx.deliver(listener, **options)
    body = ctx.expect(exchange, 401, what=what)
    codes = (code,) if isinstance(code, str) else code
    if isinstance(body, dict) and body.get("code") not in codes:
        raise Fail(f"{what}: HTTP 401 as expected but Error.code is {body.get('code')!r}, not {' or '.join(codes)}")


def _claims(ctx: Context, what: str, cases: Mapping[str, Any], code: str = "INVALID_CLAIM") -> None:
    for label, value in cases.items():
        _refused(ctx, f"{what} {label}", code, claims={what: value})


@rule(
    "WH-JWT-001",
    family=FAMILY,
    title="A correctly signed JWT is accepted",
    text="A delivery with a JWT carrying every required claim, signed by the configured key, is accepted (200).",
    spec=SCHEME,
    seed=SEED,
)
def valid(ctx: Context) -> None:
    accepted(ctx, ctx.deliver(ctx.listener("jwt")))


@rule(
    "WH-JWT-002",
    family=FAMILY,
    title="A JWT listener requires Authorization",
    text="A delivery without Authorization is answered 401 MISSING_AUTHENTICATION.",
    spec="spec/components/schemas/Error.yaml#/description (MISSING_AUTHENTICATION)",
    seed=SEED_ERRORS,
)
def missing(ctx: Context) -> None:
    _refused(ctx, "no Authorization", "MISSING_AUTHENTICATION", omit=("Authorization",))


@rule(
    "WH-JWT-003",
    family=FAMILY,
    title="The JWT's kid must name a key of the listener's JWKS",
    text="A JWT whose header kid is not in the JWKS is answered 401 UNKNOWN_KID.",
    spec="spec/components/schemas/Error.yaml#/description (UNKNOWN_KID)",
    seed="Authentication > JWT method (kid)",
)
def unknown_kid(ctx: Context) -> None:
    _refused(ctx, "unknown kid", "UNKNOWN_KID", jwt_headers={"kid": f"conformance-{ctx.rng.getrandbits(32):08x}"})


@rule(
    "WH-JWT-004",
    family=FAMILY,
    title="The JWT's signature is verified",
    text="A JWT signed by another key under the listener's kid is answered 401 INVALID_TOKEN.",
    spec="spec/components/schemas/Error.yaml#/description (INVALID_TOKEN)",
    seed=SEED_ERRORS,
)
def forged(ctx: Context) -> None:
    listener = ctx.listener("jwt")
    own = serialization.load_pem_private_key(listener.private_key or b"", password=None)
    other: Any
    if isinstance(own, rsa.RSAPrivateKey):
        other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    elif isinstance(own, ec.EllipticCurvePrivateKey):
        other = ec.generate_private_key(ec.SECP256R1())
    else:
        other = ed25519.Ed25519PrivateKey.generate()
    _refused(ctx, "foreign key", "INVALID_TOKEN", jwt_options={"signing_key": other})


@rule(
    "WH-JWT-005",
    family=FAMILY,
    title="Only RS256, ES256 and EdDSA are accepted",
    text="A JWT with alg HS256 (keyed with a digest of the kid) or alg none is answered 401 INVALID_TOKEN.",
    spec=SCHEME,
    seed="Authentication > JWT method (Supported algorithms)",
)
def algorithms(ctx: Context) -> None:
    listener = ctx.listener("jwt")
    _refused(
        ctx,
        "alg HS256",
        "INVALID_TOKEN",
        jwt_options={"signing_key": hashlib.sha256((listener.kid or "").encode()).digest(), "algorithm": "HS256"},
    )
    _refused(ctx, "alg none", "INVALID_TOKEN", jwt_options={"algorithm": "none"})


@rule(
    "WH-JWT-SUB",
    family=FAMILY,
    title="sub must be the tenant base URL",
    text="A JWT whose sub is missing or another URL is answered 401 INVALID_CLAIM.",
    spec=f"{SCHEME} (sub)",
    seed=f"{SEED} sub",
)
def subject(ctx: Context) -> None:
    _claims(ctx, "sub", {"missing": MISSING, "other tenant": "https://other.accessgov.example"})


@rule(
    "WH-JWT-AUD",
    family=FAMILY,
    title="aud must be the full URL of the endpoint called",
    text="A JWT whose aud is missing, the base URL only, or another listener's URL is answered 401 INVALID_CLAIM.",
    spec=f"{SCHEME} (aud)",
    seed=f"{SEED} aud",
)
def audience(ctx: Context) -> None:
    listener = ctx.listener("jwt")
    _claims(
        ctx,
        "aud",
        {
            "missing": MISSING,
            "base URL only": ctx.config.webhook_audience_base,
            "another listener": ctx.webhook_url(listener.id + "x"),
        },
    )


@rule(
    "WH-JWT-EXP",
    family=FAMILY,
    title="exp is required, not passed, and at most 10 minutes ahead",
    text="A JWT without exp or with exp 11 minutes ahead is 401 INVALID_CLAIM; one that expired a minute ago is "
    "401 TOKEN_EXPIRED; exp 9 minutes ahead is accepted.",
    spec=f"{SCHEME} (exp)",
    seed=f"{SEED} exp; Limits (JWT exp)",
)
def expiry(ctx: Context) -> None:
    now = ctx.now()
    _refused(ctx, "exp missing", "INVALID_CLAIM", claims={"exp": MISSING})
    _refused(ctx, "exp now+660 s", "INVALID_CLAIM", claims={"exp": now + 660})
    _refused(ctx, "exp now-60 s", "TOKEN_EXPIRED", claims={"exp": now - 60})
    accepted(ctx, ctx.deliver(ctx.listener("jwt"), claims={"exp": now + 540}), what="exp now+540 s")


@rule(
    "WH-JWT-JTI",
    family=FAMILY,
    title="jti must equal Webhook-Event-Id",
    text="A JWT whose jti is missing or another UUID v4 than the Webhook-Event-Id header is 401 INVALID_CLAIM.",
    spec=f"{SCHEME} (jti)",
    seed=f"{SEED} jti",
)
def token_id(ctx: Context) -> None:
    _claims(ctx, "jti", {"missing": MISSING, "another event id": ctx.event_id()})


@rule(
    "WH-JWT-HTM",
    family=FAMILY,
    title="htm must be POST",
    text="A JWT whose htm is missing or GET is answered 401 INVALID_CLAIM.",
    spec=f"{SCHEME} (htm)",
    seed=f"{SEED} htm",
)
def method(ctx: Context) -> None:
    _claims(ctx, "htm", {"missing": MISSING, "GET": "GET"})


@rule(
    "WH-JWT-HTB",
    family=FAMILY,
    title="htb_s256 must be the SHA-256 of the received body",
    text="A JWT whose htb_s256 is missing, or hashes another body than the one sent, is answered 401 INVALID_CLAIM.",
    spec=f"{SCHEME} (htb_s256)",
    seed=f"{SEED} htb_s256",
)
def body_hash(ctx: Context) -> None:
    _claims(ctx, "htb_s256", {"missing": MISSING})
    _refused(ctx, "htb_s256 of another body", "INVALID_CLAIM", body=b'{"amount":43}', sign_body=b'{"amount":42}')
