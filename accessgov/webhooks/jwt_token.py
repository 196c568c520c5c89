"""The JWT method: a bearer JWT signed by a key of the listener's JWKS, bound to this very request.

Time checks use the caller's `now` with `LEEWAY_SECONDS` (5 s) of clock skew: expired once `exp <= now - 5`,
and `exp` at most `now + 600 + 5`. Keys come only from the listener's JWKS (`jwk`/`jku`/`x5u` are ignored).
The token is split and decoded here by PyJWT's segment rules, the signature checked by PyJWT's algorithm
objects: `jwt.decode`'s per-character base64url loop was 90 % of an RS256 verification (~330 -> ~35 us CPU).
"""

from __future__ import annotations

import hmac
import math
import time
import uuid
from collections.abc import Mapping
from functools import cache, lru_cache
from types import MappingProxyType
from typing import Any

import jwt
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
from jwt.algorithms import Algorithm

from accessgov import base64url, jsoncodec
from accessgov.errors import quoted
from accessgov.webhooks.errors import WebhookAuthError, WebhookRequestError
from accessgov.webhooks.jwks import JwksCache
from accessgov.webhooks.protocol import MAX_JWT_LIFETIME_SECONDS, body_hash
from accessgov.webhooks.request_checks import is_canonical_uuid4, parse_event_id

ALLOWED_ALGORITHMS = ("RS256", "ES256", "EdDSA")
REQUIRED_CLAIMS = ("sub", "aud", "exp", "jti", "htm", "htb_s256")
MIN_RSA_KEY_BITS = 2048
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
    """Whether the JWK may verify `alg`: its `alg` member (if any) equals it, and its parsed key object (not the
    kty/crv strings, which may disagree with the material) is of that family and curve."""
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
    if jti == event_id and is_canonical_uuid4(jti):  # how senders write it: no UUID objects needed
        return True
    try:
        return parse_event_id(jti) == uuid.UUID(event_id)
    except (WebhookRequestError, ValueError):
        return False


def _invalid(message: str) -> WebhookAuthError:
    return WebhookAuthError("INVALID_TOKEN", message)


def _segment(data: bytes, name: str) -> bytes:
    """One segment as RFC 7515 writes it (2, 7.1): base64url with no `=` padding, the URL-safe alphabet only, and
    the canonical encoding of what it decodes to (no stray bits). PyJWT would also take padding."""
    decoded = base64url.decode_canonical(data)
    if decoded is None:
        raise _invalid(f"malformed JWT: the {name} is not unpadded base64url")
    return decoded


def _json_object(data: bytes, name: str) -> dict[str, Any]:
    try:
        value = jsoncodec.loads(data)
    except (ValueError, RecursionError):
        raise _invalid(f"malformed JWT: the {name} is not JSON") from None
    if not isinstance(value, dict):
        raise _invalid(f"malformed JWT: the {name} is not a JSON object")
    return value


def _split(token: str) -> tuple[Mapping[str, Any], bytes, bytes, bytes]:
    """(header, signing input, payload bytes, signature) of a compact JWS."""
    data = token.encode("utf-8")
    if data.count(b".") != 2:
        raise _invalid("malformed JWT: not three dot-separated segments")
    signing_input, _, signature = data.rpartition(b".")
    header_segment, _, payload_segment = signing_input.partition(b".")
    payload, signature = _segment(payload_segment, "payload"), _segment(signature, "signature")
    return _header(header_segment), signing_input, payload, signature


@lru_cache(maxsize=256)
def _header(segment: bytes) -> Mapping[str, Any]:
    """The JOSE header of a segment: a sender signs every token with the same few headers (alg, kid, typ), so
    their decoding is kept (read-only; a malformed one raises, and errors are not cached)."""
    header = _json_object(_segment(segment, "header"), "header")
    if "crit" in header or header.get("b64") is False:
        raise _invalid("the JWT header asks for extensions this service does not implement (crit, b64)")
    return MappingProxyType(header)


@lru_cache(maxsize=64)
def _verifying_key(key: jwt.PyJWK, alg: str, kid: str) -> Any:
    """The public key that verifies `alg` JWTs with `key`, or `WebhookAuthError`. Kept per JWK object (the
    JWKS cache hands out the same one until it refetches): the type checks go through ABCs, not free."""
    if not _key_fits(key, alg):
        raise WebhookAuthError(
            "INVALID_TOKEN", f"key {quoted(kid)} ({key.algorithm_name}) cannot verify a {quoted(alg)} JWT"
        )
    if isinstance(key.key, rsa.RSAPublicKey | rsa.RSAPrivateKey) and key.key.key_size < MIN_RSA_KEY_BITS:
        raise _invalid(f"RSA keys shorter than {MIN_RSA_KEY_BITS} bits are refused")
    return key.key.public_key() if hasattr(key.key, "private_bytes") else key.key


@cache
def _algorithm(alg: str) -> Algorithm:
    return jwt.get_algorithm_by_name(alg)


def _audience_matches(aud: Any, endpoint_url: str) -> bool:
    """PyJWT's rule: `aud` is the expected value, or a list of strings that holds it."""
    if isinstance(aud, str):
        return aud == endpoint_url
    return isinstance(aud, list) and all(isinstance(item, str) for item in aud) and endpoint_url in aud


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
    header, signing_input, payload, signature = _split(token)
    alg, kid = header.get("alg"), header.get("kid")
    # Checked before any key lookup: `none`, HS* (the RSA-PEM-as-HMAC-secret confusion) and the rest never
    # reach a key, and garbage tokens cannot make the service fetch JWKS documents.
    if alg not in ALLOWED_ALGORITHMS:
        raise WebhookAuthError(
            "INVALID_TOKEN", f"JWT algorithm {quoted(alg)} is not one of {', '.join(ALLOWED_ALGORITHMS)}"
        )
    if not isinstance(kid, str) or not kid:
        raise WebhookAuthError("UNKNOWN_KID", "the JWT header has no kid", "kid")
    key = await jwks.get_key(jwks_url, kid)
    public = _verifying_key(key, alg, kid)
    if not _algorithm(alg).verify(signing_input, public, signature):
        raise WebhookAuthError("INVALID_TOKEN", "the JWT signature does not verify")
    claims = _json_object(payload, "payload")
    for name in REQUIRED_CLAIMS:
        if name not in claims:
            raise _claim_error(name, f"the JWT has no {name} claim")
    if not _audience_matches(claims["aud"], endpoint_url):
        raise _claim_error("aud", f"the JWT aud is not {endpoint_url}")
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
