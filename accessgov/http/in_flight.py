"""How many requests the process is serving right now: background work yields to requests."""

from __future__ import annotations


class InFlight:
    """A counter of requests between routing and response (one event loop, so no lock)."""

    def __init__(self) -> None:
        self.count = 0

    def busy(self) -> bool:
        return self.count > 0
