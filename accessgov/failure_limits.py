"""Abuse limits on failed authentication: a moving window per source address and per credential (the `limits`
library, in memory or shared through Redis).

Only a credential that does not verify reaches this module, so the success path costs nothing and a right
credential is never refused. An address past its limit gets 429 with `Retry-After`; a credential past its limit
is only reported. A shared backend is connected to and given its scripts at start-up (`start`), and again in the
background after it erred, outside the per-check budget: `backend_timeout` bounds a check alone, so the first
failure after a start is counted. A backend that errs or hangs is left alone (failing open or closed as
configured) until a warm-up succeeds, tried at most every `BACKEND_RETRY_SECONDS`. The rules and settings:
docs/keys-and-limits.md ("Failed-authentication limits").
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Awaitable, Sequence
from functools import lru_cache
from ipaddress import IPv6Address, ip_network
from typing import Any, TypeVar

from limits import RateLimitItem, parse
from limits.aio.storage import MemoryStorage, RedisStorage, Storage
from limits.aio.strategies import MovingWindowRateLimiter

from accessgov.config import LIMIT_OFF
from accessgov.errors import ErrorCode, TooManyFailedAttempts
from accessgov.http.context import RequestContext
from accessgov.webhooks.cidr import Address, Network

log = logging.getLogger(__name__)
T = TypeVar("T")
DEFAULT_PER_ADDRESS = "30/minute"
DEFAULT_PER_CREDENTIAL = "60/minute"
DEFAULT_IPV6_PREFIX = 64
DEFAULT_BACKEND_TIMEOUT_SECONDS = 0.005
BACKEND_RETRY_SECONDS = 5.0
# Connecting, the handshake and loading the scripts, at start-up and after an error: outside any request's budget.
WARM_UP_TIMEOUT_SECONDS = 2.0
# Connections opened by a warm-up: one failure's two counters (address, credential) are checked concurrently.
WARM_CONNECTIONS = 2
ALERT_EVERY_SECONDS = 60.0
FAILURE_MODES = ("open", "closed")
OFF = ("", *LIMIT_OFF)


def parse_limit(text: str | None) -> RateLimitItem | None:
    """`30/minute`, `5/10 seconds`, ... (the `limits` notation); None for `off`."""
    if text is None or text.strip().lower() in OFF:
        return None
    return parse(text.strip())


def storage_for(redis_url: str | None) -> Storage:
    """In memory, or Redis. Its own socket timeouts are the warm-up's: a check's budget is `FailureLimiter`'s
    timer, so a connection is never made or dropped under a budget meant for one round trip."""
    if not redis_url:
        return MemoryStorage()
    uri = redis_url if redis_url.startswith("async+") else "async+" + redis_url
    return RedisStorage(
        uri,
        implementation="redispy",
        key_prefix="accessgov-auth-failures",
        socket_timeout=WARM_UP_TIMEOUT_SECONDS,
        socket_connect_timeout=WARM_UP_TIMEOUT_SECONDS,
    )


async def _warm_up(storage: Storage) -> None:
    """Open the pool's connections and load the moving window's scripts, so a check is one EVALSHA round trip."""
    bridge: Any = getattr(storage, "bridge", None)
    if bridge is None:  # in memory: nothing to connect to
        return
    client = bridge.get_connection()
    # Fresh connections: after an error the pooled ones may be dead (Redis restarted, a network blip), and a check
    # meeting one would reconnect inside its budget. No check runs meanwhile (the backend counts as away).
    await client.connection_pool.disconnect()
    await asyncio.gather(*(client.ping() for _ in range(WARM_CONNECTIONS)))
    for script in (bridge.lua_acquire_moving_window, bridge.lua_moving_window):
        await client.script_load(script.script)


@lru_cache(maxsize=4096)
def address_key(address: Address | None, ipv6_prefix: int = DEFAULT_IPV6_PREFIX) -> str:
    """The counter an address falls in: an IPv4 address itself, an IPv6 address's /`ipv6_prefix` network.
    Cached: the same clients come back, and the text is computed each time."""
    if address is None:
        return "unknown"
    if isinstance(address, IPv6Address) and ipv6_prefix < 128:
        return str(ip_network((address, ipv6_prefix), strict=False))
    return str(address)


class FailureLimiter:
    """Counts failed authentications per source address and per credential; 429 for an address past its limit."""

    def __init__(
        self,
        per_address: str | None = DEFAULT_PER_ADDRESS,
        per_credential: str | None = DEFAULT_PER_CREDENTIAL,
        *,
        redis_url: str | None = None,
        trusted_proxies: Sequence[Network] = (),
        ipv6_prefix: int = DEFAULT_IPV6_PREFIX,
        backend_timeout: float = DEFAULT_BACKEND_TIMEOUT_SECONDS,
        failure_mode: str = "open",
    ) -> None:
        if not 0 <= ipv6_prefix <= 128:
            raise ValueError(f"the IPv6 prefix length is 0-128, not {ipv6_prefix}")
        if failure_mode not in FAILURE_MODES:
            raise ValueError(f"the limiter's failure mode is open or closed, not {failure_mode!r}")
        if not 0 < backend_timeout < math.inf:
            raise ValueError(f"the limiter backend timeout must be a positive number of seconds, not {backend_timeout}")
        self.per_address = parse_limit(per_address)
        self.per_credential = parse_limit(per_credential)
        self.trusted_proxies = tuple(trusted_proxies)
        self.ipv6_prefix = ipv6_prefix
        self.shared = bool(redis_url)
        # In memory a call cannot hang: no timer around it. Shared: at most `backend_timeout` per call.
        self.backend_timeout = backend_timeout if self.shared else None
        self.fail_closed = failure_mode == "closed"
        self._storage = storage_for(redis_url)
        self._strategy = MovingWindowRateLimiter(self._storage)
        self._backend_ok = True  # logged when it changes: once per outage, not once per request
        self._warming: asyncio.Task[None] | None = None
        self._retry_at = -math.inf  # no warm-up before this (monotonic): set when one failed
        self._alerted_at: dict[str, float] = {}

    async def start(self) -> None:
        """Connect to the shared backend and load its scripts before the first request (the server's start-up),
        waiting up to `WARM_UP_TIMEOUT_SECONDS`; a backend that does not answer by then is left alone (said once)
        and warmed up again in the background."""
        if self.shared:
            await self._warm()

    @property
    def available(self) -> bool:
        """Whether failures are counted now (the backend answered its last warm-up and check)."""
        return self._backend_ok

    @property
    def enabled(self) -> bool:
        return self.per_address is not None or self.per_credential is not None

    def address(self, ctx: RequestContext) -> str:
        """The client's counter: the TCP peer, or the forwarded one when the peer is a trusted proxy; grouped."""
        return address_key(ctx.client_address(self.trusted_proxies), self.ipv6_prefix)

    async def failed(self, address: str, credential: str | None = None) -> None:
        """Count one failed authentication from `address` for `credential`; raise `TooManyFailedAttempts` (429 with
        Retry-After) when the address is past its limit. The credential's count only alerts."""
        if not self._backend_ok:  # away: a warm-up in the background (at most every retry period) brings it back
            self._warm_in_background()
            self._unavailable()
            return
        try:
            await self._count(address, credential)
        except TooManyFailedAttempts:
            raise
        except Exception as error:  # any backend trouble (timeout, refused, protocol): left alone until warmed up
            self._went_away(error)
            self._warm_in_background()
            self._unavailable()

    async def _warm(self) -> None:
        """One warm-up (bounded by `WARM_UP_TIMEOUT_SECONDS`, outside any check's budget): the backend is back when
        it succeeds, away (said once) when it does not."""
        try:
            await asyncio.wait_for(_warm_up(self._storage), WARM_UP_TIMEOUT_SECONDS)
        except Exception as error:
            self._retry_at = time.monotonic() + BACKEND_RETRY_SECONDS
            self._went_away(error)
            return
        if not self._backend_ok:
            self._backend_ok = True
            log.warning("failed-authentication limiter backend answers again")

    def _warm_in_background(self) -> None:
        if self._warming is not None and not self._warming.done():
            return
        if time.monotonic() < self._retry_at:
            return
        self._warming = asyncio.get_running_loop().create_task(self._warm())

    def _went_away(self, error: Exception) -> None:
        if self._backend_ok:
            self._backend_ok = False
            log.warning(
                "failed-authentication limiter backend unavailable (%s), failing %s; retrying in %.0f s",
                type(error).__name__ if isinstance(error, TimeoutError) else error,
                "closed" if self.fail_closed else "open",
                BACKEND_RETRY_SECONDS,
            )

    async def _count(self, address: str, credential: str | None) -> None:
        keys: list[tuple[RateLimitItem, str, str]] = []
        if self.per_address is not None:
            keys.append((self.per_address, "address", address))
        if self.per_credential is not None and credential:
            keys.append((self.per_credential, "credential", credential))
        if not keys:
            return
        hits = [self._strategy.hit(item, kind, name) for item, kind, name in keys]
        if self.backend_timeout is None:
            allowed = [await hit for hit in hits]
        else:  # both counters in one wait, bounded
            allowed = await self._bounded(asyncio.gather(*hits))
        for (item, kind, name), ok in zip(keys, allowed, strict=True):
            if ok:
                continue
            if kind == "credential":
                self._alert(name, item)
                continue
            stats = await self._bounded(self._strategy.get_window_stats(item, kind, name))
            retry_after = max(1, math.ceil(stats.reset_time - time.time()))
            raise TooManyFailedAttempts(
                ErrorCode.TOO_MANY_FAILED_ATTEMPTS,
                f"too many failed authentication attempts from this address; retry after {retry_after} s",
                retry_after=retry_after,
            )

    async def _bounded(self, call: Awaitable[T]) -> T:
        if self.backend_timeout is None:
            return await call
        return await asyncio.wait_for(call, self.backend_timeout)

    def _alert(self, credential: str, item: RateLimitItem) -> None:
        """A credential past its limit: someone is guessing it, from wherever. Reported, at most once a minute."""
        now = time.monotonic()
        if now - self._alerted_at.get(credential, -math.inf) < ALERT_EVERY_SECONDS:
            return
        if len(self._alerted_at) > 10_000:
            self._alerted_at.clear()
        self._alerted_at[credential] = now
        log.warning(
            "credential %s: more than %d failed authentications in %d s (from any address); not refused",
            credential,
            item.amount,
            item.get_expiry(),
        )

    def _unavailable(self) -> None:
        """A failure while the backend is away: fail open (the caller's 401) or closed (429)."""
        if self.fail_closed:
            retry_after = math.ceil(BACKEND_RETRY_SECONDS)
            raise TooManyFailedAttempts(
                ErrorCode.TOO_MANY_FAILED_ATTEMPTS,
                f"failed authentications cannot be counted now; retry after {retry_after} s",
                retry_after=retry_after,
            )
