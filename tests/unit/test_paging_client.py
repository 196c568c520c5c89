"""The client side of the pagination convention: walking every page, with a guard against token loops."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest

from accessgov.paging import PageTokenCodec, clamp_page_size, page_response, parse_page_request
from accessgov.paging_client import (
    PagingLoopError,
    aiterate,
    aiterate_pages,
    iterate,
    iterate_pages,
    read_page,
)


class FakeServer:
    """Pages of `items` behind tokens "t1", "t2", ...; `tokens` overrides the token each page hands out."""

    def __init__(self, items: list[int], size: int = 3, tokens: list[str] | None = None) -> None:
        self.pages = [items[i : i + size] for i in range(0, len(items), size)] or [[]]
        self.tokens = tokens if tokens is not None else [f"t{i + 1}" for i in range(len(self.pages) - 1)] + [""]
        self.calls: list[str] = []

    def fetch(self, token: str) -> tuple[list[int], str]:
        self.calls.append(token)
        assert len(self.calls) < 50, "the client keeps following tokens"
        index = 0 if token == "" else int(token.removeprefix("t"))
        return self.pages[index], self.tokens[index]

    async def afetch(self, token: str) -> tuple[list[int], str]:
        await asyncio.sleep(0)
        return self.fetch(token)


async def collect(iterator: AsyncIterator[Any]) -> list[Any]:
    return [item async for item in iterator]


def test_yields_every_item_of_every_page() -> None:
    server = FakeServer(list(range(10)))
    assert list(iterate_pages(server.fetch)) == list(range(10))
    assert server.calls == ["", "t1", "t2", "t3"]


def test_stops_on_the_empty_token() -> None:
    server = FakeServer(list(range(6)), tokens=["t1", ""])
    assert list(iterate_pages(server.fetch)) == list(range(6))
    assert server.calls == ["", "t1"]
    single = FakeServer([])
    assert list(iterate_pages(single.fetch)) == []
    assert single.calls == [""]


def test_a_none_token_also_ends_the_walk() -> None:
    calls: list[str] = []

    def fetch(token: str) -> tuple[list[int], Any]:
        calls.append(token)
        return [1], None

    assert list(iterate_pages(fetch)) == [1]
    assert calls == [""]


def test_empty_pages_in_the_middle_do_not_stop_the_walk() -> None:
    pages = {"": ([1], "a"), "a": ([], "b"), "b": ([2, 3], "")}
    assert list(iterate_pages(lambda token: pages[token])) == [1, 2, 3]


def test_is_lazy() -> None:
    server = FakeServer(list(range(10)))
    iterator = iterate_pages(server.fetch)
    assert server.calls == []
    assert next(iterator) == 0
    assert server.calls == [""]


def test_a_repeated_token_raises_instead_of_looping() -> None:
    server = FakeServer(list(range(9)), tokens=["t1", "t1", ""])  # page 1 points at itself
    seen: list[int] = []
    with pytest.raises(RuntimeError, match="twice"):
        seen.extend(iterate_pages(server.fetch))
    assert seen == [0, 1, 2, 3, 4, 5]  # each page once, then the error
    assert server.calls == ["", "t1"]


def test_a_token_cycle_raises() -> None:
    server = FakeServer(list(range(12)), tokens=["t1", "t2", "t1", ""])  # t1 -> t2 -> t1
    with pytest.raises(PagingLoopError):
        list(iterate_pages(server.fetch))
    assert server.calls == ["", "t1", "t2"]


def test_max_pages() -> None:
    server = FakeServer(list(range(10)))
    assert list(iterate_pages(server.fetch, max_pages=4)) == list(range(10))
    with pytest.raises(PagingLoopError, match="max_pages=3"):
        list(iterate_pages(FakeServer(list(range(10))).fetch, max_pages=3))


def test_a_non_string_token_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="nextPageToken"):
        list(iterate_pages(lambda token: ([1], 2)))


def test_async_walk() -> None:
    server = FakeServer(list(range(10)))
    assert asyncio.run(collect(aiterate_pages(server.afetch))) == list(range(10))
    assert server.calls == ["", "t1", "t2", "t3"]
    looping = FakeServer(list(range(9)), tokens=["t1", "t1", ""])
    with pytest.raises(PagingLoopError):
        asyncio.run(collect(aiterate_pages(looping.afetch)))


# ------------------------------------------------------------------------------------ generated client


class Unset:
    """Stands in for openapi-python-client's sentinel type (recognised by its name)."""

    def __bool__(self) -> bool:
        return False


UNSET = Unset()


@dataclass
class ListResponse:
    list_: Any = UNSET
    next_page_token: Any = UNSET


@dataclass
class ErrorModel:
    code: str


@dataclass
class Response:
    status_code: int
    parsed: Any


def test_read_page_forms() -> None:
    assert read_page(ListResponse([1, 2], "t")) == ([1, 2], "t")
    assert read_page(ListResponse([1, 2], UNSET)) == ([1, 2], "")
    assert read_page(ListResponse(UNSET, UNSET)) == ([], "")
    assert read_page(ListResponse((1,), None)) == ([1], "")
    assert read_page({"list": [1], "nextPageToken": "t"}) == ([1], "t")
    assert read_page({"list": [1]}) == ([1], "")
    assert read_page({"nextPageToken": ""}) == ([], "")
    assert read_page(Response(200, ListResponse([3], "u"))) == ([3], "u")


@pytest.mark.parametrize(
    ("result", "message"),
    [
        (None, "no page: "),
        (Response(500, None), r"no page \(HTTP 500\)"),
        (Response(400, ErrorModel("INVALID_PAGE_TOKEN")), r"\(HTTP 400\): ErrorModel\(code='INVALID_PAGE_TOKEN'\)"),
        ({"code": "INVALID_PAGE_SIZE"}, "INVALID_PAGE_SIZE"),
        (object(), "no page: <object"),
    ],
)
def test_read_page_errors(result: Any, message: str) -> None:
    with pytest.raises(RuntimeError, match=message):
        read_page(result)


def test_iterate_calls_with_page_token_and_the_other_arguments() -> None:
    calls: list[dict[str, Any]] = []
    pages = {"": ListResponse([1, 2], "p2"), "p2": ListResponse([3], UNSET)}

    def sync(*, client: str, app_id: str, page_token: str, page_size: int) -> ListResponse:
        calls.append({"client": client, "app_id": app_id, "page_token": page_token, "page_size": page_size})
        return pages[page_token]

    assert list(iterate(sync, client="c", app_id="app-1", page_size=100)) == [1, 2, 3]
    assert calls == [
        {"client": "c", "app_id": "app-1", "page_token": "", "page_size": 100},
        {"client": "c", "app_id": "app-1", "page_token": "p2", "page_size": 100},
    ]


def test_iterate_dict_pages_and_loop_guard() -> None:
    pages = {"": {"list": ["a"], "nextPageToken": "x"}, "x": {"list": ["b"], "nextPageToken": "x"}}
    calls: list[str] = []

    def call(*, page_token: str) -> dict[str, Any]:
        calls.append(page_token)
        assert len(calls) < 50, "the client keeps following tokens"
        return pages[page_token]

    with pytest.raises(PagingLoopError):
        list(iterate(call))
    assert calls == ["", "x"]


def test_aiterate() -> None:
    pages = {"": Response(200, ListResponse([1], "n")), "n": Response(200, ListResponse([2], ""))}

    async def asyncio_detailed(*, page_token: str, app_id: str) -> Response:
        assert app_id == "app-1"
        return pages[page_token]

    assert asyncio.run(collect(aiterate(asyncio_detailed, app_id="app-1"))) == [1, 2]


def test_walks_a_server_built_with_the_paging_library() -> None:
    """The two halves together: a list operation over 1,000 ids served with signed tokens, walked by `iterate`."""
    codec = PageTokenCodec(b"k" * 32)
    ids = [f"id-{n:04d}" for n in range(1000)]

    def list_ids(*, page_token: str, page_size: Any = None) -> dict[str, Any]:
        request = parse_page_request(page_size, page_token, codec=codec, collection="ids")
        after = request.cursor[0] if request.cursor else ""
        rest = [i for i in ids if i > after]
        page, more = rest[: request.size], len(rest) > request.size
        return page_response(page, (page[-1],) if more else None, codec=codec, collection="ids")

    for size in (None, 7, 10, 64, 1000):
        assert list(iterate(list_ids, page_size=size)) == ids, size
    assert clamp_page_size(7) == 10
