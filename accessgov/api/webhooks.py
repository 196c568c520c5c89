"""`POST /api/v1/webhooks/incoming/{listener_id}`: verify an inbound event, record it once, queue its automation.

Order: request shape (the engine checked headers, size and JSON; the timestamp window and event id are
checked here) -> listener (404) -> source address (403) -> authentication (401) -> idempotency (409) ->
the event and its queued run are committed together, and the 200 names the run. The automation itself runs
later, outside this request and its transaction (`accessgov.automation_runner`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

from accessgov.domain.automations import skip_reason
from accessgov.errors import ApiError, Conflict, ErrorCode, NotFound, quoted
from accessgov.failure_limits import FailureLimiter
from accessgov.http.context import RequestContext
from accessgov.keys import KeyringError, key_unavailable
from accessgov.keys.secretbox import SealedValueError
from accessgov.observability import metrics
from accessgov.storage import events
from accessgov.storage.caches import ListenerCache, ListenerRecord
from accessgov.storage.database import Database
from accessgov.webhooks import cidr, request_checks
from accessgov.webhooks.cidr import Network
from accessgov.webhooks.hmac_signature import verify_signature
from accessgov.webhooks.jwks import JwksCache
from accessgov.webhooks.jwt_token import bearer_token, verify_webhook_jwt

RUN_STATUS_PREFIX = "AUTOMATION_RUN_STATUS_"
# Failures that are guesses (a forged or wrong credential); a missing header or an unreachable JWKS is not.
COUNTED_FAILURES = frozenset(
    {
        ErrorCode.SIGNATURE_MISMATCH,
        ErrorCode.INVALID_TOKEN,
        ErrorCode.TOKEN_EXPIRED,
        ErrorCode.INVALID_CLAIM,
        ErrorCode.UNKNOWN_KID,
    }
)


@lru_cache(maxsize=4096)
def _networks(cidrs: tuple[str, ...]) -> tuple[Network, ...]:
    return cidr.parse_networks(cidrs)


class WebhookHandler:
    """Verifies and records an inbound event; the automation runs once, later, from the run queue."""

    def __init__(
        self,
        db: Database,
        listeners: ListenerCache,
        *,
        tenant_base_url: str,
        audience_base_url: str | None = None,
        trusted_proxies: Sequence[Network] = (),
        jwks: JwksCache | None = None,
        on_queued: Callable[[], None] | None = None,
        clock: Callable[[], float] = time.time,
        limiter: FailureLimiter | None = None,
    ) -> None:
        self.limiter = limiter if limiter is not None and limiter.enabled else None
        self.db = db
        self.listeners = listeners
        self.tenant_base_url = tenant_base_url
        # None: the operator chose to take the JWT audience from the request as received (Host header).
        self.audience_base_url = audience_base_url
        self.trusted_proxies = tuple(trusted_proxies)
        self.jwks = jwks or JwksCache()
        self.on_queued = on_queued
        self.clock = clock

    def endpoint_url(self, ctx: RequestContext) -> str:
        """The full URL of this listener, the JWT `aud`: under the configured base URL (the tenant's by
        default), never derived from the request's Host header unless configured so."""
        if self.audience_base_url is not None:
            # The path as `request.url.path` has it (Starlette escapes these three), without a URL object.
            path: str = ctx.request.scope["path"]
            return self.audience_base_url + path.replace("?", "%3F").replace("#", "%23").replace("\\", "%5C")
        return str(ctx.request.url.replace(query=""))

    async def __call__(self, ctx: RequestContext) -> tuple[int, dict[str, Any]]:
        now = self.clock()
        timestamp = ctx.headers["Webhook-Timestamp"]
        event_id = ctx.headers["Webhook-Event-Id"]
        request_checks.parse_timestamp(timestamp, now)
        request_checks.check_event_id(event_id)
        listener_id = ctx.path_params["listener_id"]
        try:
            listener = await self.listeners.get(listener_id)
        except (KeyringError, SealedValueError) as error:
            raise key_unavailable(f"listener {listener_id}", error) from None
        if listener is None:
            raise NotFound(f"no webhook listener {quoted(listener_id)}")
        address = None
        if listener.allowed_cidrs:
            address = ctx.client_address(self.trusted_proxies)
            cidr.check_source_allowed(address, _networks(listener.allowed_cidrs))
        await self._authenticate_limited(ctx, listener, timestamp, event_id, now)
        reason = skip_reason(published=listener.automation_published, enabled=listener.trigger_enabled)
        received_at = datetime.fromtimestamp(now, UTC)
        delivery = events.Delivery(listener.id, event_id.lower(), ctx.body, received_at, reason)
        result: events.DeliveryResult = await self.db.write_steps(self.db.delivery_steps, delivery)
        if result.duplicate:
            raise Conflict(ErrorCode.DUPLICATE_EVENT, f"event {event_id} was already received by this listener")
        metrics.run_recorded(str(result.status))  # QUEUED, or SKIPPED (unpublished, disabled)
        if result.status == events.QUEUED and self.on_queued is not None:
            self.on_queued()
        run = {"id": result.run_id, "status": RUN_STATUS_PREFIX + str(result.status), "reason": result.reason}
        return 200, {"eventId": event_id, "automationRun": run}

    async def _authenticate_limited(
        self, ctx: RequestContext, listener: ListenerRecord, timestamp: str, event_id: str, now: float
    ) -> None:
        """Authentication first: a signature or token that verifies is never refused, and costs the limiter
        nothing. Only one that does not verify counts (not a missing header, not an unreachable JWKS); past the
        source address's limit it is answered 429 instead of 401."""
        try:
            await self._authenticate(ctx, listener, timestamp, event_id, now)
        except ApiError as error:
            if self.limiter is not None and error.code in COUNTED_FAILURES:
                await self.limiter.failed(self.limiter.address(ctx), "listener:" + listener.id)
            raise

    async def _authenticate(
        self, ctx: RequestContext, listener: ListenerRecord, timestamp: str, event_id: str, now: float
    ) -> None:
        if listener.auth_method == "HMAC":
            verify_signature(
                listener.hmac_secrets(now),
                timestamp,
                event_id,
                ctx.raw_body,
                ctx.header("webhook-signature"),
            )
            return
        await verify_webhook_jwt(
            bearer_token(ctx.header("authorization")),
            jwks=self.jwks,
            jwks_url=listener.jwks_url or "",
            tenant_base_url=self.tenant_base_url,
            endpoint_url=self.endpoint_url(ctx),
            event_id=event_id,
            body=ctx.raw_body,
            method=ctx.request.method,
            now=now,
        )
