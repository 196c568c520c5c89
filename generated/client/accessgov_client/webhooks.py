"""Sender side of the inbound webhook protocol: sign a body (HMAC or JWT) and deliver it with retries.

    sender = WebhookSender(url, secret=signing_secret)
    sender.send({"orderId": "A-1001"})

Each delivery gets a fresh UUID v4 event id and the current timestamp; retries resend the same bytes with the
same headers, so the listener's idempotency (a repeated event id is 409 and not run again) makes them safe.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

import httpx
import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa

from .exceptions import error_from_response
from .retries import DEFAULT_RETRY, NO_RETRY, Retry, async_transport, retry_policy, sync_transport
from .transport import DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_TIMEOUT, byte_cap, timeout_of

MAX_JWT_LIFETIME_SECONDS: Final = 600  # listeners reject a JWT whose exp is more than 10 minutes ahead


def b64url(data: bytes) -> str:
    """base64url without padding."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def hmac_signature(secret: str, timestamp: str, event_id: str, body: bytes) -> str:
    """`Webhook-Signature`: HMAC-SHA256 keyed with the secret text (UTF-8, not decoded) over
    `{timestamp}.{event_id}.{body}`, base64url without padding."""
    message = f"{timestamp}.{event_id}.".encode() + body
    return b64url(hmac.new(secret.encode("utf-8"), message, hashlib.sha256).digest())


def jwt_algorithm(key: Any) -> str:
    """RS256 for RSA, ES256 for EC P-256, EdDSA for Ed25519: the three algorithms listeners accept."""
    if isinstance(key, rsa.RSAPrivateKey):
        return "RS256"
    if isinstance(key, ec.EllipticCurvePrivateKey) and key.curve.name == "secp256r1":
        return "ES256"
    if isinstance(key, ed25519.Ed25519PrivateKey):
        return "EdDSA"
    raise ValueError("the JWT key must be an RSA, EC P-256 or Ed25519 private key")


def encode_body(body: bytes | str | Any) -> bytes:
    """The exact bytes to sign and send: bytes as given, text as UTF-8, anything else as compact JSON."""
    if isinstance(body, bytes):
        return body
    if isinstance(body, str):
        return body.encode("utf-8")
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


@dataclass
class WebhookSender:
    """Signs and delivers webhooks to one listener URL.

    HMAC: `secret=` (the listener's signing secret). JWT: `private_key=` (PEM), `kid=` (its key id in your JWKS)
    and `tenant_base_url=` (the `sub` claim); `audience` is the `aud` claim when the listener knows its URL by
    another address than `url` (behind a proxy). `retry`: the policy for deliveries (`None`: send once).
    `timeout` and `max_response_bytes` bound each attempt as in `AccessGov` (30 s deadline, 8 MiB).
    """

    url: str
    secret: str | None = None
    private_key: bytes | str | None = field(default=None, repr=False)
    kid: str | None = None
    tenant_base_url: str | None = None
    audience: str | None = None
    jwt_lifetime_seconds: int = 300
    retry: Retry | bool | None = DEFAULT_RETRY
    timeout: httpx.Timeout | float | None = field(default_factory=lambda: DEFAULT_TIMEOUT)
    max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES
    clock: Callable[[], float] = time.time

    def __post_init__(self) -> None:
        self.timeout = timeout_of(self.timeout)
        self.max_response_bytes = byte_cap(self.max_response_bytes)
        if (self.secret is None) == (self.private_key is None):
            raise ValueError("give exactly one of secret= (HMAC) and private_key= (JWT)")
        self._key: Any = None
        if self.private_key is not None:
            if not self.kid or not self.tenant_base_url:
                raise ValueError("the JWT method needs kid= and tenant_base_url=")
            if not 0 < self.jwt_lifetime_seconds <= MAX_JWT_LIFETIME_SECONDS:
                raise ValueError(f"jwt_lifetime_seconds must be 1..{MAX_JWT_LIFETIME_SECONDS}")
            pem = self.private_key.encode() if isinstance(self.private_key, str) else self.private_key
            self._key = serialization.load_pem_private_key(pem, password=None)
            self._algorithm = jwt_algorithm(self._key)

    def headers(self, body: bytes, *, event_id: str | None = None, timestamp: int | None = None) -> dict[str, str]:
        """The headers of one delivery of `body`: a fresh UUID v4 event id and the current time unless given."""
        event_id = event_id or str(uuid.uuid4())
        now = int(self.clock()) if timestamp is None else timestamp
        headers = {"Content-Type": "application/json", "Webhook-Timestamp": str(now), "Webhook-Event-Id": event_id}
        if self.secret is not None:
            headers["Webhook-Signature"] = hmac_signature(self.secret, str(now), event_id, body)
            return headers
        claims = {
            "sub": self.tenant_base_url,
            "aud": self.audience or self.url,
            "iat": now,
            "exp": now + self.jwt_lifetime_seconds,
            "jti": event_id,
            "htm": "POST",
            "htb_s256": b64url(hashlib.sha256(body).digest()),
        }
        token = jwt.encode(claims, self._key, algorithm=self._algorithm, headers={"kid": self.kid})
        headers["Authorization"] = f"Bearer {token}"
        return headers

    def _prepare(self, body: bytes | str | Any, event_id: str | None) -> tuple[bytes, dict[str, str], Retry]:
        data = encode_body(body)
        return data, self.headers(data, event_id=event_id), retry_policy(self.retry) or NO_RETRY

    def _checked(self, response: httpx.Response) -> httpx.Response:
        """The response of an accepted delivery; a 409 after a retry means an earlier attempt got through."""
        retried = getattr(response.extensions.get("retry"), "attempts_made", 0) > 0
        if response.is_success or (response.status_code == 409 and retried):
            return response
        raise error_from_response(response.status_code, response.headers, response.content, operation="webhook")

    def send(self, body: bytes | str | Any, *, event_id: str | None = None) -> httpx.Response:
        """Sign and POST `body` (bytes as given, other values as compact JSON); raise `ApiError` if refused."""
        data, headers, retry = self._prepare(body, event_id)
        transport = sync_transport(max_bytes=self.max_response_bytes)
        with httpx.Client(transport=transport, timeout=self.timeout) as client:
            response = client.post(self.url, content=data, headers=headers, extensions={"retry": retry})
        return self._checked(response)

    async def asend(self, body: bytes | str | Any, *, event_id: str | None = None) -> httpx.Response:
        """`send` for asyncio."""
        data, headers, retry = self._prepare(body, event_id)
        transport = async_transport(max_bytes=self.max_response_bytes)
        async with httpx.AsyncClient(transport=transport, timeout=self.timeout) as client:
            response = await client.post(self.url, content=data, headers=headers, extensions={"retry": retry})
        return self._checked(response)
