"""The contract's operations called straight from the middleware stack, past Starlette's router.

Starlette reaches an endpoint through its exception middleware, the router (each route's regular expression
tried in turn), the route, `request_response` and a second exception wrapper: about a tenth of a webhook
delivery's CPU in the server's profile. `FastDispatch` sits where the exception middleware starts and calls
the operation of a request whose method and path name one directly, with the scope Starlette's route would
have left (`endpoint`, `path_params`, for the access log and the handlers). Anything else — an unknown path,
a method the path does not have (405), `HEAD`, a trailing-slash redirect, a `root_path` — goes on through
Starlette unchanged, so those answers stay Starlette's. Exceptions other than `ApiError` propagate to
Starlette's outer error middleware, as they did from the router.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from starlette.convertors import Convertor
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import compile_path
from starlette.types import ASGIApp, Receive, Scope, Send

Endpoint = Callable[[Request], Awaitable[Response]]


class _Route:
    """One operation's method and path, matched as Starlette's `Route` matches it."""

    def __init__(self, method: str, path: str, endpoint: Endpoint) -> None:
        self.method = method
        self.endpoint = endpoint
        self.regex: re.Pattern[str]
        self.convertors: dict[str, Convertor[Any]]
        self.regex, _, self.convertors = compile_path(path)

    def match(self, method: str, path: str) -> dict[str, Any] | None:
        if method != self.method:
            return None
        found = self.regex.match(path)
        if found is None:
            return None
        return {name: self.convertors[name].convert(value) for name, value in found.groupdict().items()}


class FastDispatch:
    """ASGI middleware: the contract's routes, tried in Starlette's order, the first that matches both method and
    path answering (as in Starlette); anything no route fully matches goes on to `app`."""

    def __init__(self, app: ASGIApp, routes: Sequence[tuple[str, str, Endpoint]]) -> None:
        self.app = app
        self.routes = [_Route(method, path, endpoint) for method, path, endpoint in routes]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not scope.get("root_path"):
            method, path = scope["method"], scope["path"]
            for route in self.routes:
                params = route.match(method, path)
                if params is not None:
                    scope["endpoint"] = route.endpoint
                    scope["path_params"] = params
                    response = await route.endpoint(Request(scope, receive, send))
                    await response(scope, receive, send)
                    return
        await self.app(scope, receive, send)
