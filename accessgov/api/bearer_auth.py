"""The authenticator of `bearerAuth` and `oauth`: one `Authorization: Bearer` header carries either credential.

A token is a configured API token or an access token issued by `POST /auth/v1/token`; both map to roles.
Lookups go through a short-lived cache, so a busy client costs one query per token and cache period.
"""

from __future__ import annotations

from collections.abc import Awaitable

from accessgov.domain.permissions import Principal
from accessgov.errors import ErrorCode, Unauthenticated
from accessgov.failure_limits import FailureLimiter
from accessgov.http.bearer import bearer_token
from accessgov.http.context import RequestContext
from accessgov.storage.caches import TokenCache


class BearerAuthenticator:
    """Resolves the bearer token to a `Principal`, or 401; 429 once an address has failed too often."""

    def __init__(self, tokens: TokenCache, limiter: FailureLimiter | None = None) -> None:
        self.tokens = tokens
        self.limiter = limiter if limiter is not None and limiter.enabled else None

    def __call__(self, ctx: RequestContext) -> Principal | Awaitable[Principal]:
        """The principal at once for a token cached as granted while the limiter cannot refuse anyone (no address,
        no check, no coroutine: most requests); else an awaitable of it (`resolve`)."""
        token = bearer_token(ctx.header("authorization"))  # a missing header is no guess: not counted
        if self.limiter is None or self.limiter.quiet():
            grant = self.tokens.cached_grant(token)
            if grant is not None:
                return Principal(grant.subject, grant.roles)
        return self.resolve(ctx, token)

    async def resolve(self, ctx: RequestContext, token: str) -> Principal:
        if self.limiter is None:
            grant = await self.tokens.grant(token)
        else:
            # Per address only: a bearer token names no credential apart from itself.
            address = self.limiter.address(ctx)
            await self.limiter.check(address)
            grant = await self.tokens.grant(token)
            if grant is None:
                await self.limiter.failed(address)
        if grant is None:
            raise Unauthenticated(ErrorCode.UNAUTHENTICATED, "the bearer token is unknown or expired")
        return Principal(grant.subject, grant.roles)
