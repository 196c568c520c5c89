"""Paging mutants: the page_size clamp at both ends, the default, `nextPageToken` at and before the end, walks
that repeat or skip items, and tokens not bound to their collection or not checked at all."""

from __future__ import annotations

import uuid
from typing import Any

from scripts.selftest.asgi import Forward, Handler, Request, Response, path_param
from scripts.selftest.mutants.base import Mutant, on_response, refuse
from scripts.selftest.target import Fixtures

END_MARKER = "selftest-past-the-end-"


def _page_size(request: Request) -> int | None:
    value = request.query().get("page_size", "")
    try:
        return int(value)
    except ValueError:
        return None


def _token(request: Request) -> str:
    return request.query().get("page_token", "")


def _page(response: Response) -> dict[str, Any] | None:
    document = response.json()
    ok = response.status == 200 and isinstance(document, dict) and isinstance(document.get("list"), list)
    return document if ok else None


def _small_not_clamped(_: Fixtures) -> dict[str, Handler]:
    async def handle(request: Request, forward: Forward) -> Response:
        size = _page_size(request)
        response = await forward(request)
        page = _page(response)
        if page is not None and size is not None and 1 <= size < 10:
            return response.with_json({**page, "list": page["list"][:size]})
        return response

    return {"list": handle}


def _large_not_clamped(_: Fixtures) -> dict[str, Handler]:
    """Serves page_size items (up to 500) by following the reference server's own tokens."""

    async def handle(request: Request, forward: Forward) -> Response:
        size = _page_size(request)
        response = await forward(request)
        page = _page(response)
        if page is None or size is None or size <= 100:
            return response
        items = list(page["list"])
        while page is not None and page.get("nextPageToken") and len(items) < min(size, 500):
            following = await forward(request.with_query({**request.query(), "page_token": page["nextPageToken"]}))
            page = _page(following)
            if page is not None:
                items.extend(page["list"])
        token = page.get("nextPageToken", "") if page is not None else ""
        return response.with_json({"list": items[: min(size, 500)], "nextPageToken": token})

    return {"list": handle}


def _default_size(size: int) -> Any:
    def handlers(_: Fixtures) -> dict[str, Handler]:
        async def handle(request: Request, forward: Forward) -> Response:
            if "page_size" not in request.query():
                request = request.with_query({**request.query(), "page_size": str(size)})
            return await forward(request)

        return {"list": handle}

    return handlers


def _last_token_not_empty(_: Fixtures) -> dict[str, Handler]:
    """The last page points one page further, and that page is empty (a common off-by-one of offset paging)."""

    async def handle(request: Request, forward: Forward) -> Response:
        if _token(request).startswith(END_MARKER):
            return Response.of_json(200, {"list": [], "nextPageToken": ""})
        response = await forward(request)
        page = _page(response)
        if page is not None and page.get("nextPageToken") == "":
            return response.with_json({**page, "nextPageToken": END_MARKER + uuid.uuid4().hex})
        return response

    return {"list": handle}


def _last_token_missing(request: Request, response: Response) -> Response:
    page = _page(response)
    if page is not None and page.get("nextPageToken") == "":
        return response.with_json({"list": page["list"]})
    return response


def _empty_before_end(request: Request, response: Response) -> Response:
    """The walk ends after the second page: its `nextPageToken` is empty though more results remain."""
    page = _page(response)
    if page is not None and _token(request) and page.get("nextPageToken"):
        return response.with_json({**page, "nextPageToken": ""})
    return response


def _repeats(_: Fixtures) -> dict[str, Handler]:
    """Each later page starts with the previous page's last item (`>=` instead of `>` in the keyset)."""
    last_item: dict[str, Any] = {}

    async def handle(request: Request, forward: Forward) -> Response:
        response = await forward(request)
        page = _page(response)
        if page is None:
            return response
        items = list(page["list"])
        if _token(request) in last_item and items:
            items = [last_item[_token(request)], *items[:-1]]
        if page.get("nextPageToken") and page["list"]:
            last_item[page["nextPageToken"]] = page["list"][-1]
        return response.with_json({**page, "list": items})

    return {"list": handle}


def _skips(request: Request, response: Response) -> Response:
    """Each later page loses its first item."""
    page = _page(response)
    if page is not None and _token(request) and page["list"]:
        return response.with_json({**page, "list": page["list"][1:]})
    return response


def _issued_tokens(foreign: bool) -> Any:
    """Tokens checked only for being ours (`foreign`: any app's token is taken) or not at all (an unknown token
    restarts the walk at the first page)."""

    def handlers(_: Fixtures) -> dict[str, Handler]:
        issued: dict[str, str] = {}

        async def handle(request: Request, forward: Forward) -> Response:
            app_id, token = path_param(request, "list", "app_id"), _token(request)
            lenient = token and (issued.get(token, app_id) != app_id if foreign else token not in issued)
            if lenient:
                query = {k: v for k, v in request.query().items() if k != "page_token"}
                request = request.with_query(query)
            response = await forward(request)
            page = _page(response)
            if page is not None and page.get("nextPageToken"):
                issued[page["nextPageToken"]] = app_id
            return response

        return {"list": handle}

    return handlers


MUTANTS = [
    Mutant(
        "paging-small-size-not-clamped",
        "paging",
        "A page_size below 10 is served as given (page_size=5 gives 5 items) instead of being raised to 10.",
        _small_not_clamped,
    ),
    Mutant(
        "paging-small-size-rejected",
        "paging",
        "A page_size below 10 is refused 400 INVALID_PAGE_SIZE instead of being raised to 10.",
        refuse(
            "list", lambda r: (s := _page_size(r)) is not None and s < 10, 400, "INVALID_PAGE_SIZE", "page_size < 10"
        ),
    ),
    Mutant(
        "paging-large-size-not-clamped",
        "paging",
        "A page_size above 100 is served as given (up to 500 items) instead of being lowered to 100.",
        _large_not_clamped,
    ),
    Mutant(
        "paging-large-size-rejected",
        "paging",
        "A page_size above 100 is refused 400 INVALID_PAGE_SIZE instead of being lowered to 100.",
        refuse(
            "list",
            lambda r: (s := _page_size(r)) is not None and s > 100,
            400,
            "INVALID_PAGE_SIZE",
            "page_size > 100",
        ),
    ),
    Mutant(
        "paging-wrong-default",
        "paging",
        "Without page_size a page holds 20 items, not the default 25.",
        _default_size(20),
    ),
    Mutant(
        "paging-last-token-not-empty",
        "paging",
        "The last page has a non-empty nextPageToken (leading to an empty page) instead of the empty string.",
        _last_token_not_empty,
    ),
    Mutant(
        "paging-last-token-missing",
        "paging",
        "The last page has no nextPageToken member at all instead of the empty string.",
        on_response("list", _last_token_missing),
    ),
    Mutant(
        "paging-empty-token-before-end",
        "paging",
        "nextPageToken is empty on the second page although more results remain.",
        on_response("list", _empty_before_end),
    ),
    Mutant(
        "paging-repeats-items",
        "paging",
        "Each later page starts with the previous page's last item (and loses its own last one).",
        _repeats,
    ),
    Mutant(
        "paging-skips-items",
        "paging",
        "Each later page loses its first item: a walk of all pages has gaps.",
        on_response("list", _skips),
    ),
    Mutant(
        "paging-token-not-bound",
        "paging",
        "A token issued for one app is accepted for another (its walk starts over) instead of 400.",
        _issued_tokens(foreign=True),
    ),
    Mutant(
        "paging-tampered-token-accepted",
        "paging",
        "An altered or made-up token is accepted (the walk starts over) instead of 400 INVALID_PAGE_TOKEN.",
        _issued_tokens(foreign=False),
    ),
]
