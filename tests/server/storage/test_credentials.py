"""API tokens, OAuth clients and access tokens."""

from __future__ import annotations

import hashlib
from datetime import timedelta

import sqlalchemy as sa
from sqlalchemy.orm import Session, sessionmaker

from accessgov.storage import credentials
from accessgov.storage.schema import ApiToken, OAuthAccessToken, OAuthClient
from tests.server.storage.conftest import NOW

TOKENS = ("tok-admin", "tok-viewer", "tok-unknown")


def test_api_tokens(sessions: sessionmaker[Session]) -> None:
    with sessions.begin() as session:
        credentials.add_api_token(session, "tok-admin", "admin", ["admin"], now=NOW)
        credentials.add_api_token(session, "tok-viewer", "viewer", ["viewer", "auditor"])
    with sessions() as session:
        assert credentials.lookup_api_token_hash(session, credentials.hash_secret("tok-admin")) == ["admin"]
        assert credentials.lookup_api_token_hash(session, credentials.hash_secret("tok-viewer")) == [
            "viewer",
            "auditor",
        ]
        assert credentials.lookup_api_token_hash(session, credentials.hash_secret("tok-unknown")) is None
        assert session.scalars(sa.select(ApiToken.name).order_by(ApiToken.name)).all() == ["admin", "viewer"]
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


def test_issue_for_client(sessions: sessionmaker[Session]) -> None:
    with sessions.begin() as session:
        credentials.add_oauth_client(session, "client-1", "s3cret", ["automation"])
    with sessions.begin() as session:
        assert credentials.issue_for_client(session, "client-1", "wrong", NOW) is None
        assert credentials.issue_for_client(session, "client-2", "s3cret", NOW) is None
        token = credentials.issue_for_client(session, "client-1", "s3cret", NOW, ttl=60)
    assert token is not None
    with sessions() as session:
        found = credentials.lookup_access_token_hash(session, credentials.hash_secret(token))
        assert found is not None and found[0] == ["automation"]
        assert session.scalar(sa.select(sa.func.count()).select_from(OAuthAccessToken)) == 1


def test_access_tokens_expire(sessions: sessionmaker[Session]) -> None:
    with sessions.begin() as session:
        token, expires_at = credentials.issue_access_token(session, "client-1", ["automation"], NOW, ttl=3600)
        short, _ = credentials.issue_access_token(session, "client-1", ["automation"], NOW, ttl=60)
    assert expires_at == NOW + timedelta(hours=1)
    assert len(token) >= 43 and token != short
    with sessions() as session:
        # Expired or not: the caller compares the expiry (`storage.caches`).
        assert credentials.lookup_access_token_hash(session, credentials.hash_secret(token)) == (
            ["automation"],
            expires_at,
        )
        assert credentials.lookup_access_token_hash(session, credentials.hash_secret("not-a-token")) is None
    with sessions.begin() as session:
        assert credentials.purge_expired_tokens(session, NOW + timedelta(minutes=2)) == 1
    with sessions() as session:
        assert session.scalar(sa.select(sa.func.count()).select_from(OAuthAccessToken)) == 1
