"""The API's one error model: every error has a status, a stable code and, when it can be pinned down, a location.

Families (`InvalidRequest`, `Unauthenticated`, `PermissionDenied`, `NotFound`, `Conflict`, `PayloadTooLarge`)
fix the status; every layer raises them (the domain and the webhook protocol included, none of which knows
HTTP). `accessgov.http.errors` turns any of them into the contract's `Error` body in one place. Every code
is a member of `ErrorCode`, and a test holds that enumeration equal to the table in the spec's `Error` schema.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, ClassVar, Literal

Location = Literal["path", "query", "header", "body"]

# An error body never echoes unbounded client input: a quoted value is cut to QUOTED_CHARS, a whole message
# (and so the detail's `reason`, which repeats it) to MESSAGE_CHARS, each with a marker saying what was cut.
QUOTED_CHARS = 64
MESSAGE_CHARS = 1024


def shortened(text: str, limit: int) -> str:
    """`text`, or its first `limit` characters and a marker naming how many more there were."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}...({len(text) - limit} more characters)"


def quoted(value: object) -> str:
    """`repr(value)` for an error message, cut to QUOTED_CHARS (a client's value may be any length)."""
    return shortened(repr(value), QUOTED_CHARS)


class ErrorCode(StrEnum):
    """Every `Error.code` this server sends."""

    INVALID_ARGUMENT = "INVALID_ARGUMENT"
    MISSING_PARAMETER = "MISSING_PARAMETER"
    MISSING_HEADER = "MISSING_HEADER"
    INVALID_CONTENT_TYPE = "INVALID_CONTENT_TYPE"
    INVALID_JSON = "INVALID_JSON"
    INVALID_TIMESTAMP = "INVALID_TIMESTAMP"
    TIMESTAMP_OUT_OF_WINDOW = "TIMESTAMP_OUT_OF_WINDOW"
    INVALID_EVENT_ID = "INVALID_EVENT_ID"
    INVALID_EXPAND_PATH = "INVALID_EXPAND_PATH"
    INVALID_PAGE_SIZE = "INVALID_PAGE_SIZE"
    INVALID_PAGE_TOKEN = "INVALID_PAGE_TOKEN"
    UNAUTHENTICATED = "UNAUTHENTICATED"
    MISSING_AUTHENTICATION = "MISSING_AUTHENTICATION"
    SIGNATURE_MISMATCH = "SIGNATURE_MISMATCH"
    INVALID_TOKEN = "INVALID_TOKEN"
    TOKEN_EXPIRED = "TOKEN_EXPIRED"
    INVALID_CLAIM = "INVALID_CLAIM"
    UNKNOWN_KID = "UNKNOWN_KID"
    JWKS_UNREACHABLE = "JWKS_UNREACHABLE"
    PERMISSION_DENIED = "PERMISSION_DENIED"
    SOURCE_NOT_ALLOWED = "SOURCE_NOT_ALLOWED"
    NOT_FOUND = "NOT_FOUND"
    METHOD_NOT_ALLOWED = "METHOD_NOT_ALLOWED"
    NOT_ACCEPTABLE = "NOT_ACCEPTABLE"
    DUPLICATE_EVENT = "DUPLICATE_EVENT"
    TASK_NOT_RESTARTABLE = "TASK_NOT_RESTARTABLE"
    PAYLOAD_TOO_LARGE = "PAYLOAD_TOO_LARGE"
    REQUEST_HEADERS_TOO_LARGE = "REQUEST_HEADERS_TOO_LARGE"
    TOO_MANY_FAILED_ATTEMPTS = "TOO_MANY_FAILED_ATTEMPTS"
    NOT_READY = "NOT_READY"
    SERVICE_UNAVAILABLE = "SERVICE_UNAVAILABLE"
    KEY_UNAVAILABLE = "KEY_UNAVAILABLE"
    INTERNAL = "INTERNAL"


class ApiError(Exception):
    """Base of every error the API answers with. Subclasses set `status`; instances carry the rest."""

    status: ClassVar[int] = 500

    def __init__(
        self,
        code: ErrorCode,
        message: str,
        *,
        location: Location | None = None,
        name: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        message = shortened(message, MESSAGE_CHARS)
        super().__init__(message)
        self.code = ErrorCode(code)
        self.message = message
        self.location = location
        self.name = name
        self.headers = dict(headers or {})

    def body(self) -> dict[str, Any]:
        """The contract's `Error` body: `details` names the part of the request when one is known."""
        body: dict[str, Any] = {"code": self.code.value, "message": self.message}
        if self.location is not None:
            item = {"location": self.location, "reason": self.message}
            if self.name is not None:
                item["name"] = self.name
            body["details"] = [item]
        return body

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code.value}, {self.message!r})"


class InvalidRequest(ApiError):
    """The request is malformed: a parameter, header or body fails the contract (400)."""

    status = 400


class Unauthenticated(ApiError):
    """Credentials are missing or do not verify (401)."""

    status = 401

    def __init__(self, code: ErrorCode, message: str, *, realm: str = "api", **kwargs: Any) -> None:
        kwargs.setdefault("headers", {"WWW-Authenticate": f'Bearer realm="{realm}"'})
        super().__init__(code, message, **kwargs)


class PermissionDenied(ApiError):
    """The caller is known but may not do this (403)."""

    status = 403


class NotFound(ApiError):
    """The addressed resource does not exist (404)."""

    status = 404

    def __init__(self, message: str, code: ErrorCode = ErrorCode.NOT_FOUND, **kwargs: Any) -> None:
        super().__init__(code, message, **kwargs)


class MethodNotAllowed(ApiError):
    status = 405


class NotAcceptable(ApiError):
    """The `Accept` header excludes what the operation answers with (406)."""

    status = 406


class Conflict(ApiError):
    """The resource's state forbids the request (409)."""

    status = 409


class PayloadTooLarge(ApiError):
    """The body exceeds the operation's limit (413)."""

    status = 413


class RequestHeadersTooLarge(ApiError):
    """The request head exceeds the server's header limits (431); answered by the HTTP edge, before any route."""

    status = 431


class TooManyFailedAttempts(ApiError):
    """Too many failed authentications from this address or for this credential (429, with Retry-After)."""

    status = 429

    def __init__(self, code: ErrorCode, message: str, *, retry_after: int, **kwargs: Any) -> None:
        kwargs.setdefault("headers", {"Retry-After": str(retry_after)})
        super().__init__(code, message, **kwargs)
        self.retry_after = retry_after


class ServiceUnavailable(ApiError):
    """The server cannot take the request now; the client may retry (503)."""

    status = 503


class InternalError(ApiError):
    status = 500
