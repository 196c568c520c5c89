"""Webhook JWTs and their parts made by hand, including the malformed ones a sender's library would refuse."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from typing import Any

from accessgov.config import DEFAULT_TENANT_BASE_URL as TENANT  # the JWT `sub` the server expects by default


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def sha256_b64url(body: bytes) -> str:
    return b64url(hashlib.sha256(body).digest())


def claims_for(
    *, url: str, event_id: str, body: bytes, now: float | None = None, lifetime: int = 300, **overrides: Any
) -> dict[str, Any]:
    """Valid claims for a delivery; an override of None removes the claim."""
    now = int(time.time() if now is None else now)
    claims: dict[str, Any] = {
        "sub": TENANT,
        "aud": url,
        "iat": now,
        "exp": now + lifetime,
        "jti": event_id,
        "htm": "POST",
        "htb_s256": sha256_b64url(body),
    }
    for name, value in overrides.items():
        if value is None:
            claims.pop(name, None)
        else:
            claims[name] = value
    return claims


def unsigned_token(header: dict[str, Any], claims: dict[str, Any], signature: bytes = b"") -> str:
    signing_input = b64url(json.dumps(header).encode()) + "." + b64url(json.dumps(claims).encode())
    return signing_input + "." + b64url(signature)


def hs256_token(secret: bytes, header: dict[str, Any], claims: dict[str, Any]) -> str:
    """An HS256 token made by hand (PyJWT refuses PEM text as an HMAC key, an attacker does not)."""
    signing_input = b64url(json.dumps(header).encode()) + "." + b64url(json.dumps(claims).encode())
    signature = hmac.new(secret, signing_input.encode(), hashlib.sha256).digest()
    return signing_input + "." + b64url(signature)
