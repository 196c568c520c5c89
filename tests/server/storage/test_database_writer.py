"""The writer path of `storage.database`: units queued together commit together; batch steps see every item of
their batch at once, each caller gets its own result or error, and one broken item never loses the others. On
SQLite the writer runs on the event loop: it never blocks the loop (a lock held elsewhere, the WAL's fsync), and
answers only once the commit is on disk."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import threading
import time
from collections.abc import Awaitable, Iterator
from pathlib import Path
from typing import Any

import pytest
from prometheus_client import REGISTRY
from sqlalchemy import bindparam, event, insert
from sqlalchemy.engine import Dialect
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session

from accessgov.config import Settings
from accessgov.errors import ErrorCode, InvalidRequest, ServiceUnavailable
from accessgov.storage import sqlite as sqlite_module
from accessgov.storage.backends import open_database, open_url
from accessgov.storage.database import Database
from accessgov.storage.prepared import PreparedQuery
from accessgov.storage.schema import Setting
from accessgov.storage.statement_steps import Steps, write


@pytest.fixture
def db(db_url: str) -> Iterator[Database]:
    database = open_url(db_url, writers=1)
    yield database
    database.close()


@pytest.fixture
def sqlite_db(tmp_path: Path) -> Iterator[Database]:
    database = open_url(f"sqlite:///{tmp_path / 'writer.db'}")
    yield database
    database.close()


class Recorder:
    """Batch steps storing one setting per item; `poison` items break the whole batch."""

    def __init__(self, poison: set[str] = frozenset(), refuse: set[str] = frozenset()) -> None:
        self.calls: list[list[str]] = []
        self.poison, self.refuse = poison, refuse

    def __call__(self, dialect: Dialect, items: list[str]) -> Steps[list[Any]]:
        self.calls.append(list(items))
        if self.poison & set(items):
            raise RuntimeError("a broken item")
        insert_setting = PreparedQuery(insert(Setting).values(key=bindparam("key"), value=bindparam("value")), dialect)
        results: list[Any] = []
        for item in items:
            if item in self.refuse:
                results.append(InvalidRequest(ErrorCode.INVALID_ARGUMENT, f"{item} refused"))
                continue
            yield write(insert_setting, key=item, value=item.upper())
            results.append(f"stored {item}")
        return results


async def queue_in_one_turn(db: Database, recorder: Recorder, items: list[str]) -> list[Any]:
    """Queue every item in one turn of the loop, before the writer (SQLite's loop writer, PostgreSQL's one loop
    connection) looks at its queue, so they meet in one batch."""
    calls = [asyncio.ensure_future(db.write_steps(recorder, item)) for item in items]
    return await asyncio.gather(*calls, return_exceptions=True)


def _count(sample: str) -> float:
    return REGISTRY.get_sample_value(sample) or 0.0


def stored(db: Database) -> dict[str, str]:
    """The items committed, read on a fresh connection (what another process would see)."""
    with db.sessions() as session:
        return {row.key: row.value for row in session.query(Setting).filter(Setting.key.like("item-%"))}


def test_batched_items_reach_the_unit_together_in_queue_order(db: Database) -> None:
    recorder = Recorder()
    items = [f"item-{n:02d}" for n in range(20)]
    results = asyncio.run(queue_in_one_turn(db, recorder, items))
    assert results == [f"stored {item}" for item in items]
    assert recorder.calls == [items]  # one call, in order
    assert stored(db) == {item: item.upper() for item in items}


def test_sqlite_a_batch_waits_while_it_grows_over_loop_turns(sqlite_db: Database) -> None:
    """Units submitted on successive turns of the loop (requests read one socket at a time) share a commit; one
    turn without a new unit, or the growth limit, ends the wait."""
    recorder = Recorder()

    async def arriving(turns: int) -> None:
        calls = []
        for turn in range(turns):
            calls.append(asyncio.ensure_future(sqlite_db.write_steps(recorder, f"item-{turns}-{turn}")))
            await asyncio.sleep(0)  # one turn of the loop per unit
        await asyncio.gather(*calls)

    limit = sqlite_module.MAX_GROWING_TURNS
    asyncio.run(arriving(3))
    assert recorder.calls == [[f"item-3-{turn}" for turn in range(3)]]
    recorder.calls.clear()
    asyncio.run(arriving(limit + 3))  # still growing after the limit: committed then, the rest next
    assert [len(call) for call in recorder.calls] == [limit + 1, 2]
    assert len(stored(sqlite_db)) == 3 + limit + 3


def test_an_item_refused_with_an_api_error_fails_alone(db: Database) -> None:
    recorder = Recorder(refuse={"item-03"})
    items = [f"item-{n:02d}" for n in range(6)]
    results = asyncio.run(queue_in_one_turn(db, recorder, items))
    assert isinstance(results[3], InvalidRequest)
    assert [r for i, r in enumerate(results) if i != 3] == [f"stored {item}" for item in items if item != "item-03"]
    assert len(recorder.calls) == 1
    assert set(stored(db)) == set(items) - {"item-03"}


def test_a_broken_batch_is_retried_item_by_item(db: Database) -> None:
    recorder = Recorder(poison={"item-02"})
    items = [f"item-{n:02d}" for n in range(5)]
    results = asyncio.run(queue_in_one_turn(db, recorder, items))
    assert isinstance(results[2], RuntimeError)
    assert [r for i, r in enumerate(results) if i != 2] == [f"stored {item}" for item in items if item != "item-02"]
    assert recorder.calls[0] == items and sorted(recorder.calls[1:]) == [[item] for item in items]
    assert set(stored(db)) == set(items) - {"item-02"}


def store(key: str) -> Any:
    def unit(session: Session) -> str:
        session.add(Setting(key=key, value=key.upper()))
        return key

    return unit


def synced_file(descriptor: int) -> Path:
    """The file an open descriptor refers to: other servers of the test session fsync their own WALs meanwhile,
    so a patched `os.fdatasync` tells this test's files from theirs."""
    return Path(os.readlink(f"/proc/self/fd/{descriptor}"))


def test_sqlite_answers_a_write_only_after_the_wal_reached_the_disk(
    sqlite_db: Database, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The commit happens on the loop; the fdatasync on a thread; the caller hears of it after the latter."""
    syncing, release = threading.Event(), threading.Event()
    synced: list[int] = []
    real_fdatasync = os.fdatasync

    def slow_fdatasync(descriptor: int) -> None:
        if not synced_file(descriptor).is_relative_to(tmp_path):
            real_fdatasync(descriptor)
            return
        syncing.set()
        release.wait(10)
        real_fdatasync(descriptor)
        synced.append(descriptor)

    monkeypatch.setattr(sqlite_module.os, "fdatasync", slow_fdatasync)
    count, total = "accessgov_sqlite_wal_sync_duration_seconds_count", "accessgov_sqlite_wal_sync_duration_seconds_sum"
    count_before, total_before = _count(count), _count(total)

    async def scenario() -> None:
        write = asyncio.ensure_future(sqlite_db.write(store("item-durable")))
        await asyncio.to_thread(syncing.wait, 10)
        assert syncing.is_set()
        # Committed (a reader sees it) but not yet answered: the loop goes on serving meanwhile.
        seen = await sqlite_db.read(lambda session: session.get(Setting, "item-durable"))
        assert seen is not None and not write.done()
        await asyncio.sleep(0.1)  # a slow disk
        release.set()
        assert await write == "item-durable"
        assert len(synced) == 1

    asyncio.run(scenario())
    # The slow sync is in the sync-duration histogram (observed just after the callers were answered). The
    # histogram is the process's: other servers of the test session may add quick syncs of their own meanwhile,
    # so it is the slow one's 0.1 s in the sum that tells this sync was observed.
    deadline = time.monotonic() + 5
    while _count(total) - total_before < 0.1 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert _count(count) >= count_before + 1
    assert _count(total) - total_before >= 0.1


def test_sqlite_syncs_at_once_after_a_quiet_spell_and_shares_one_sync_under_load(sqlite_db: Database) -> None:
    """The first commit is synced without delay; commits arriving within the minimum interval after a sync, in
    separate turns of the loop (separate group commits), wait for and share one fdatasync."""
    journal: list[str] = []
    real_sleep = time.sleep
    wal_sync = sqlite_db._writer.wal_sync  # type: ignore[union-attr]
    assert wal_sync is not None
    real_sync = wal_sync._sync
    # This instance's syncs only: other servers of the test session may be fsyncing their own WALs meanwhile.
    wal_sync._sync = lambda: (journal.append("sync"), real_sync())  # type: ignore[method-assign]
    wal_sync.min_interval = 60.0  # every later sync would wait: the stand-in sleep below shortens the wait
    wal_sync.sleep = lambda seconds: (journal.append("wait"), real_sleep(1.0))

    async def scenario() -> list[str]:
        assert await sqlite_db.write(store("item-first")) == "item-first"
        assert journal == ["sync"]
        writes = []
        for name in ("item-a", "item-b", "item-c", "item-d"):
            writes.append(asyncio.ensure_future(sqlite_db.write(store(name))))
            await asyncio.sleep(0.02)  # each in its own turn of the loop: four group commits
        return await asyncio.gather(*writes)

    assert asyncio.run(scenario()) == ["item-a", "item-b", "item-c", "item-d"]
    assert journal == ["sync", "wait", "sync"]
    assert set(stored(sqlite_db)) == {"item-first", "item-a", "item-b", "item-c", "item-d"}


def test_sqlite_without_fsync_when_the_operator_chose_normal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[Path] = []
    real_fdatasync = os.fdatasync

    def recording_fdatasync(descriptor: int) -> None:
        calls.append(synced_file(descriptor))
        real_fdatasync(descriptor)

    monkeypatch.setattr(sqlite_module.os, "fdatasync", recording_fdatasync)
    db = open_database(Settings(database_url=f"sqlite:///{tmp_path / 'normal.db'}", sqlite_synchronous="NORMAL"))
    try:
        assert asyncio.run(db.write(store("item-normal"))) == "item-normal"
        ours = [path for path in calls if path.is_relative_to(tmp_path)]
        assert ours == [] and stored(db) == {"item-normal": "ITEM-NORMAL"}
    finally:
        db.close()


def write_one(db: Database, key: str, kind: str) -> Awaitable[Any]:
    """One write of `key`: a unit on a Session (`write`), or batch steps on the DBAPI connection, whose batches
    take the writer's Session-free transaction (`write_steps`)."""
    if kind == "unit":
        return db.write(store(key))

    async def batched() -> str:
        result = await db.write_steps(Recorder(), key)
        return str(result).removeprefix("stored ")

    return batched()


@pytest.mark.parametrize("kind", ["unit", "batch steps"])
def test_sqlite_waits_for_a_lock_held_elsewhere_without_blocking_the_loop(sqlite_db: Database, kind: str) -> None:
    """Another process's write transaction: the batch is retried, reads and timers go on, then it commits."""
    other = sqlite3.connect(sqlite_db.write_engine.url.database, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")

    async def scenario() -> None:
        write = asyncio.ensure_future(write_one(sqlite_db, "item-after-lock", kind))
        started = time.monotonic()
        for _ in range(5):  # the loop keeps turning: each sleep returns on time, reads answer
            await asyncio.sleep(0.02)
            assert await sqlite_db.read(lambda session: session.get(Setting, "item-after-lock")) is None
        assert time.monotonic() - started < 1.0 and not write.done()
        other.execute("COMMIT")
        assert await asyncio.wait_for(write, 5) == "item-after-lock"

    try:
        asyncio.run(scenario())
    finally:
        other.close()
    assert stored(sqlite_db) == {"item-after-lock": "ITEM-AFTER-LOCK"}


@pytest.mark.parametrize("kind", ["unit", "batch steps"])
def test_sqlite_gives_up_on_a_lock_held_past_the_busy_timeout(
    sqlite_db: Database, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    monkeypatch.setattr(sqlite_module, "SQLITE_BUSY_TIMEOUT_MS", 100)
    other = sqlite3.connect(sqlite_db.write_engine.url.database, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(ServiceUnavailable) as raised:  # 503 for the request: retry later
            asyncio.run(write_one(sqlite_db, "item-never", kind))
        assert raised.value.code == ErrorCode.SERVICE_UNAVAILABLE
        assert isinstance(raised.value.__cause__, OperationalError) and "locked" in str(raised.value.__cause__)
    finally:
        other.execute("ROLLBACK")
        other.close()
    # The writer recovers: the next write commits.
    assert asyncio.run(write_one(sqlite_db, "item-later", kind)) == "item-later"
    assert stored(sqlite_db) == {"item-later": "ITEM-LATER"}


def test_sqlite_checkpoints_on_a_thread_not_in_the_loops_commits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Commits land in the WAL; the checkpoint thread copies them into the database file (so the WAL is reused
    from its start instead of growing without end)."""
    monkeypatch.setattr(sqlite_module, "CHECKPOINT_SECONDS", 0.05)
    path = tmp_path / "checkpoint.db"
    timed_before = _count("accessgov_sqlite_checkpoint_duration_seconds_count")
    db = open_url(f"sqlite:///{path}")
    checkpoints: list[str] = []

    @event.listens_for(db.write_engine, "checkout")
    def record(dbapi_connection: Any, *args: Any) -> None:
        checkpoints.append(threading.current_thread().name)

    try:
        with db._loop_engine.connect() as connection:  # the loop's writer never checkpoints by itself
            assert connection.exec_driver_sql("PRAGMA wal_autocheckpoint").scalar() == 0
        size_before = path.stat().st_size
        asyncio.run(db.write(store("item-checkpointed")))
        deadline = time.monotonic() + 5

        def checkpointed_and_timed() -> bool:  # the thread times a checkpoint once it returned: after the file grew
            timed = _count("accessgov_sqlite_checkpoint_duration_seconds_count") > timed_before
            return path.stat().st_size > size_before and timed

        while not checkpointed_and_timed() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert path.stat().st_size > size_before  # pages copied from the WAL into the database file
        assert "db-checkpoint" in checkpoints
        assert _count("accessgov_sqlite_checkpoint_duration_seconds_count") > timed_before  # and timed
        # The copy holds the commit: the database file alone (the WAL moved aside) has the row.
        copy = tmp_path / "copy.db"
        copy.write_bytes(path.read_bytes())
        alone = sqlite3.connect(copy)
        try:
            assert alone.execute("SELECT value FROM settings WHERE key = 'item-checkpointed'").fetchall() == [
                ("ITEM-CHECKPOINTED",)
            ]
        finally:
            alone.close()
    finally:
        db.close()


def test_sqlite_units_of_one_turn_each_get_their_own_result(sqlite_db: Database) -> None:
    """The units of one loop turn join one flush, and every unit still gets its own result."""

    async def scenario() -> list[Any]:
        results = []
        for turn in range(3):
            recorder = Recorder()
            results += await asyncio.gather(
                *(sqlite_db.write_steps(recorder, f"t{turn}-{n}") for n in range(5)), return_exceptions=True
            )
        return results

    results = asyncio.run(scenario())
    assert results == [f"stored t{turn}-{n}" for turn in range(3) for n in range(5)]


def test_sqlite_batches_share_one_connection_and_session(sqlite_db: Database) -> None:
    """The loop writer's batches are transactions on one kept connection (no pool checkout per batch), and a
    batch that failed leaves it usable: the next batch commits."""
    checkouts = []
    event.listen(sqlite_db._loop_engine, "checkout", lambda *args: checkouts.append(1))

    async def scenario() -> list[Any]:
        results: list[Any] = []
        for turn in range(3):
            recorder = Recorder(poison={f"1-{n}" for n in range(3)})  # every unit of the second batch fails
            results += await asyncio.gather(
                *(sqlite_db.write_steps(recorder, f"{turn}-{n}") for n in range(3)), return_exceptions=True
            )
            await asyncio.sleep(0.01)
        return results

    results = asyncio.run(scenario())
    assert [r for r in results if isinstance(r, str)] == [f"stored {t}-{n}" for t in (0, 2) for n in range(3)]
    assert len(checkouts) <= 1  # 0 when the first batch ran before the listener: never one per batch
    with sqlite_db.sessions() as session:
        assert {s.key for s in session.query(Setting)} == {f"{t}-{n}" for t in (0, 2) for n in range(3)}


def test_sqlite_writer_replaces_an_invalidated_connection(sqlite_db: Database) -> None:
    """A broken connection (SQLAlchemy invalidates it) is not kept: the next batch commits on a new one."""

    async def scenario() -> list[Any]:
        first = await sqlite_db.write_steps(Recorder(), "before")
        kept = sqlite_db._writer.sessions.connection  # type: ignore[union-attr]
        assert kept is not None
        kept.invalidate()
        second = await sqlite_db.write_steps(Recorder(), "after")
        assert sqlite_db._writer.sessions.connection is not kept  # type: ignore[union-attr]
        return [first, second]

    assert asyncio.run(scenario()) == ["stored before", "stored after"]


def test_sqlite_batches_of_batch_units_commit_without_a_session(sqlite_db: Database) -> None:
    """Deliveries and restarts are batch steps on the DBAPI connection: their batches begin and commit on the kept
    connection, no Session transaction around them. A batch that also holds a plain unit takes the Session,
    and both kinds commit in it."""
    begun: list[int] = []

    async def scenario() -> tuple[list[Any], list[Any]]:
        event.listen(sqlite_db._writer.sessions.factory, "after_begin", lambda *args: begun.append(1))  # type: ignore[union-attr]
        recorder = Recorder()
        alone = await asyncio.gather(*(sqlite_db.write_steps(recorder, f"item-b{n}") for n in range(3)))
        sessionless = len(begun)
        mixed = await asyncio.gather(sqlite_db.write(store("item-unit")), sqlite_db.write_steps(recorder, "item-b3"))
        return [sessionless, len(begun), recorder.calls], [*alone, *mixed]

    (sessionless, sessions, calls), results = asyncio.run(scenario())
    assert results == ["stored item-b0", "stored item-b1", "stored item-b2", "item-unit", "stored item-b3"]
    assert sessionless == 0 and sessions == 1
    assert calls == [["item-b0", "item-b1", "item-b2"], ["item-b3"]]
    assert stored(sqlite_db) == {key: key.upper() for key in ("item-b0", "item-b1", "item-b2", "item-b3", "item-unit")}
