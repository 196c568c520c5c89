"""Server side of the API's pagination convention for every LIST and SEARCH operation.

The convention (see `spec/paths/api_v1_apps_{app_id}_entitlements.yaml`):

- ``page_size`` (query string for GET, ``pageSize`` in the body for POST): 10 to 100; smaller values are
  treated as 10 and larger ones as 100 (clamped, not rejected); absent means 25. A value that is not an
  integer is rejected with 400 ``INVALID_PAGE_SIZE``.
- ``page_token`` (query string for GET, ``pageToken`` in the body for POST): omitted or empty on the first
  request, then the previous response's ``nextPageToken``. An altered, truncated, expired or foreign token is
  rejected with 400 ``INVALID_PAGE_TOKEN``.
- The response carries the results in ``list`` and ``nextPageToken``: non-empty while more results remain,
  ``""`` on the last page.

Paging is keyset paging, never OFFSET: a page token carries the sort key of the last item returned and the next
page is ``WHERE key > :cursor ORDER BY key LIMIT :size + 1``, a range scan of an index whose cost does not
depend on how deep the page is. Rows inserted while a client walks the listing never make it see an item twice
or miss one that existed when it started.

Page tokens are opaque and tamper-proof. Layout, base64url without padding::

    version (1 byte) | issued_at (8 bytes, big-endian Unix seconds) | cursor (compact JSON array) | mac (16 bytes)

``mac`` is HMAC-SHA256 under the server secret, truncated to 128 bits, over a domain-separation label, the
collection the token is bound to (e.g. ``apps/app-1/entitlements`` plus a hash of any filters) and everything
before the mac. The collection is not stored in the token, so a token of another collection simply fails
verification. The version byte lets the format evolve: a decoder rejects versions it does not know.

A list operation's handler parses the request, reads its page and builds the response (see
`accessgov.api.entitlements`; its statements are in `accessgov.storage.entitlements`)::

    request = parse_page_request(page_size, page_token, codec=codec, collection=collection)  # PagingError -> 400
    rows = ...  # up to request.size + 1 rows after request.cursor, in key order
    cursor = (key of rows[request.size - 1],) if len(rows) > request.size else None
    return page_response(items, cursor, codec=codec, collection=collection)  # {"list": [...], "nextPageToken": ...}
"""

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
from accessgov.paging.response import Page, page_response
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
    "Page",
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
