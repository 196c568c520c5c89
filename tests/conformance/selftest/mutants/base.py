"""What a mutant is: an id, its rule family, one sentence of what it breaks, and the handlers that break it."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from tests.conformance.selftest.asgi import ASGIApp, Forward, Handler, Request, Response, intercept
from tests.conformance.selftest.target import Fixtures

FAMILIES = ("webhook", "paging", "restart", "errors", "auth", "evidence")
WINDOW_SECONDS = 300  # Webhook-Timestamp: within 5 minutes of the server's time
BODY_LIMIT = 64 * 1024


@dataclass(frozen=True)
class Mutant:
    """A deliberately broken (or, for a control, harmlessly changed) reference server.

    `handlers(fixtures)` returns fresh handlers (route name -> `Handler`, see `asgi.intercept`), so any state a
    mutant keeps (tokens it issued, events it saw) is its own.
    """

    id: str
    family: str
    breaks: str
    handlers: Callable[[Fixtures], dict[str, Handler]]
    control: bool = False
    # The traceability variants it breaks ("REQUIREMENT-ID/variant", conformance/accessgov_conformance/
    # traceability.yaml); a control names the allowed variants it exercises.
    covers: tuple[str, ...] = ()

    def build(self, app: ASGIApp, fixtures: Fixtures) -> ASGIApp:
        return intercept(app, self.handlers(fixtures))


def now() -> int:
    return int(time.time())


def let_through(
    condition: Callable[[Request], bool], fix: Callable[[Request], Request] = lambda request: request
) -> Callable[[Fixtures], dict[str, Handler]]:
    """A webhook check the server skips: a request meeting `condition` is repaired by `fix` and re-signed as a
    correct sender would have, so the reference server then records it and runs the automation (a 200)."""

    def handlers(fixtures: Fixtures) -> dict[str, Handler]:
        async def handle(request: Request, forward: Forward) -> Response:
            if condition(request):
                request = fixtures.resign(fix(request))
            return await forward(request)

        return {"webhook": handle}

    return handlers


def refuse(
    route: str, condition: Callable[[Request], bool], status: int, code: str, message: str
) -> Callable[[Fixtures], dict[str, Handler]]:
    """A check the server applies where the contract has none: `condition` requests get an error."""

    def handlers(_: Fixtures) -> dict[str, Handler]:
        async def handle(request: Request, forward: Forward) -> Response:
            if condition(request):
                return Response.error(status, code, message)
            return await forward(request)

        return {route: handle}

    return handlers


def on_response(
    route: str, change: Callable[[Request, Response], Response]
) -> Callable[[Fixtures], dict[str, Handler]]:
    """A response the server gets wrong: `change` rewrites what the reference server answered."""

    def handlers(_: Fixtures) -> dict[str, Handler]:
        async def handle(request: Request, forward: Forward) -> Response:
            return change(request, await forward(request))

        return {route: handle}

    return handlers
