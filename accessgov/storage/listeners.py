"""Webhook listeners and their automation. Functions flush but never commit: the caller owns the
transaction (`with sessions.begin() as session: ...`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from accessgov.storage import ids
from accessgov.storage.schema import AUTH_METHODS, Listener


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
) -> Listener:
    """Add a listener (id generated unless given). HMAC listeners need a secret, JWT ones a JWKS URL."""
    if auth_method not in AUTH_METHODS:
        raise ValueError(f"auth_method must be one of {AUTH_METHODS}, not {auth_method!r}")
    if auth_method == "HMAC" and not hmac_secret:
        raise ValueError("an HMAC listener needs hmac_secret")
    if auth_method == "JWT" and not jwks_url:
        raise ValueError("a JWT listener needs jwks_url")
    now = now or ids.utcnow()
    listener = Listener(
        id=listener_id or ids.listener_id(),
        auth_method=auth_method,
        hmac_secret=hmac_secret if auth_method == "HMAC" else None,
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


def rotate_secret(
    session: Session, listener_id: str, new_secret: str, *, now: datetime | None = None
) -> Listener | None:
    """Replace an HMAC listener's secret; None when there is no such listener."""
    if not new_secret:
        raise ValueError("the new secret must not be empty")
    listener = session.get(Listener, listener_id)
    if listener is not None and listener.auth_method != "HMAC":
        raise ValueError(f"listener {listener_id!r} authenticates with {listener.auth_method}, not HMAC")
    return _update(session, listener_id, now, hmac_secret=new_secret)
