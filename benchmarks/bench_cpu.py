"""`make bench-cpu`: CPU time per request of the reference server's app, in process, next to the bare endpoint.

    python -m benchmarks.bench_cpu [--targets hmac,jwt,page,restart] [--requests 4000] [--postgres] [--profile DIR]

The app is called as an ASGI application by 16 concurrent coroutines, with no HTTP server and no sockets, so the
numbers isolate what the server's own code costs and stay readable on a shared, noisy machine: process CPU
time (every thread: the event loop, database readers and writers) divided by requests, against the bare
Starlette endpoint of `make bench` measured in the same run. `--profile DIR` also writes a cProfile of the
event loop's thread per target (`DIR/<target>.prof`) and prints its top functions; py-spy under real HTTP load
is `make bench ARGS="--profile DIR"`. Automations are not run (`run_automations=False`): this measures the
request path only.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import importlib
import pstats
import resource
import time
from collections.abc import Iterator, MutableMapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from starlette.types import ASGIApp

from accessgov.app import create_app
from accessgov.config import Settings
from accessgov.demo.seed import DEMO_HMAC_SECRET, seed_demo
from accessgov.http import gc_tuning

try:
    from accessgov.storage.backends import create_engine
except ImportError:  # a revision before each backend opened its own engines (`bench_instructions --against` it)
    create_engine = importlib.import_module("accessgov.storage.engine").create_engine
from accessgov.storage.engine import migrate, session_factory
from benchmarks import bench_deliveries as deliveries
from benchmarks.bench_bare_app import app as bare_app
from benchmarks.bench_servers import DEFAULT_POSTGRES_URL, TENANT_BASE_URL, create_jwt_listener, scratch_database
from benchmarks.bench_wrk import HttpRequest

TARGETS = ("hmac", "jwt", "page", "restart")
CONCURRENCY = 16
Message = MutableMapping[str, Any]
App = ASGIApp


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def call(app: App, request: HttpRequest) -> int:
    """One request through `app` as uvicorn would present it; returns the status."""
    path, _, query = request.path.partition("?")
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": request.method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": query.encode(),
        "root_path": "",
        "headers": [(name.lower().encode(), value.encode()) for name, value in request.headers.items()],
        "client": ("127.0.0.1", 40000),
        "server": ("127.0.0.1", 8080),
    }
    body = [{"type": "http.request", "body": request.body.encode(), "more_body": False}]
    statuses: list[int] = []

    async def receive() -> dict[str, Any]:
        if body:
            return body.pop()
        await asyncio.Event().wait()  # the client stays connected until the response is sent
        raise AssertionError("unreachable")

    async def send(message: Message) -> None:
        if message["type"] == "http.response.start":
            statuses.append(message["status"])

    await app(scope, receive, send)
    return statuses[0]


@dataclass
class Result:
    target: str
    requests: int
    cpu_us: float
    wall_s: float
    statuses: dict[int, int]


async def drive(app: App, target: str, requests: Sequence[HttpRequest]) -> Result:
    pending: Iterator[HttpRequest] = iter(requests)
    statuses: dict[int, int] = {}

    async def client() -> None:
        for request in pending:
            status = await call(app, request)
            statuses[status] = statuses.get(status, 0) + 1

    started, cpu = time.perf_counter(), cpu_seconds()
    await asyncio.gather(*(client() for _ in range(CONCURRENCY)))
    used = cpu_seconds() - cpu
    return Result(target, len(requests), used / len(requests) * 1e6, time.perf_counter() - started, statuses)


@contextmanager
def profiling(directory: Path | None, target: str) -> Iterator[None]:
    if directory is None:
        yield
        return
    profile = cProfile.Profile()
    profile.enable()
    try:
        yield
    finally:
        profile.disable()
        directory.mkdir(parents=True, exist_ok=True)
        profile.dump_stats(directory / f"{target}.prof")
        print(f"\n{target}: top functions by own time (cProfile of the event loop thread: {directory}/{target}.prof)")
        pstats.Stats(profile).sort_stats("tottime").print_stats(12)


def requests_for(target: str, count: int, jwt_signer: deliveries.JwtSigner, jwt_listener: str) -> list[HttpRequest]:
    if target == "hmac":
        return deliveries.hmac_deliveries(DEMO_HMAC_SECRET, deliveries.DEMO_HMAC_LISTENER, count)
    if target == "jwt":
        return jwt_signer.deliveries(TENANT_BASE_URL, jwt_listener, count)
    if target == "page":
        return [deliveries.page_request()] * count
    restarts = deliveries.restart_requests(deliveries.open_demo_task_ids())
    return [restarts[index % len(restarts)] for index in range(count)]


async def run(args: argparse.Namespace, url: str) -> list[Result]:
    engine = create_engine(url)
    migrate(engine)
    with session_factory(engine).begin() as session:
        seed_demo(session)
    engine.dispose()
    signer = deliveries.JwtSigner(TENANT_BASE_URL)
    # The environment's key setting, as the seeding above sealed under it (Settings() alone would read none).
    config = Settings.load(database_url=url, tenant_base_url=TENANT_BASE_URL, run_automations=False)
    with deliveries.jwks_server(signer.jwks()) as jwks_url:
        jwt_listener = create_jwt_listener(url, jwks_url, deliveries.STEPS) if "jwt" in args.targets else ""
        app = create_app(config)
        results = []
        async with app.router.lifespan_context(app):
            for target in args.targets:
                await drive(app, target, requests_for(target, 300, signer, jwt_listener))  # warm-up
                await drive(bare_app, "bare", requests_for("hmac", 300, signer, jwt_listener))
                bare = await drive(bare_app, "bare", requests_for("hmac", args.requests, signer, jwt_listener))
                batch = requests_for(target, args.requests, signer, jwt_listener)
                with profiling(args.profile, target):
                    measured = await drive(app, target, batch)
                results += [bare, measured]
    return results


def report(results: list[Result], backend: str) -> None:
    print(f"\n== CPU per request, in process ({backend}; {CONCURRENCY} concurrent callers, no HTTP server) ==")
    print(f"{'target':10} {'requests':>9} {'cpu us/req':>11} {'x bare':>8}  statuses")
    for bare, measured in zip(results[::2], results[1::2], strict=True):
        for result in (bare, measured):
            ratio = bare.cpu_us / result.cpu_us
            statuses = " ".join(f"{status}:{count}" for status, count in sorted(result.statuses.items()))
            print(f"{result.target:10} {result.requests:>9} {result.cpu_us:>11.1f} {ratio:>8.2f}  {statuses}")
    print("x bare: the bare endpoint's CPU per request over the target's (1.00 = as cheap as reading the body)")


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--targets", default=",".join(TARGETS), help="comma-separated subset of " + ",".join(TARGETS))
    parser.add_argument("--requests", type=int, default=4000, help="requests per target")
    parser.add_argument("--postgres", action="store_true", help="a scratch PostgreSQL database instead of SQLite")
    parser.add_argument("--postgres-url", default=DEFAULT_POSTGRES_URL)
    parser.add_argument("--profile", type=Path, metavar="DIR", help="cProfile each target into DIR")
    args = parser.parse_args(argv)
    args.targets = [target for target in args.targets.split(",") if target]
    unknown = set(args.targets) - set(TARGETS)
    if unknown:
        parser.error(f"unknown targets: {sorted(unknown)}")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    backend = "postgres" if args.postgres else "sqlite"
    thresholds = gc.get_threshold()
    # as `accessgov serve` sets it (the bare endpoint too)
    gc_tuning.set_young_threshold(gc_tuning.DEFAULT_YOUNG_THRESHOLD)
    try:
        with scratch_database(backend, args.postgres_url) as url:
            results = asyncio.run(run(args, url))
    finally:  # a process-wide setting: leave a caller's (the smoke test's) as it was
        gc.unfreeze()
        gc.set_threshold(*thresholds)
    report(results, backend)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
