"""`POST /auth/v1/token`: the OAuth2 client-credentials grant (RFC 6749 §4.4), answering in RFC 6749's shape."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime
from urllib.parse import parse_qs

from sqlalchemy.orm import Session

from accessgov.http.context import RequestContext
from accessgov.http.responses import JSONResponse
from accessgov.storage import credentials
from accessgov.storage.database import Database


def _oauth_error(status: int, error: str, description: str) -> JSONResponse:
    headers = {"Cache-Control": "no-store"}
    if status == 401:
        headers["WWW-Authenticate"] = 'Basic realm="token"'
    return JSONResponse({"error": error, "error_description": description}, status_code=status, headers=headers)


class TokenEndpoint:
    """Issues opaque access tokens to clients whose id and secret verify; credentials in the form body."""

    def __init__(self, db: Database, ttl_seconds: int = 3600, clock: Callable[[], float] = time.time) -> None:
        self.db = db
        self.ttl_seconds = ttl_seconds
        self.clock = clock

    async def __call__(self, ctx: RequestContext) -> JSONResponse:
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

        def issue(session: Session) -> str | None:
            roles = credentials.verify_oauth_client(session, client_id, secret)
            if roles is None:
                return None
            token, _expires = credentials.issue_access_token(session, client_id, roles, now, ttl=self.ttl_seconds)
            return token

        token = await self.db.write(issue)
        if token is None:
            return _oauth_error(401, "invalid_client", "unknown client or wrong secret")
        body = {"access_token": token, "token_type": "Bearer", "expires_in": self.ttl_seconds}
        return JSONResponse(body, headers={"Cache-Control": "no-store"})
