"""`POST /auth/v1/token`: the OAuth2 client-credentials grant (RFC 6749 §4.4), answering in RFC 6749's shape."""

from __future__ import annotations

import base64
import binascii
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from urllib.parse import parse_qs, unquote_plus

from accessgov.failure_limits import FailureLimiter
from accessgov.http.context import RequestContext
from accessgov.http.responses import JSONResponse
from accessgov.storage import credentials
from accessgov.storage.database import Database


def _oauth_error(status: int, error: str, description: str) -> JSONResponse:
    headers = {"Cache-Control": "no-store"}
    if status == 401:
        headers["WWW-Authenticate"] = 'Basic realm="token"'
    return JSONResponse({"error": error, "error_description": description}, status_code=status, headers=headers)


class MalformedBasic(ValueError):
    """The Authorization header names the Basic scheme but does not carry `id:secret` in base64."""


def basic_credentials(headers: Mapping[str, str]) -> tuple[str, str] | None:
    """`(client_id, client_secret)` from `Authorization: Basic ...` (RFC 6749 section 2.3.1: both form-url-encoded
    before base64), `None` when the request does not use the Basic scheme."""
    scheme, _, value = (headers.get("authorization") or "").strip().partition(" ")
    if scheme.lower() != "basic":
        return None
    try:
        decoded = base64.b64decode(value.strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError) as error:
        raise MalformedBasic("the Basic credentials are not base64 of UTF-8 text") from error
    client_id, colon, secret = decoded.partition(":")
    if not colon:
        raise MalformedBasic("the Basic credentials are not client_id:client_secret")
    return unquote_plus(client_id), unquote_plus(secret)


def client_authentication(headers: Mapping[str, str], fields: Mapping[str, str]) -> tuple[str, str] | JSONResponse:
    """The client's id and secret, from HTTP Basic or from the form body — exactly one of them (RFC 6749 section
    2.3: a client must not use more than one method) — or the OAuth error answer."""
    try:
        basic = basic_credentials(headers)
    except MalformedBasic as error:
        return _oauth_error(400, "invalid_request", str(error))
    body_id, body_secret = fields.get("client_id"), fields.get("client_secret")
    if basic is not None:
        # A body client_id naming the same client is allowed (section 3.2.1); a body secret is a second method.
        if body_secret is not None or (body_id is not None and body_id != basic[0]):
            return _oauth_error(
                400, "invalid_request", "client credentials in both the Authorization header and the body"
            )
        if not basic[0] or not basic[1]:
            return _oauth_error(401, "invalid_client", "unknown client or wrong secret")
        return basic
    if body_id is None and body_secret is None:
        return _oauth_error(401, "invalid_client", "no client authentication: use HTTP Basic or the form body")
    if not body_id or not body_secret:
        return _oauth_error(400, "invalid_request", "client_id and client_secret are required together")
    return body_id, body_secret


class TokenEndpoint:
    """Issues opaque access tokens to clients whose id and secret verify, sent with HTTP Basic or in the form."""

    def __init__(
        self,
        db: Database,
        ttl_seconds: int = 3600,
        clock: Callable[[], float] = time.time,
        limiter: FailureLimiter | None = None,
    ) -> None:
        self.db = db
        self.ttl_seconds = ttl_seconds
        self.clock = clock
        self.limiter = limiter if limiter is not None and limiter.enabled else None

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
        authenticated = client_authentication(ctx.request.headers, fields)
        if isinstance(authenticated, JSONResponse):
            return authenticated
        client_id, secret = authenticated
        now = datetime.fromtimestamp(self.clock(), UTC)

        ttl = self.ttl_seconds
        token = await self.db.write(lambda session: credentials.issue_for_client(session, client_id, secret, now, ttl))
        if token is None:
            if self.limiter:  # the secret was checked first: 429 instead of 401 once this address failed too often
                await self.limiter.failed(self.limiter.address(ctx), "oauth-client:" + client_id)
            return _oauth_error(401, "invalid_client", "unknown client or wrong secret")
        body = {"access_token": token, "token_type": "Bearer", "expires_in": self.ttl_seconds}
        return JSONResponse(body, headers={"Cache-Control": "no-store"})
