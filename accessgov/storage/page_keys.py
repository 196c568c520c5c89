"""The page-token keys, shared by every worker through the `settings` table (sealed, see `sealing.py`).

One current key signs new tokens; previous keys keep verifying tokens they signed until `expires_at` (the
rotation's grace: by default the tokens' own lifetime, so no token dies before its time). Functions flush but
never commit: the caller owns the transaction.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy.orm import Session

from accessgov.keys import Keyring, open_sealed
from accessgov.storage import settings
from accessgov.storage.page_key_set import PageKeys
from accessgov.storage.sealing import PAGE_TOKEN_KEYS, keyring_of, seal_for, setting_ad


def _store(session: Session, keys: PageKeys, keyring: Keyring) -> None:
    sealed = seal_for(session, keys.to_json(), setting_ad(PAGE_TOKEN_KEYS), keyring)
    settings.set_setting(session, PAGE_TOKEN_KEYS, sealed)


def load(session: Session, keyring: Keyring | None = None) -> PageKeys | None:
    """The stored keys, or None before the first server created them (a read: no write, no lock)."""
    return load_if_changed(session, None, keyring)[1]


def load_if_changed(
    session: Session, seen: str | None, keyring: Keyring | None = None
) -> tuple[str | None, PageKeys | None]:
    """(the stored sealed text, its keys); keys None when the text is `seen` (unchanged since the caller's last
    look: nothing to unseal, what a server's periodic reload finds nearly always) or absent."""
    stored = settings.get_setting(session, PAGE_TOKEN_KEYS)
    if stored is None or stored == seen:
        return stored, None
    return stored, PageKeys.from_json(open_sealed(keyring or keyring_of(session), stored, setting_ad(PAGE_TOKEN_KEYS)))


def load_or_create(session: Session, keyring: Keyring | None = None) -> PageKeys:
    """The stored keys, generating the first on first use (the first of several starting workers wins)."""
    keyring = keyring or keyring_of(session)
    settings.insert_if_absent(
        session, PAGE_TOKEN_KEYS, seal_for(session, PageKeys.first().to_json(), setting_ad(PAGE_TOKEN_KEYS), keyring)
    )
    stored = settings.get_setting(session, PAGE_TOKEN_KEYS)
    if stored is None:  # pragma: no cover - inserted or already present just above
        raise RuntimeError("the page-token keys vanished")
    return PageKeys.from_json(open_sealed(keyring, stored, setting_ad(PAGE_TOKEN_KEYS)))


def rotate(session: Session, now: datetime, grace: timedelta, keyring: Keyring | None = None) -> PageKeys:
    """A new current key; the old one verifies for `grace` more (0: tokens it signed stop working at once)."""
    keyring = keyring or keyring_of(session)
    keys = load_or_create(session, keyring).rotated(now, grace)
    _store(session, keys, keyring)
    return keys


def purge_expired(session: Session, now: datetime, keyring: Keyring | None = None) -> int:
    """Drop previous keys past their grace; returns how many."""
    keyring = keyring or keyring_of(session)
    keys = load(session, keyring)
    if keys is None:
        return 0
    pruned = keys.pruned(now)
    if pruned != keys:
        _store(session, pruned, keyring)
    return len(keys.previous) - len(pruned.previous)
