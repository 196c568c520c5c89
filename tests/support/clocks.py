"""Clocks a test controls: injected where the server takes a `clock`."""

from __future__ import annotations

import time


class FakeClock:
    """A monotonic clock (e.g. for `JwksCache`) that only moves when told to."""

    def __init__(self, start: float = 10_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class ServerClock:
    """Wall time, unless frozen at a given Unix time (the server's `clock` override)."""

    def __init__(self) -> None:
        self.frozen: float | None = None

    def __call__(self) -> float:
        return time.time() if self.frozen is None else self.frozen
