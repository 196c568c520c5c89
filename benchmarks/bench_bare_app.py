"""The baseline of `make bench`: a Starlette endpoint that only reads the body (routing + body, nothing else).

    python -m benchmarks.bench_bare_app --host 127.0.0.1 --port 8081 --log-level warning

It is served exactly as `accessgov serve` serves the reference server: the same command-line options and
`ACCESSGOV_*` variables (`accessgov.cli.serve_options`), the same uvicorn configuration, HTTP protocol and event
loop (`accessgov.http.server.serve`), so the ratio to it isolates what the server does on top of that stack.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route


async def read_body(request: Request) -> JSONResponse:
    body = await request.body()
    return JSONResponse({"received": len(body)})


app = Starlette(routes=[Route("/{path:path}", read_body, methods=["GET", "POST"])])


def main(argv: Sequence[str]) -> None:
    from accessgov.cli import parser, serve_settings
    from accessgov.config import Settings
    from accessgov.http.server import serve

    args = parser().parse_args(["serve", *argv])
    settings = serve_settings(args, Settings.load())
    if settings.workers != 1:
        raise SystemExit("the baseline runs in one process")
    serve(app, settings, host=args.host, port=args.port, log_level=args.log_level)


if __name__ == "__main__":
    main(sys.argv[1:])
