"""Server side of the API's pagination convention for every LIST and SEARCH operation: page sizes clamped, keyset
cursors in signed page tokens, the `list`/`nextPageToken` response (docs/architecture.md, "Paging")."""

from accessgov.paging.errors import PageSizeError, PageTokenError, PagingError
from accessgov.paging.request import PageRequest, parse_page_request
from accessgov.paging.response import page_response
from accessgov.paging.size import clamp_page_size
from accessgov.paging.tokens import PageTokenCodec, collection_key

__all__ = [
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
