"""API tokens, OAuth clients and access tokens."""

from __future__ import annotations

import hashlib
from datetime import timedelta

import sqlalchemy as sa
from sqlalchemy.orm import Session, sessionmaker

from accessgov.storage import credentials
from accessgov.storage.schema import ApiToken, OAuthAccessToken, OAuthClient
from tests.storage.conftest import NOW


def test_api_tokens(sessions: sessionmaker[Session]) -> None:
    with sessions.begin() as session:
        credentials.add_api_token(session, "tok-admin", "admin", ["admin"], now=NOW)
        credentials.add_api_token(session, "tok-viewer", "viewer", ["viewer", "auditor"])
    with sessions() as session:
        assert credentials.lookup_api_token(session, "tok-admin") == ["admin"]
        assert credentials.lookup_api_token(session, "tok-viewer") == ["viewer", "auditor"]
        assert credentials.lookup_api_token(session, "tok-unknown") is None
        assert credentials.list_api_token_names(session) == ["admin", "viewer"]
        stored = session.scalars(sa.select(ApiToken.token_hash)).all()
    assert hashlib.sha256(b"tok-admin").hexdigest() in stored
    assert "tok-admin" not in stored  # only the hash is kept


def test_oauth_client_verification(sessions: sessionmaker[Session]) -> None:
    with sessions.begin() as session:
        credentials.add_oauth_client(session, "client-1", "s3cret", ["automation"])
    with sessions() as session:
        assert credentials.verify_oauth_client(session, "client-1", "s3cret") == ["automation"]
        assert credentials.verify_oauth_client(session, "client-1", "wrong") is None
        assert credentials.verify_oauth_client(session, "client-2", "s3cret") is None
        assert session.scalar(sa.select(OAuthClient.secret_hash)) == hashlib.sha256(b"s3cret").hexdigest()
    with sessions.begin() as session:  # re-registering rotates the secret and replaces the roles
        credentials.add_oauth_client(session, "client-1", "n3w", ["admin"])
    with sessions() as session:
        assert credentials.verify_oauth_client(session, "client-1", "s3cret") is None
        assert credentials.verify_oauth_client(session, "client-1", "n3w") == ["admin"]


def test_access_tokens_expire(sessions: sessionmaker[Session]) -> None:
    with sessions.begin() as session:
        token, expires_at = credentials.issue_access_token(session, "client-1", ["automation"], NOW, ttl=3600)
        short, _ = credentials.issue_access_token(session, "client-1", ["automation"], NOW, ttl=60)
    assert expires_at == NOW + timedelta(hours=1)
    assert len(token) >= 43 and token != short
    with sessions() as session:
        assert credentials.lookup_access_token(session, token, NOW) == ["automation"]
        assert credentials.lookup_access_token(session, token, expires_at - timedelta(seconds=1)) == ["automation"]
        assert credentials.lookup_access_token(session, token, expires_at) is None
        assert credentials.lookup_access_token(session, short, NOW + timedelta(minutes=2)) is None
        assert credentials.lookup_access_token(session, "not-a-token", NOW) is None
    with sessions.begin() as session:
        assert credentials.purge_expired_tokens(session, NOW + timedelta(minutes=2)) == 1
    with sessions() as session:
        assert session.scalar(sa.select(sa.func.count()).select_from(OAuthAccessToken)) == 1
    with sessions.begin() as session:
        assert credentials.revoke_access_tokens(session, "client-1") == 1
