"""The server purges event records older than 7 days (the idempotency window) when it starts, then hourly."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from accessgov.app import create_app
from accessgov.config import Settings
from accessgov.demo.seed import DEMO_HMAC_LISTENER_ID
from tests.support import deliveries
from tests.support.harness import seeded_database, serve

NOW = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)


@pytest.mark.slow
def test_old_event_records_are_purged_at_startup(tmp_path: Path) -> None:
    with seeded_database(tmp_path) as (url, sessions):

        def deliver(event_id: str, at: datetime) -> None:
            with sessions.begin() as session:
                deliveries.record_delivery(
                    session, listener_id=DEMO_HMAC_LISTENER_ID, event_id=event_id, payload={}, now=at
                )

        deliver("old", NOW - timedelta(days=8))
        deliver("recent", NOW - timedelta(days=6))
        with serve(create_app(Settings.load(database_url=url), clock=NOW.timestamp)):
            pass
        with sessions() as session:
            assert not deliveries.event_seen(session, DEMO_HMAC_LISTENER_ID, "old")
            assert deliveries.event_seen(session, DEMO_HMAC_LISTENER_ID, "recent")
