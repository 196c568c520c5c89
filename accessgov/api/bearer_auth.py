"""The authenticator of `bearerAuth` and `oauth`: one `Authorization: Bearer` header carries either credential.

A token is a configured API token or an access token issued by `POST /auth/v1/token`; both map to roles.
Lookups go through a short-lived cache, so a busy client costs one query per token and cache period.
"""

from __future__ import annotations

from accessgov.domain.permissions import Principal
from accessgov.errors import ErrorCode, Unauthenticated
from accessgov.http.bearer import bearer_token
from accessgov.http.context import RequestContext
from accessgov.storage.caches import TokenCache


class BearerAuthenticator:
    """Resolves the bearer token to a `Principal`, or 401."""

    def __init__(self, tokens: TokenCache) -> None:
        self.tokens = tokens

    async def __call__(self, ctx: RequestContext) -> Principal:
        token = bearer_token(ctx.header("authorization"))
        grant = await self.tokens.grant(token)
        if grant is None:
            raise Unauthenticated(ErrorCode.UNAUTHENTICATED, "the bearer token is unknown or expired")
        return Principal(grant.subject, grant.roles)
