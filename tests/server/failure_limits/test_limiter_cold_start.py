"""The Redis-backed failure limiter counts from the first wrong credential after a start, on a loaded host, and
again after its connections were cut: connecting, the handshake and loading the scripts happen at start-up (and
in the background after an error), outside the per-check budget.

Redis sits behind a forwarder that makes every new connection slow to answer (far beyond the check's budget)
while round trips on an open connection are not; a busy process runs beside. A limiter that connected or loaded
its script inside the budget timed out on the first check and let the next failures through uncounted. Real
Redis (`TEST_REDIS_URL`, default 127.0.0.1:6379; skipped when unreachable, failed under CI=true).
"""

from __future__ import annotations

import asyncio
import secrets
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator

import pytest
import redis

from accessgov import failure_limits
from accessgov.errors import TooManyFailedAttempts
from accessgov.failure_limits import FailureLimiter
from tests.server._tcp_forwarder import Forwarder

pytestmark = pytest.mark.slow
CONNECT_DELAY_SECONDS = 1.0  # a new connection's first answer: twice the check budget below
# The per-check budget: a round trip through the forwarder (two thread hops in this process, each waiting for the
# GIL beside the loop) must fit on a loaded host; a new connection (CONNECT_DELAY_SECONDS) must not.
BUDGET_SECONDS = 0.5
LIMIT = 3


class SlowToConnect(Forwarder):
    """Forwards to Redis, holding each new connection's traffic back for `CONNECT_DELAY_SECONDS` first."""

    @staticmethod
    def _pipe(source: socket.socket, sink: socket.socket) -> None:
        threading.Event().wait(CONNECT_DELAY_SECONDS)  # the connection exists; it is just slow at first
        Forwarder._pipe(source, sink)


@pytest.fixture(autouse=True)
def patient_warm_up(monkeypatch: pytest.MonkeyPatch) -> None:
    """The warm-up (outside any budget) waits long enough for the slow connections even on a crowded machine."""
    monkeypatch.setattr(failure_limits, "WARM_UP_TIMEOUT_SECONDS", 30.0)


@pytest.fixture
def busy_host() -> Iterator[None]:
    """A CPU-bound process beside the test: the host is loaded."""
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        yield
    finally:
        spinner.kill()
        spinner.wait()


@pytest.fixture
def slow_redis(redis_url: str) -> Iterator[tuple[str, SlowToConnect]]:
    target = redis.Redis.from_url(redis_url)
    try:
        target.script_flush()  # the scripts are not loaded: the first use would have to load them
        address = target.connection_pool.connection_kwargs
        forwarder = SlowToConnect((str(address.get("host", "127.0.0.1")), int(address.get("port", 6379))))
    finally:
        target.close()
    try:
        yield f"redis://127.0.0.1:{forwarder.port}/{address.get('db', 0)}", forwarder
    finally:
        forwarder.stop()


async def outcomes(limiter: FailureLimiter, address: str, count: int) -> list[int]:
    """The status each of `count` failed authentications from `address` gets: 401 (counted or not) or 429."""
    found = []
    for _ in range(count):
        try:
            await limiter.failed(address, "client-" + address)
            found.append(401)
        except TooManyFailedAttempts:
            found.append(429)
    return found


def test_wrong_tokens_are_counted_from_the_first_after_a_start(
    slow_redis: tuple[str, SlowToConnect], busy_host: None
) -> None:
    limiter = FailureLimiter(f"{LIMIT}/minute", None, redis_url=slow_redis[0], backend_timeout=BUDGET_SECONDS)
    address = f"198.51.100.{secrets.randbelow(250) + 1}-{secrets.token_hex(4)}"  # a counter no other run shares

    async def scenario() -> list[int]:
        await limiter.start()  # what the server's start-up does, before it takes requests
        return await outcomes(limiter, address, LIMIT + 2)

    assert asyncio.run(scenario()) == [401] * LIMIT + [429, 429]


def test_counting_resumes_after_the_connections_were_cut(
    slow_redis: tuple[str, SlowToConnect], busy_host: None
) -> None:
    url, forwarder = slow_redis
    limiter = FailureLimiter(f"{LIMIT}/minute", None, redis_url=url, backend_timeout=BUDGET_SECONDS)
    address = f"203.0.113.{secrets.randbelow(250) + 1}-{secrets.token_hex(4)}"

    async def scenario() -> tuple[list[int], list[int]]:
        await limiter.start()
        before = await outcomes(limiter, address, 1)
        forwarder.cut()
        await outcomes(limiter, "192.0.2.1-" + secrets.token_hex(4), 1)  # meets the cut: a warm-up starts
        deadline = time.monotonic() + 30
        while not limiter.available and time.monotonic() < deadline:
            await asyncio.sleep(0.05)  # the background warm-up reconnects (slowly) and reloads the scripts
        assert limiter.available
        return before, await outcomes(limiter, address, LIMIT + 1)

    before, after = asyncio.run(scenario())
    assert before == [401]
    assert after == [401] * (LIMIT - 1) + [429, 429]  # the count before the cut is kept, every later one counted
