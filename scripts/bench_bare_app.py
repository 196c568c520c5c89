"""The baseline of `make bench`: a Starlette endpoint that only reads the body (routing + body, nothing else).

Served by `python -m uvicorn scripts.bench_bare_app:app` with the settings `accessgov serve` uses, so the
ratio to it isolates what the reference server does on top of the ASGI stack.
"""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route


async def read_body(request: Request) -> JSONResponse:
    body = await request.body()
    return JSONResponse({"received": len(body)})


app = Starlette(routes=[Route("/{path:path}", read_body, methods=["GET", "POST"])])
