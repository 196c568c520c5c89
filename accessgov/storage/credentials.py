"""API tokens, OAuth2 clients and issued access tokens. Secrets are stored only as SHA-256 hex digests:
they are random and high-entropy, so a fast unsalted hash is enough and makes lookups an index probe."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterable
from datetime import datetime, timedelta

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from accessgov.storage import ids
from accessgov.storage.engine import rowcount
from accessgov.storage.schema import ApiToken, OAuthAccessToken, OAuthClient

DEFAULT_ACCESS_TOKEN_TTL = 3600
# Compared against when the client is unknown, so unknown and known clients take the same time.
_NO_CLIENT_HASH = hashlib.sha256(b"no such client").hexdigest()


def hash_secret(secret: str) -> str:
    """SHA-256 hex digest of a token or client secret."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def add_api_token(
    session: Session, token: str, name: str, roles: Iterable[str], *, now: datetime | None = None
) -> ApiToken:
    """Register a static API token with its roles. The caller commits."""
    if not token:
        raise ValueError("the token must not be empty")
    row = ApiToken(token_hash=hash_secret(token), name=name, roles=list(roles), created_at=now or ids.utcnow())
    session.add(row)
    session.flush()
    return row


def add_oauth_client(session: Session, client_id: str, client_secret: str, roles: Iterable[str]) -> OAuthClient:
    """Register a client-credentials client (or replace its secret and roles). The caller commits."""
    if not client_id or not client_secret:
        raise ValueError("client_id and client_secret must not be empty")
    row = session.get(OAuthClient, client_id)
    if row is None:
        row = OAuthClient(client_id=client_id, secret_hash=hash_secret(client_secret), roles=list(roles))
        session.add(row)
    else:
        row.secret_hash, row.roles = hash_secret(client_secret), list(roles)
    session.flush()
    return row


def verify_oauth_client(session: Session, client_id: str, client_secret: str) -> list[str] | None:
    """The client's roles when the secret is right, else None (unknown client or wrong secret)."""
    row = session.get(OAuthClient, client_id)
    expected = _NO_CLIENT_HASH if row is None else row.secret_hash
    matches = hmac.compare_digest(hash_secret(client_secret), expected)  # constant time
    return list(row.roles) if row is not None and matches else None


def issue_access_token(
    session: Session, client_id: str, roles: Iterable[str], now: datetime, ttl: int = DEFAULT_ACCESS_TOKEN_TTL
) -> tuple[str, datetime]:
    """Issue an opaque bearer token valid for `ttl` seconds; returns (token, expires_at). The caller commits."""
    token = secrets.token_urlsafe(32)
    expires_at = now + timedelta(seconds=ttl)
    session.add(
        OAuthAccessToken(token_hash=hash_secret(token), client_id=client_id, roles=list(roles), expires_at=expires_at)
    )
    session.flush()
    return token, expires_at


def issue_for_client(
    session: Session, client_id: str, client_secret: str, now: datetime, ttl: int = DEFAULT_ACCESS_TOKEN_TTL
) -> str | None:
    """The client-credentials grant's write: a new access token for the client with its roles, or None when the
    client is unknown or the secret wrong. The caller commits."""
    roles = verify_oauth_client(session, client_id, client_secret)
    if roles is None:
        return None
    token, _expires = issue_access_token(session, client_id, roles, now, ttl=ttl)
    return token


def purge_expired_tokens(session: Session, now: datetime) -> int:
    """Delete access tokens expired at `now`; returns how many. The caller commits."""
    return rowcount(session.execute(delete(OAuthAccessToken).where(OAuthAccessToken.expires_at <= now)))


def lookup_api_token_hash(session: Session, digest: str) -> list[str] | None:
    """The roles of the API token whose SHA-256 is `digest`, or None."""
    roles = session.execute(select(ApiToken.roles).where(ApiToken.token_hash == digest)).scalar_one_or_none()
    return None if roles is None else list(roles)


def lookup_access_token_hash(session: Session, digest: str) -> tuple[list[str], datetime] | None:
    """The roles and expiry of the access token whose SHA-256 is `digest` (expired or not), or None."""
    row = session.execute(
        select(OAuthAccessToken.roles, OAuthAccessToken.expires_at).where(OAuthAccessToken.token_hash == digest)
    ).one_or_none()
    return None if row is None else (list(row.roles), row.expires_at)
