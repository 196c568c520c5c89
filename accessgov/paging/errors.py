"""Client errors in the paging parameters: 400 with their `code`, naming the parameter."""

from __future__ import annotations

from typing import ClassVar

from accessgov.errors import ErrorCode, InvalidRequest


class PagingError(InvalidRequest, ValueError):
    """A client error in the paging parameters: the server answers 400 with `code`, about parameter `param`."""

    default_code: ClassVar[ErrorCode] = ErrorCode.INVALID_ARGUMENT
    param: ClassVar[str] = ""

    def __init__(self, message: str) -> None:
        super().__init__(self.default_code, message, location="query", name=self.param)


class PageSizeError(PagingError):
    """`page_size` is not an integer."""

    default_code = ErrorCode.INVALID_PAGE_SIZE
    param = "page_size"


class PageTokenError(PagingError):
    """`page_token` was not issued by this server for this collection, was altered or truncated, or expired.

    `reason` tells the cases apart for logs and tests (`malformed`, `version`, `signature`, `expired`,
    `cursor`); clients get the same `code` for all of them.
    """

    default_code = ErrorCode.INVALID_PAGE_TOKEN
    param = "page_token"

    def __init__(self, message: str, *, reason: str = "malformed") -> None:
        super().__init__(message)
        self.reason = reason
