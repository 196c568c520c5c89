"""Client side of the pagination convention: walk every page of a list or search operation.

Independent of the generated client: `iterate_pages` takes any ``fetch(page_token) -> (items, next_token)``,
and `iterate` adapts a generated operation function (``sync``, ``sync_detailed`` or anything returning an
object with ``.list_``/``.next_page_token`` or a dict with ``"list"``/``"nextPageToken"``)::

    from accessgov_client.api.app_entitlements import list_app_entitlements

    for item in iterate(list_app_entitlements.sync, client=client, app_id="app-1", page_size=100):
        ...
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping
from typing import Any, TypeVar

__all__ = ["PagingLoopError", "aiterate", "aiterate_pages", "iterate", "iterate_pages", "read_page"]

T = TypeVar("T")

Fetch = Callable[[str], tuple[list[T], str]]
AsyncFetch = Callable[[str], Awaitable[tuple[list[T], str]]]


class PagingLoopError(RuntimeError):
    """The server handed out a page token it had already given: following it would never end."""


class _Walk:
    """The state of one walk: the tokens seen so far, and the page-count guard."""

    def __init__(self, max_pages: int | None) -> None:
        self.seen: set[str] = set()
        self.pages = 0
        self.max_pages = max_pages

    def next_token(self, token: str | None) -> str:
        """The token to send next, ``""`` when the walk is over."""
        self.pages += 1
        if not token:
            return ""
        if not isinstance(token, str):
            raise TypeError(f"nextPageToken must be a string, got {type(token).__name__}")
        if token in self.seen:
            raise PagingLoopError(f"the server returned page token {token[:32]!r}… twice (after {self.pages} pages)")
        if self.max_pages is not None and self.pages >= self.max_pages:
            raise PagingLoopError(f"more than max_pages={self.max_pages} pages")
        self.seen.add(token)
        return token


def iterate_pages(fetch: Fetch[T], *, max_pages: int | None = None) -> Iterator[T]:
    """Every item of every page: ``fetch("")`` first, then ``fetch(next_token)`` until the token is ``""``.

    Raises `PagingLoopError` (a `RuntimeError`) when the server returns a token it returned before, or after
    `max_pages` pages with more to come, instead of looping forever. Items of a page are yielded before its
    token is checked.
    """
    walk = _Walk(max_pages)
    token = ""
    while True:
        items, next_token = fetch(token)
        yield from items
        token = walk.next_token(next_token)
        if not token:
            return


async def aiterate_pages(fetch: AsyncFetch[T], *, max_pages: int | None = None) -> AsyncIterator[T]:
    """`iterate_pages` for an async `fetch`."""
    walk = _Walk(max_pages)
    token = ""
    while True:
        items, next_token = await fetch(token)
        for item in items:
            yield item
        token = walk.next_token(next_token)
        if not token:
            return


def _shorten(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


def _is_unset(value: Any) -> bool:
    # openapi-python-client's `UNSET` sentinel, recognised without importing the generated package.
    return type(value).__name__ == "Unset"


def read_page(result: Any) -> tuple[list[Any], str]:
    """``(items, next_page_token)`` of one list response: a generated model, a ``Response`` wrapping one
    (``.parsed``), or the JSON dict. Missing or ``UNSET`` members read as ``[]`` and ``""``.

    Raises `RuntimeError` when `result` is not a page (``None``, or an error model/body of a failed call).
    """
    status = ""
    if hasattr(result, "status_code") and hasattr(result, "parsed"):  # sync_detailed() -> Response[...]
        status = f" (HTTP {int(result.status_code)})"
        result = result.parsed
    if result is None:
        raise RuntimeError(f"list call returned no page{status}: an error status the client does not parse?")
    if isinstance(result, Mapping) and ("list" in result or "nextPageToken" in result):
        items, token = result.get("list"), result.get("nextPageToken")
    elif hasattr(result, "list_") or hasattr(result, "next_page_token"):
        items, token = getattr(result, "list_", None), getattr(result, "next_page_token", None)
    else:  # e.g. the generated `Error` model of a 4xx answer
        raise RuntimeError(f"list call returned no page{status}: {_shorten(repr(result))}")
    items = [] if items is None or _is_unset(items) else list(items)
    token = "" if token is None or _is_unset(token) else token
    return items, token


def iterate(call: Callable[..., Any], /, *, max_pages: int | None = None, **kwargs: Any) -> Iterator[Any]:
    """Every item of a generated list operation: ``call(page_token=token, **kwargs)`` page after page."""
    return iterate_pages(lambda token: read_page(call(page_token=token, **kwargs)), max_pages=max_pages)


def aiterate(
    call: Callable[..., Awaitable[Any]], /, *, max_pages: int | None = None, **kwargs: Any
) -> AsyncIterator[Any]:
    """`iterate` for an async generated operation (``asyncio``/``asyncio_detailed``)."""

    async def fetch(token: str) -> tuple[list[Any], str]:
        return read_page(await call(page_token=token, **kwargs))

    return aiterate_pages(fetch, max_pages=max_pages)
