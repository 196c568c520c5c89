"""Sender side of inbound webhooks: build the headers (HMAC signature or JWT) and send the exact bytes, e.g.
`send(url, body, hmac_headers(secret, body))`."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Mapping
from typing import Any

import httpx
import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa

from accessgov.webhooks.hmac_signature import compute_signature
from accessgov.webhooks.jwt_token import ALLOWED_ALGORITHMS
from accessgov.webhooks.protocol import MAX_JWT_LIFETIME_SECONDS, body_hash


def _common(event_id: str | None, timestamp: int | None) -> dict[str, str]:
    """The headers both methods send; a fresh UUID v4 and the current time unless given."""
    return {
        "Content-Type": "application/json",
        "Webhook-Timestamp": str(int(time.time()) if timestamp is None else timestamp),
        "Webhook-Event-Id": event_id or str(uuid.uuid4()),
    }


def hmac_headers(
    secret: str, body: bytes, *, event_id: str | None = None, timestamp: int | None = None
) -> dict[str, str]:
    """Headers for the HMAC method: a fresh event id and the current time unless given."""
    headers = _common(event_id, timestamp)
    headers["Webhook-Signature"] = compute_signature(
        secret, headers["Webhook-Timestamp"], headers["Webhook-Event-Id"], body
    )
    return headers


def _load_private_key(pem: bytes | str) -> Any:
    data = pem.encode() if isinstance(pem, str) else pem
    return serialization.load_pem_private_key(data, password=None)


def algorithm_for(key: Any) -> str:
    """RS256 for RSA, ES256 for EC P-256, EdDSA for Ed25519 (the only three the service accepts)."""
    if isinstance(key, rsa.RSAPrivateKey | rsa.RSAPublicKey):
        return "RS256"
    if isinstance(key, ec.EllipticCurvePrivateKey | ec.EllipticCurvePublicKey) and key.curve.name == "secp256r1":
        return "ES256"
    if isinstance(key, ed25519.Ed25519PrivateKey | ed25519.Ed25519PublicKey):
        return "EdDSA"
    raise ValueError("only RSA, EC P-256 and Ed25519 keys are supported")


def _checked_algorithm(key: Any, alg: str | None) -> str:
    """The key's algorithm; an explicit `alg` that listeners reject or that does not fit the key is an error."""
    inferred = algorithm_for(key)
    if alg is not None and alg != inferred:
        allowed = ", ".join(ALLOWED_ALGORITHMS)
        raise ValueError(f"alg {alg!r} does not fit this key (it takes {inferred}; listeners accept {allowed})")
    return inferred


def jwt_headers(
    private_key_pem: bytes | str,
    *,
    kid: str,
    url: str,
    tenant_base_url: str,
    body: bytes,
    alg: str | None = None,
    event_id: str | None = None,
    timestamp: int | None = None,
    lifetime_seconds: int = 300,
) -> dict[str, str]:
    """Headers for the JWT method: a token bound to this URL, event id and body.

    `alg` is inferred from the key (RSA -> RS256, EC P-256 -> ES256, Ed25519 -> EdDSA); an explicit `alg` must
    be that one. `lifetime_seconds` must be 1..600: listeners reject tokens valid longer than 10 minutes.
    """
    if not 0 < lifetime_seconds <= MAX_JWT_LIFETIME_SECONDS:
        raise ValueError(f"lifetime_seconds must be between 1 and {MAX_JWT_LIFETIME_SECONDS}")
    key = _load_private_key(private_key_pem)
    alg = _checked_algorithm(key, alg)
    headers = _common(event_id, timestamp)
    now = int(headers["Webhook-Timestamp"])
    claims = {
        "sub": tenant_base_url,
        "aud": url,
        "iat": now,
        "exp": now + lifetime_seconds,
        "jti": headers["Webhook-Event-Id"],
        "htm": "POST",
        "htb_s256": body_hash(body),
    }
    token = jwt.encode(claims, key, algorithm=alg, headers={"kid": kid})
    headers["Authorization"] = f"Bearer {token}"
    return headers


def public_jwk(private_or_public_key_pem: bytes | str, *, kid: str, alg: str | None = None) -> dict[str, Any]:
    """The JWKS entry (public part only) of a PEM private or public key."""
    pem = private_or_public_key_pem
    data = pem.encode() if isinstance(pem, str) else pem
    try:
        key = serialization.load_pem_private_key(data, password=None).public_key()
    except (ValueError, TypeError):
        key = serialization.load_pem_public_key(data)
    algorithm = _checked_algorithm(key, alg)
    jwk = json.loads(jwt.get_algorithm_by_name(algorithm).to_jwk(key))
    return {**jwk, "kid": kid, "use": "sig", "alg": algorithm}


def jwks_document(keys: list[Mapping[str, Any]]) -> dict[str, Any]:
    """A JWKS document (`{"keys": [...]}`) to publish at the listener's JWKS URL; the entries are copied."""
    return {"keys": [dict(key) for key in keys]}


def send(url: str, body: bytes, headers: Mapping[str, str], *, timeout: float = 10.0) -> httpx.Response:
    """POST exactly `body` (the bytes that were signed) with `headers`."""
    return httpx.post(url, content=body, headers=dict(headers), timeout=timeout)
