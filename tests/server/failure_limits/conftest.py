"""Redis for the failure-limit tests that share their counts through it (`TEST_REDIS_URL`, default
`redis://127.0.0.1:6379/0`): skipped when it cannot be reached, except under `CI=true`, where they fail."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.support.postgres import in_ci

DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    import redis

    url = os.environ.get("TEST_REDIS_URL") or DEFAULT_REDIS_URL
    client = redis.Redis.from_url(url, socket_connect_timeout=2, socket_timeout=2)
    try:
        client.ping()
    except redis.RedisError as error:
        message = f"Redis at {url} is unreachable: {error}"
        if in_ci():
            pytest.fail(f"{message} (CI=true: the Redis tests must not be skipped)", pytrace=False)
        pytest.skip(message)
    finally:
        client.close()
    yield url
