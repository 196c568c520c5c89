"""The failure limiter on its own: an address past its limit is refused, a credential past its limit only alerts
(once), IPv6 addresses count by prefix, and a backend that hangs is waited for at most its timeout, then left
alone for a while (failing open or closed as configured), said once in the log."""

from __future__ import annotations

import asyncio
import logging
from ipaddress import ip_address
from typing import Any

import pytest

from accessgov.errors import TooManyFailedAttempts
from accessgov.failure_limits import FailureLimiter, address_key


def test_an_address_past_its_limit_is_refused_and_others_are_not() -> None:
    limiter = FailureLimiter("2/minute", None)

    async def scenario() -> None:
        await limiter.failed("192.0.2.1", "client-a")
        await limiter.failed("192.0.2.1", "client-a")
        with pytest.raises(TooManyFailedAttempts) as refused:
            await limiter.failed("192.0.2.1", "client-a")
        assert 1 <= refused.value.retry_after <= 60
        await limiter.failed("192.0.2.2", "client-a")  # another address: its own count

    asyncio.run(scenario())


def test_a_credential_past_its_limit_is_reported_once_never_refused(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="accessgov.failure_limits")
    limiter = FailureLimiter(None, "2/minute")

    async def scenario() -> None:
        for n in range(10):
            await limiter.failed(f"192.0.2.{n}", "listener:wh_x")

    asyncio.run(scenario())
    alerts = [record.getMessage() for record in caplog.records]
    assert len(alerts) == 1 and "listener:wh_x" in alerts[0]


def test_ipv6_addresses_count_by_prefix() -> None:
    assert address_key(ip_address("2001:db8:1:2:aaaa::1")) == "2001:db8:1:2::/64"
    assert address_key(ip_address("2001:db8:1:2:ffff::9")) == "2001:db8:1:2::/64"
    assert address_key(ip_address("2001:db8:1:2::1"), 48) == "2001:db8:1::/48"
    assert address_key(ip_address("2001:db8::1"), 128) == "2001:db8::1"
    assert address_key(ip_address("192.0.2.7")) == "192.0.2.7"
    assert address_key(None) == "unknown"
    with pytest.raises(ValueError):
        FailureLimiter(ipv6_prefix=129)


class HangingStrategy:
    """A backend that never answers; counts the calls that reached it."""

    def __init__(self) -> None:
        self.calls = 0

    async def hit(self, *args: Any) -> bool:
        self.calls += 1
        await asyncio.Event().wait()
        return True


@pytest.mark.parametrize("mode", ["open", "closed"])
def test_a_hanging_backend_is_given_up_on_and_said_once(mode: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="accessgov.failure_limits")
    limiter = FailureLimiter("1/minute", "1/minute", redis_url="redis://127.0.0.1:1", failure_mode=mode)
    hanging = HangingStrategy()
    limiter._strategy = hanging  # type: ignore[assignment]

    async def scenario() -> list[bool]:
        refused = []
        for _ in range(20):
            try:
                await limiter.failed("192.0.2.1", "client-a")
                refused.append(False)
            except TooManyFailedAttempts:
                refused.append(True)
        return refused

    refused = asyncio.run(scenario())
    assert refused == [mode == "closed"] * 20
    assert hanging.calls == 2  # the first failure's two counters; then left alone for the retry period
    assert len(caplog.records) == 1 and "unavailable" in caplog.records[0].getMessage()
