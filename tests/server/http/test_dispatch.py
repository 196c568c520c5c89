"""`http.dispatch.FastDispatch`: the contract's routes answered directly, everything else exactly as Starlette's
router answers it (404, 405, HEAD, trailing-slash redirects, mounted apps)."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from accessgov.http.dispatch import ContractApp

calls: list[str] = []


async def task(request: Request) -> Response:
    calls.append("task")
    return JSONResponse({"task": request.path_params["task_id"], "endpoint": request.scope["endpoint"].__name__})


async def listing(request: Request) -> Response:
    calls.append("listing")
    return JSONResponse({"items": []})


async def with_int(request: Request) -> Response:
    calls.append("with_int")
    return JSONResponse({"n": request.path_params["n"]})


ROUTES: list[tuple[str, str, Any]] = [
    ("POST", "/tasks/{task_id}/restart", task),
    ("GET", "/items", listing),
    ("GET", "/numbers/{n:int}", with_int),
]


class Spy:
    """Records whether Starlette's router was reached."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.reached: list[str] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            self.reached.append(scope["path"])
        await self.app(scope, receive, send)


class Client:
    """Requests to an ASGI app in process (httpx's ASGI transport; the app's lifespan is not needed here)."""

    def __init__(self, app: Starlette) -> None:
        self.app = app

    def request(self, method: str, path: str) -> httpx.Response:
        async def send() -> httpx.Response:
            transport = httpx.ASGITransport(app=self.app, raise_app_exceptions=False)
            async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
                return await client.request(method, path)

        return asyncio.run(send())

    def get(self, path: str) -> httpx.Response:
        return self.request("GET", path)

    def post(self, path: str) -> httpx.Response:
        return self.request("POST", path)


def client_pair() -> tuple[Client, Client, list[Spy]]:
    """The same routes served by plain Starlette and with FastDispatch in front."""
    spies: list[Spy] = []

    def build(fast: bool) -> Starlette:
        routes = [Route(path, endpoint, methods=[method]) for method, path, endpoint in ROUTES]
        if not fast:
            return Starlette(routes=routes)
        app = ContractApp(ROUTES, routes=routes)
        app.router = Spy(app.router)  # type: ignore[assignment]  # the innermost layer: reached only through the router
        return app

    fast_app = build(True)
    fast_client = Client(fast_app)
    spies.append(fast_app.router)  # type: ignore[arg-type]
    return Client(build(False)), fast_client, spies


def test_a_contract_route_is_answered_without_the_router() -> None:
    _, fast, spies = client_pair()
    spies[0].reached.clear()
    calls.clear()
    response = fast.post("/tasks/t-1/restart")
    assert response.status_code == 200
    assert response.json() == {"task": "t-1", "endpoint": "task"}  # the scope Starlette's route would leave
    assert fast.get("/numbers/42").json() == {"n": 42}  # convertors applied as Starlette applies them
    assert calls == ["task", "with_int"] and spies[0].reached == []


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/tasks/t-1/restart"),  # the path exists, not with this method: 405
        ("POST", "/items"),
        ("GET", "/nowhere"),  # 404
        ("HEAD", "/items"),  # Starlette adds HEAD to GET routes
        ("GET", "/items/"),  # trailing-slash redirect
        ("GET", "/numbers/forty-two"),  # the convertor does not match: 404
        ("POST", "/tasks//restart"),
    ],
)
def test_everything_else_is_answered_by_starlette_as_before(method: str, path: str) -> None:
    plain, fast, spies = client_pair()
    spies[0].reached.clear()
    expected, got = plain.request(method, path), fast.request(method, path)
    assert (got.status_code, got.headers.get("location"), got.content) == (
        expected.status_code,
        expected.headers.get("location"),
        expected.content,
    )
    assert spies[0].reached == [path]


async def broken(request: Request) -> Response:
    raise RuntimeError("a bug")


async def handle_broken(request: Request, error: Exception) -> Response:
    return JSONResponse({"code": "INTERNAL", "error": str(error)}, status_code=500)


async def handle_broken_plainly(request: Request, error: Exception) -> Response:
    return PlainTextResponse(f"broken: {error}", status_code=500)


@pytest.mark.parametrize(
    "handlers",
    [
        {Exception: handle_broken},
        {500: handle_broken},
        {Exception: handle_broken, 500: handle_broken_plainly},
        {500: handle_broken_plainly, Exception: handle_broken},
        {},
    ],
)
def test_an_endpoint_that_raises_is_answered_as_starlettes_error_middleware_answers(
    handlers: dict[Any, Any],
) -> None:
    """The app's `Exception` (or 500) handler, else Starlette's plain 500; the exception still reaches the server."""
    routes = [Route("/broken", broken, methods=["GET"])]
    plain = Starlette(routes=routes, exception_handlers=handlers)
    fast = ContractApp([("GET", "/broken", broken)], routes=routes, exception_handlers=handlers)
    expected, got = Client(plain).get("/broken"), Client(fast).get("/broken")
    assert got.status_code == expected.status_code == 500
    assert (got.headers["content-type"], got.content) == (expected.headers["content-type"], expected.content)

    async def raised() -> None:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=fast), base_url="http://testserver") as client:
            await client.get("/broken")

    with pytest.raises(RuntimeError, match="a bug"):
        asyncio.run(raised())
