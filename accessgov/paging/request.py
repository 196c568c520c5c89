"""The page a request asks for: size and cursor, parsed from the query string or a POST body."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from accessgov.paging.limits import DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, MIN_PAGE_SIZE, Cursor
from accessgov.paging.size import clamp_page_size
from accessgov.paging.tokens import PageTokenCodec


@dataclass(frozen=True)
class PageRequest:
    """One page asked for: `size` items after `cursor` (``None``: from the start)."""

    size: int
    cursor: Cursor | None = None


def parse_page_request(
    page_size: Any,
    page_token: Any,
    *,
    codec: PageTokenCodec,
    collection: str,
    minimum: int = MIN_PAGE_SIZE,
    maximum: int = MAX_PAGE_SIZE,
    default: int = DEFAULT_PAGE_SIZE,
) -> PageRequest:
    """The page asked for by ``page_size``/``page_token`` from a GET query (strings) or a POST body (JSON).

    ``None`` or ``""`` as the token means the first page. Raises `PageSizeError` or `PageTokenError` (both
    `PagingError`, a `ValueError` with ``.code`` and ``.param``) for the 400 answer; the size is checked first.
    """
    size = clamp_page_size(page_size, minimum=minimum, maximum=maximum, default=default)
    if page_token is None or page_token == "":
        return PageRequest(size, None)
    return PageRequest(size, codec.decode(page_token, collection))
