"""A paged list or search operation, declared once."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Session

from accessgov.paging.keyset import _sort_keys, keyset_page
from accessgov.paging.limits import DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, MIN_PAGE_SIZE
from accessgov.paging.request import PageRequest, parse_page_request
from accessgov.paging.response import page_response
from accessgov.paging.size import clamp_page_size
from accessgov.paging.tokens import PageTokenCodec, collection_key


def _identity(item: Any) -> Any:
    return item


@dataclass(frozen=True)
class ListOperation:
    """A paged list or search operation, declared once: what its tokens bind to, its order, its item shape.

    `collection` is a `str.format` template over the path parameters (e.g. ``"apps/{app_id}/entitlements"``).
    Tokens are bound to the formatted collection, the filters passed to `bind` and the sort key itself, so
    a token of another parent, other filters or an earlier sort order is rejected, never misread.
    `serialize` turns each row/entity into the JSON item of ``list``.
    """

    collection: str
    order_by: tuple[Any, ...]
    serialize: Callable[[Any], Any] = _identity
    minimum: int = MIN_PAGE_SIZE
    maximum: int = MAX_PAGE_SIZE
    default: int = DEFAULT_PAGE_SIZE
    sort_signature: str = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "order_by", tuple(self.order_by))
        keys = _sort_keys(self.order_by)
        signature = ",".join(f"{k.column}{' desc' if k.descending else ''}" for k in keys)
        object.__setattr__(self, "sort_signature", signature)
        clamp_page_size(None, minimum=self.minimum, maximum=self.maximum, default=self.default)

    def bind(
        self, codec: PageTokenCodec, *, filters: Mapping[str, Any] | None = None, **params: Any
    ) -> BoundListOperation:
        """This operation for one request: its path `params` and `filters` (query, search body)."""
        name = self.collection.format(**params)
        bound_to = collection_key(name, {"filters": dict(filters or {}), "sort": self.sort_signature})
        return BoundListOperation(self, codec, bound_to, dict(params))


@dataclass(frozen=True)
class BoundListOperation:
    """A `ListOperation` bound to one request's parameters: parse the paging input, then serve the page."""

    operation: ListOperation
    codec: PageTokenCodec
    collection: str
    params: dict[str, Any]

    def parse(self, page_size: Any, page_token: Any) -> PageRequest:
        """The page asked for; raises `PagingError` (400 with its ``code``) for bad input."""
        op = self.operation
        return parse_page_request(
            page_size,
            page_token,
            codec=self.codec,
            collection=self.collection,
            minimum=op.minimum,
            maximum=op.maximum,
            default=op.default,
        )

    def page(self, session: Session, stmt: sa.Select[Any], request: PageRequest) -> dict[str, Any]:
        """The response body for `request` over `stmt` (which selects and filters, unordered)."""
        rows, cursor = keyset_page(session, stmt, self.operation.order_by, request)
        items = [self.operation.serialize(row) for row in rows]
        return page_response(items, cursor, codec=self.codec, collection=self.collection)

    def run(self, session: Session, stmt: sa.Select[Any], page_size: Any, page_token: Any) -> dict[str, Any]:
        """`parse` then `page`, for handlers with nothing to check in between."""
        return self.page(session, stmt, self.parse(page_size, page_token))
