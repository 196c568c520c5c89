"""The response shape of every list/search operation: `list` and `nextPageToken`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from accessgov.paging.limits import CursorValue
from accessgov.paging.tokens import PageTokenCodec


def page_response(
    items: list[Any], next_cursor: Sequence[CursorValue] | None, *, codec: PageTokenCodec, collection: str
) -> dict[str, Any]:
    """The response body of a list/search operation: ``{"list": items, "nextPageToken": token or ""}`` (``""`` on
    the last page)."""
    token = "" if next_cursor is None else codec.encode(collection, next_cursor)
    return {"list": list(items), "nextPageToken": token}
