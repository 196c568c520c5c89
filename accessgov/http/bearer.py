"""`Authorization: Bearer <token>`: the one header that carries both `bearerAuth` and `oauth` credentials."""

from __future__ import annotations

from accessgov.errors import ErrorCode, Unauthenticated


def bearer_token(authorization: str | None, *, code: ErrorCode = ErrorCode.UNAUTHENTICATED, realm: str = "api") -> str:
    """The token of an `Authorization: Bearer <token>` header value, or 401 with `code`."""
    scheme, _, token = (authorization or "").strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Unauthenticated(code, "an Authorization header with a Bearer token is required", realm=realm)
    return token.strip()
