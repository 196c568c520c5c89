"""Errors of the inbound webhook protocol, as members of the API's error families (`accessgov.errors`)."""

from __future__ import annotations

from accessgov.errors import ErrorCode, InvalidRequest, PermissionDenied, Unauthenticated


class WebhookRequestError(InvalidRequest):
    """Malformed delivery: missing header, timestamp outside the window, bad event id (400).

    `field` names the header concerned; an error without one concerns the body.
    """

    def __init__(self, code: ErrorCode | str, message: str, field: str | None = None) -> None:
        super().__init__(ErrorCode(code), message, location="header" if field else "body", name=field)

    @property
    def field(self) -> str | None:
        return self.name


class WebhookAuthError(Unauthenticated):
    """Authentication failed: signature mismatch, JWT verification failure, no credentials (401).

    `field` (the claim or JOSE header concerned) is kept for logs; the response body does not pin it.
    """

    def __init__(self, code: ErrorCode | str, message: str, field: str | None = None) -> None:
        super().__init__(ErrorCode(code), message, realm="webhook")
        self.field = field


class SourceNotAllowedError(PermissionDenied):
    """The source address is outside the listener's allowed CIDR ranges (403)."""

    def __init__(self, code: ErrorCode | str, message: str, field: str | None = None) -> None:
        super().__init__(ErrorCode(code), message)
        self.field = field
