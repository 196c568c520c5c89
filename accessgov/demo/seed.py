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
DEMO_VIEWER_TOKEN = "demo-viewer-token"
DEMO_OAUTH_CLIENT_ID = "demo-client"
DEMO_OAUTH_CLIENT_SECRET = "demo-client-secret"
DEMO_HMAC_LISTENER_ID = "wh_demo_hmac"
DEMO_DISABLED_LISTENER_ID = "wh_demo_disabled"
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
                f"API token (admin): {DEMO_ADMIN_TOKEN}   (viewer): {DEMO_VIEWER_TOKEN}",
                f"OAuth client: {DEMO_OAUTH_CLIENT_ID} / {DEMO_OAUTH_CLIENT_SECRET}",
                "send a signed webhook to the demo listener:",
                f"  .venv/bin/accessgov webhook send {listener_url} --hmac-secret {DEMO_HMAC_SECRET} "
                '--data \'{"orderId": "A-1001"}\'',
            ]
        )


def seed_demo(session: Session, seed: int = 42) -> SeedSummary:
    """Insert the demo tenant unless it is there already. The caller commits."""
    tenant = demo.build(seed)
    if settings.get_setting(session, SEEDED_MARKER):
        return SeedSummary(created=False, tasks=len(tenant.tasks))
    directory.put_documents(session, "user", tenant.users)
    directory.put_documents(session, "app", tenant.apps)
    directory.put_documents(session, "policy", tenant.policies)
    for kind, documents in demo.related_objects(tenant).items():
        directory.put_documents(session, kind, documents)
    for app in tenant.apps:
        entitlements.insert_entitlements(session, app["id"], tenant.entitlements(app["id"]))
    for task in tenant.tasks:
        tasks.save_task(session, task["id"], task)
    credentials.add_api_token(session, DEMO_ADMIN_TOKEN, "demo admin", ["admin"])
    credentials.add_api_token(session, DEMO_VIEWER_TOKEN, "demo viewer", ["viewer"])
    credentials.add_oauth_client(session, DEMO_OAUTH_CLIENT_ID, DEMO_OAUTH_CLIENT_SECRET, ["admin"])
    for listener_id, enabled in ((DEMO_HMAC_LISTENER_ID, True), (DEMO_DISABLED_LISTENER_ID, False)):
        listeners.create_listener(
            session,
            listener_id=listener_id,
            auth_method="HMAC",
            hmac_secret=DEMO_HMAC_SECRET,
            automation_name="Demo order intake",
            automation_steps=DEMO_STEPS,
            enabled=enabled,
        )
    settings.set_setting(session, SEEDED_MARKER, "1")
    return SeedSummary(created=True, tasks=len(tenant.tasks))
