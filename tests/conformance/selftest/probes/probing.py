"""What a mutant probe is made of: one mutant's base URL plus the fixtures, with the requests probes send.

Probes live in test_mutants.py and in `probes_<area>.py` modules beside it (each exporting
`PROBES: dict[mutant id, Probe]`), so that each area adds its probes in a file of its own.
"""

from __future__ import annotations

import functools
import ssl
import time
import uuid
from collections.abc import Callable
from typing import Any

import httpx
import jwt
from cryptography.hazmat.primitives import serialization

from accessgov.webhooks.hmac_signature import compute_signature
from accessgov.webhooks.protocol import body_hash
from tests.conformance.selftest.target import JWT_KID, JWT_LISTENER_ID, Fixtures

HMAC = "wh_demo_hmac"
ADMIN = {"Authorization": "Bearer demo-admin-token"}
LIST = "/api/v1/apps/{}/entitlements"
RESTART = "/api/v1/tasks/{}/action/restart"
Probe = Callable[["Target"], Any]


@functools.cache
def _tls() -> ssl.SSLContext:
    """One TLS context for every target's client (loopback HTTP never uses it; made per client, it cost ~0.1 CPU-s
    each, 500 of them a run)."""
    return httpx.create_ssl_context()


class Target:
    """One mutant's base URL plus the fixtures, with the requests the probes are made of."""

    def __init__(self, base_url: str, fixtures: Fixtures) -> None:
        self.client = httpx.Client(base_url=base_url, timeout=30, verify=_tls())
        self.fx = fixtures

    def webhook(
        self,
        listener: str = HMAC,
        body: bytes = b'{"orderId": "A-1"}',
        *,
        skew: int = 0,
        event_id: str | None = None,
        drop: tuple[str, ...] = (),
        signature: str | None = None,
        claims: dict[str, Any] | None = None,
        kid: str = JWT_KID,
        content_type: str = "application/json",
    ) -> httpx.Response:
        """A correctly authenticated delivery, unless a keyword spoils one part of it."""
        headers = {
            "Content-Type": content_type,
            "Webhook-Timestamp": str(int(time.time()) + skew),
            "Webhook-Event-Id": event_id or str(uuid.uuid4()),
        }
        for name in drop:
            headers.pop(name, None)
        path = f"/api/v1/webhooks/incoming/{listener}"
        if listener == JWT_LISTENER_ID:
            now = int(time.time())
            token_claims = {
                "sub": self.fx.tenant_base_url,
                "aud": self.fx.tenant_base_url + path,
                "iat": now,
                "exp": now + 300,
                "jti": headers.get("Webhook-Event-Id", ""),
                "htm": "POST",
                "htb_s256": body_hash(body),
                **(claims or {}),
            }
            key = serialization.load_pem_private_key(self.fx.jwt_private_pem, password=None)
            token = jwt.encode(token_claims, key, algorithm="EdDSA", headers={"kid": kid})  # type: ignore[arg-type]
            headers["Authorization"] = f"Bearer {token}"
        else:
            secret = self.fx.hmac_secrets[listener]
            timestamp, event = headers.get("Webhook-Timestamp", ""), headers.get("Webhook-Event-Id", "")
            computed = compute_signature(secret, timestamp, event, body)
            headers["Webhook-Signature"] = computed if signature is None else signature
        if "Webhook-Signature" in drop:
            headers.pop("Webhook-Signature")
        return self.client.post(path, content=body, headers=headers)

    def page(self, app: str = "app-github", headers: dict[str, str] | None = None, **query: Any) -> httpx.Response:
        return self.client.get(LIST.format(app), params=query, headers=ADMIN if headers is None else headers)

    def restart(
        self, task: str | None = None, body: Any = None, headers: dict[str, str] | None = None
    ) -> httpx.Response:
        task = task or self.fx.open_task_ids[0]
        return self.client.post(RESTART.format(task), json=body or {}, headers=ADMIN if headers is None else headers)
