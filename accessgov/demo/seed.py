"""Load the deterministic demo tenant and demo credentials into the database (idempotent).

The demo credentials are public and fixed so that `make run`, the README and the contract suite agree
on them; a real deployment creates its own with `accessgov tokens create` / `accessgov listeners create`.
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass

from sqlalchemy.orm import Session

from accessgov.demo import tenant as demo
from accessgov.storage import credentials, directory, entitlements, listeners, settings, tasks

DEMO_ADMIN_TOKEN = "demo-admin-token"
DEMO_OPERATOR_TOKEN = "demo-operator-token"
DEMO_VIEWER_TOKEN = "demo-viewer-token"
DEMO_TOKENS = ((DEMO_ADMIN_TOKEN, "admin"), (DEMO_OPERATOR_TOKEN, "operator"), (DEMO_VIEWER_TOKEN, "viewer"))
DEMO_OAUTH_CLIENT_ID = "demo-client"
DEMO_OAUTH_CLIENT_SECRET = "demo-client-secret"
DEMO_HMAC_LISTENER_ID = "wh_demo_hmac"
DEMO_DISABLED_LISTENER_ID = "wh_demo_disabled"
DEMO_UNPUBLISHED_LISTENER_ID = "wh_demo_unpublished"
DEMO_JWT_LISTENER_ID = "wh_demo_jwt"
DEMO_CIDR_OUTSIDE_LISTENER_ID = "wh_demo_cidr_outside"
DEMO_CIDR_INSIDE_LISTENER_ID = "wh_demo_cidr_inside"
# TEST-NET-1 (RFC 5737): no client on loopback is inside it; loopback, IPv4 and IPv6: every local client is.
DEMO_CIDRS_OUTSIDE = ("192.0.2.0/24",)
DEMO_CIDRS_INSIDE = ("127.0.0.0/8", "::1/128")
# Where the JWT listener's JWKS is until `accessgov serve --demo` serves it (nothing listens on port 9 here).
DEMO_JWKS_PLACEHOLDER = "http://127.0.0.1:9/jwks.json"
# A 256-bit secret in the service's format (base64url, no padding), derived from a fixed label.
DEMO_HMAC_SECRET = base64.urlsafe_b64encode(hashlib.sha256(b"accessgov demo listener").digest()).rstrip(b"=").decode()
DEMO_STEPS = [
    {"name": "received", "expression": "true"},
    {
        "name": "orderId",
        "expression": 'type(ctx.trigger) == map && "orderId" in ctx.trigger ? string(ctx.trigger["orderId"]) : ""',
    },
]
SEEDED_MARKER = "demo_seeded"


@dataclass(frozen=True)
class SeedSummary:
    created: bool
    tasks: int
    hmac_listener_id: str = DEMO_HMAC_LISTENER_ID

    def describe(self, listener_url: str) -> str:
        state = "loaded" if self.created else "already present"
        return "\n".join(
            [
                f"demo tenant {state}: {self.tasks} tasks, app {demo.PAGING_APP_ID} with "
                f"{demo.PAGING_APP_ENTITLEMENTS} entitlements",
                f"API tokens (admin): {DEMO_ADMIN_TOKEN}   (operator): {DEMO_OPERATOR_TOKEN}   "
                f"(viewer): {DEMO_VIEWER_TOKEN}",
                f"OAuth client: {DEMO_OAUTH_CLIENT_ID} / {DEMO_OAUTH_CLIENT_SECRET}",
                "send a signed webhook to the demo listener:",
                f"  .venv/bin/accessgov webhook send {listener_url} --hmac-secret {DEMO_HMAC_SECRET} "
                '--data \'{"orderId": "A-1001"}\'',
            ]
        )


@dataclass(frozen=True)
class DemoListener:
    """A demo listener: every kind the conformance kit can use (`conformance/conformance.example.toml`)."""

    id: str
    method: str = "HMAC"
    published: bool = True
    enabled: bool = True
    allowed_cidrs: tuple[str, ...] = ()


DEMO_LISTENERS = (
    DemoListener(DEMO_HMAC_LISTENER_ID),
    DemoListener(DEMO_DISABLED_LISTENER_ID, enabled=False),
    DemoListener(DEMO_UNPUBLISHED_LISTENER_ID, published=False),
    DemoListener(DEMO_JWT_LISTENER_ID, method="JWT"),
    DemoListener(DEMO_CIDR_OUTSIDE_LISTENER_ID, allowed_cidrs=DEMO_CIDRS_OUTSIDE),
    DemoListener(DEMO_CIDR_INSIDE_LISTENER_ID, allowed_cidrs=DEMO_CIDRS_INSIDE),
)


def seed_demo(session: Session, seed: int = 42, *, jwks_url: str | None = None) -> SeedSummary:
    """Insert the demo tenant unless it is there already, and every demo credential and listener that is missing
    (a database seeded by an older version gains the newer ones); point the JWT listener at `jwks_url` when given
    (`accessgov serve --demo` serves it). The caller commits."""
    tenant = demo.build(seed)
    created = not settings.get_setting(session, SEEDED_MARKER)
    if created:
        directory.put_documents(session, "user", tenant.users)
        directory.put_documents(session, "app", tenant.apps)
        directory.put_documents(session, "policy", tenant.policies)
        for kind, documents in demo.related_objects(tenant).items():
            directory.put_documents(session, kind, documents)
        for app in tenant.apps:
            entitlements.insert_entitlements(session, app["id"], tenant.entitlements(app["id"]))
        for task in tenant.tasks:
            tasks.save_task(session, task["id"], task)
        credentials.add_oauth_client(session, DEMO_OAUTH_CLIENT_ID, DEMO_OAUTH_CLIENT_SECRET, ["admin"])
        settings.set_setting(session, SEEDED_MARKER, "1")
    for token, role in DEMO_TOKENS:
        if credentials.lookup_api_token_hash(session, credentials.hash_secret(token)) is None:
            credentials.add_api_token(session, token, f"demo {role}", [role])
    for item in DEMO_LISTENERS:
        if listeners.get_listener(session, item.id) is None:
            listeners.create_listener(
                session,
                listener_id=item.id,
                auth_method=item.method,
                hmac_secret=DEMO_HMAC_SECRET if item.method == "HMAC" else None,
                jwks_url=(jwks_url or DEMO_JWKS_PLACEHOLDER) if item.method == "JWT" else None,
                allowed_cidrs=item.allowed_cidrs,
                automation_name="Demo order intake",
                automation_steps=DEMO_STEPS,
                published=item.published,
                enabled=item.enabled,
            )
        elif item.method == "JWT" and jwks_url:
            listeners.set_jwks_url(session, item.id, jwks_url)
    return SeedSummary(created=created, tasks=len(tenant.tasks))
