"""Code run in child processes by the multi-process tests (spawned children import it by name)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from accessgov.storage.backends import create_engine
from accessgov.storage.engine import session_factory
from tests.support import deliveries


def deliver(
    url: str, listener_id: str, event_id: str, now: datetime, attempts: int, barrier: Any, results: Any
) -> None:
    """Deliver one event `attempts` times from this process, all processes starting together.

    `results` (a queue) gets this process's outcomes.
    """
    engine = create_engine(url)
    sessions = session_factory(engine)

    outcomes: list[bool] = []
    try:
        barrier.wait(timeout=60)
        for _ in range(attempts):
            with sessions.begin() as session:
                result = deliveries.record_delivery(
                    session, listener_id=listener_id, event_id=event_id, payload={"n": 1}, now=now
                )
            outcomes.append(result.accepted)
    finally:
        engine.dispose()
        results.put(outcomes)
