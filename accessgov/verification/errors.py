"""Errors of inbound webhook verification; the HTTP layer maps each class to one status."""

from __future__ import annotations


class WebhookError(Exception):
    """Base: a machine code, a human message and, when it applies, the header or claim concerned."""

    status = 400

    def __init__(self, code: str, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.field = field


class WebhookRequestError(WebhookError):
    """Malformed request: missing header, timestamp outside the window, bad event id, not JSON (400)."""

    status = 400


class WebhookAuthError(WebhookError):
    """Authentication failed: signature mismatch, JWT verification failure, no credentials (401)."""

    status = 401


class SourceNotAllowedError(WebhookError):
    """The source address is outside the listener's allowed CIDR ranges (403)."""

    status = 403


class PayloadTooLargeError(WebhookError):
    """The body is larger than the limit (413)."""

    status = 413
