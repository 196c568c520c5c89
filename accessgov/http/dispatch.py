"""The contract's operations called straight from the middleware stack, past Starlette's router, whose layers were
about a tenth of a webhook delivery's CPU (docs/performance.md, "Why the fast paths are shaped as they are").

A request whose method and path name an operation is answered by `FastDispatch` with the scope Starlette's route
would have left (`endpoint`, `path_params`: for the access log and the handlers); anything else (an unknown path,
405, `HEAD`, a trailing-slash redirect, a `root_path`) goes through Starlette unchanged, its answers Starlette's.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from starlette.applications import Starlette
from starlette.convertors import Convertor
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import compile_path
from starlette.types import ASGIApp, Receive, Scope, Send

Endpoint = Callable[[Request], Awaitable[Response]]
ErrorHandler = Callable[[Request, Exception], Awaitable[Response]]


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
    path answering (as in Starlette); anything no route fully matches goes on to `app`.

    An endpoint that raises is answered by `on_error` (the contract's 500), and the exception raised on to the
    server, as Starlette's error middleware does.
    """

    def __init__(self, app: ASGIApp, routes: Sequence[tuple[str, str, Endpoint]], on_error: ErrorHandler) -> None:
        self.app = app
        self.routes = [_Route(method, path, endpoint) for method, path, endpoint in routes]
        self.on_error = on_error

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not scope.get("root_path"):
            method, path = scope["method"], scope["path"]
            for route in self.routes:
                params = route.match(method, path)
                if params is not None:
                    scope["endpoint"] = route.endpoint
                    scope["path_params"] = params
                    try:
                        response = await route.endpoint(Request(scope, receive, send))
                    except Exception as error:
                        await (await self.on_error(Request(scope), error))(scope, receive, send)
                        raise
                    await response(scope, receive, send)
                    return
        await self.app(scope, receive, send)


class ContractApp(Starlette):
    """Starlette with the contract's operations dispatched ahead of its own stack (`FastDispatch`), inside the
    middleware added with `add_middleware` (the access log), which still wraps everything."""

    def __init__(self, dispatched: Sequence[tuple[str, str, Endpoint]], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.dispatched = dispatched

    async def _on_error(self, request: Request, error: Exception) -> Response:
        """The app's handler of `Exception` or 500, else Starlette's plain 500, chosen as `build_middleware_stack`
        chooses its error middleware's (the last of the two keys registered)."""
        handler = None
        for key, value in self.exception_handlers.items():
            if key in (500, Exception):
                handler = value
        if handler is None:
            return PlainTextResponse("Internal Server Error", status_code=500)
        response = handler(request, error)
        result: Response = await response if inspect.isawaitable(response) else response
        return result

    def build_middleware_stack(self) -> ASGIApp:
        added, self.user_middleware = self.user_middleware, []
        try:
            app: ASGIApp = FastDispatch(super().build_middleware_stack(), self.dispatched, on_error=self._on_error)
        finally:
            self.user_middleware = added
        for cls, args, kwargs in reversed(added):
            app = cls(app, *args, **kwargs)
        return app
