"""Short-lived read caches of listeners and tokens: entries live `ttl` seconds (2 s by default), so a change made
elsewhere is seen within that and one through `invalidate` at once. Misses are cached too, the number of entries
is bounded, and one load per key is in flight (concurrent requests for a missing key await the same query).
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Generic, TypeVar

from sqlalchemy.orm import Session

from accessgov.keys import Keyring
from accessgov.storage import credentials, listeners
from accessgov.storage.database import Database

K = TypeVar("K")
V = TypeVar("V")
DEFAULT_TTL_SECONDS = 2.0
DEFAULT_MAX_ENTRIES = 10_000


class TtlCache(Generic[K, V]):
    """An async read-through cache with a per-entry deadline."""

    def __init__(
        self,
        load: Callable[[K], Awaitable[tuple[V, float | None]]],
        *,
        ttl: float = DEFAULT_TTL_SECONDS,
        max_entries: int = DEFAULT_MAX_ENTRIES,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._load = load  # returns (value, deadline or None for the default ttl)
        self.ttl = ttl
        self.max_entries = max_entries
        self.clock = clock
        self._entries: OrderedDict[K, tuple[float, V]] = OrderedDict()
        self._loading: dict[K, asyncio.Future[V]] = {}

    async def get(self, key: K) -> V:
        entry = self._entries.get(key)
        if entry is not None and entry[0] > self.clock():
            return entry[1]
        pending = self._loading.get(key)
        if pending is not None:
            return await asyncio.shield(pending)
        future: asyncio.Future[V] = asyncio.get_running_loop().create_future()
        self._loading[key] = future
        try:
            value, deadline = await self._load(key)
        except BaseException as error:
            future.set_exception(error)
            future.exception()  # retrieved: waiters re-raise it, nobody else needs to
            raise
        finally:
            self._loading.pop(key, None)
        expires = min(self.clock() + self.ttl, deadline if deadline is not None else float("inf"))
        self._entries[key] = (expires, value)
        self._entries.move_to_end(key)
        while len(self._entries) > self.max_entries:
            self._entries.popitem(last=False)
        future.set_result(value)
        return value

    def peek(self, key: K) -> V | None:
        """The live entry's value, or None (also for a cached None): no load, no await, for a synchronous fast path."""
        entry = self._entries.get(key)
        return entry[1] if entry is not None and entry[0] > self.clock() else None

    def invalidate(self, key: K | None = None) -> None:
        """Forget `key` (or everything)."""
        if key is None:
            self._entries.clear()
        else:
            self._entries.pop(key, None)


@dataclass(frozen=True)
class ListenerRecord:
    """A listener as the request path and the runner need it (a plain snapshot, no ORM state)."""

    id: str
    auth_method: str
    hmac_secret: str | None  # plaintext, in memory only: unsealed once per load
    previous_hmac_secret: str | None
    previous_secret_expires_at: float | None  # Unix time; the previous secret verifies until then
    jwks_url: str | None
    allowed_cidrs: tuple[str, ...]
    automation_steps: tuple[dict[str, str], ...]
    automation_published: bool
    trigger_enabled: bool
    updated_at: datetime

    def hmac_secrets(self, now: float) -> tuple[str, ...]:
        """The secrets a delivery may be signed with at `now`: the current one, and the previous one in its grace."""
        current = (self.hmac_secret,) if self.hmac_secret else ()
        expires = self.previous_secret_expires_at
        if self.previous_hmac_secret and expires is not None and now < expires:
            return (*current, self.previous_hmac_secret)
        return current


def _listener_record(session: Session, listener_id: str, keyring: Keyring | None = None) -> ListenerRecord | None:
    row = listeners.get_listener(session, listener_id)
    if row is None:
        return None
    current, previous = listeners.secrets_of(row, keyring)
    expires = row.previous_secret_expires_at
    return ListenerRecord(
        id=row.id,
        auth_method=row.auth_method,
        hmac_secret=current,
        previous_hmac_secret=previous,
        previous_secret_expires_at=expires.timestamp() if expires is not None else None,
        jwks_url=row.jwks_url,
        allowed_cidrs=tuple(row.allowed_cidrs or ()),
        automation_steps=tuple(dict(step) for step in row.automation_steps or ()),
        automation_published=row.automation_published,
        trigger_enabled=row.trigger_enabled,
        updated_at=row.updated_at,
    )


class ListenerCache(TtlCache[str, ListenerRecord | None]):
    """Listeners by id (None for an unknown id)."""

    def __init__(self, db: Database, *, keyring: Keyring | None = None, **options: Any) -> None:
        async def load(listener_id: str) -> tuple[ListenerRecord | None, float | None]:
            # Unsealed (AES-GCM, a few µs) with the query, once per load: the cache holds the plaintext.
            return await db.read(lambda session: _listener_record(session, listener_id, keyring)), None

        super().__init__(load, **options)


@dataclass(frozen=True)
class AutomationRecord:
    """A listener as the runner needs it: its automation and switches, never a secret (nothing is unsealed, so a
    listener whose key is missing runs its automation like any other)."""

    id: str
    automation_steps: tuple[dict[str, str], ...]
    automation_published: bool
    trigger_enabled: bool
    updated_at: datetime


def _automation_record(session: Session, listener_id: str) -> AutomationRecord | None:
    row = listeners.automation_of(session, listener_id)
    if row is None:
        return None
    return AutomationRecord(
        id=row.id,
        automation_steps=tuple(dict(step) for step in row.automation_steps or ()),
        automation_published=row.automation_published,
        trigger_enabled=row.trigger_enabled,
        updated_at=row.updated_at,
    )


class AutomationCache(TtlCache[str, AutomationRecord | None]):
    """Listeners' automations by listener id, for the runner (None for an unknown id)."""

    def __init__(self, db: Database, **options: Any) -> None:
        async def load(listener_id: str) -> tuple[AutomationRecord | None, float | None]:
            return await db.read(lambda session: _automation_record(session, listener_id)), None

        super().__init__(load, **options)


@dataclass(frozen=True)
class TokenGrant:
    """What a bearer token grants: its kind (`api-token`, `oauth-client`) and roles."""

    subject: str
    roles: tuple[str, ...]


class TokenCache(TtlCache[str, TokenGrant | None]):
    """Bearer tokens by their SHA-256 (the token itself is never a key): API tokens, then access tokens, whose
    entries never outlive the token."""

    def __init__(self, db: Database, *, wall_clock: Callable[[], float] = time.time, **options: Any) -> None:
        def lookup(session: Session, digest: str) -> tuple[TokenGrant | None, float | None]:
            roles = credentials.lookup_api_token_hash(session, digest)
            if roles is not None:
                return TokenGrant("api-token", tuple(roles)), None
            found = credentials.lookup_access_token_hash(session, digest)
            if found is None:
                return None, None
            roles, expires_at = found
            remaining = expires_at.timestamp() - wall_clock()
            if remaining <= 0:
                return None, None
            return TokenGrant("oauth-client", tuple(roles)), self.clock() + remaining

        async def load(digest: str) -> tuple[TokenGrant | None, float | None]:
            return await db.read(lambda session: lookup(session, digest))

        super().__init__(load, **options)

    async def grant(self, token: str) -> TokenGrant | None:
        return await self.get(credentials.hash_secret(token))

    def cached_grant(self, token: str) -> TokenGrant | None:
        """The grant of `token` if it is cached and live (`peek`); None when it must be looked up (or is unknown)."""
        return self.peek(credentials.hash_secret(token))
