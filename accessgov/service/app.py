"""The reference server: the generated stub server's routes with the hand-written handlers plugged in."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool

from accessgov.paging import PageTokenCodec
from accessgov.service.auth import TokenAuthenticator, TokenEndpoint
from accessgov.service.config import ServerConfig
from accessgov.service.entitlements import ListEntitlementsHandler
from accessgov.service.spec_app import HandlerSpec, build_app, load_bundle
from accessgov.service.tasks import RestartHandler
from accessgov.service.webhooks import WebhookHandler
from accessgov.storage import credentials, events, settings
from accessgov.storage.engine import create_engine, migrate, session_factory
from accessgov.verification import cidr
from accessgov.verification.jwks import JwksCache
from accessgov.verification.request_checks import MAX_BODY_BYTES
from generated.stub_server.operations import OPERATIONS

log = logging.getLogger(__name__)
# Event records older than 7 days (and expired access tokens) are deleted this often.
PURGE_INTERVAL_SECONDS = 3600
RESTART = "svc.api.task.v1.TaskActionsService.Restart"
LIST_ENTITLEMENTS = "svc.api.app.v1.AppEntitlementsService.List"
RECEIVE_WEBHOOK = "svc.api.webhooks.v1.IncomingWebhookService.Receive"
TOKEN = "svc.api.auth.v1.AuthService.Token"


def create_app(config: ServerConfig, **overrides: Any) -> Starlette:
    """Build the server for `config`; `overrides` replace collaborators in tests (e.g. `clock`, `jwks`)."""
    engine = create_engine(config.database_url)
    migrate(engine)
    sessions = session_factory(engine)
    clock = overrides.get("clock")
    timed = {"clock": clock} if clock else {}
    with sessions.begin() as session:
        secret = config.page_token_secret or settings.get_or_create_secret(session, "page_token_secret")
    codec = PageTokenCodec(secret, **timed)
    authenticator = TokenAuthenticator(sessions, **timed)
    handlers = {
        RESTART: HandlerSpec(RestartHandler(sessions, **timed)),
        LIST_ENTITLEMENTS: HandlerSpec(ListEntitlementsHandler(sessions, codec)),
        RECEIVE_WEBHOOK: HandlerSpec(
            WebhookHandler(
                sessions,
                tenant_base_url=config.tenant_base_url,
                public_base_url=config.public_base_url,
                trusted_proxies=cidr.parse_networks(config.trusted_proxies),
                jwks=overrides.get("jwks") or JwksCache(ttl_seconds=config.jwks_ttl_seconds),
                **timed,
            ),
            max_body_bytes=MAX_BODY_BYTES,
        ),
        TOKEN: HandlerSpec(TokenEndpoint(sessions, config.access_token_ttl_seconds, **timed), parse_body=False),
    }

    def purge() -> None:
        now = datetime.fromtimestamp((clock or time.time)(), UTC)
        with sessions.begin() as session:
            events.purge_events(session, now=now)
            credentials.purge_expired_tokens(session, now)

    async def purge_periodically() -> None:
        while True:
            await asyncio.sleep(PURGE_INTERVAL_SECONDS)
            try:
                await run_in_threadpool(purge)
            except Exception:  # A failed purge must not stop the server; the next round retries.
                log.exception("purging expired event records and tokens failed")

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await run_in_threadpool(purge)
        purger = asyncio.create_task(purge_periodically())
        try:
            yield
        finally:
            purger.cancel()
            engine.dispose()

    app = build_app(
        OPERATIONS,
        load_bundle(),
        handlers,
        authenticators={"bearerAuth": authenticator, "oauth": authenticator},
        lifespan=lifespan,
    )
    app.state.sessions = sessions
    app.state.engine = engine
    return app


def app_from_env() -> Starlette:
    """Factory for `uvicorn --factory accessgov.service.app:app_from_env` (used with several workers)."""
    return create_app(ServerConfig.from_env())
