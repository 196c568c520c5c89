"""The JWT method: a bearer JWT signed by a key of the listener's JWKS, bound to this very request.

Time checks use the caller's `now` (not PyJWT's wall clock) so the server's clock can be injected, with a
leeway of `LEEWAY_SECONDS` (5 s) for clock skew: a token counts as expired once `exp <= now - 5`, and `exp`
may be at most `now + 600 + 5`. Keys come only from the listener's JWKS; `jwk`/`jku`/`x5u` headers are ignored.
"""

from __future__ import annotations

import hmac
import math
import time
import uuid
from typing import Any

import jwt
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
from jwt.exceptions import InvalidJTIError, InvalidSubjectError

from accessgov.webhooks.errors import WebhookAuthError, WebhookRequestError
from accessgov.webhooks.jwks import JwksCache
from accessgov.webhooks.protocol import MAX_JWT_LIFETIME_SECONDS, body_hash
from accessgov.webhooks.request_checks import parse_event_id

ALLOWED_ALGORITHMS = ("RS256", "ES256", "EdDSA")
REQUIRED_CLAIMS = ("sub", "aud", "exp", "jti", "htm", "htb_s256")
LEEWAY_SECONDS = 5  # Clock skew tolerated on `exp`, the 10-minute ceiling, `nbf` and `iat` (documented in the spec).


def bearer_token(authorization_header: str | None) -> str:
    """The token of an `Authorization: Bearer <token>` header; `MISSING_AUTHENTICATION` otherwise."""
    scheme, _, token = (authorization_header or "").strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise WebhookAuthError(
            "MISSING_AUTHENTICATION", "an Authorization: Bearer <JWT> header is required", "Authorization"
        )
    return token.strip()


def _claim_error(name: str, message: str) -> WebhookAuthError:
    return WebhookAuthError("INVALID_CLAIM", message, name)


def _key_fits(key: jwt.PyJWK, alg: str) -> bool:
    """Whether the JWK may verify `alg`: its `alg` member (if any) equals it, and the key type fits.

    Checked on the parsed key object rather than on kty/crv strings, so a JWK whose `alg` member names a
    different curve or family than its material cannot slip through.
    """
    if key.algorithm_name != alg:  # PyJWK takes this from the JWK's `alg`, else infers it from kty/crv.
        return False
    material = key.key
    if alg == "RS256":
        return isinstance(material, rsa.RSAPublicKey | rsa.RSAPrivateKey)
    if alg == "ES256":
        return (
            isinstance(material, ec.EllipticCurvePublicKey | ec.EllipticCurvePrivateKey)
            and material.curve.name == "secp256r1"
        )
    if alg == "EdDSA":  # Ed25519 only: the sender library has no Ed448 and the spec names none.
        return isinstance(material, ed25519.Ed25519PublicKey | ed25519.Ed25519PrivateKey)
    return False


def _number(claims: dict[str, Any], name: str) -> float | None:
    """A NumericDate claim as a finite number, None when absent; NaN/Infinity/strings/booleans are errors."""
    value = claims.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise _claim_error(name, f"the JWT {name} claim must be a number of seconds")
    return float(value)


def _same_event(jti: Any, event_id: str) -> bool:
    if not isinstance(jti, str):
        return False
    try:
        return parse_event_id(jti) == uuid.UUID(event_id)
    except (WebhookRequestError, ValueError):
        return False


async def verify_webhook_jwt(
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
    # Checked before any key lookup: `none`, HS* (the RSA-PEM-as-HMAC-secret confusion) and the rest never
    # reach a key, and garbage tokens cannot make the service fetch JWKS documents.
    if alg not in ALLOWED_ALGORITHMS:
        raise WebhookAuthError("INVALID_TOKEN", f"JWT algorithm {alg!r} is not one of {', '.join(ALLOWED_ALGORITHMS)}")
    if not isinstance(kid, str) or not kid:
        raise WebhookAuthError("UNKNOWN_KID", "the JWT header has no kid", "kid")
    key = await jwks.get_key(jwks_url, kid)
    if not _key_fits(key, alg):
        raise WebhookAuthError("INVALID_TOKEN", f"key {kid!r} ({key.algorithm_name}) cannot verify a {alg} JWT")
    try:
        claims: dict[str, Any] = jwt.decode(
            token,
            key.key,
            algorithms=[alg],
            audience=endpoint_url,
            options={
                "require": list(REQUIRED_CLAIMS),
                # Time claims are checked below against the injected `now`, not PyJWT's wall clock.
                "verify_exp": False,
                "verify_nbf": False,
                "verify_iat": False,
                "enforce_minimum_key_length": True,  # RSA below 2048 bits is refused
            },
        )
    except jwt.MissingRequiredClaimError as error:
        raise _claim_error(error.claim, f"the JWT has no {error.claim} claim") from None
    except jwt.InvalidAudienceError:
        raise _claim_error("aud", f"the JWT aud is not {endpoint_url}") from None
    except InvalidSubjectError:
        raise _claim_error("sub", "the JWT sub is not the tenant base URL") from None
    except InvalidJTIError:
        raise _claim_error("jti", "the JWT jti is not the Webhook-Event-Id") from None
    except jwt.InvalidSignatureError:
        raise WebhookAuthError("INVALID_TOKEN", "the JWT signature does not verify") from None
    except jwt.PyJWTError as error:
        raise WebhookAuthError("INVALID_TOKEN", f"the JWT is not valid: {error}") from None
    exp = _number(claims, "exp")
    if exp is None:  # `require` already refused a missing exp; this keeps the type checker and -O honest
        raise _claim_error("exp", "the JWT has no exp claim")
    if exp <= now - LEEWAY_SECONDS:
        raise WebhookAuthError("TOKEN_EXPIRED", "the JWT has expired", "exp")
    if exp > now + MAX_JWT_LIFETIME_SECONDS + LEEWAY_SECONDS:
        raise _claim_error("exp", f"the JWT exp is more than {MAX_JWT_LIFETIME_SECONDS // 60} minutes from now")
    nbf, iat = _number(claims, "nbf"), _number(claims, "iat")
    if nbf is not None and nbf > now + LEEWAY_SECONDS:
        raise _claim_error("nbf", "the JWT is not valid yet (nbf)")
    if iat is not None and iat > now + LEEWAY_SECONDS:
        raise _claim_error("iat", "the JWT was issued in the future (iat)")
    if claims["sub"] != tenant_base_url:
        raise _claim_error("sub", "the JWT sub is not the tenant base URL")
    if claims["htm"] != method:
        raise _claim_error("htm", f"the JWT htm is not {method}")
    if not _same_event(claims["jti"], event_id):
        raise _claim_error("jti", "the JWT jti is not the Webhook-Event-Id (a UUID v4)")
    htb = claims["htb_s256"]
    # Compared as bytes: compare_digest refuses non-ASCII str, which a hostile token could carry.
    if not isinstance(htb, str) or not hmac.compare_digest(htb.encode("utf-8"), body_hash(body).encode("ascii")):
        raise _claim_error("htb_s256", "the JWT htb_s256 does not match the request body")
    return claims
