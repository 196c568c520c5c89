"""Typed errors: a non-2xx answer becomes an `ApiError` subclass per status carrying the parsed `Error` body; an
answer that breaks one of the SDK's bounds (deadline, size, coding) a `TransportBoundError`, an httpx transport
error like the connection errors and timeouts httpx raises itself."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

import httpx

from .models.error import Error


class ApiError(Exception):
    """A non-2xx answer (or a token endpoint's answer that is no token). `code`, `message`, `details` come from the
    `Error` body (`error`) when the server sent one (the token endpoint's RFC 6749 body gives `code` = `error`,
    `message` = `error_description`)."""

    def __init__(
        self,
        status: int,
        headers: Mapping[str, str],
        body: bytes,
        *,
        operation: str | None = None,
    ) -> None:
        self.status = status
        self.headers = httpx.Headers(headers)
        self.body = body
        self.operation = operation
        self.error: Error | None = None
        self.code = ""
        self.message = ""
        self.details: list[Any] = []
        parsed = json_or_none(body)
        if isinstance(parsed, dict) and isinstance(parsed.get("code"), str) and isinstance(parsed.get("message"), str):
            try:
                self.error = Error.from_dict(parsed)
            except (KeyError, TypeError, ValueError):
                self.error = None
            self.code, self.message = parsed["code"], parsed["message"]
            if self.error is not None and isinstance(self.error.details, list):
                self.details = list(self.error.details)
        elif isinstance(parsed, dict) and isinstance(parsed.get("error"), str):
            self.code, self.message = parsed["error"], str(parsed.get("error_description") or "")
        where = f"{operation}: " if operation else ""
        summary = f"{self.code}: {self.message}" if self.code else body[:200].decode("utf-8", "replace")
        super().__init__(f"{where}HTTP {status} {shown(summary)}".rstrip())


class ClientError(ApiError):
    """A 4xx answer: the request must change before it can succeed (except 429)."""


class BadRequestError(ClientError):
    """400: the request breaks the contract (`details` names the field)."""


class AuthenticationError(ClientError):
    """401: missing, unknown or expired credentials."""


class PermissionDeniedError(ClientError):
    """403: the credentials are valid but lack the permission (or the source address is not allowed)."""


class NotFoundError(ClientError):
    """404: no such resource."""


class ConflictError(ClientError):
    """409: the resource's state forbids the request (a closed task, a duplicate webhook event)."""


class PayloadTooLargeError(ClientError):
    """413: the body exceeds the operation's limit."""


class RateLimitError(ClientError):
    """429: too many requests; `retry_after` is the server's requested wait in seconds, when it sent one."""

    @property
    def retry_after(self) -> float | None:
        value = self.headers.get("Retry-After", "").strip()
        return float(value) if value.isdigit() else None


class ServerError(ApiError):
    """5xx: a fault of the server or an overload; idempotent calls are retried before this is raised."""


_BY_STATUS: dict[int, type[ApiError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    413: PayloadTooLargeError,
    429: RateLimitError,
}


class TransportBoundError(httpx.TransportError):
    """The server broke one of the SDK's bounds on an answer (`transport.py`); the message says which and how."""


class DeadlineExceededError(TransportBoundError, httpx.TimeoutException):
    """No complete answer (connect to last body byte) within the attempt's deadline, `timeout=`: a timeout, so
    idempotent calls are retried as the retry policy allows, each attempt with a deadline of its own."""


class ResponseTooLargeError(TransportBoundError):
    """The answer's body, as received or after decompression, exceeds `max_response_bytes` (never retried)."""


class UndecodableResponseError(TransportBoundError):
    """The answer cannot be read: a content coding the SDK did not ask for, a gzip/deflate body that does not
    decode, or a 2xx body that is not the operation's result (not JSON, not UTF-8, another media type, a JSON
    array where an object is expected, members of the wrong type: `answers.py`). Never retried."""


def error_class(status: int) -> type[ApiError]:
    """The exception class for a status: the specific one, else the family's (`ClientError`, `ServerError`)."""
    if status in _BY_STATUS:
        return _BY_STATUS[status]
    return ServerError if status >= 500 else ClientError if status >= 400 else ApiError


def error_from_response(
    status: int, headers: Mapping[str, str], body: bytes, *, operation: str | None = None
) -> ApiError:
    """The typed error of a non-2xx answer."""
    return error_class(status)(status, headers, body, operation=operation)


# C0 and C1 controls, and the bidirectional controls that reorder what a terminal shows.
_UNSHOWN = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]")


def shown(text: str, limit: int = 300) -> str:
    """Server text as an error message shows it: cut to `limit` characters, every control character (a line break,
    an ANSI escape, a bidi override) written as its escape, so an answer cannot add lines to a log or recolour a
    terminal. The attributes (`code`, `message`, `body`) keep the text as sent."""
    cut = text[:limit]
    return _UNSHOWN.sub(lambda match: match.group().encode("unicode_escape").decode("ascii"), cut)


def json_or_none(body: bytes) -> Any:
    """The JSON value of a body, `None` when it is not JSON."""
    try:
        return json.loads(body)
    except ValueError:
        return None
