"""Say, before pytest starts, whether the services of a test run answer: PostgreSQL and Redis (`make test`), or the
ones named (`python -m tests.support.check_services postgres redis`: what `make test-server` needs).

Under CI=true a missing service is an error (exit 1): CI must not go green with those tests skipped. Elsewhere it is
a warning naming the tests that will skip, and how to start the service.
"""

from __future__ import annotations

import os
import sys

import psycopg
import redis

from accessgov.storage.engine import normalize_database_url

POSTGRES_URL = "postgresql://postgres@127.0.0.1:5432/test"  # tests/support/postgres.py's default
REDIS_URL = "redis://127.0.0.1:6379/0"  # tests/server/failure_limits/conftest.py's default
TIMEOUT_SECONDS = 3

HOW_TO_START = {
    "PostgreSQL": "docker run -d -p 127.0.0.1:5432:5432 -e POSTGRES_DB=test -e POSTGRES_HOST_AUTH_METHOD=trust "
    "postgres:15  (or TEST_POSTGRES_URL=... for another server)",
    "Redis": "docker run -d -p 127.0.0.1:6379:6379 redis:7  (or TEST_REDIS_URL=... for another server)",
}
SKIPPED_WITHOUT = {
    "PostgreSQL": "the PostgreSQL half of the storage, webhook and no-5xx tests",
    "Redis": "the shared failure-limit tests (tests/server/failure_limits/)",
}


def _libpq_url(url: str) -> str:
    """A SQLAlchemy URL (`postgresql+psycopg://`) as psycopg takes it."""
    return normalize_database_url(url).replace("postgresql+psycopg://", "postgresql://", 1)


def postgres_problem(url: str) -> str | None:
    try:
        with psycopg.connect(_libpq_url(url), connect_timeout=TIMEOUT_SECONDS) as connection:
            connection.execute("SELECT 1")
    except psycopg.Error as error:
        return str(error).strip().splitlines()[0]
    return None


def redis_problem(url: str) -> str | None:
    client = redis.Redis.from_url(url, socket_connect_timeout=TIMEOUT_SECONDS, socket_timeout=TIMEOUT_SECONDS)
    try:
        client.ping()
    except redis.RedisError as error:
        return str(error).strip().splitlines()[0]
    finally:
        client.close()
    return None


NAMES = {"postgres": "PostgreSQL", "redis": "Redis"}


def main(argv: list[str] | None = None) -> int:
    names = sys.argv[1:] if argv is None else argv
    unknown = sorted(set(names) - set(NAMES))
    if unknown:
        print(f"check_services: unknown service(s) {', '.join(unknown)}; known: {', '.join(NAMES)}", file=sys.stderr)
        return 2
    wanted = {NAMES[name] for name in names or NAMES}
    in_ci = os.environ.get("CI", "").strip().lower() in {"true", "1", "yes"}
    postgres_url = os.environ.get("TEST_POSTGRES_URL") or POSTGRES_URL
    redis_url = os.environ.get("TEST_REDIS_URL") or REDIS_URL
    checks = {"PostgreSQL": (postgres_url, postgres_problem), "Redis": (redis_url, redis_problem)}
    problems = {name: (url, check(url)) for name, (url, check) in checks.items() if name in wanted}
    missing = {name: found for name, found in problems.items() if found[1] is not None}
    for name, (url, _) in problems.items():
        if name not in missing:
            print(f"services: {name} answers at {url}")
    for name, (url, problem) in missing.items():
        verdict = "error" if in_ci else "warning"
        print(f"services: {verdict}: {name} does not answer at {url}: {problem}", file=sys.stderr)
        print(f"  without it: {SKIPPED_WITHOUT[name]} {'fail (CI=true)' if in_ci else 'skip'}", file=sys.stderr)
        print(f"  start it:   {HOW_TO_START[name]}", file=sys.stderr)
    return 1 if missing and in_ci else 0


if __name__ == "__main__":
    sys.exit(main())
