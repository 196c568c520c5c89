"""Helpers shared by the webhook rule families."""

from __future__ import annotations

import uuid

from ..config import Listener
from ..context import Context, Exchange
from ..registry import Fail

WH = "spec/paths/api_v1_webhooks_incoming_{listener_id}.yaml"
SEED_ERRORS = "Errors > Inbound webhook responses"
SEED_HEADERS = "Authentication > Required headers"


def any_listener(ctx: Context) -> Listener:
    """The listener positive deliveries go to: the first HMAC one the kit may reach, else the first JWT one."""
    for method in ("hmac", "jwt"):
        found = ctx.config.listeners_by(method)  # type: ignore[arg-type]
        if found:
            return found[0]
    return ctx.listener("hmac")  # raises NotApplicable with the reason


def accepted(ctx: Context, exchange: Exchange, event_id: str | None = None, what: str = "") -> None:
    """A 200 whose body is the spec's `WebhookAcceptedResponse` naming the delivered event."""
    body = ctx.expect(exchange, 200, what=what)
    sent = event_id or exchange.request_headers.get("webhook-event-id")
    # A mock answers with an example: only an implementation can name the event it recorded.
    named = str(body.get("eventId", "")) if isinstance(body, dict) else ""
    if not ctx.config.is_mock and sent and named.lower() != sent.lower():
        raise Fail(f"{what + ': ' if what else ''}the 200 names event {named!r}, not the one sent ({sent})")


def uuid_v1(ctx: Context) -> str:
    """A well-formed UUID of version 1 (not 4), from the seeded RNG."""
    return str(uuid.UUID(int=ctx.rng.getrandbits(128), version=1))
