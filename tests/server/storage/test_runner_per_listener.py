"""The runner degrades per listener: it unseals no secret (a listener whose key is missing runs its automation like
any other), and a listener whose automation cannot be loaded fails its own runs, with the reason and one log
line, while the other runs of the same batch finish in that round (SQLite, PostgreSQL)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from datetime import timedelta

import pytest
import sqlalchemy as sa
from sqlalchemy.orm import Session, sessionmaker

from accessgov.automation_runner import AutomationRunner
from accessgov.errors import ErrorCode, ServiceUnavailable
from accessgov.keys import Keyring, seal
from accessgov.storage.backends import open_url
from accessgov.storage.caches import AutomationCache
from accessgov.storage.schema import AutomationRun, Listener
from accessgov.storage.sealing import listener_ad
from tests.server.storage.conftest import NOW, MakeListener
from tests.support import deliveries


def deliver(sessions: sessionmaker[Session], listener_id: str) -> str:
    with sessions.begin() as session:
        result = deliveries.record_delivery(
            session, listener_id=listener_id, event_id=str(uuid.uuid4()), payload={"n": 1}, now=NOW
        )
    assert result.run_id is not None
    return result.run_id


def outcomes(sessions: sessionmaker[Session]) -> dict[str, tuple[str, str | None]]:
    with sessions() as session:
        return {run.id: (run.status, run.reason) for run in session.scalars(sa.select(AutomationRun))}


def test_one_listeners_trouble_fails_its_runs_only(
    db_url: str,
    sessions: sessionmaker[Session],
    make_listener: MakeListener,
    caplog: pytest.LogCaptureFixture,
) -> None:
    healthy, keyless, broken = make_listener(), make_listener(), make_listener()
    with sessions.begin() as session:
        # `keyless`'s secret is sealed under a key that is in no key source (a key file lost or pruned too early) ...
        elsewhere = seal(Keyring.generate(), "whsec_" + "z" * 32, listener_ad(keyless.id))
        session.execute(sa.update(Listener).where(Listener.id == keyless.id).values(hmac_secret_sealed=elsewhere))
        # ... and `broken`'s stored steps are not step objects (a row written by hand, a bad migration).
        session.execute(sa.update(Listener).where(Listener.id == broken.id).values(automation_steps=[1, 2]))
    runs = {name: [deliver(sessions, listener.id) for _ in range(2)] for name, listener in
            (("healthy", healthy), ("keyless", keyless), ("broken", broken))}  # fmt: skip

    caplog.set_level(logging.WARNING, logger="accessgov.automation_runner")
    db = open_url(db_url)

    async def rounds() -> list[int]:
        runner = AutomationRunner(db, AutomationCache(db), clock=(NOW + timedelta(seconds=1)).timestamp)
        claimed = [await runner.run_once()]
        runs["broken"].append(deliver(sessions, broken.id))  # the next round meets the same listener again
        claimed.append(await runner.run_once())
        return claimed

    try:
        assert asyncio.run(rounds()) == [6, 1]  # one round finished the whole batch: nothing left for a lease
    finally:
        db.close()

    found = outcomes(sessions)
    for run_id in runs["healthy"] + runs["keyless"]:
        assert found[run_id] == ("SUCCEEDED", None)  # the runner needs no secret, and opened none
    for run_id in runs["broken"]:
        status, reason = found[run_id]
        assert status == "FAILED"
        assert reason == "the listener's automation cannot be loaded (TypeError)"
    warnings = [record for record in caplog.records if record.name == "accessgov.automation_runner"]
    assert len(warnings) == 1, [record.getMessage() for record in warnings]  # one line for three runs, two rounds
    assert broken.id in warnings[0].getMessage() and warnings[0].exc_info is None  # no traceback


def test_a_database_outage_is_one_log_line_not_a_traceback_per_round(caplog: pytest.LogCaptureFixture) -> None:
    """The database away for several rounds: one warning when it goes, one when it answers, no traceback."""

    class AwayThenBack:
        def __init__(self) -> None:
            self.rounds = 0
            self.done = asyncio.Event()

        async def write(self, unit: object) -> list[object]:
            self.rounds += 1
            if self.rounds == 6:
                self.done.set()
            if self.rounds <= 4:
                raise ServiceUnavailable(ErrorCode.SERVICE_UNAVAILABLE, "the database is unavailable; retry later")
            return []  # nothing to claim

    caplog.set_level(logging.WARNING, logger="accessgov.automation_runner")
    db = AwayThenBack()

    async def scenario() -> None:
        runner = AutomationRunner(db, None, poll_seconds=0)  # type: ignore[arg-type]  # claims nothing: no listener read
        task = asyncio.create_task(runner.run_forever())
        await db.done.wait()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    asyncio.run(scenario())
    messages = [record.getMessage() for record in caplog.records if record.name == "accessgov.automation_runner"]
    assert messages == [
        "automation runner waits for the database: the database is unavailable; retry later",
        "automation runner: the database answers again",
    ]
    assert all(record.exc_info is None for record in caplog.records)
