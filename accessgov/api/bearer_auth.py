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

# Bearer tokens name no credential apart from themselves: their failures are counted (for alerting) together.
BEARER_CREDENTIAL = "bearer-tokens"


class BearerAuthenticator:
    """Resolves the bearer token to a `Principal`, or 401; 429 for an unknown token once its address has failed too
    often."""

    def __init__(self, tokens: TokenCache, limiter: FailureLimiter | None = None) -> None:
        self.tokens = tokens
        self.limiter = limiter if limiter is not None and limiter.enabled else None

    def __call__(self, ctx: RequestContext) -> Principal | Awaitable[Principal]:
        """The principal at once for a token cached as granted (no await: most requests); else an awaitable of it
        (`resolve`). The token is always checked first: a valid one is never refused by the failure limits."""
        if sum(name == b"authorization" for name, _ in ctx.request.scope["headers"]) > 1:
            # Which of several credentials to use is a guess (RFC 9110: Authorization is a singleton field).
            raise Unauthenticated(ErrorCode.UNAUTHENTICATED, "send one Authorization header, not several")
        token = bearer_token(ctx.header("authorization"))  # a missing header is no guess: not counted
        grant = self.tokens.cached_grant(token)
        if grant is not None:
            return Principal(grant.subject, grant.roles)
        return self.resolve(ctx, token)

    async def resolve(self, ctx: RequestContext, token: str) -> Principal:
        grant = await self.tokens.grant(token)
        if grant is None:
            if self.limiter is not None:  # 429 instead of 401 once this address has guessed too often
                await self.limiter.failed(self.limiter.address(ctx), BEARER_CREDENTIAL)
            raise Unauthenticated(ErrorCode.UNAUTHENTICATED, "the bearer token is unknown or expired")
        return Principal(grant.subject, grant.roles)
