"""The composition root: the contract's routes (from the bundle) with the hand-written handlers plugged in, and the
background work (purges, key reloads, the runner). A request's path through them: docs/architecture.md ("A webhook
delivery, hop by hop" and the sections after it)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime
from functools import partial
from typing import Any

from sqlalchemy.orm import Session
from starlette.applications import Starlette

from accessgov.api.bearer_auth import BearerAuthenticator
from accessgov.api.contract_docs import ContractDocs
from accessgov.api.entitlements import ListEntitlementsHandler
from accessgov.api.restart import RestartHandler
from accessgov.api.token import TokenEndpoint
from accessgov.api.webhooks import WebhookHandler
from accessgov.automation_runner import AutomationRunner
from accessgov.bundle.reader import operations_from_bundle
from accessgov.config import Settings
from accessgov.failure_limits import FailureLimiter
from accessgov.http import gc_tuning
from accessgov.http.context import HandlerSpec
from accessgov.http.engine import build_app, load_bundle
from accessgov.http.in_flight import InFlight
from accessgov.keys import Keyring, KeyringError
from accessgov.keys.secretbox import SealedValueError
from accessgov.observability import log_text
from accessgov.observability.access_log import AccessLogMiddleware
from accessgov.observability.probes import Probes
from accessgov.paging import PageTokenCodec
from accessgov.storage import credentials, events, page_keys
from accessgov.storage import listeners as stored_listeners
from accessgov.storage.backends import open_database
from accessgov.storage.caches import AutomationCache, ListenerCache, TokenCache
from accessgov.storage.page_key_set import PageKeys
from accessgov.storage.sealing import default_keyring
from accessgov.webhooks import cidr
from accessgov.webhooks.jwks import JwksCache
from accessgov.webhooks.protocol import MAX_BODY_BYTES

log = logging.getLogger(__name__)
# Event records older than 7 days (and expired access tokens) are deleted this often.
PURGE_INTERVAL_SECONDS = 3600
# Page-token keys rotated by another process are picked up this often (one settings read a second: a rotation
# without grace reaches every server within it), and at once (at most once a second) when a token arrives signed
# by a key this process does not know yet (another worker switched first). A previous key's grace is checked per
# token, so it ends on time whatever this interval.
PAGE_KEYS_RELOAD_SECONDS = 1.0
PAGE_KEYS_REFRESH_MIN_SECONDS = 1.0
# The key file is re-read this often, so a new primary key (`accessgov keys rotate`, another process) is used for
# sealing within it, and `accessgov keys prune` may drop the old key once every server had that long to see the new
# file; an unknown key id re-reads it at once (`Keyring.key`).
KEYRING_RELOAD_SECONDS = 30
# How long `jwks_url` fetches may take, and how long an access token from `POST /oauth/token` lives.
JWKS_TIMEOUT_SECONDS = 3.0
ACCESS_TOKEN_TTL_SECONDS = 3600
RESTART = "svc.api.task.v1.TaskActionsService.Restart"
LIST_ENTITLEMENTS = "svc.api.app.v1.AppEntitlementsService.List"
RECEIVE_WEBHOOK = "svc.api.webhooks.v1.IncomingWebhookService.Receive"
TOKEN = "svc.api.auth.v1.AuthService.Token"
GET_OPENAPI = "svc.api.meta.v1.ContractService.GetOpenApi"
GET_DOCS = "svc.api.meta.v1.ContractService.GetDocs"
HEALTHZ = "svc.api.meta.v1.OperationsService.Healthz"
READYZ = "svc.api.meta.v1.OperationsService.Readyz"
METRICS = "svc.api.meta.v1.OperationsService.Metrics"


def create_app(
    settings: Settings,
    *,
    clock: Callable[[], float] | None = None,
    keyring: Keyring | None = None,
    limiter: FailureLimiter | None = None,
    jwks: JwksCache | None = None,
    page_keys_reload_seconds: float = PAGE_KEYS_RELOAD_SECONDS,
) -> Starlette:
    """Build the server for `settings`; the keywords replace collaborators (tests: a clock, a JWKS cache with
    another timeout, ...)."""
    # On PostgreSQL the event loop hands every database unit to a pool thread and takes the result back: with the
    # default 5 ms GIL switch interval a busy loop makes those threads wait up to 5 ms per hand-off (convoy effect).
    # The loop waits too, after each call that releases the GIL (RSA verification): 1 -> 0.2 ms gave JWT
    # deliveries 5-9 % more per second in each of four alternating pairs of runs (SQLite and PostgreSQL), HMAC,
    # page and restart unchanged.
    sys.setswitchinterval(settings.gil_switch_interval)
    log_text.install()  # warnings as escaped JSON lines on stderr, like the access log
    db = open_database(settings)
    timed: dict[str, Any] = {"clock": clock} if clock else {}  # else each collaborator's own default
    keyring = keyring or default_keyring(settings)
    page_token_key = settings.page_token_key

    def codec_keys(keys: PageKeys) -> tuple[bytes, tuple[bytes, ...], tuple[float, ...]]:
        """(current, previous, previous_until): the codec checks each previous key's expiry per token."""
        previous = tuple(key for key, _expires in keys.previous)
        return keys.current, previous, tuple(expires.timestamp() for _key, expires in keys.previous)

    if page_token_key:  # the operator's key: nothing stored, nothing to rotate here
        codec = PageTokenCodec(page_token_key, **timed)
    else:
        with db.sessions.begin() as session:
            current, previous, until = codec_keys(page_keys.load_or_create(session, keyring))
        codec = PageTokenCodec(current, previous=previous, previous_until=until, **timed)
    refreshed_at = -float("inf")
    page_keys_seen: str | None = None  # the sealed text last loaded: an unchanged one is not unsealed again

    async def refresh_page_keys_now() -> bool:
        nonlocal page_keys_seen
        try:  # unsealed on the reader thread, and only when the stored text changed
            stored, keys = await db.read(lambda session: page_keys.load_if_changed(session, page_keys_seen, keyring))
        except (KeyringError, SealedValueError) as error:  # keep the keys we have; said in the log
            log.warning("the page-token keys do not open: %s (run `accessgov keys doctor`)", error)
            return False
        if keys is None:
            return False
        page_keys_seen = stored
        before = codec.keys
        codec.set_keys(*codec_keys(keys))
        return codec.keys != before

    async def refresh_page_keys() -> bool:
        """Re-read the page-token keys now (at most once a second: forged tokens must not become a query each);
        True when the keys changed."""
        nonlocal refreshed_at
        if page_token_key or time.monotonic() - refreshed_at < PAGE_KEYS_REFRESH_MIN_SECONDS:
            return False
        refreshed_at = time.monotonic()
        return await refresh_page_keys_now()

    listeners = ListenerCache(db, keyring=keyring, ttl=settings.listener_cache_seconds)
    tokens = TokenCache(db, **({"wall_clock": clock} if clock else {}))
    trusted_proxies = cidr.parse_networks(settings.trusted_proxies)
    limiter = limiter or FailureLimiter(
        settings.auth_failure_limit,
        settings.auth_failure_limit_per_credential,
        redis_url=settings.redis_url,
        trusted_proxies=trusted_proxies,
        ipv6_prefix=settings.auth_failure_ipv6_prefix,
        backend_timeout=settings.limiter_timeout_ms / 1000,
        failure_mode=settings.limiter_failure_mode,
    )
    authenticator = BearerAuthenticator(tokens, limiter)
    in_flight = InFlight()
    automations = AutomationCache(db, ttl=settings.listener_cache_seconds)
    runner = AutomationRunner(db, automations, busy=in_flight.busy, **timed)  # unseals nothing
    webhook = WebhookHandler(
        db,
        listeners,
        tenant_base_url=settings.tenant_base_url,
        audience_base_url=settings.jwt_audience_base_url,
        trusted_proxies=trusted_proxies,
        jwks=jwks or JwksCache(ttl_seconds=settings.jwks_ttl_seconds, timeout_seconds=JWKS_TIMEOUT_SECONDS),
        on_queued=runner.wake if settings.run_automations else None,
        limiter=limiter,
        **timed,
    )
    token_endpoint = TokenEndpoint(db, ACCESS_TOKEN_TTL_SECONDS, limiter=limiter, **timed)
    contract_docs = ContractDocs(settings.docs_html)
    probes = Probes(db)
    handlers = {
        RESTART: HandlerSpec(RestartHandler(db, **timed)),
        LIST_ENTITLEMENTS: HandlerSpec(ListEntitlementsHandler(db, codec, refresh_page_keys)),
        RECEIVE_WEBHOOK: HandlerSpec(webhook, max_body_bytes=MAX_BODY_BYTES),
        TOKEN: HandlerSpec(token_endpoint, parse_body=False),
        GET_OPENAPI: HandlerSpec(contract_docs.openapi),
        GET_DOCS: HandlerSpec(contract_docs.docs),
        HEALTHZ: HandlerSpec(probes.healthz),
        READYZ: HandlerSpec(probes.readyz),
        METRICS: HandlerSpec(probes.metrics),
    }

    async def purge() -> None:
        now = datetime.fromtimestamp((clock or time.time)(), UTC)

        def unit(session: Session) -> None:
            events.purge_events(session, now=now)
            credentials.purge_expired_tokens(session, now)
            stored_listeners.purge_expired_previous_secrets(session, now)
            if not page_token_key:
                page_keys.purge_expired(session, now, keyring)

        await db.write(unit)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await purge()
        await limiter.start()  # connected, scripts loaded: the first failed authentication is counted
        periodic: list[tuple[float, Callable[[], Awaitable[object]], str]] = [
            (PURGE_INTERVAL_SECONDS, purge, "purging expired event records and tokens")
        ]
        if not page_token_key:
            periodic.append((page_keys_reload_seconds, refresh_page_keys_now, "reloading the page-token keys"))
        if keyring.path is not None:
            periodic.append(
                (KEYRING_RELOAD_SECONDS, partial(asyncio.to_thread, keyring.reload), "re-reading the key file")
            )
        background = [asyncio.create_task(_every(*job)) for job in periodic]
        if settings.run_automations:
            background.append(asyncio.create_task(runner.run_forever()))
        gc_tuning.settle()  # startup's objects live as long as the process: later collections skip them
        try:
            yield
        finally:
            for task in background:
                task.cancel()
            await asyncio.gather(*background, return_exceptions=True)
            db.close()

    doc = load_bundle()
    app = build_app(
        operations_from_bundle(doc),
        doc,
        handlers,
        authenticators={"bearerAuth": authenticator, "oauth": authenticator},
        lifespan=lifespan,
        in_flight=in_flight,
    )
    # Request id, JSON access log, request metrics: the outermost layer, so it sees the status of every answer,
    # 404s of unknown routes and 500s included (and a 500 carries the request id too).
    app.add_middleware(AccessLogMiddleware, log=settings.access_log == "json", trusted_proxies=trusted_proxies)
    app.state.db = db
    return app


async def _every(seconds: float, work: Callable[[], Awaitable[object]], what: str) -> None:
    """`work()` every `seconds`, for ever; a failure is logged and the next round retries (keeping what it had:
    a failed purge or reload must not stop the server)."""
    while True:
        await asyncio.sleep(seconds)
        try:
            await work()
        except Exception:
            log.exception("%s failed", what)


def worker_app() -> Starlette:
    """App factory for worker processes (`accessgov serve --workers N`): a worker dies with its supervisor and takes
    the settings it handed down in the environment (`config.export_to_workers`), the collector's included."""
    from accessgov.http.server import die_with_supervisor

    die_with_supervisor()
    settings = Settings.load()
    app = create_app(settings)
    gc_tuning.set_young_threshold(settings.gc_threshold)
    return app


def app_from_env() -> Starlette:
    """Factory for `uvicorn --factory accessgov.app:app_from_env`: the settings of the process's environment."""
    return create_app(Settings.load())
