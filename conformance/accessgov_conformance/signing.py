"""Webhook credentials as a sender makes them, with the knobs the checks need to make them wrong on purpose.

The primitives (HMAC signature, base64url, the JWT algorithm of a key) are the SDK's (`accessgov_client.webhooks`);
this module only adds what a sender never wants: a claim left out or changed, another key, another algorithm.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

import jwt
from accessgov_client.webhooks import b64url, hmac_signature, jwt_algorithm
from cryptography.hazmat.primitives import serialization

__all__ = ["b64url", "hmac_signature", "jwt_token"]

MISSING = object()  # a claim value that means "leave the claim out"


def jwt_token(
    private_key: bytes,
    *,
    kid: str,
    subject: str,
    audience: str,
    event_id: str,
    body: bytes,
    now: int,
    lifetime: int = 300,
    claims: Mapping[str, Any] | None = None,
    headers: Mapping[str, Any] | None = None,
    algorithm: str | None = None,
    signing_key: Any = None,
) -> str:
    """The `Authorization: Bearer` JWT of one delivery: the six claims the contract requires, then `claims`
    applied over them (`MISSING` removes one); `signing_key`/`algorithm` override the listener's key."""
    if algorithm == "none":
        key: Any = None
    elif signing_key is not None:
        key = signing_key
    else:
        key = serialization.load_pem_private_key(private_key, password=None)
    payload: dict[str, Any] = {
        "sub": subject,
        "aud": audience,
        "iat": now,
        "exp": now + lifetime,
        "jti": event_id,
        "htm": "POST",
        "htb_s256": b64url(hashlib.sha256(body).digest()),
    }
    for name, value in (claims or {}).items():
        if value is MISSING:
            payload.pop(name, None)
        else:
            payload[name] = value
    return jwt.encode(payload, key, algorithm=algorithm or jwt_algorithm(key), headers={"kid": kid, **(headers or {})})
