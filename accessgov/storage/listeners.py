"""Webhook listeners and their automation. Functions flush but never commit: the caller owns the
transaction (`with sessions.begin() as session: ...`).

HMAC secrets are sealed under the keyring before they reach a row (`accessgov.keys`, `sealing.listener_ad`) and
unsealed only where a request path needs them (`secrets_of`). A rotation keeps the previous secret valid for a
grace period, so senders can switch over without a failed delivery (Standard Webhooks' recommendation).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session, object_session

from accessgov.keys import Keyring, open_sealed
from accessgov.storage import ids
from accessgov.storage.engine import rowcount
from accessgov.storage.schema import AUTH_METHODS, Listener
from accessgov.storage.sealing import keyring_of, listener_ad, seal_for

DEFAULT_ROTATION_GRACE = timedelta(hours=24)


def _steps(steps: Iterable[Mapping[str, str]]) -> list[dict[str, str]]:
    checked = []
    for index, step in enumerate(steps):
        name, expression = step.get("name"), step.get("expression")
        if not isinstance(name, str) or not isinstance(expression, str) or not expression:
            raise ValueError(f"automation step {index} needs a string 'name' and a non-empty 'expression'")
        checked.append({"name": name, "expression": expression})
    return checked


def create_listener(
    session: Session,
    *,
    auth_method: str,
    hmac_secret: str | None = None,
    jwks_url: str | None = None,
    allowed_cidrs: Iterable[str] = (),
    automation_name: str,
    automation_steps: Iterable[Mapping[str, str]],
    published: bool = True,
    enabled: bool = True,
    listener_id: str | None = None,
    automation_id: str | None = None,
    now: datetime | None = None,
    keyring: Keyring | None = None,
) -> Listener:
    """Add a listener (id generated unless given). HMAC listeners need a secret (stored sealed), JWT ones a JWKS
    URL."""
    if auth_method not in AUTH_METHODS:
        raise ValueError(f"auth_method must be one of {AUTH_METHODS}, not {auth_method!r}")
    if auth_method == "HMAC" and not hmac_secret:
        raise ValueError("an HMAC listener needs hmac_secret")
    if auth_method == "JWT" and not jwks_url:
        raise ValueError("a JWT listener needs jwks_url")
    now = now or ids.utcnow()
    new_id = listener_id or ids.listener_id()
    sealed = None
    if auth_method == "HMAC" and hmac_secret:
        sealed = seal_for(session, hmac_secret, listener_ad(new_id), keyring)
    listener = Listener(
        id=new_id,
        auth_method=auth_method,
        hmac_secret_sealed=sealed,
        jwks_url=jwks_url if auth_method == "JWT" else None,
        allowed_cidrs=[str(cidr) for cidr in allowed_cidrs],
        automation_id=automation_id or ids.sortable_id(now),
        automation_name=automation_name,
        automation_steps=_steps(automation_steps),
        automation_published=published,
        trigger_enabled=enabled,
        created_at=now,
        updated_at=now,
    )
    session.add(listener)
    session.flush()  # a clashing given id fails here, not at some later commit
    return listener


def get_listener(session: Session, listener_id: str) -> Listener | None:
    return session.get(Listener, listener_id)


def automation_of(session: Session, listener_id: str) -> Any:
    """A listener's automation and its switches (id, steps, published, enabled, updated_at), not its secrets: what
    the runner needs, read without unsealing anything. None for an unknown id."""
    columns = (
        Listener.id,
        Listener.automation_steps,
        Listener.automation_published,
        Listener.trigger_enabled,
        Listener.updated_at,
    )
    return session.execute(select(*columns).where(Listener.id == listener_id)).first()


def list_listeners(session: Session) -> list[Listener]:
    """Every listener, oldest first."""
    return list(session.scalars(select(Listener).order_by(Listener.created_at, Listener.id)))


def _update(session: Session, listener_id: str, now: datetime | None, **values: object) -> Listener | None:
    listener = session.get(Listener, listener_id)
    if listener is None:
        return None
    for name, value in values.items():
        setattr(listener, name, value)
    listener.updated_at = now or ids.utcnow()
    session.flush()
    return listener


def set_enabled(session: Session, listener_id: str, enabled: bool, *, now: datetime | None = None) -> Listener | None:
    """Enable or disable the trigger; None when there is no such listener."""
    return _update(session, listener_id, now, trigger_enabled=enabled)


def set_published(
    session: Session, listener_id: str, published: bool, *, now: datetime | None = None
) -> Listener | None:
    """Publish or unpublish the automation; None when there is no such listener."""
    return _update(session, listener_id, now, automation_published=published)


def set_jwks_url(session: Session, listener_id: str, jwks_url: str, *, now: datetime | None = None) -> Listener | None:
    """Point a JWT listener at another JWKS URL (the demo's JWKS moves with each start); None when there is no
    such listener."""
    return _update(session, listener_id, now, jwks_url=jwks_url)


def rotate_secret(
    session: Session,
    listener_id: str,
    new_secret: str,
    *,
    grace: timedelta = DEFAULT_ROTATION_GRACE,
    now: datetime | None = None,
    keyring: Keyring | None = None,
) -> Listener | None:
    """Replace an HMAC listener's secret; the current one stays valid for `grace` (0: dropped at once). None when
    there is no such listener. A previous secret still in its grace is replaced by the one rotated out now."""
    if not new_secret:
        raise ValueError("the new secret must not be empty")
    if grace < timedelta(0):
        raise ValueError("the grace period must not be negative")
    listener = session.get(Listener, listener_id)
    if listener is None:
        return None
    if listener.auth_method != "HMAC":
        raise ValueError(f"listener {listener_id!r} authenticates with {listener.auth_method}, not HMAC")
    now = now or ids.utcnow()
    keep = grace > timedelta(0) and listener.hmac_secret_sealed is not None
    return _update(
        session,
        listener_id,
        now,
        hmac_secret_sealed=seal_for(session, new_secret, listener_ad(listener_id), keyring),
        # Same row, same associated data: the sealed current secret becomes the previous one as it is.
        previous_hmac_secret_sealed=listener.hmac_secret_sealed if keep else None,
        previous_secret_expires_at=now + grace if keep else None,
    )


def secrets_of(listener: Listener, keyring: Keyring | None = None) -> tuple[str | None, str | None]:
    """(current, previous) plaintext HMAC secrets; previous is None when absent (its expiry is the caller's to
    check against `previous_secret_expires_at`)."""
    keyring = keyring or keyring_of(object_session(listener))
    ad = listener_ad(listener.id)
    current = open_sealed(keyring, listener.hmac_secret_sealed, ad) if listener.hmac_secret_sealed else None
    previous = (
        open_sealed(keyring, listener.previous_hmac_secret_sealed, ad) if listener.previous_hmac_secret_sealed else None
    )
    return current, previous


def purge_expired_previous_secrets(session: Session, now: datetime) -> int:
    """Drop previous secrets whose grace period is over; returns how many. The caller commits."""
    result = session.execute(
        update(Listener)
        .where(Listener.previous_secret_expires_at <= now)
        .values(previous_hmac_secret_sealed=None, previous_secret_expires_at=None)
    )
    return rowcount(result)
