"""The failure limiter in memory asks its storage only about keys that failed within their window; the verdicts
stay those of the `limits` storage. With Redis (shared with other workers) it always asks."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from accessgov.errors import TooManyFailedAttempts
from accessgov.failure_limits import FailureLimiter


class CountingTest:
    """Wraps the strategy's `test` to count the storage lookups."""

    def __init__(self, limiter: FailureLimiter) -> None:
        self.calls = 0
        self.inner = limiter._strategy.test
        limiter._strategy.test = self  # type: ignore[method-assign]

    async def __call__(self, *args: Any) -> bool:
        self.calls += 1
        return await self.inner(*args)


def test_a_client_that_never_failed_costs_no_lookup() -> None:
    limiter = FailureLimiter("2/minute", "3/minute")
    counting = CountingTest(limiter)
    asyncio.run(limiter.check("192.0.2.1", "client-a"))
    assert counting.calls == 0


def test_failures_are_still_limited() -> None:
    limiter = FailureLimiter("2/minute", "5/minute")

    async def scenario() -> None:
        await limiter.failed("192.0.2.1", "client-a")
        await limiter.check("192.0.2.1", "client-a")  # one failure of two allowed
        await limiter.check("192.0.2.2", "client-a")  # another address; the credential has one failure
        await limiter.failed("192.0.2.1", "client-a")
        with pytest.raises(TooManyFailedAttempts):
            await limiter.check("192.0.2.1")
        await limiter.check("192.0.2.2")

    asyncio.run(scenario())


def test_a_failure_is_forgotten_with_its_window() -> None:
    limiter = FailureLimiter("1/1 second", None)
    counting = CountingTest(limiter)

    async def scenario() -> None:
        await limiter.failed("192.0.2.1")
        with pytest.raises(TooManyFailedAttempts):
            await limiter.check("192.0.2.1")
        assert counting.calls == 1
        await asyncio.sleep(1.05)
        await limiter.check("192.0.2.1")

    asyncio.run(scenario())
    assert counting.calls == 1


def test_a_limit_of_zero_refuses_without_failures() -> None:
    limiter = FailureLimiter("0/minute", None)
    with pytest.raises(TooManyFailedAttempts):
        asyncio.run(limiter.check("192.0.2.1"))


def test_expired_keys_are_swept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("accessgov.failure_limits.PRUNE_ABOVE", 3)
    limiter = FailureLimiter("5/minute", None)
    clock = [time.time()]
    monkeypatch.setattr("accessgov.failure_limits.time.time", lambda: clock[0])

    async def scenario() -> None:
        for n in range(3):
            await limiter.failed(f"192.0.2.{n}")
        clock[0] += 120  # every window has passed
        await limiter.failed("192.0.2.9")

    asyncio.run(scenario())
    assert list(limiter._failing_until or {}) == [("address", "192.0.2.9")]


def test_shared_storage_is_always_asked() -> None:
    limiter = FailureLimiter("2/minute", None, redis_url="redis://127.0.0.1:1")  # nothing listens: fails open
    counting = CountingTest(limiter)
    asyncio.run(limiter.check("192.0.2.1"))
    assert counting.calls == 1


def test_quiet_until_a_failure_and_again_once_its_window_passed(monkeypatch: pytest.MonkeyPatch) -> None:
    """`quiet` (the request path then skips the address and the check) holds only while no check could refuse."""
    limiter = FailureLimiter("1/minute", "5/minute")
    clock = [time.time()]
    monkeypatch.setattr("accessgov.failure_limits.time.time", lambda: clock[0])
    assert limiter.quiet()

    async def scenario() -> None:
        counting = limiter._strategy.hit
        seen_while_counting = []

        async def hit(*args: Any) -> bool:
            seen_while_counting.append(limiter.quiet())
            return await counting(*args)

        limiter._strategy.hit = hit  # type: ignore[method-assign]
        await limiter.failed("192.0.2.1", "client-a")
        assert seen_while_counting and not any(seen_while_counting)
        assert not limiter.quiet()
        with pytest.raises(TooManyFailedAttempts):
            await limiter.check("192.0.2.1")
        clock[0] += 59
        assert not limiter.quiet()
        clock[0] += 2  # past the last window: no check could refuse anyone
        assert limiter.quiet()
        await limiter.check("192.0.2.1")

    asyncio.run(scenario())


@pytest.mark.parametrize(
    ("per_address", "redis_url"), [("0/minute", None), ("5/minute", "redis://127.0.0.1:1")], ids=["zero", "redis"]
)
def test_never_quiet_when_a_check_may_refuse_unseen(per_address: str, redis_url: str | None) -> None:
    """A limit of 0 refuses clients that never failed; shared counters hold other workers' failures."""
    assert not FailureLimiter(per_address, None, redis_url=redis_url).quiet()
