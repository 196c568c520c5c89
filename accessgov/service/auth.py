"""Credentials of the tenant API: API tokens and OAuth2 client-credentials access tokens.

Both security schemes of the contract (`bearerAuth` and `oauth`) arrive in one `Authorization: Bearer`
header, so one token satisfies the requirement that names both: a configured API token, or an access
token issued by `POST /auth/v1/token`. Tokens map to roles (see `permissions`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from urllib.parse import parse_qs

from sqlalchemy.orm import Session, sessionmaker
from starlette.responses import JSONResponse

from accessgov.service.errors import unauthorized
from accessgov.service.spec_app import RequestContext, require_bearer
from accessgov.storage import credentials


@dataclass(frozen=True)
class Principal:
    """Who is calling, and with which roles."""

    subject: str
    roles: tuple[str, ...]


class TokenAuthenticator:
    """Checks the bearer token against API tokens, then OAuth access tokens, in the database."""

    def __init__(self, sessions: sessionmaker[Session], clock: Callable[[], float] = time.time) -> None:
        self.sessions = sessions
        self.clock = clock

    def __call__(self, ctx: RequestContext) -> Principal:
        token = require_bearer(ctx)
        now = datetime.fromtimestamp(self.clock(), UTC)
        with self.sessions() as session:
            roles = credentials.lookup_api_token(session, token)
            subject = "api-token"
            if roles is None:
                roles = credentials.lookup_access_token(session, token, now)
                subject = "oauth-client"
        if roles is None:
            raise unauthorized("UNAUTHENTICATED", "the bearer token is unknown or expired")
        return Principal(subject, tuple(roles))


def _oauth_error(status: int, error: str, description: str) -> JSONResponse:
    headers = {"Cache-Control": "no-store"}
    if status == 401:
        headers["WWW-Authenticate"] = 'Basic realm="token"'
    return JSONResponse({"error": error, "error_description": description}, status_code=status, headers=headers)


class TokenEndpoint:
    """`POST /auth/v1/token`: the OAuth2 client-credentials grant with credentials in the form body."""

    def __init__(
        self, sessions: sessionmaker[Session], ttl_seconds: int = 3600, clock: Callable[[], float] = time.time
    ) -> None:
        self.sessions = sessions
        self.ttl_seconds = ttl_seconds
        self.clock = clock

    def __call__(self, ctx: RequestContext) -> JSONResponse:
        media = (ctx.request.headers.get("content-type") or "").split(";")[0].strip().lower()
        if media != "application/x-www-form-urlencoded":
            return _oauth_error(400, "invalid_request", "the body must be application/x-www-form-urlencoded")
        try:
            form = parse_qs(ctx.raw_body.decode("utf-8"), keep_blank_values=True, strict_parsing=bool(ctx.raw_body))
        except (UnicodeDecodeError, ValueError):
            return _oauth_error(400, "invalid_request", "the body is not a form-encoded request")
        if any(len(values) > 1 for values in form.values()):
            return _oauth_error(400, "invalid_request", "parameters must not repeat")
        fields = {name: values[0] for name, values in form.items()}
        grant = fields.get("grant_type")
        if not grant:
            return _oauth_error(400, "invalid_request", "grant_type is required")
        if grant != "client_credentials":
            return _oauth_error(400, "unsupported_grant_type", "only client_credentials is supported")
        client_id, secret = fields.get("client_id", ""), fields.get("client_secret", "")
        if not client_id or not secret:
            return _oauth_error(400, "invalid_request", "client_id and client_secret are required")
        now = datetime.fromtimestamp(self.clock(), UTC)
        with self.sessions.begin() as session:
            roles = credentials.verify_oauth_client(session, client_id, secret)
            if roles is None:
                return _oauth_error(401, "invalid_client", "unknown client or wrong secret")
            token, _expires = credentials.issue_access_token(session, client_id, roles, now, ttl=self.ttl_seconds)
        body = {"access_token": token, "token_type": "Bearer", "expires_in": self.ttl_seconds}
        return JSONResponse(body, headers={"Cache-Control": "no-store"})
