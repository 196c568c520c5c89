"""The JWT method: a bearer JWT signed by a key of the listener's JWKS, bound to this very request."""

from __future__ import annotations

import base64
import hashlib
import hmac
import time
from typing import Any

import jwt

from accessgov.verification.errors import WebhookAuthError
from accessgov.verification.jwks import JwksCache
from accessgov.verification.request_checks import MAX_JWT_LIFETIME_SECONDS

ALLOWED_ALGORITHMS = ("RS256", "ES256", "EdDSA")
REQUIRED_CLAIMS = ("sub", "aud", "exp", "jti", "htm", "htb_s256")
LEEWAY_SECONDS = 30  # Clock skew tolerated on `exp` (expired tokens) and on the 10-minute ceiling.


def bearer_token(authorization: str | None) -> str:
    scheme, _, token = (authorization or "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise WebhookAuthError(
            "MISSING_AUTHENTICATION", "an Authorization: Bearer <JWT> header is required", "Authorization"
        )
    return token.strip()


def body_hash(body: bytes) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(body).digest()).rstrip(b"=").decode("ascii")


def _claim_error(name: str, message: str) -> WebhookAuthError:
    return WebhookAuthError("INVALID_CLAIM", message, name)


def verify_webhook_jwt(
    token: str,
    *,
    jwks: JwksCache,
    jwks_url: str,
    tenant_base_url: str,
    endpoint_url: str,
    event_id: str,
    body: bytes,
    method: str = "POST",
    now: float | None = None,
) -> dict[str, Any]:
    """The verified claims of `token`, or `WebhookAuthError` saying what failed."""
    now = time.time() if now is None else now
    try:
        header = jwt.get_unverified_header(token)
    except jwt.PyJWTError as error:
        raise WebhookAuthError("INVALID_TOKEN", f"malformed JWT: {error}") from None
    alg, kid = header.get("alg"), header.get("kid")
    if alg not in ALLOWED_ALGORITHMS:
        raise WebhookAuthError("INVALID_TOKEN", f"JWT algorithm {alg!r} is not one of {', '.join(ALLOWED_ALGORITHMS)}")
    if not isinstance(kid, str) or not kid:
        raise WebhookAuthError("UNKNOWN_KID", "the JWT header has no kid", "kid")
    key = jwks.get_key(jwks_url, kid)
    # PyJWK takes the algorithm from the JWK's `alg`, or infers it from kty/crv (RSA -> RS256,
    # P-256 -> ES256, Ed25519 -> EdDSA). A mismatch with the header is algorithm confusion.
    if key.algorithm_name != alg:
        raise WebhookAuthError("INVALID_TOKEN", f"key {kid!r} is for {key.algorithm_name}, the JWT says {alg}")
    try:
        claims = jwt.decode(
            token,
            key.key,
            algorithms=[alg],
            audience=endpoint_url,
            options={"require": list(REQUIRED_CLAIMS), "verify_iat": False, "verify_nbf": True},
            leeway=LEEWAY_SECONDS,
        )
    except jwt.ExpiredSignatureError:
        raise WebhookAuthError("TOKEN_EXPIRED", "the JWT has expired") from None
    except jwt.MissingRequiredClaimError as error:
        raise _claim_error(error.claim, f"the JWT has no {error.claim} claim") from None
    except jwt.InvalidAudienceError:
        raise _claim_error("aud", f"the JWT aud is not {endpoint_url}") from None
    except jwt.InvalidSignatureError:
        raise WebhookAuthError("INVALID_TOKEN", "the JWT signature does not verify") from None
    except jwt.PyJWTError as error:
        raise WebhookAuthError("INVALID_TOKEN", f"the JWT is not valid: {error}") from None
    if not isinstance(claims["exp"], int | float) or claims["exp"] > now + MAX_JWT_LIFETIME_SECONDS + LEEWAY_SECONDS:
        raise _claim_error("exp", "the JWT exp is more than 10 minutes from now")
    if claims["exp"] < now - LEEWAY_SECONDS:  # PyJWT checks against the wall clock; `now` may be injected.
        raise WebhookAuthError("TOKEN_EXPIRED", "the JWT has expired")
    if claims["sub"] != tenant_base_url:
        raise _claim_error("sub", "the JWT sub is not the tenant base URL")
    if claims["htm"] != method:
        raise _claim_error("htm", f"the JWT htm is not {method}")
    if not isinstance(claims["jti"], str) or claims["jti"].lower() != event_id.lower():
        raise _claim_error("jti", "the JWT jti is not the Webhook-Event-Id")
    if not isinstance(claims["htb_s256"], str) or not hmac.compare_digest(claims["htb_s256"], body_hash(body)):
        raise _claim_error("htb_s256", "the JWT htb_s256 does not match the request body")
    return claims
