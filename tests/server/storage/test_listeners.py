"""Webhook listener records."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from accessgov.storage import listeners
from tests.server.storage.conftest import HMAC_SECRET, NOW, MakeListener

STEPS = [{"name": "email", "expression": "ctx.trigger.user.email"}, {"name": "ok", "expression": "true"}]


def test_create_and_read_back(sessions: sessionmaker[Session]) -> None:
    with sessions.begin() as session:
        created = listeners.create_listener(
            session,
            auth_method="HMAC",
            hmac_secret=HMAC_SECRET,
            allowed_cidrs=["10.0.0.0/8", "2001:db8::/32"],
            automation_name="Onboard",
            automation_steps=STEPS,
            now=NOW,
        )
    assert re.fullmatch(r"wh_[A-Za-z0-9_-]{22}", created.id)
    with sessions() as session:
        listener = listeners.get_listener(session, created.id)
    assert listener is not None
    assert (listener.auth_method, listener.jwks_url) == ("HMAC", None)
    assert listeners.secrets_of(listener) == (HMAC_SECRET, None)
    assert listener.hmac_secret_sealed and HMAC_SECRET not in listener.hmac_secret_sealed
    assert listener.allowed_cidrs == ["10.0.0.0/8", "2001:db8::/32"]
    assert listener.automation_steps == STEPS
    assert listener.automation_name == "Onboard" and listener.automation_id
    assert listener.automation_published is True and listener.trigger_enabled is True
    assert listener.created_at == listener.updated_at == NOW


def test_jwt_listener_with_given_id(sessions: sessionmaker[Session]) -> None:
    with sessions.begin() as session:
        listeners.create_listener(
            session,
            auth_method="JWT",
            jwks_url="https://idp.example/jwks.json",
            automation_name="n",
            automation_steps=[],
            published=False,
            enabled=False,
            listener_id="fixed-id",
        )
    with sessions() as session:
        listener = listeners.get_listener(session, "fixed-id")
        assert listener is not None
        assert (listener.jwks_url, listener.hmac_secret_sealed) == ("https://idp.example/jwks.json", None)
        assert (listener.automation_published, listener.trigger_enabled) == (False, False)
        assert listeners.get_listener(session, "other") is None
    with sessions() as session, pytest.raises(IntegrityError):
        listeners.create_listener(
            session,
            auth_method="JWT",
            jwks_url="https://x",
            automation_name="n",
            automation_steps=[],
            listener_id="fixed-id",
        )


INVALID_LISTENERS = [
    ({"auth_method": "BASIC"}, "auth_method"),
    ({"auth_method": "HMAC"}, "hmac_secret"),
    ({"auth_method": "JWT"}, "jwks_url"),
    ({"auth_method": "HMAC", "hmac_secret": "s", "automation_steps": [{"name": "x"}]}, "expression"),
]


def test_invalid_listeners_are_rejected(sessions: sessionmaker[Session]) -> None:
    with sessions() as session:
        for values, message in INVALID_LISTENERS:
            with pytest.raises(ValueError, match=message):
                listeners.create_listener(session, **{"automation_name": "n", "automation_steps": [], **values})
        assert listeners.list_listeners(session) == []


def test_toggles_and_secret_rotation(sessions: sessionmaker[Session], make_listener: MakeListener) -> None:
    listener = make_listener()
    later = NOW + timedelta(hours=1)
    with sessions.begin() as session:
        assert listeners.set_enabled(session, listener.id, False, now=later) is not None
        listeners.set_published(session, listener.id, False, now=later)
        listeners.rotate_secret(session, listener.id, "whsec_new", now=later)
        assert listeners.set_enabled(session, "missing", True) is None
        assert listeners.rotate_secret(session, "missing", "whsec_x") is None
    with sessions() as session:
        stored = listeners.get_listener(session, listener.id)
        assert stored is not None
        assert (stored.trigger_enabled, stored.automation_published) == (False, False)
        # The default grace keeps the previous secret for 24 hours.
        assert listeners.secrets_of(stored) == ("whsec_new", HMAC_SECRET)
        assert stored.previous_secret_expires_at == later + timedelta(hours=24)
        assert (stored.created_at, stored.updated_at) == (NOW, later)
        with pytest.raises(ValueError, match="empty"):
            listeners.rotate_secret(session, listener.id, "")


def test_rotating_a_jwt_listener_is_refused(sessions: sessionmaker[Session], make_listener: MakeListener) -> None:
    listener = make_listener(auth_method="JWT", hmac_secret=None, jwks_url="https://idp.example/jwks")
    with sessions() as session, pytest.raises(ValueError, match="not HMAC"):
        listeners.rotate_secret(session, listener.id, "whsec_x")


def test_list_listeners_oldest_first(make_listener: MakeListener, sessions: sessionmaker[Session]) -> None:
    second = make_listener(now=NOW + timedelta(seconds=1))
    first = make_listener(now=NOW)
    with sessions() as session:
        assert [item.id for item in listeners.list_listeners(session)] == [first.id, second.id]
