"""The server side of the pagination convention: page sizes, signed page tokens, keyset pages, declarations."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import math
import random
import re
import string
import struct
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column, sessionmaker

from accessgov import paging
from accessgov.paging import (
    ListOperation,
    Page,
    PageRequest,
    PageSizeError,
    PageTokenCodec,
    PageTokenError,
    PagingError,
    clamp_page_size,
    collection_key,
    keyset_condition,
    keyset_page,
    keyset_statement,
    page_response,
    parse_page_request,
)
from accessgov.paging import tokens as paging_tokens

SECRET = b"s" * 32
COLLECTION = "apps/app-1/entitlements"
ALPHABET = string.ascii_letters + string.digits + "-_"
T0 = 1_770_000_000


class Clock:
    def __init__(self, now: float = T0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def codec(clock: Clock) -> PageTokenCodec:
    return PageTokenCodec(SECRET, clock=clock)


# ------------------------------------------------------------------------------------------- page size


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (9, 10),
        (10, 10),
        (37, 37),
        (100, 100),
        (101, 100),
        (-5, 10),
        (0, 10),
        (10**30, 100),
        (None, 25),
        ("", 25),
        ("9", 10),
        ("50", 50),
        ("+50", 50),
        ("-5", 10),
        ("0050", 50),
        ("9" * 5000, 100),
        ("-" + "9" * 5000, 10),
        (50.0, 50),
    ],
)
def test_clamp_page_size(value: Any, expected: int) -> None:
    assert clamp_page_size(value) == expected


NOT_INTEGERS = ["abc", "1.5", "1e3", " 12", "12 ", "12\n", "0x10", "1_000", "-", "+", "--5", "١٢", "½"]


@pytest.mark.parametrize("value", [*NOT_INTEGERS, True, False, 1.5, math.nan, math.inf, [10], {"n": 10}, b"10"])
def test_clamp_page_size_rejects_non_integers(value: Any) -> None:
    with pytest.raises(PageSizeError) as caught:
        clamp_page_size(value)
    assert caught.value.code == "INVALID_PAGE_SIZE"
    assert caught.value.param == "page_size"
    assert isinstance(caught.value, ValueError)
    assert "page_size must be an integer" in str(caught.value)


def test_clamp_page_size_custom_bounds() -> None:
    assert clamp_page_size(None, minimum=1, maximum=5, default=3) == 3
    assert clamp_page_size("0", minimum=1, maximum=5, default=3) == 1
    assert clamp_page_size(7, minimum=1, maximum=5, default=3) == 5
    with pytest.raises(ValueError, match="minimum <= default <= maximum"):
        clamp_page_size(None, minimum=10, maximum=100, default=5)


# ------------------------------------------------------------------------------------------ page token


@pytest.mark.parametrize(
    "cursor",
    [("ent-0000001",), ("a", 5), (0,), (-3, "ü日本", ""), (2**70, "x" * 200), ("a,b", '"]', "\x00")],
)
def test_token_round_trip(codec: PageTokenCodec, cursor: tuple[Any, ...]) -> None:
    token = codec.encode(COLLECTION, cursor)
    assert re.fullmatch(r"[A-Za-z0-9_-]+", token), "base64url without padding"
    assert codec.decode(token, COLLECTION) == cursor


def test_token_is_short(codec: PageTokenCodec) -> None:
    token = codec.encode(COLLECTION, ["ent-" + "0" * 26])  # a 30-character string key
    assert len(token) == 79
    assert len(codec.encode(COLLECTION, ["x" * 30, 123456])) < 120


@pytest.mark.parametrize("key", ["ent-0000042", "ent-00000042", "ent-000000042"])
def test_every_single_character_alteration_is_rejected(codec: PageTokenCodec, key: str) -> None:
    # The three keys give all three lengths modulo 4 of a token, so the last character has 0, 2 or 4 unused
    # bits: changing only those must be rejected too.
    token = codec.encode(COLLECTION, [key, 7])
    altered = 0
    for position in range(len(token)):
        for char in ALPHABET + "=+/. ":
            if char == token[position]:
                continue
            forged = token[:position] + char + token[position + 1 :]
            with pytest.raises(PageTokenError) as caught:
                codec.decode(forged, COLLECTION)
            assert caught.value.code == "INVALID_PAGE_TOKEN"
            altered += 1
    assert altered == len(token) * (len(ALPHABET) + 4)


def test_token_lengths_cover_every_remainder(codec: PageTokenCodec) -> None:
    lengths = {len(codec.encode(COLLECTION, [key, 7])) % 4 for key in ["ent-0000042", "ent-00000042", "ent-000000042"]}
    assert lengths == {0, 2, 3}


def test_every_truncation_and_extension_is_rejected(codec: PageTokenCodec) -> None:
    token = codec.encode(COLLECTION, ["ent-0000042"])
    for length in range(len(token)):
        with pytest.raises(PageTokenError):
            codec.decode(token[:length], COLLECTION)
    for suffix in ["A", "AA", "AAA", "AAAA", "="]:
        with pytest.raises(PageTokenError):
            codec.decode(token + suffix, COLLECTION)


def test_token_of_another_collection_is_rejected(codec: PageTokenCodec) -> None:
    token = codec.encode("apps/app-1/entitlements", ["ent-1"])
    for other in ["apps/app-2/entitlements", "apps/app-1/entitlements ", "apps/app-1", ""]:
        with pytest.raises(PageTokenError, match="another listing") as caught:
            codec.decode(token, other)
        assert caught.value.reason == "signature"
    filtered = collection_key(COLLECTION, {"q": "admin"})
    token = codec.encode(filtered, ["ent-1"])
    assert codec.decode(token, collection_key(COLLECTION, {"q": "admin"})) == ("ent-1",)
    for other in [COLLECTION, collection_key(COLLECTION, {"q": "admins"})]:
        with pytest.raises(PageTokenError):
            codec.decode(token, other)


def test_collection_key() -> None:
    assert collection_key(COLLECTION) == COLLECTION
    assert collection_key(COLLECTION, {}) == COLLECTION
    assert collection_key(COLLECTION, {"a": 1, "b": [1, 2]}) == collection_key(COLLECTION, {"b": [1, 2], "a": 1})
    assert collection_key(COLLECTION, {"a": 1}) != collection_key(COLLECTION, {"a": "1"})
    assert collection_key(COLLECTION, {"a": 1}).startswith(COLLECTION + "#filters=")


def test_token_signed_with_another_secret_is_rejected(codec: PageTokenCodec, clock: Clock) -> None:
    forged = PageTokenCodec(b"t" * 32, clock=clock).encode(COLLECTION, ["ent-1"])
    with pytest.raises(PageTokenError) as caught:
        codec.decode(forged, COLLECTION)
    assert caught.value.reason == "signature"


@pytest.mark.parametrize(
    "garbage",
    ["", "!!!!", "abc=", "a", "AAAA", "A" * 40, "====", " ", "eyJhbGciOiJIUzI1NiJ9", "é" * 10, "x" * 5000, "ab\ncd"],
)
def test_garbage_is_rejected(codec: PageTokenCodec, garbage: str) -> None:
    with pytest.raises(PageTokenError) as caught:
        codec.decode(garbage, COLLECTION)
    assert caught.value.code == "INVALID_PAGE_TOKEN"


@pytest.mark.parametrize("not_a_string", [None, 123, b"AAAA", ["AAAA"]])
def test_non_string_token_is_rejected(codec: PageTokenCodec, not_a_string: Any) -> None:
    with pytest.raises(PageTokenError, match="must be a string"):
        codec.decode(not_a_string, COLLECTION)


def test_expiry_with_injected_clock(clock: Clock) -> None:
    codec = PageTokenCodec(SECRET, max_age_seconds=3600, clock=clock)
    token = codec.encode(COLLECTION, ["ent-1"])
    clock.now = T0 + 3600
    assert codec.decode(token, COLLECTION) == ("ent-1",)
    clock.now = T0 + 3601
    with pytest.raises(PageTokenError, match="expired") as caught:
        codec.decode(token, COLLECTION)
    assert caught.value.reason == "expired"
    forever = PageTokenCodec(SECRET, max_age_seconds=None, clock=clock)
    clock.now = T0 + 10 * 365 * 86400
    assert forever.decode(token, COLLECTION) == ("ent-1",)


def test_default_max_age_is_a_day(codec: PageTokenCodec, clock: Clock) -> None:
    token = codec.encode(COLLECTION, ["ent-1"])
    clock.now = T0 + 86400
    assert codec.decode(token, COLLECTION) == ("ent-1",)
    clock.now = T0 + 86401
    with pytest.raises(PageTokenError, match="expired"):
        codec.decode(token, COLLECTION)


def test_token_from_the_future_is_rejected(clock: Clock) -> None:
    future = PageTokenCodec(SECRET, clock=Clock(T0 + 3600)).encode(COLLECTION, ["ent-1"])
    with pytest.raises(PageTokenError, match="future"):
        PageTokenCodec(SECRET, clock=clock).decode(future, COLLECTION)
    slightly = PageTokenCodec(SECRET, clock=Clock(T0 + 60)).encode(COLLECTION, ["ent-1"])
    assert PageTokenCodec(SECRET, clock=clock).decode(slightly, COLLECTION) == ("ent-1",)


def test_unknown_version_is_rejected(codec: PageTokenCodec, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(paging_tokens, "TOKEN_VERSION", 2)
    newer = codec.encode(COLLECTION, ["ent-1"])  # correctly signed, by a newer server
    monkeypatch.setattr(paging_tokens, "TOKEN_VERSION", 1)
    assert base64.urlsafe_b64decode(newer + "=" * (-len(newer) % 4))[0] == 2
    with pytest.raises(PageTokenError, match="version 2") as caught:
        codec.decode(newer, COLLECTION)
    assert caught.value.reason == "version"
    assert codec.decode(codec.encode(COLLECTION, ["ent-1"]), COLLECTION) == ("ent-1",)


def test_signed_token_without_a_valid_cursor_is_rejected(codec: PageTokenCodec) -> None:
    for body in [b"[]", b"[1.5]", b"[true]", b'{"a":1}', b"[[1]]", b"\xff\xfe"]:
        signed = paging_tokens._HEADER.pack(paging.TOKEN_VERSION, T0) + body
        raw = signed + codec._mac(COLLECTION, signed)
        token = base64.urlsafe_b64encode(raw).rstrip(b"=").decode()
        with pytest.raises(PageTokenError) as caught:
            codec.decode(token, COLLECTION)
        assert caught.value.reason == "cursor"


@pytest.mark.parametrize("cursor", [(), [], "abc", ("a", 1.5), (True,), (None,), ([1],)])
def test_encode_rejects_bad_cursors(codec: PageTokenCodec, cursor: Any) -> None:
    with pytest.raises(ValueError, match="non-empty sequence"):
        codec.encode(COLLECTION, cursor)


@pytest.mark.parametrize("secret", [b"", "text-secret", None])
def test_codec_needs_a_bytes_secret(secret: Any) -> None:
    with pytest.raises(ValueError, match="secret"):
        PageTokenCodec(secret)


# --------------------------------------------------------------------------------------------- request


def test_parse_page_request(codec: PageTokenCodec) -> None:
    assert parse_page_request(None, None, codec=codec, collection=COLLECTION) == PageRequest(25, None)
    assert parse_page_request("", "", codec=codec, collection=COLLECTION) == PageRequest(25, None)
    assert parse_page_request("5", None, codec=codec, collection=COLLECTION) == PageRequest(10, None)
    token = codec.encode(COLLECTION, ["ent-9", 3])
    assert parse_page_request(500, token, codec=codec, collection=COLLECTION) == PageRequest(100, ("ent-9", 3))
    assert parse_page_request(7, None, codec=codec, collection=COLLECTION, minimum=1, default=2) == PageRequest(7)


@pytest.mark.parametrize(("page_size", "page_token", "error"), [
    ("abc", None, PageSizeError),
    (1.5, None, PageSizeError),  # a POST body's JSON number
    (True, None, PageSizeError),
    ("abc", "forged", PageSizeError),  # the size is checked first
    (None, "forged", PageTokenError),
    (10, 12345, PageTokenError),  # a POST body's JSON number as token
])  # fmt: skip
def test_parse_page_request_errors(codec: PageTokenCodec, page_size: Any, page_token: Any, error: type) -> None:
    with pytest.raises(error) as caught:
        parse_page_request(page_size, page_token, codec=codec, collection=COLLECTION)
    assert isinstance(caught.value, PagingError)
    assert caught.value.code == {PageSizeError: "INVALID_PAGE_SIZE", PageTokenError: "INVALID_PAGE_TOKEN"}[error]


def test_page_response(codec: PageTokenCodec) -> None:
    assert page_response([1, 2], None, codec=codec, collection=COLLECTION) == {"list": [1, 2], "nextPageToken": ""}
    body = page_response([{"id": "a"}], ("a",), codec=codec, collection=COLLECTION)
    assert body["list"] == [{"id": "a"}]
    assert codec.decode(body["nextPageToken"], COLLECTION) == ("a",)
    assert Page([], "").as_dict() == {"list": [], "nextPageToken": ""}


# ------------------------------------------------------------------------------------------ keyset SQL


class Base(DeclarativeBase):
    pass


class Item(Base):
    __tablename__ = "items"

    id: Mapped[str] = mapped_column(sa.String(32), primary_key=True)
    grp: Mapped[int] = mapped_column(index=True)
    seq: Mapped[int] = mapped_column()
    label: Mapped[str] = mapped_column("label_text")

    __table_args__ = (sa.UniqueConstraint("grp", "seq"),)


ROWS = 1234


def item(n: int) -> dict[str, Any]:
    # Runs of 13 rows share a `grp`: page boundaries fall inside runs, whatever the page size.
    return {"id": f"item-{n:05d}", "grp": n // 13, "seq": n % 13, "label": f"Item {n}"}


@pytest.fixture
def sessions() -> Iterator[sessionmaker[Session]]:
    engine = sa.create_engine("sqlite://", poolclass=sa.StaticPool, connect_args={"check_same_thread": False})
    Base.metadata.create_all(engine)
    numbers = list(range(ROWS))
    random.Random(7).shuffle(numbers)  # insertion order is not key order
    with Session(engine) as session, session.begin():
        session.execute(sa.insert(Item), [item(n) for n in numbers])
    yield sessionmaker(engine)
    engine.dispose()


def insert(sessions: sessionmaker[Session], numbers: list[int]) -> None:
    with sessions.begin() as session:
        session.execute(sa.insert(Item), [item(n) for n in numbers])


def walk(
    sessions: sessionmaker[Session],
    codec: PageTokenCodec,
    size: int,
    order_by: list[Any],
    stmt: sa.Select[Any] | None = None,
    between_pages: Callable[[tuple[Any, ...]], None] | None = None,
    **options: Any,
) -> list[list[Any]]:
    """Every page, each in its own session and through a real token, as separate requests would be."""
    pages: list[list[Any]] = []
    token = ""
    while True:
        assert len(pages) <= 2 * ROWS, "the walk does not end"
        request = parse_page_request(size, token, codec=codec, collection=COLLECTION)
        with sessions() as session:
            rows, cursor = keyset_page(
                session, stmt if stmt is not None else sa.select(Item), order_by, request, **options
            )
            pages.append([(row.grp, row.seq, row.id) for row in rows])
        token = page_response([], cursor, codec=codec, collection=COLLECTION)["nextPageToken"]
        if not token:
            return pages
        assert cursor is not None
        if between_pages:
            between_pages(cursor)


@pytest.mark.parametrize("size", [10, 25, 100])
def test_walk_yields_every_row_once_in_order(sessions: sessionmaker[Session], codec: PageTokenCodec, size: int) -> None:
    pages = walk(sessions, codec, size, [Item.id])
    assert len(pages) == math.ceil(ROWS / size)
    assert all(len(page) == size for page in pages[:-1])
    assert [row[2] for page in pages for row in page] == [f"item-{n:05d}" for n in range(ROWS)]


def test_walk_ends_with_a_full_last_page_and_no_empty_page(
    sessions: sessionmaker[Session], codec: PageTokenCodec
) -> None:
    insert(sessions, list(range(ROWS, 1300)))  # 1300 rows: exactly 13 pages of 100
    pages = walk(sessions, codec, 100, [Item.id])
    assert [len(page) for page in pages] == [100] * 13


@pytest.mark.parametrize("row_values", [True, False])
@pytest.mark.parametrize("size", [10, 25, 100])
def test_composite_key_with_duplicates_in_the_first_column(
    sessions: sessionmaker[Session], codec: PageTokenCodec, size: int, row_values: bool
) -> None:
    pages = walk(sessions, codec, size, [Item.grp, Item.seq], row_values=row_values)
    keys = [(grp, seq) for page in pages for grp, seq, _ in page]
    assert keys == sorted((n // 13, n % 13) for n in range(ROWS))


@pytest.mark.parametrize(
    ("order_by", "sort_key"),
    [
        ([Item.grp.desc(), Item.seq.desc()], lambda key: (-key[0], -key[1])),  # row values, <
        ([Item.grp.desc(), Item.seq], lambda key: (-key[0], key[1])),  # mixed: OR chain
        ([Item.grp.asc(), Item.seq.desc()], lambda key: (key[0], -key[1])),
        ([Item.id.desc()], lambda key: [-ord(c) for c in key[2]]),
    ],
)
def test_descending_and_mixed_orders(
    sessions: sessionmaker[Session], codec: PageTokenCodec, order_by: list[Any], sort_key: Callable[..., Any]
) -> None:
    rows = [row for page in walk(sessions, codec, 25, order_by) for row in page]
    expected = sorted(((n // 13, n % 13, f"item-{n:05d}") for n in range(ROWS)), key=sort_key)
    assert rows == expected


def test_row_values_and_or_chain_conditions_agree(sessions: sessionmaker[Session]) -> None:
    with sessions() as session:
        for cursor in [(0, 0), (5, 12), (5, 13), (40, 3), (94, 11), (95, 0), (-1, 99)]:
            results = []
            for row_values in (True, False):
                stmt = sa.select(Item.id).where(keyset_condition([Item.grp, Item.seq], cursor, row_values=row_values))
                results.append(session.scalars(stmt.order_by(Item.id)).all())
            assert results[0] == results[1]
            assert len(results[0]) == sum(1 for n in range(ROWS) if (n // 13, n % 13) > cursor)
    tuple_sql = str(keyset_condition([Item.grp, Item.seq], (1, 2)).compile(dialect=sqlite.dialect()))
    chain_sql = str(keyset_condition([Item.grp, Item.seq], (1, 2), row_values=False).compile(dialect=sqlite.dialect()))
    assert tuple_sql == "(items.grp, items.seq) > (?, ?)"
    assert chain_sql == "items.grp > ? OR items.grp = ? AND items.seq > ?"


def test_inserts_between_pages_never_duplicate_or_skip(sessions: sessionmaker[Session], codec: PageTokenCodec) -> None:
    """Between pages, new rows land just behind and just ahead of the cursor, and far on either side."""
    existing = {f"item-{n:05d}" for n in range(ROWS)}
    behind: set[str] = set()
    ahead: set[str] = set()
    fresh = iter(range(100_000, 200_000))
    inserted: set[str] = set()

    def insert_around(cursor: tuple[Any, ...]) -> None:
        (last,) = cursor
        new = [i for i in (f"{last}a", last[:-1], "item-0", "item-z", f"item-{next(fresh)}") if i not in inserted]
        inserted.update(new)
        with sessions.begin() as session:
            session.execute(sa.insert(Item), [{"id": i, "grp": -next(fresh), "seq": 0, "label": "new"} for i in new])
        behind.update(i for i in new if i <= last)
        ahead.update(i for i in new if i > last)

    pages = walk(sessions, codec, 25, [Item.id], between_pages=insert_around)
    ids = [row[2] for page in pages for row in page]
    assert ids == sorted(ids) and len(ids) == len(set(ids)), "strictly increasing: never twice"
    assert existing <= set(ids), "a pre-existing row was skipped"
    assert not behind & set(ids), "rows inserted behind the cursor cannot show up"
    assert set(ids) == existing | ahead, "rows inserted ahead of the cursor show up once"
    assert behind and ahead


def test_inserts_between_pages_with_a_composite_key(sessions: sessionmaker[Session], codec: PageTokenCodec) -> None:
    existing = {(n // 13, n % 13) for n in range(ROWS)}
    fresh = iter(range(100_000, 200_000))
    inserted: set[tuple[int, int]] = set()

    def insert_around(cursor: tuple[Any, ...]) -> None:
        grp, seq = cursor
        new = {(grp, seq - 100), (grp, seq + 100), (grp - 1, 50), (grp + 1, -50)} - inserted - existing
        with sessions.begin() as session:
            session.execute(
                sa.insert(Item), [{"id": f"new-{next(fresh)}", "grp": g, "seq": s, "label": "new"} for g, s in new]
            )
        inserted.update(new)

    pages = walk(sessions, codec, 10, [Item.grp, Item.seq], between_pages=insert_around)
    keys = [(grp, seq) for page in pages for grp, seq, _ in page]
    assert keys == sorted(keys) and len(keys) == len(set(keys))
    assert existing <= set(keys)


def test_deleting_the_cursor_row_does_not_break_the_walk(
    sessions: sessionmaker[Session], codec: PageTokenCodec
) -> None:
    def delete_cursor_row(cursor: tuple[Any, ...]) -> None:
        with sessions.begin() as session:
            session.execute(sa.delete(Item).where(Item.id == cursor[0]))

    pages = walk(sessions, codec, 10, [Item.id], between_pages=delete_cursor_row)
    assert [row[2] for page in pages for row in page] == [f"item-{n:05d}" for n in range(ROWS)]


def test_filters_of_the_statement_are_kept(sessions: sessionmaker[Session], codec: PageTokenCodec) -> None:
    stmt = sa.select(Item).where(Item.grp.in_([3, 4, 90])).order_by(Item.label)  # its ORDER BY is replaced
    pages = walk(sessions, codec, 10, [Item.grp, Item.seq], stmt=stmt)
    assert [(g, s) for page in pages for g, s, _ in page] == [(g, s) for g in (3, 4, 90) for s in range(13)]
    assert [len(page) for page in pages] == [10, 10, 10, 9]


def test_statement_has_no_offset_and_does_not_depend_on_depth() -> None:
    shallow = keyset_statement(sa.select(Item), [Item.grp, Item.seq], PageRequest(25, (0, 5)))
    deep = keyset_statement(sa.select(Item), [Item.grp, Item.seq], PageRequest(25, (90, 5)))
    for dialect in (postgresql.dialect(), sa.create_engine("sqlite://").dialect):
        compiled = [str(s.compile(dialect=dialect)) for s in (shallow, deep)]
        assert compiled[0] == compiled[1], "the SQL of a deep page is that of a shallow one"
    pg = str(deep.compile(dialect=postgresql.dialect()))
    assert "OFFSET" not in pg.upper()
    assert re.search(r"WHERE \(items.grp, items.seq\) > \(.+\) ORDER BY items.grp, items.seq\s+LIMIT", pg)
    lite = str(deep.compile(dialect=sqlite.dialect(), compile_kwargs={"literal_binds": True}))
    # SQLite's compiler appends a constant OFFSET 0 to every LIMIT; no other offset ever appears.
    assert re.findall(r"OFFSET\s+(\S+)", lite) == ["0"]
    assert lite.rstrip().endswith("LIMIT 26 OFFSET 0")
    first = keyset_statement(sa.select(Item), [Item.id], PageRequest(10))
    assert "WHERE" not in str(first.compile(dialect=postgresql.dialect()))


def test_page_is_an_index_range_scan_without_sort(sessions: sessionmaker[Session]) -> None:
    with sessions() as session:
        for order_by, cursor in [([Item.id], ("item-01000",)), ([Item.grp, Item.seq], (76, 3))]:
            stmt = keyset_statement(sa.select(Item), order_by, PageRequest(25, cursor))
            sql = str(stmt.compile(dialect=session.get_bind().dialect, compile_kwargs={"literal_binds": True}))
            plan = " | ".join(row[-1] for row in session.execute(sa.text("EXPLAIN QUERY PLAN " + sql)))
            assert plan.startswith("SEARCH items USING INDEX"), plan
            assert "TEMP B-TREE" not in plan, plan


def test_item_kinds_and_cursor_sources(sessions: sessionmaker[Session]) -> None:
    request = PageRequest(10, ("item-00100",))
    with sessions() as session:
        entities, cursor = keyset_page(session, sa.select(Item), [Item.id], request)
        assert all(isinstance(e, Item) for e in entities) and cursor == ("item-00110",)
        entities, cursor = keyset_page(session, sa.select(Item), [Item.label], PageRequest(10, ("Item 100",)))
        assert isinstance(entities[0], Item) and cursor == (entities[-1].label,)  # column key != attribute key
        rows, cursor = keyset_page(session, sa.select(Item.grp, Item.seq), [Item.grp, Item.seq], PageRequest(10))
        assert tuple(rows[0]) == (0, 0) and cursor == (0, 9)
        table = Item.__table__
        rows, cursor = keyset_page(session, sa.select(table), [table.c.grp, table.c.seq.desc()], PageRequest(10))
        assert rows[0].id == "item-00012" and cursor == (0, 3)
        rows, cursor = keyset_page(
            session, sa.select(Item), [Item.grp, Item.seq], PageRequest(10), key=lambda e: (e.grp, e.seq)
        )
        assert cursor == (0, 9)
        with pytest.raises(LookupError, match="not among the selected columns"):
            keyset_page(session, sa.select(Item.id), [Item.grp], PageRequest(10))
        rows, cursor = keyset_page(session, sa.select(Item).where(Item.grp == 0), [Item.id], PageRequest(100))
        assert len(rows) == 13 and cursor is None


def test_cursor_of_the_wrong_arity_is_a_token_error(sessions: sessionmaker[Session]) -> None:
    with sessions() as session, pytest.raises(PageTokenError, match="sort key values"):
        keyset_page(session, sa.select(Item), [Item.grp, Item.seq], PageRequest(10, ("item-00001",)))


@pytest.mark.parametrize("order_by", [[], "id", [sa.nulls_last(Item.id)], [object()]])
def test_order_by_must_be_columns(order_by: Any) -> None:
    with pytest.raises((ValueError, TypeError)):
        keyset_statement(sa.select(Item), order_by, PageRequest(10))


# --------------------------------------------------------------------------------------------- declare

ITEMS = ListOperation(
    "groups/{grp}/items",
    order_by=(Item.seq,),
    serialize=lambda row: {"item": {"id": row.id, "label": row.label}},
)


def list_items(sessions: sessionmaker[Session], codec: PageTokenCodec, grp: int, **query: Any) -> dict[str, Any]:
    """A handler of the declared operation, as the service would write it."""
    listing = ITEMS.bind(codec, grp=grp, filters={"q": query.get("q")} if query.get("q") else None)
    request = listing.parse(query.get("page_size"), query.get("page_token"))
    with sessions() as session:
        stmt = sa.select(Item).where(Item.grp == listing.params["grp"])
        if query.get("q"):
            stmt = stmt.where(Item.label.contains(query["q"]))
        return listing.page(session, stmt, request)


def test_declared_list_operation(sessions: sessionmaker[Session], codec: PageTokenCodec) -> None:
    with sessions.begin() as session:  # a group of 105 items, next to the small ones
        session.execute(
            sa.insert(Item), [{"id": f"big-{s}", "grp": 999, "seq": s, "label": f"Big {s}"} for s in range(105)]
        )
    seen: list[str] = []
    token = ""
    while True:
        body = list_items(sessions, codec, 999, page_size="10", page_token=token)
        assert set(body) == {"list", "nextPageToken"}
        seen += [entry["item"]["id"] for entry in body["list"]]
        token = body["nextPageToken"]
        if not token:
            break
    assert seen == [f"big-{s}" for s in range(105)]
    body = list_items(sessions, codec, 999, q="Big 10")  # big-10 and big-100..104
    assert [entry["item"]["label"] for entry in body["list"]] == ["Big 10"] + [f"Big {s}" for s in range(100, 105)]
    assert body["nextPageToken"] == ""


def test_declared_operation_binds_tokens_to_parent_filters_and_sort(
    sessions: sessionmaker[Session], codec: PageTokenCodec
) -> None:
    token = list_items(sessions, codec, 3, page_size=10)["nextPageToken"]
    assert token
    assert list_items(sessions, codec, 3, page_token=token)["list"][0]["item"]["id"] == "item-00049"
    with pytest.raises(PageTokenError):
        list_items(sessions, codec, 4, page_token=token)  # another parent
    with pytest.raises(PageTokenError):
        list_items(sessions, codec, 3, page_token=token, q="Item")  # other filters
    resorted = ListOperation(ITEMS.collection, order_by=(Item.seq.desc(),))
    with pytest.raises(PageTokenError):
        resorted.bind(codec, grp=3).parse(None, token)  # the sort order changed since
    with pytest.raises(PageSizeError):
        list_items(sessions, codec, 3, page_size="ten")
    with sessions() as session:
        body = ITEMS.bind(codec, grp=3).run(session, sa.select(Item).where(Item.grp == 3), 100, None)
    assert len(body["list"]) == 13 and body["nextPageToken"] == ""


def test_declared_operation_bounds() -> None:
    small = ListOperation("x", order_by=[Item.id], minimum=1, maximum=5, default=2)
    codec = PageTokenCodec(SECRET)
    assert small.bind(codec).parse(None, None) == PageRequest(2)
    assert small.bind(codec).parse(50, "") == PageRequest(5)
    with pytest.raises(ValueError):
        ListOperation("x", order_by=[Item.id], default=500)


@pytest.mark.parametrize("cursor", [("ent-0025",), ("é", 7), ["a", "b"]])
def test_token_bytes_follow_the_documented_layout(codec: PageTokenCodec, cursor: Any) -> None:
    """version | issued_at | compact JSON cursor | HMAC-SHA256(label | len(collection) | collection | all before)
    truncated to 16 bytes: tokens issued by an earlier release keep verifying, whatever computes the MAC."""
    token = codec.encode(COLLECTION, cursor)
    raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
    signed = struct.pack(">BQ", 1, T0) + json.dumps(list(cursor), separators=(",", ":"), ensure_ascii=False).encode()
    name = COLLECTION.encode()
    message = b"accessgov/page-token\x00" + struct.pack(">I", len(name)) + name + signed
    assert raw == signed + hmac.new(SECRET, message, hashlib.sha256).digest()[:16]
    assert codec.decode(token, COLLECTION) == tuple(cursor)
