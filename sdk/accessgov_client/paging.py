"""Walk every page of a list operation, driven by its `Paging` entry in the operation catalogue."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any

from .catalog import Paging
from .types import Unset


class PagingLoopError(RuntimeError):
    """The server handed out a page token it had already given: following it would never end."""


class _Walk:
    """The tokens seen so far in one walk, and the page-count guard."""

    def __init__(self, max_pages: int | None) -> None:
        self.seen: set[str] = set()
        self.pages = 0
        self.max_pages = max_pages

    def next_token(self, token: Any) -> str:
        """The token to send next, `""` when the walk is over."""
        self.pages += 1
        if token is None or isinstance(token, Unset) or token == "":
            return ""
        if not isinstance(token, str):
            raise TypeError(f"the next page token must be a string, got {type(token).__name__}")
        if token in self.seen:
            raise PagingLoopError(f"the server returned page token {token[:32]!r}… twice (after {self.pages} pages)")
        if self.max_pages is not None and self.pages >= self.max_pages:
            raise PagingLoopError(f"more than max_pages={self.max_pages} pages")
        self.seen.add(token)
        return token


def read_page(paging: Paging, page: Any) -> tuple[list[Any], Any]:
    """`(items, next_token)` of one parsed page; absent members read as no items and no next page."""
    items = getattr(page, paging.items, None)
    items = [] if items is None or isinstance(items, Unset) else list(items)
    return items, getattr(page, paging.next_token, None)


def iterate(fetch: Callable[[dict[str, Any]], Any], paging: Paging, *, max_pages: int | None = None) -> Iterator[Any]:
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
    fetch: Callable[[dict[str, Any]], Awaitable[Any]], paging: Paging, *, max_pages: int | None = None
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
