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

A list operation gets all of this by declaration (see `ListOperation`)::

    ENTITLEMENTS = ListOperation(
        "apps/{app_id}/entitlements",
        order_by=(AppEntitlement.id,),
        serialize=lambda entitlement: {"appEntitlement": entitlement.document},
    )

    def handle(ctx):
        listing = ENTITLEMENTS.bind(codec, app_id=ctx.path_params["app_id"])
        request = listing.parse(ctx.query.get("page_size"), ctx.query.get("page_token"))  # PagingError -> 400
        with sessions() as session:
            stmt = select(AppEntitlement).where(AppEntitlement.app_id == listing.params["app_id"])
            return 200, listing.page(session, stmt, request)  # {"list": [...], "nextPageToken": "..."}
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import re
import struct
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, TypeVar

import sqlalchemy as sa
from sqlalchemy.exc import NoSuchColumnError
from sqlalchemy.orm import Session
from sqlalchemy.sql import operators
from sqlalchemy.sql.elements import ColumnElement, UnaryExpression

__all__ = [
    "DEFAULT_MAX_AGE_SECONDS",
    "DEFAULT_PAGE_SIZE",
    "MAX_PAGE_SIZE",
    "MAX_TOKEN_CHARS",
    "MIN_PAGE_SIZE",
    "TOKEN_VERSION",
    "BoundListOperation",
    "Cursor",
    "CursorValue",
    "ListOperation",
    "Page",
    "PageRequest",
    "PageSizeError",
    "PageTokenCodec",
    "PageTokenError",
    "PagingError",
    "clamp_page_size",
    "collection_key",
    "keyset_condition",
    "keyset_page",
    "keyset_statement",
    "page_response",
    "parse_page_request",
]

MIN_PAGE_SIZE = 10
MAX_PAGE_SIZE = 100
DEFAULT_PAGE_SIZE = 25
DEFAULT_MAX_AGE_SECONDS = 24 * 3600
TOKEN_VERSION = 1
# Longest token `decode` looks at; anything longer is rejected before any decoding work.
MAX_TOKEN_CHARS = 2048

CursorValue = str | int
Cursor = tuple[CursorValue, ...]

T = TypeVar("T")

_MAC_BYTES = 16
_HEADER = struct.Struct(">BQ")  # version, issued_at
_MAC_LABEL = b"accessgov/page-token\x00"
_BASE64URL = re.compile(r"[A-Za-z0-9_-]*")
_INTEGER = re.compile(r"([+-]?)0*([0-9]+)", re.ASCII)
# Longer digit strings are out of range whatever they say (and would hit int()'s digit limit).
_MAX_DIGITS = 18


# ---------------------------------------------------------------------------------------------- errors


class PagingError(ValueError):
    """A client error in the paging parameters: the server answers 400 with `code`, about parameter `param`."""

    code: ClassVar[str] = "INVALID_ARGUMENT"
    param: ClassVar[str] = ""


class PageSizeError(PagingError):
    """`page_size` is not an integer."""

    code = "INVALID_PAGE_SIZE"
    param = "page_size"


class PageTokenError(PagingError):
    """`page_token` was not issued by this server for this collection, was altered or truncated, or expired.

    `reason` tells the cases apart for logs and tests (`malformed`, `version`, `signature`, `expired`,
    `cursor`); clients get the same `code` for all of them.
    """

    code = "INVALID_PAGE_TOKEN"
    param = "page_token"

    def __init__(self, message: str, *, reason: str = "malformed") -> None:
        super().__init__(message)
        self.reason = reason


# ------------------------------------------------------------------------------------------- page size


def clamp_page_size(
    value: int | str | None,
    *,
    minimum: int = MIN_PAGE_SIZE,
    maximum: int = MAX_PAGE_SIZE,
    default: int = DEFAULT_PAGE_SIZE,
) -> int:
    """The page size to serve for the client's `value`, clamped into ``minimum..maximum``.

    - ``None`` (parameter absent) and ``""`` (``?page_size=`` with no value) mean `default`.
    - A string must be an optional sign and ASCII digits, nothing else: no whitespace, no ``1.5``, no ``1e3``.
    - An int is taken as is; a float only if integral (JSON Schema counts ``10.0`` as an integer), so a
      POST body's ``1.5`` is rejected. Bools and every other type are rejected.

    Raises `PageSizeError` (``code == "INVALID_PAGE_SIZE"``) for a value that is not an integer.
    """
    if not minimum <= default <= maximum:
        raise ValueError(f"need minimum <= default <= maximum, got {minimum}, {default}, {maximum}")
    if value is None or value == "":
        return default
    number: int
    if isinstance(value, bool):
        raise PageSizeError(f"page_size must be an integer, got {str(value).lower()}")
    if isinstance(value, int):
        number = value
    elif isinstance(value, float):
        if not value.is_integer():
            raise PageSizeError(f"page_size must be an integer, got {value!r}")
        number = int(value)
    elif isinstance(value, str):
        match = _INTEGER.fullmatch(value)
        if match is None:
            raise PageSizeError(f"page_size must be an integer, got {_shorten(value)!r}")
        sign, digits = match.groups()
        if len(digits) > _MAX_DIGITS:
            return minimum if sign == "-" else maximum
        number = -int(digits) if sign == "-" else int(digits)
    else:
        raise PageSizeError(f"page_size must be an integer, got {type(value).__name__}")
    return max(minimum, min(maximum, number))


# ------------------------------------------------------------------------------------------ page token


class PageTokenCodec:
    """Issues and verifies page tokens: signed, bound to a collection, versioned, with an optional max age.

    `secret` is the server's key (at least 32 random bytes recommended; every worker needs the same one).
    Tokens older than `max_age_seconds` are rejected (``None``: they never expire); so are tokens issued more
    than `clock_skew_seconds` in the future. `clock` returns the current Unix time (injectable for tests).
    """

    def __init__(
        self,
        secret: bytes,
        *,
        max_age_seconds: int | None = DEFAULT_MAX_AGE_SECONDS,
        clock: Callable[[], float] = time.time,
        clock_skew_seconds: int = 300,
    ) -> None:
        if not isinstance(secret, bytes | bytearray) or not secret:
            raise ValueError("the page token secret must be non-empty bytes")
        if max_age_seconds is not None and max_age_seconds <= 0:
            raise ValueError("max_age_seconds must be positive or None")
        self._secret = bytes(secret)
        self.max_age_seconds = max_age_seconds
        self.clock = clock
        self.clock_skew_seconds = clock_skew_seconds

    def encode(self, collection: str, cursor: Sequence[CursorValue]) -> str:
        """A token resuming `collection` after the item whose sort key is `cursor` (str and int values)."""
        values = _check_cursor(cursor)
        if values is None:
            raise ValueError(f"a cursor is a non-empty sequence of str and int values, got {cursor!r}")
        body = json.dumps(list(values), separators=(",", ":"), ensure_ascii=False).encode()
        signed = _HEADER.pack(TOKEN_VERSION, max(0, int(self.clock()))) + body
        raw = signed + self._mac(collection, signed)
        return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")

    def decode(self, token: str, collection: str) -> Cursor:
        """The cursor inside `token`, if this server issued it for `collection` and it has not expired.

        Raises `PageTokenError` otherwise.
        """
        if not isinstance(token, str):
            raise PageTokenError(f"page_token must be a string, got {type(token).__name__}")
        if len(token) > MAX_TOKEN_CHARS:
            raise PageTokenError("page_token is too long; pass the nextPageToken of the previous response")
        raw = _b64decode(token)
        if len(raw) < _HEADER.size + _MAC_BYTES + 2:  # 2: the shortest JSON array, "[]"
            raise PageTokenError(
                "page_token is truncated or malformed; pass the nextPageToken of the previous response"
            )
        version, issued_at = _HEADER.unpack_from(raw)
        if version != TOKEN_VERSION:
            raise PageTokenError(
                f"page_token has an unsupported format (version {version}); restart from the first page",
                reason="version",
            )
        signed, mac = raw[:-_MAC_BYTES], raw[-_MAC_BYTES:]
        if not hmac.compare_digest(mac, self._mac(collection, signed)):
            raise PageTokenError(
                "page_token is not valid for this listing: it was altered, or issued for another listing "
                "(other filters or parent) or by another server",
                reason="signature",
            )
        now = self.clock()
        if issued_at > now + self.clock_skew_seconds:
            raise PageTokenError("page_token was issued in the future; restart from the first page", reason="expired")
        if self.max_age_seconds is not None and now - issued_at > self.max_age_seconds:
            raise PageTokenError("page_token has expired; restart from the first page", reason="expired")
        try:
            values = json.loads(signed[_HEADER.size :].decode())
        except (UnicodeDecodeError, ValueError):
            values = None
        cursor = _check_cursor(values) if isinstance(values, list) else None
        if cursor is None:  # only with a leaked secret or a bug: it was signed
            raise PageTokenError("page_token carries no valid cursor", reason="cursor")
        return cursor

    def _mac(self, collection: str, signed: bytes) -> bytes:
        name = collection.encode()
        message = _MAC_LABEL + struct.pack(">I", len(name)) + name + signed
        return hmac.new(self._secret, message, hashlib.sha256).digest()[:_MAC_BYTES]


def collection_key(name: str, filters: Mapping[str, Any] | None = None) -> str:
    """What a page token is bound to: the collection `name` plus a hash of the `filters` of the listing.

    A token issued for one set of filters (or search query, or parent) is then rejected for another, since
    its cursor means nothing there. Filters are hashed from canonical JSON: key order does not matter, and
    ``None``/empty filters leave `name` unchanged.
    """
    if not filters:
        return name
    canonical = json.dumps(filters, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return f"{name}#filters={hashlib.sha256(canonical.encode()).hexdigest()}"


def _b64decode(token: str) -> bytes:
    if not token or _BASE64URL.fullmatch(token) is None or len(token) % 4 == 1:
        raise PageTokenError("page_token is malformed; pass the nextPageToken of the previous response")
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
    except (binascii.Error, ValueError):  # pragma: no cover - the alphabet and length are checked above
        raise PageTokenError("page_token is malformed") from None
    # Several strings decode to the same bytes (unused low bits of the last character): only ours is valid.
    if base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii") != token:
        raise PageTokenError("page_token is malformed; pass the nextPageToken of the previous response")
    return raw


def _check_cursor(values: Any) -> Cursor | None:
    if isinstance(values, str | bytes) or not isinstance(values, Sequence) or not values:
        return None
    if not all(isinstance(v, str | int) and not isinstance(v, bool) for v in values):
        return None
    return tuple(values)


def _shorten(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


# --------------------------------------------------------------------------------------------- request


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


# ------------------------------------------------------------------------------------------ keyset SQL


@dataclass(frozen=True)
class _SortKey:
    column: ColumnElement[Any]
    descending: bool
    original: Any


def _sort_keys(order_by: Sequence[Any]) -> list[_SortKey]:
    if isinstance(order_by, str) or not order_by:
        raise ValueError("order_by needs at least one column")
    keys = []
    for expr in order_by:
        descending = False
        element = expr
        if isinstance(expr, UnaryExpression):
            if expr.modifier is operators.desc_op:
                descending = True
            elif expr.modifier is not operators.asc_op:
                raise ValueError(f"order_by takes columns, col.asc() or col.desc(), got {expr}")
            element = expr.element
        column = element.__clause_element__() if hasattr(element, "__clause_element__") else element
        if not isinstance(column, ColumnElement):
            raise TypeError(f"order_by takes column expressions, got {expr!r}")
        keys.append(_SortKey(column, descending, expr))
    return keys


def keyset_condition(
    order_by: Sequence[Any], cursor: Sequence[CursorValue], *, row_values: bool = True
) -> ColumnElement[bool]:
    """The WHERE clause selecting the items strictly after `cursor` in `order_by` order.

    Ascending (or all-descending) keys become a row-value comparison, ``(a, b) > (:a, :b)``, which PostgreSQL
    and SQLite (3.15+) both serve as one index range scan; mixed directions, or ``row_values=False``, the
    equivalent ``a > :a OR (a = :a AND b > :b)``. The key columns must be NOT NULL and together unique.
    """
    keys = _sort_keys(order_by)
    if len(cursor) != len(keys):
        raise PageTokenError(
            f"page_token has {len(cursor)} sort key values, this listing sorts on {len(keys)}", reason="cursor"
        )
    binds = [sa.literal(value, key.column.type) for key, value in zip(keys, cursor, strict=True)]
    if len(keys) == 1:
        key = keys[0]
        return key.column < binds[0] if key.descending else key.column > binds[0]
    if row_values and len({key.descending for key in keys}) == 1:
        left, right = sa.tuple_(*(key.column for key in keys)), sa.tuple_(*binds)
        return left < right if keys[0].descending else left > right
    alternatives = []
    for i, key in enumerate(keys):
        equal = [keys[j].column == binds[j] for j in range(i)]
        after = key.column < binds[i] if key.descending else key.column > binds[i]
        alternatives.append(sa.and_(*equal, after))
    return sa.or_(*alternatives)


def keyset_statement(
    stmt: sa.Select[Any], order_by: Sequence[Any], request: PageRequest, *, row_values: bool = True
) -> sa.Select[Any]:
    """`stmt` restricted to the page of `request`: after its cursor, in key order, ``LIMIT size + 1``.

    Any ORDER BY already on `stmt` is replaced by `order_by`. There is no OFFSET (SQLite's compiler renders
    a constant ``OFFSET 0`` after every LIMIT; other dialects render none).
    """
    if request.cursor is not None:
        stmt = stmt.where(keyset_condition(order_by, request.cursor, row_values=row_values))
    ordering = [key.column.desc() if key.descending else key.column for key in _sort_keys(order_by)]
    return stmt.order_by(None).order_by(*ordering).limit(request.size + 1)


def keyset_page(
    session: Session,
    stmt: sa.Select[Any],
    order_by: Sequence[Any],
    request: PageRequest,
    *,
    key: Callable[[Any], Sequence[CursorValue]] | None = None,
    row_values: bool = True,
) -> tuple[list[Any], Cursor | None]:
    """One page of `stmt` in `order_by` order, and the cursor of its last item if more remain (else ``None``).

    `stmt` selects and filters; this adds the keyset condition, the ordering and ``LIMIT size + 1`` (the extra
    row says whether another page exists, without a COUNT). Items are rows as ``session.execute`` returns them,
    except that a select of one ORM entity gives the entity instances (as ``session.scalars`` does).

    The cursor is read from the last item: an entity's mapped attributes, or a row's columns (the key columns
    must then be selected). `key` overrides that, e.g. for computed sort keys. Key values must be str or int.
    """
    keys = _sort_keys(order_by)
    result = session.execute(keyset_statement(stmt, order_by, request, row_values=row_values))
    items = list(result.scalars()) if _selects_one_entity(stmt) else list(result)
    if len(items) <= request.size:
        return items, None
    items = items[: request.size]
    last = items[-1]
    values = tuple(key(last)) if key is not None else tuple(_key_value(last, k) for k in keys)
    return items, values


def _selects_one_entity(stmt: sa.Select[Any]) -> bool:
    descriptions = stmt.column_descriptions
    if len(descriptions) != 1:
        return False
    inspected = sa.inspect(descriptions[0]["expr"], raiseerr=False)
    return bool(getattr(inspected, "is_mapper", False) or getattr(inspected, "is_aliased_class", False))


def _key_value(item: Any, key: _SortKey) -> Any:
    mapping = getattr(item, "_mapping", None)
    if mapping is not None:  # a Row
        for candidate in (key.column, key.original):
            try:
                return mapping[candidate]
            except (NoSuchColumnError, KeyError):
                continue
        raise LookupError(f"the sort key column {key.column} is not among the selected columns")
    state = sa.inspect(item, raiseerr=False)
    mapper = getattr(state, "mapper", None)
    if mapper is None:
        raise TypeError(f"cannot read sort keys from {type(item).__name__}; pass key=")
    try:
        return getattr(item, mapper.get_property_by_column(key.column).key)
    except Exception as error:  # UnmappedColumnError and friends
        raise LookupError(f"the sort key column {key.column} is not mapped on {type(item).__name__}") from error


# -------------------------------------------------------------------------------------------- response


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


# --------------------------------------------------------------------------------------------- declare


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
