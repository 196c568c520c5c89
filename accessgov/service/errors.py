"""The API's error body (`Error` in the spec) and the exception that carries it to the HTTP layer."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from accessgov.verification.errors import WebhookAuthError, WebhookError, WebhookRequestError


@dataclass
class ApiError(Exception):
    """An error response: HTTP status, stable UPPER_SNAKE code, human message, optional details."""

    status: int
    code: str
    message: str
    details: list[dict[str, str]] = field(default_factory=list)
    headers: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        super().__init__(self.message)

    def body(self) -> dict[str, Any]:
        body: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.details:
            body["details"] = self.details
        return body


def detail(location: str, reason: str, name: str | None = None) -> dict[str, str]:
    """One `ErrorDetail`: which part of the request (`path`, `query`, `header`, `body`) and what is wrong."""
    item = {"location": location, "reason": reason}
    if name is not None:
        item["name"] = name
    return item


def bad_request(code: str, message: str, *details: dict[str, str]) -> ApiError:
    return ApiError(400, code, message, list(details))


def unauthorized(code: str, message: str) -> ApiError:
    return ApiError(401, code, message, headers={"WWW-Authenticate": 'Bearer realm="api"'})


def not_found(message: str) -> ApiError:
    return ApiError(404, "NOT_FOUND", message)


def from_verification(error: WebhookError) -> ApiError:
    """The contract's error for a request-check or verification error (each error class carries its status)."""
    details = []
    if isinstance(error, WebhookRequestError):
        # Header names are capitalised (`Webhook-Timestamp`); an error without a field concerns the body.
        location = "header" if error.field and error.field[0].isupper() else "body"
        details.append(detail(location, error.message, error.field))
    headers = {"WWW-Authenticate": 'Bearer realm="webhook"'} if isinstance(error, WebhookAuthError) else {}
    return ApiError(error.status, error.code, error.message, details, headers)
