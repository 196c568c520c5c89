"""Failure limits shared through Redis: two `accessgov serve` processes on one database enforce one limit.

Redis is `TEST_REDIS_URL` (default `redis://127.0.0.1:6379/0`). When it cannot be reached these tests are
skipped, except under `CI=true`, where they fail (as PostgreSQL's do): CI must not go green untested.
"""

from __future__ import annotations

import secrets
import time
from pathlib import Path

import pytest

from accessgov.demo.seed import DEMO_ADMIN_TOKEN
from tests.support import loopback
from tests.support.server_process import ENTITLEMENTS, accessgov_serve

pytestmark = pytest.mark.slow


def test_two_servers_enforce_one_limit_through_redis(redis_url: str, tmp_path: Path) -> None:
    env = {
        "ACCESSGOV_REDIS_URL": redis_url,
        "ACCESSGOV_AUTH_FAILURE_LIMIT": "4/3 seconds",
        "ACCESSGOV_TRUSTED_PROXIES": "127.0.0.0/8",
        "ACCESSGOV_LIMITER_TIMEOUT_MS": "5000",  # a loaded machine must not make this test fail open
    }
    # A client /64 of its own (documentation range, random): no other run on this Redis shares its counter.
    source = {"X-Forwarded-For": f"2001:db8:{secrets.token_hex(2)}:{secrets.token_hex(2)}::1"}
    guess = {"Authorization": "Bearer guessed-token", **source}
    valid = {"Authorization": f"Bearer {DEMO_ADMIN_TOKEN}", **source}
    with (
        accessgov_serve(tmp_path, env=env) as first,
        accessgov_serve(tmp_path, env=env) as second,
        loopback.client(base_url=first.base_url) as a,
        loopback.client(base_url=second.base_url) as b,
    ):
        assert [a.get(ENTITLEMENTS, headers=guess).status_code for _ in range(2)] == [401, 401]
        assert [b.get(ENTITLEMENTS, headers=guess).status_code for _ in range(2)] == [401, 401]
        # Four failures in all, two on each server: both refuse this address's next guess now; its valid token
        # verifies first and is never refused.
        for client in (a, b):
            assert client.get(ENTITLEMENTS, headers=valid).status_code == 200
            refused = client.get(ENTITLEMENTS, headers=guess)
            assert refused.status_code == 429, refused.text
            assert refused.json()["code"] == "TOO_MANY_FAILED_ATTEMPTS"
            retry_after = int(refused.headers["retry-after"])
            assert 1 <= retry_after <= 3
        time.sleep(retry_after)
        assert a.get(ENTITLEMENTS, headers=guess).status_code == 401
        assert b.get(ENTITLEMENTS, headers=valid).status_code == 200
