"""The response shape of every list/search operation: `list` and `nextPageToken`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from accessgov.paging.limits import CursorValue
from accessgov.paging.tokens import PageTokenCodec

T = TypeVar("T")


@dataclass(frozen=True)
class Page(Generic[T]):
    """A page as sent: `items` and the token of the next page (``""`` on the last page)."""

    items: list[T]
    next_page_token: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {"list": self.items, "nextPageToken": self.next_page_token}


def page_response(
    items: list[Any], next_cursor: Sequence[CursorValue] | None, *, codec: PageTokenCodec, collection: str
) -> dict[str, Any]:
    """The response body of a list/search operation: ``{"list": items, "nextPageToken": token or ""}``."""
    token = "" if next_cursor is None else codec.encode(collection, next_cursor)
    return Page(list(items), token).as_dict()
