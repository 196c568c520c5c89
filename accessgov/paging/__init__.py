"""Server side of the API's pagination convention for every LIST and SEARCH operation: page sizes clamped, keyset
cursors in signed page tokens, the `list`/`nextPageToken` response (docs/architecture.md, "Paging")."""

from accessgov.paging.errors import PageSizeError, PageTokenError, PagingError
from accessgov.paging.limits import (
    DEFAULT_MAX_AGE_SECONDS,
    DEFAULT_PAGE_SIZE,
    MAX_PAGE_SIZE,
    MAX_TOKEN_CHARS,
    MIN_PAGE_SIZE,
    TOKEN_VERSION,
    Cursor,
    CursorValue,
)
from accessgov.paging.request import PageRequest, parse_page_request
from accessgov.paging.response import page_response
from accessgov.paging.size import clamp_page_size
from accessgov.paging.tokens import PageTokenCodec, collection_key

__all__ = [
    "DEFAULT_MAX_AGE_SECONDS",
    "DEFAULT_PAGE_SIZE",
    "MAX_PAGE_SIZE",
    "MAX_TOKEN_CHARS",
    "MIN_PAGE_SIZE",
    "TOKEN_VERSION",
    "Cursor",
    "CursorValue",
    "PageRequest",
    "PageSizeError",
    "PageTokenCodec",
    "PageTokenError",
    "PagingError",
    "clamp_page_size",
    "collection_key",
    "page_response",
    "parse_page_request",
]
