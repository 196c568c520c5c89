"""Abuse limits on failed authentication: a moving window per client address and per credential (the `limits`
library, in memory or shared through Redis).

Only failed credential checks count (the token endpoint's invalid_client, an unknown or expired bearer token, a
webhook signature or JWT that does not verify); success never does, nor server-side trouble such as an
unreachable JWKS. The limit is checked *before* the credential is tried, so a blocked address (or a credential
under attack) gets 429 without another guess being evaluated: brute force really slows down. A client that
never fails is never limited (unless it shares an address with one that does, or a credential under attack).

With `ACCESSGOV_REDIS_URL` every worker and server shares the counters; if Redis fails, the check fails open
(logged at most once a minute): an outage of the limiter must not turn into an outage of the API.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Awaitable, Callable, Sequence
from functools import lru_cache

from limits import RateLimitItem, parse
from limits.aio.storage import MemoryStorage, RedisStorage, Storage
from limits.aio.strategies import MovingWindowRateLimiter

from accessgov.errors import ErrorCode, TooManyFailedAttempts
from accessgov.http.context import RequestContext
from accessgov.webhooks.cidr import Address, Network

log = logging.getLogger(__name__)
DEFAULT_PER_ADDRESS = "30/minute"
DEFAULT_PER_CREDENTIAL = "60/minute"
OFF = ("", "0", "off", "none")
REDIS_TIMEOUT_SECONDS = 0.5
WARN_EVERY_SECONDS = 60.0
PRUNE_ABOVE = 10_000  # keys with recent failures kept (in memory) before expired ones are swept out


def parse_limit(text: str | None) -> RateLimitItem | None:
    """`30/minute`, `5/10 seconds`, ... (the `limits` notation); None for `off`."""
    if text is None or text.strip().lower() in OFF:
        return None
    return parse(text.strip())


def storage_for(redis_url: str | None) -> Storage:
    if not redis_url:
        return MemoryStorage()
    uri = redis_url if redis_url.startswith("async+") else "async+" + redis_url
    return RedisStorage(
        uri,
        implementation="redispy",
        key_prefix="accessgov-auth-failures",
        socket_timeout=REDIS_TIMEOUT_SECONDS,
        socket_connect_timeout=REDIS_TIMEOUT_SECONDS,
    )


@lru_cache(maxsize=4096)
def _text(address: Address) -> str:
    return str(address)  # cached: the same clients come back, and an address's text is computed each time


class FailureLimiter:
    """Counts failed authentications per client address and per credential; refuses (429) past the limits."""

    def __init__(
        self,
        per_address: str | None = DEFAULT_PER_ADDRESS,
        per_credential: str | None = DEFAULT_PER_CREDENTIAL,
        *,
        redis_url: str | None = None,
        trusted_proxies: Sequence[Network] = (),
    ) -> None:
        self.per_address = parse_limit(per_address)
        self.per_credential = parse_limit(per_credential)
        self.trusted_proxies = tuple(trusted_proxies)
        self.shared = bool(redis_url)
        self._strategy = MovingWindowRateLimiter(storage_for(redis_url))
        self._warned_at = -math.inf
        # In memory the counters are this object's alone, so it knows which keys may have a failure in their window
        # (until when, by the storage's clock) and asks the storage about those only: a client that never failed
        # costs no lookup. Redis is shared with other workers: always asked.
        self._failing_until: dict[tuple[str, ...], float] | None = None if self.shared else {}
        self._prune_above = PRUNE_ABOVE
        # For `quiet`: failures being counted now, and when the last failure counted leaves its window.
        self._counting = 0
        self._quiet_after = -math.inf
        limits = (self.per_address, self.per_credential)
        self._refuses_everyone = any(item is not None and item.amount < 1 for item in limits)

    def quiet(self) -> bool:
        """Whether `check` cannot refuse anyone now: in memory, no failure in its window or being counted, and no
        limit of 0. The request path then skips the client's address and the check (a failure is still counted)."""
        return (
            self._failing_until is not None
            and not self._counting
            and not self._refuses_everyone
            and time.time() >= self._quiet_after
        )

    @property
    def enabled(self) -> bool:
        return self.per_address is not None or self.per_credential is not None

    def address(self, ctx: RequestContext) -> str:
        """The client address: the TCP peer, or the forwarded one when the peer is a trusted proxy."""
        found = ctx.client_address(self.trusted_proxies)
        return _text(found) if found is not None else "unknown"

    def _keys(self, address: str, credential: str | None) -> list[tuple[RateLimitItem, tuple[str, ...]]]:
        keys = []
        if self.per_address is not None:
            keys.append((self.per_address, ("address", address)))
        if self.per_credential is not None and credential:
            keys.append((self.per_credential, ("credential", credential)))
        return keys

    async def check(self, address: str, credential: str | None = None) -> None:
        """Raise `TooManyFailedAttempts` (429 with Retry-After) when the address or credential is over its limit."""
        keys = self._keys(address, credential)
        if self._failing_until is not None:
            keys = [key for key in keys if self._may_be_limited(*key)]
            if not keys:
                return
        try:
            allowed = await self._each(self._strategy.test, keys)
        except Exception as error:  # the limiter's store is down: fail open
            self._warn(error)
            return
        for (item, identifiers), ok in zip(keys, allowed, strict=True):
            if ok:
                continue
            try:
                stats = await self._strategy.get_window_stats(item, *identifiers)
            except Exception as error:
                self._warn(error)
                return
            retry_after = max(1, math.ceil(stats.reset_time - time.time()))
            raise TooManyFailedAttempts(
                ErrorCode.TOO_MANY_FAILED_ATTEMPTS,
                f"too many failed authentication attempts from this {identifiers[0]}; retry after {retry_after} s",
                retry_after=retry_after,
            )

    async def failed(self, address: str, credential: str | None = None) -> None:
        """Count one failed authentication."""
        keys = self._keys(address, credential)
        failing = self._failing_until
        if failing is not None:
            for _item, identifiers in keys:  # from before the hit: a check meanwhile asks the storage
                failing[identifiers] = math.inf
        self._counting += 1
        try:
            await self._each(self._strategy.hit, keys)
        except Exception as error:
            self._warn(error)
        finally:
            self._counting -= 1
            if failing is not None:
                now = time.time()  # the clock the storage dates its entries with, read after they were made
                for item, identifiers in keys:
                    failing[identifiers] = until = now + item.get_expiry()
                    self._quiet_after = max(self._quiet_after, until)
                if len(failing) > self._prune_above:
                    self._prune(now)

    def _may_be_limited(self, item: RateLimitItem, identifiers: tuple[str, ...]) -> bool:
        """False when the in-memory storage has no failure of `identifiers` in the window: `test` would allow it."""
        assert self._failing_until is not None
        until = self._failing_until.get(identifiers)
        if until is None:
            return item.amount < 1  # a limit of 0 refuses even a client that never failed
        if until > time.time():
            return True
        del self._failing_until[identifiers]
        return item.amount < 1

    def _prune(self, now: float) -> None:
        """Forget keys whose failures all left their window (addresses that failed once and never came back)."""
        assert self._failing_until is not None
        for identifiers in [key for key, until in self._failing_until.items() if until <= now]:
            del self._failing_until[identifiers]
        self._prune_above = max(PRUNE_ABOVE, 2 * len(self._failing_until))

    async def _each(
        self, call: Callable[..., Awaitable[bool]], keys: list[tuple[RateLimitItem, tuple[str, ...]]]
    ) -> list[bool]:
        """`call(item, *identifiers)` for every key: concurrently with Redis (one round trip on the path of every
        request instead of one per key), in turn in memory (no task to create for a dict lookup)."""
        if self.shared and len(keys) > 1:
            return list(await asyncio.gather(*(call(item, *identifiers) for item, identifiers in keys)))
        return [await call(item, *identifiers) for item, identifiers in keys]

    def _warn(self, error: Exception) -> None:
        now = time.monotonic()
        if now - self._warned_at >= WARN_EVERY_SECONDS:
            self._warned_at = now
            log.warning("failed-authentication limiter unavailable, not limiting: %s", error)
