"""Walk every page of a list operation, driven by its `Paging` entry in the operation catalogue.

A walk ends when the server sends no next token. Two guards end it otherwise: a token the server already gave
(`PagingLoopError`: following it would never end), and `max_pages` pages with a next page still offered
(`PageLimitError`: 1,000 by default, `None` lifts it), so a server handing out a new token on every page cannot
keep a walk going forever.
"""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any, Final

from .catalog import Paging
from .exceptions import UndecodableResponseError
from .types import Unset

DEFAULT_MAX_PAGES: Final = 1000


class PagingLoopError(RuntimeError):
    """The server handed out a page token it had already given: following it would never end."""


class PageLimitError(PagingLoopError):
    """The walk fetched `max_pages` pages and the server still offers a next one. A `PagingLoopError` too: both
    say the walk would not end by itself."""


def page_bound(max_pages: int | None) -> int | None:
    """A valid `max_pages`: a whole number of pages >= 1, or `None` for no bound."""
    if max_pages is not None and (isinstance(max_pages, bool) or not isinstance(max_pages, int) or max_pages < 1):
        raise ValueError(f"max_pages must be a whole number >= 1 or None, not {max_pages!r}")
    return max_pages


class _Walk:
    """The tokens seen so far in one walk (as digests: a token may be large), and the page count."""

    def __init__(self, max_pages: int | None) -> None:
        self.seen: set[bytes] = set()
        self.pages = 0
        self.max_pages = page_bound(max_pages)

    def next_token(self, token: Any) -> str:
        """The token to send next, `""` when the walk is over."""
        self.pages += 1
        if token is None or isinstance(token, Unset) or token == "":
            return ""
        if not isinstance(token, str):
            raise UndecodableResponseError(f"the next page token must be a string, got {type(token).__name__}")
        digest = hashlib.sha256(token.encode("utf-8", "surrogatepass")).digest()
        if digest in self.seen:
            raise PagingLoopError(f"the server returned page token {token[:32]!r}… twice (after {self.pages} pages)")
        if self.max_pages is not None and self.pages >= self.max_pages:
            raise PageLimitError(
                f"{self.pages} pages (max_pages={self.max_pages}) and the server offers another one;"
                " pass a larger max_pages, or max_pages=None for no bound"
            )
        self.seen.add(digest)
        return token


def read_page(paging: Paging, page: Any) -> tuple[list[Any], Any]:
    """`(items, next_token)` of one parsed page; absent members read as no items and no next page."""
    items = getattr(page, paging.items, None)
    items = [] if items is None or isinstance(items, Unset) else list(items)
    return items, getattr(page, paging.next_token, None)


def iterate(
    fetch: Callable[[dict[str, Any]], Any], paging: Paging, *, max_pages: int | None = DEFAULT_MAX_PAGES
) -> Iterator[Any]:
    """Every item: `fetch({})` first, then `fetch({token_param: next_token})` until the token is empty."""
    walk, extra = _Walk(max_pages), dict[str, Any]()
    while True:
        items, token = read_page(paging, fetch(extra))
        yield from items
        next_token = walk.next_token(token)
        if not next_token:
            return
        extra = {paging.token_param: next_token}


async def aiterate(
    fetch: Callable[[dict[str, Any]], Awaitable[Any]], paging: Paging, *, max_pages: int | None = DEFAULT_MAX_PAGES
) -> AsyncIterator[Any]:
    """`iterate` for an async `fetch`."""
    walk, extra = _Walk(max_pages), dict[str, Any]()
    while True:
        items, token = read_page(paging, await fetch(extra))
        for item in items:
            yield item
        next_token = walk.next_token(token)
        if not next_token:
            return
        extra = {paging.token_param: next_token}
