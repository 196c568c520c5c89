"""Handler of `POST /api/v1/webhooks/incoming/{listener_id}`.

Order: request shape (the spec-driven layer checked headers, size and JSON; the timestamp window is
checked here) -> listener -> source address -> authentication -> idempotency -> automation.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from ipaddress import IPv4Network, IPv6Network
from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from accessgov.service.automations import run_automation
from accessgov.service.errors import ApiError, from_verification, not_found
from accessgov.service.spec_app import RequestContext
from accessgov.storage import events, listeners
from accessgov.verification import cidr, request_checks
from accessgov.verification.errors import WebhookError
from accessgov.verification.hmac_signature import verify_signature
from accessgov.verification.jwks import JwksCache
from accessgov.verification.jwt_token import bearer_token, verify_webhook_jwt

RUN_STATUS = {"SUCCEEDED": "AUTOMATION_RUN_STATUS_SUCCEEDED", "SKIPPED": "AUTOMATION_RUN_STATUS_SKIPPED"}


class WebhookHandler:
    """Verifies and records an inbound event, then runs the listener's automation exactly once."""

    def __init__(
        self,
        sessions: sessionmaker[Session],
        *,
        tenant_base_url: str,
        public_base_url: str | None = None,
        trusted_proxies: Sequence[IPv4Network | IPv6Network] = (),
        jwks: JwksCache | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.sessions = sessions
        self.tenant_base_url = tenant_base_url
        self.public_base_url = public_base_url
        self.trusted_proxies = tuple(trusted_proxies)
        self.jwks = jwks or JwksCache()
        self.clock = clock

    def endpoint_url(self, ctx: RequestContext) -> str:
        """The full URL of this listener as its callers address it (the JWT `aud`)."""
        if self.public_base_url:
            return self.public_base_url + ctx.request.url.path
        return str(ctx.request.url.replace(query=""))

    def __call__(self, ctx: RequestContext) -> tuple[int, dict[str, Any]]:
        try:
            return self._handle(ctx)
        except WebhookError as error:
            raise from_verification(error) from None

    def _handle(self, ctx: RequestContext) -> tuple[int, dict[str, Any]]:
        now = self.clock()
        timestamp = ctx.headers["Webhook-Timestamp"]
        event_id = ctx.headers["Webhook-Event-Id"]
        request_checks.parse_timestamp(timestamp, now)
        request_checks.parse_event_id(event_id)
        with self.sessions() as session:
            listener = listeners.get_listener(session, ctx.path_params["listener_id"])
            if listener is None:
                raise not_found(f"no webhook listener {ctx.path_params['listener_id']!r}")
            session.expunge(listener)
        # Proxies may append their hop as a separate header line: read every line, in order.
        forwarded = ",".join(ctx.request.headers.getlist("x-forwarded-for")) or None
        address = cidr.client_address(ctx.peer, forwarded, self.trusted_proxies)
        cidr.check_source_allowed(address, cidr.parse_networks(listener.allowed_cidrs or ()))
        if listener.auth_method == "HMAC":
            verify_signature(
                listener.hmac_secret or "",
                timestamp,
                event_id,
                ctx.raw_body,
                ctx.request.headers.get("webhook-signature"),
            )
        else:
            verify_webhook_jwt(
                bearer_token(ctx.request.headers.get("authorization")),
                jwks=self.jwks,
                jwks_url=listener.jwks_url or "",
                tenant_base_url=self.tenant_base_url,
                endpoint_url=self.endpoint_url(ctx),
                event_id=event_id,
                body=ctx.raw_body,
                method=ctx.request.method,
                now=now,
            )
        result = events.record_delivery(
            self.sessions,
            listener_id=listener.id,
            event_id=event_id.lower(),
            payload=ctx.body,
            now=datetime.fromtimestamp(now, UTC),
            run=lambda: run_automation(
                published=listener.automation_published,
                enabled=listener.trigger_enabled,
                steps=listener.automation_steps or [],
                payload=ctx.body,
            ),
        )
        if result.duplicate:
            raise ApiError(409, "DUPLICATE_EVENT", f"event {event_id} was already received by this listener")
        run = result.run
        status = RUN_STATUS.get(run.status, "AUTOMATION_RUN_STATUS_FAILED")
        return 200, {"eventId": event_id, "automationRun": {"id": run.id, "status": status, "reason": run.reason}}
