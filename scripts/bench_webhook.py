"""Throughput of accepted webhook deliveries against the reference server, next to a bare endpoint.

    .venv/bin/python -m scripts.bench_webhook [--requests 2000] [--concurrency 16] [--max-seconds 30]

Three servers run in turn, each under uvicorn in its own subprocess on 127.0.0.1 with the same settings:
a bare Starlette endpoint that only reads the body (the baseline), then the reference server receiving
HMAC deliveries and JWT deliveries (RS256, the JWKS cached after the first request). Every delivery is
distinct and accepted (200): verification, the idempotency insert and the automation run all happen.
Requests are signed before the clock starts, so the numbers measure the server. Prints deliveries per
second, the ratio to the baseline, and p50/p99 latency. Numbers vary by machine: compare the ratios.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import sqlalchemy as sa
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from scripts._bench import median, percentile, uvicorn_process

DEFAULT_POSTGRES_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
BODY = b'{"orderId":"A-1001","amount":42,"items":[{"sku":"X-1","qty":2},{"sku":"Y-9","qty":1}]}'
STEPS = [
    {"name": "orderId", "expression": "ctx.trigger.orderId"},
    {"name": "amount", "expression": 'ctx.trigger["amount"] * 2'},
]


async def _baseline(request: Request) -> JSONResponse:
    body = await request.body()
    return JSONResponse({"received": len(body)})


# The baseline: routing plus reading the body, nothing else (imported by uvicorn in its subprocess).
baseline_app = Starlette(routes=[Route("/api/v1/webhooks/incoming/{listener_id}", _baseline, methods=["POST"])])


@dataclass
class Result:
    name: str
    count: int
    seconds: float
    latencies: list[float]
    statuses: dict[int, int]

    @property
    def rate(self) -> float:
        return self.count / self.seconds


def run_load(name: str, url: str, requests: Sequence[dict[str, str]], concurrency: int, max_seconds: float) -> Result:
    """POST BODY with each prepared header set (bounded thread pool, one pooled httpx client)."""
    latencies: list[float] = []
    statuses: dict[int, int] = {}
    lock = threading.Lock()
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    with httpx.Client(timeout=30, limits=limits) as client:
        deadline = time.perf_counter() + max_seconds

        def one(headers: dict[str, str]) -> None:
            if time.perf_counter() > deadline:
                return
            started = time.perf_counter()
            status = client.post(url, content=BODY, headers=headers).status_code
            elapsed = time.perf_counter() - started
            with lock:
                latencies.append(elapsed)
                statuses[status] = statuses.get(status, 0) + 1

        started = time.perf_counter()
        with ThreadPoolExecutor(max_workers=concurrency) as pool:
            list(pool.map(one, requests))
        seconds = time.perf_counter() - started
    return Result(name, len(latencies), seconds, latencies, statuses)


class _Jwks(BaseHTTPRequestHandler):
    document: bytes = b"{}"

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(self.document)))
        self.end_headers()
        self.wfile.write(self.document)

    def log_message(self, *args: Any) -> None:
        pass


def prepare(make: Callable[[str], dict[str, str]], count: int) -> list[dict[str, str]]:
    return [make(str(uuid.uuid4())) for _ in range(count)]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=2000, help="deliveries per scenario")
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--max-seconds", type=float, default=30, help="time budget per scenario")
    parser.add_argument("--warmup", type=int, default=100)
    parser.add_argument(
        "--postgres",
        nargs="?",
        const=DEFAULT_POSTGRES_URL,
        help="run the reference server on PostgreSQL (fresh schema)",
    )
    args = parser.parse_args(argv)
    with database(args.postgres) as db_url:
        return run(args, db_url)


@contextlib.contextmanager
def database(postgres: str | None) -> Iterator[str]:
    """A SQLite file in a temporary directory, or a fresh PostgreSQL schema (dropped afterwards)."""
    if not postgres:
        with tempfile.TemporaryDirectory() as tmp:
            yield f"sqlite:///{Path(tmp) / 'accessgov.db'}"
        return
    from accessgov.storage.engine import normalize_database_url

    url = normalize_database_url(postgres)
    admin = sa.create_engine(url, poolclass=sa.NullPool)
    schema = f"bench_{uuid.uuid4().hex[:12]}"
    with admin.begin() as connection:
        connection.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
    try:
        yield sa.make_url(url).update_query_dict({"options": f"-csearch_path={schema}"}).render_as_string(False)
    finally:
        with admin.begin() as connection:
            connection.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
        admin.dispose()


def run(args: argparse.Namespace, db_url: str) -> int:
    from accessgov.storage import listeners
    from accessgov.storage.engine import create_engine, migrate, session_factory
    from accessgov.webhooks import signing

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    key_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    _Jwks.document = json.dumps(signing.jwks_document([signing.public_jwk(key_pem, kid="bench-1")])).encode()
    jwks = ThreadingHTTPServer(("127.0.0.1", 0), _Jwks)
    threading.Thread(target=jwks.serve_forever, args=(0.05,), daemon=True).start()
    secret = "whsec_bench_" + uuid.uuid4().hex
    tenant = "https://bench.accessgov.example"

    engine = create_engine(db_url)
    migrate(engine)
    with session_factory(engine).begin() as session:
        listeners.create_listener(
            session,
            listener_id="wh_bench_hmac",
            auth_method="HMAC",
            hmac_secret=secret,
            automation_name="bench",
            automation_steps=STEPS,
        )
        listeners.create_listener(
            session,
            listener_id="wh_bench_jwt",
            auth_method="JWT",
            jwks_url=f"http://127.0.0.1:{jwks.server_address[1]}/jwks.json",
            automation_name="bench",
            automation_steps=STEPS,
        )
    engine.dispose()
    total = args.warmup + args.requests
    results: list[Result] = []

    with uvicorn_process("scripts.bench_webhook:baseline_app") as base:
        url = f"{base}/api/v1/webhooks/incoming/wh_bench_hmac"
        plan = prepare(lambda event_id: signing.hmac_headers(secret, BODY, event_id=event_id), total)
        run_load("warmup", url, plan[: args.warmup], args.concurrency, args.max_seconds)
        results.append(
            run_load(
                "baseline (bare Starlette, reads body)",
                url,
                plan[args.warmup :],
                args.concurrency,
                args.max_seconds,
            )
        )

    env = {"DATABASE_URL": db_url, "ACCESSGOV_TENANT_BASE_URL": tenant}
    with uvicorn_process("accessgov.app:app_from_env", env=env, factory=True) as base:
        url = f"{base}/api/v1/webhooks/incoming/wh_bench_hmac"
        plan = prepare(lambda event_id: signing.hmac_headers(secret, BODY, event_id=event_id), total)
        run_load("warmup", url, plan[: args.warmup], args.concurrency, args.max_seconds)
        results.append(run_load("reference server, HMAC", url, plan[args.warmup :], args.concurrency, args.max_seconds))

        url = f"{base}/api/v1/webhooks/incoming/wh_bench_jwt"
        plan = prepare(
            lambda event_id: signing.jwt_headers(
                key_pem, kid="bench-1", url=url, tenant_base_url=tenant, body=BODY, event_id=event_id
            ),
            total,
        )
        run_load("warmup", url, plan[: args.warmup], args.concurrency, args.max_seconds)
        results.append(
            run_load(
                "reference server, JWT RS256 (cached JWKS)",
                url,
                plan[args.warmup :],
                args.concurrency,
                args.max_seconds,
            )
        )
    jwks.shutdown()

    baseline = results[0].rate
    backend = "PostgreSQL" if args.postgres else "SQLite"
    print(
        f"{args.requests} deliveries per scenario, {args.concurrency} concurrent clients, loopback, "
        f"one uvicorn worker, {backend}"
    )
    print(f"{'scenario':46} {'req/s':>8} {'vs base':>8} {'p50 ms':>8} {'p99 ms':>8}  statuses")
    for result in results:
        p50, p99 = median(result.latencies) * 1000, percentile(result.latencies, 0.99) * 1000
        ratio = result.rate / baseline
        print(f"{result.name:46} {result.rate:8.0f} {ratio:8.2f} {p50:8.2f} {p99:8.2f}  {result.statuses}")
    accepted = all(set(r.statuses) == {200} for r in results)
    if not accepted:
        print("WARNING: some deliveries were not accepted (200); the numbers are not comparable")
    return 0 if accepted else 1


if __name__ == "__main__":
    raise SystemExit(main())
