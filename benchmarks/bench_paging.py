"""Keyset paging stays flat with depth: page 1 vs page 10,000 of an app with 1,000,000 entitlements.

    .venv/bin/python -m benchmarks.bench_paging [--quick] [--postgres [URL]] [--repeat 50]

Seeds one app with 1,000,000 entitlements (100,000 with `--quick`) in a SQLite file in a temporary
directory (or a fresh schema of PostgreSQL with `--postgres`, dropped afterwards), starts the reference
server under uvicorn in a subprocess on 127.0.0.1, and times `GET /api/v1/apps/{app}/entitlements` with
page_size 100: the first page, and page 10,000, which starts at position 999,901 (with --quick, page 1,000,
at position 99,901). Walking 10,000 pages would take minutes, so the
deep page's token is encoded directly with the server's `PageTokenCodec` and secret for the id at
position 999,900 — the same token the server would have issued on page 9,999. Requests alternate between
the two pages; prints the medians and their ratio (the goal is <= 1.5).
"""

from __future__ import annotations

import argparse
import secrets
import statistics
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import httpx
import sqlalchemy as sa

from benchmarks._bench import percentile, uvicorn_process

APP_ID = "app-bench"
PAGE_SIZE = 100
TOKEN = "bench-admin-token"
DEFAULT_POSTGRES_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


def documents(count: int) -> Iterator[dict[str, Any]]:
    from accessgov.demo.tenant import entitlement

    for n in range(1, count + 1):
        yield entitlement(APP_ID, n)  # ids ent-0000001 ... in id order


def seed(db_url: str, count: int) -> float:
    from accessgov.storage import credentials, directory, entitlements
    from accessgov.storage.backends import create_engine
    from accessgov.storage.engine import migrate, session_factory

    engine = create_engine(db_url)
    migrate(engine)
    started = time.perf_counter()
    with session_factory(engine).begin() as session:
        directory.put_documents(session, "app", [{"id": APP_ID, "displayName": "Bench app"}])
        credentials.add_api_token(session, TOKEN, "bench", ["admin"])
        entitlements.insert_entitlements(session, APP_ID, documents(count))
    seconds = time.perf_counter() - started
    if engine.dialect.name == "sqlite":
        with engine.connect() as connection:
            connection.exec_driver_sql("ANALYZE")
    else:
        with engine.connect() as connection:
            connection.exec_driver_sql("ANALYZE app_entitlements")
            connection.commit()
    engine.dispose()
    return seconds


def time_pages(base: str, deep_token: str, deep_first_id: str, repeat: int) -> tuple[list[float], list[float]]:
    url = f"{base}/api/v1/apps/{APP_ID}/entitlements"
    first: list[float] = []
    deep: list[float] = []
    with httpx.Client(headers={"Authorization": f"Bearer {TOKEN}"}, timeout=60) as client:
        check = client.get(url, params={"page_size": PAGE_SIZE, "page_token": deep_token})
        check.raise_for_status()
        items = check.json()["list"]
        assert items[0]["appEntitlement"]["id"] == deep_first_id, items[0]
        assert len(items) == PAGE_SIZE
        for _ in range(5):  # warm up both paths (connections, caches)
            client.get(url, params={"page_size": PAGE_SIZE}).raise_for_status()
            client.get(url, params={"page_size": PAGE_SIZE, "page_token": deep_token}).raise_for_status()
        for _ in range(repeat):
            cases: tuple[tuple[dict[str, str | int], list[float]], ...] = (
                ({"page_size": PAGE_SIZE}, first),
                ({"page_size": PAGE_SIZE, "page_token": deep_token}, deep),
            )
            for params, samples in cases:
                started = time.perf_counter()
                response = client.get(url, params=params)
                samples.append(time.perf_counter() - started)
                response.raise_for_status()
    return first, deep


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="100,000 entitlements instead of 1,000,000")
    parser.add_argument(
        "--postgres", nargs="?", const=DEFAULT_POSTGRES_URL, help="PostgreSQL URL (a fresh schema is used)"
    )
    parser.add_argument("--repeat", type=int, default=50)
    args = parser.parse_args(argv)

    from accessgov.paging import PageTokenCodec
    from accessgov.storage.engine import normalize_database_url

    count = 100_000 if args.quick else 1_000_000
    deep_page = count // PAGE_SIZE  # the last page: 10,000 (1,000 with --quick)
    deep_position = (deep_page - 1) * PAGE_SIZE  # the last id of the previous page: 999,900
    deep_cursor = f"ent-{deep_position:07d}"
    secret = secrets.token_urlsafe(32)  # the server encodes ACCESSGOV_PAGE_TOKEN_SECRET as UTF-8
    codec = PageTokenCodec(secret.encode())
    deep_token = codec.encode(f"apps/{APP_ID}/entitlements", [deep_cursor])

    with tempfile.TemporaryDirectory() as tmp:
        admin = schema = None
        if args.postgres:
            base_url = normalize_database_url(args.postgres)
            admin = sa.create_engine(base_url, poolclass=sa.NullPool)
            schema = f"bench_{secrets.token_hex(6)}"
            with admin.begin() as connection:
                connection.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
            schema_url = sa.make_url(base_url).update_query_dict({"options": f"-csearch_path={schema}"})
            db_url = schema_url.render_as_string(hide_password=False)
        else:
            db_url = f"sqlite:///{Path(tmp) / 'accessgov.db'}"
        try:
            seconds = seed(db_url, count)
            backend = "PostgreSQL" if args.postgres else "SQLite"
            print(f"seeded {count:,} entitlements into {backend} in {seconds:.1f} s")
            env = {"DATABASE_URL": db_url, "ACCESSGOV_PAGE_TOKEN_SECRET": secret}
            with uvicorn_process("accessgov.app:app_from_env", env=env, factory=True) as base:
                first, deep = time_pages(base, deep_token, f"ent-{deep_position + 1:07d}", args.repeat)
        finally:
            if admin is not None:
                with admin.begin() as connection:
                    connection.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
                admin.dispose()

    first_median, deep_median = statistics.median(first), statistics.median(deep)
    print(f"page_size {PAGE_SIZE}, {args.repeat} requests each, alternating, through HTTP on loopback")
    print(f"page 1        median {first_median * 1000:7.2f} ms   p90 {percentile(first, 0.9) * 1000:7.2f} ms")
    print(
        f"page {deep_page:<7,}  median {deep_median * 1000:7.2f} ms   p90 {percentile(deep, 0.9) * 1000:7.2f} ms"
        f"   (starts at position {deep_position + 1:,})"
    )
    ratio = deep_median / first_median
    print(f"ratio deep/first: {ratio:.2f} (goal <= 1.5): {'OK' if ratio <= 1.5 else 'ABOVE GOAL'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
