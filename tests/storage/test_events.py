"""Durable idempotency of webhook deliveries: once per (listener, event id), whatever the concurrency."""

from __future__ import annotations

import multiprocessing
import threading
import time
from collections.abc import Callable
from datetime import datetime, timedelta

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from accessgov.storage import events
from accessgov.storage.engine import create_engine, session_factory
from accessgov.storage.schema import AutomationRun, Listener, WebhookEvent
from tests.storage import _workers
from tests.storage.conftest import NOW, MakeListener

EVENT = "7f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b"
PAYLOAD = {"user": {"email": "ada@example.com"}, "action": "created"}


class CountingRun:
    """An automation stand-in that counts its calls (thread-safe) and can be slowed down."""

    def __init__(self, outcome: events.RunOutcome = ("SUCCEEDED", None, {"echo": 1}), delay: float = 0.0) -> None:
        self.outcome, self.delay, self.calls = outcome, delay, 0
        self._lock = threading.Lock()

    def __call__(self) -> events.RunOutcome:
        with self._lock:
            self.calls += 1
        if self.delay:
            time.sleep(self.delay)  # widen the window in which a racing delivery could slip through
        return self.outcome


def deliver(
    sessions: sessionmaker[Session],
    listener_id: str,
    run: Callable[[], events.RunOutcome],
    event_id: str = EVENT,
    now: datetime = NOW,
) -> events.DeliveryResult:
    return events.record_delivery(
        sessions, listener_id=listener_id, event_id=event_id, payload=PAYLOAD, now=now, run=run
    )


def count(sessions: sessionmaker[Session], model: type[WebhookEvent] | type[AutomationRun]) -> int:
    with sessions() as session:
        return session.scalar(sa.select(sa.func.count()).select_from(model)) or 0


def test_first_delivery_is_accepted_and_recorded(sessions: sessionmaker[Session], make_listener: MakeListener) -> None:
    listener = make_listener()
    run = CountingRun(("SKIPPED", "trigger disabled", {}))
    result = deliver(sessions, listener.id, run)
    assert result.accepted and not result.duplicate
    assert run.calls == 1
    assert result.run is not None
    assert (result.run.status, result.run.reason, result.run.event_id) == ("SKIPPED", "trigger disabled", EVENT)
    with sessions() as session:
        stored = events.get_run(session, result.run.id)
        assert stored is not None
        assert (stored.context, stored.outputs, stored.created_at) == (PAYLOAD, {}, NOW)
        assert events.event_seen(session, listener.id, EVENT)


def test_second_delivery_is_a_duplicate_and_does_not_run(
    sessions: sessionmaker[Session], make_listener: MakeListener
) -> None:
    listener = make_listener()
    run = CountingRun()
    assert deliver(sessions, listener.id, run).accepted
    second = deliver(sessions, listener.id, run, now=NOW + timedelta(minutes=1))
    assert second.duplicate and second.run is None
    assert run.calls == 1
    assert count(sessions, AutomationRun) == 1


def test_same_event_id_on_another_listener_is_independent(
    sessions: sessionmaker[Session], make_listener: MakeListener
) -> None:
    first, second = make_listener(), make_listener()
    run = CountingRun()
    assert deliver(sessions, first.id, run).accepted
    assert deliver(sessions, second.id, run).accepted
    assert deliver(sessions, second.id, run).duplicate
    assert run.calls == 2


def test_failing_run_commits_nothing_and_the_retry_is_accepted(
    sessions: sessionmaker[Session], make_listener: MakeListener
) -> None:
    listener = make_listener()

    def explode() -> events.RunOutcome:
        raise RuntimeError("automation crashed")

    with pytest.raises(RuntimeError, match="crashed"):
        deliver(sessions, listener.id, explode)
    assert count(sessions, WebhookEvent) == 0
    assert count(sessions, AutomationRun) == 0
    run = CountingRun()
    assert deliver(sessions, listener.id, run).accepted
    assert run.calls == 1


def test_invalid_run_status_commits_nothing(sessions: sessionmaker[Session], make_listener: MakeListener) -> None:
    listener = make_listener()
    with pytest.raises(ValueError, match="status"):
        deliver(sessions, listener.id, CountingRun(("DONE", None, {})))
    assert count(sessions, WebhookEvent) == 0


def test_unknown_listener_is_an_error_not_a_duplicate(sessions: sessionmaker[Session]) -> None:
    run = CountingRun()
    with pytest.raises(IntegrityError):
        deliver(sessions, "no-such-listener", run)
    assert run.calls == 0


def test_constraint_fallback_detects_duplicates(
    sessions: sessionmaker[Session], make_listener: MakeListener, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The path for backends without ON CONFLICT: the key violation itself, caught in a savepoint."""
    monkeypatch.setattr(events, "ON_CONFLICT_DIALECTS", frozenset())
    listener = make_listener()
    run = CountingRun()
    assert deliver(sessions, listener.id, run).accepted
    assert deliver(sessions, listener.id, run).duplicate
    assert run.calls == 1
    with pytest.raises(IntegrityError):
        deliver(sessions, "no-such-listener", run)


def test_purge_forgets_events_older_than_seven_days(
    sessions: sessionmaker[Session], make_listener: MakeListener
) -> None:
    listener = make_listener()
    run = CountingRun()
    assert deliver(sessions, listener.id, run, event_id="old", now=NOW - timedelta(days=7, seconds=1)).accepted
    assert deliver(sessions, listener.id, run, event_id="recent", now=NOW - timedelta(days=6)).accepted
    with sessions.begin() as session:
        assert events.purge_events(session, now=NOW) == 1
    assert deliver(sessions, listener.id, run, event_id="old").accepted  # forgotten: accepted again
    assert deliver(sessions, listener.id, run, event_id="recent").duplicate  # 6 days old: still known
    assert run.calls == 3
    assert count(sessions, AutomationRun) == 3  # runs are history, not purged


def test_purge_retention_is_configurable(sessions: sessionmaker[Session], make_listener: MakeListener) -> None:
    listener = make_listener()
    assert deliver(sessions, listener.id, CountingRun(), now=NOW - timedelta(hours=2)).accepted
    with sessions.begin() as session:
        assert events.purge_events(session, now=NOW, retention=timedelta(hours=3)) == 0
        assert events.purge_events(session, now=NOW, retention=timedelta(hours=1)) == 1


def test_duplicates_survive_a_restart(db_url: str, engine: Engine, make_listener: MakeListener) -> None:
    listener = make_listener()
    assert deliver(session_factory(engine), listener.id, CountingRun()).accepted
    engine.dispose()
    restarted = create_engine(db_url)  # a new process would build exactly this
    try:
        run = CountingRun()
        assert deliver(session_factory(restarted), listener.id, run).duplicate
        assert run.calls == 0
    finally:
        restarted.dispose()


def test_list_runs_newest_first(sessions: sessionmaker[Session], make_listener: MakeListener) -> None:
    first, second = make_listener(), make_listener()
    for minute in range(3):
        deliver(sessions, first.id, CountingRun(), event_id=f"a{minute}", now=NOW + timedelta(minutes=minute))
    deliver(sessions, second.id, CountingRun(), event_id="b0", now=NOW + timedelta(minutes=10))
    with sessions() as session:
        assert [r.event_id for r in events.list_runs(session)] == ["b0", "a2", "a1", "a0"]
        assert [r.event_id for r in events.list_runs(session, first.id, limit=2)] == ["a2", "a1"]


def test_concurrent_threads_deliver_once(sessions: sessionmaker[Session], make_listener: MakeListener) -> None:
    listener: Listener = make_listener()
    threads_count = 40
    barrier = threading.Barrier(threads_count)
    run = CountingRun(delay=0.05)
    results: list[bool] = []
    errors: list[BaseException] = []

    def attempt() -> None:
        barrier.wait(timeout=30)
        try:
            results.append(deliver(sessions, listener.id, run).accepted)
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=attempt) for _ in range(threads_count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert errors == []
    assert sorted(results) == [False] * (threads_count - 1) + [True]
    assert run.calls == 1
    assert count(sessions, AutomationRun) == 1
    assert count(sessions, WebhookEvent) == 1


def test_concurrent_processes_deliver_once(
    db_url: str, sessions: sessionmaker[Session], make_listener: MakeListener
) -> None:
    """Several server processes sharing the database (4 processes x 10 attempts, spawned)."""
    listener = make_listener()
    context = multiprocessing.get_context("spawn")
    processes_count, attempts = 4, 10
    barrier = context.Barrier(processes_count)
    calls = context.Value("i", 0)
    results = context.Queue()
    processes = [
        context.Process(
            target=_workers.deliver, args=(db_url, listener.id, EVENT, NOW, attempts, barrier, calls, results)
        )
        for _ in range(processes_count)
    ]
    for process in processes:
        process.start()
    outcomes = [outcome for _ in processes for outcome in results.get(timeout=120)]
    for process in processes:
        process.join(timeout=30)
        assert process.exitcode == 0
    assert len(outcomes) == processes_count * attempts
    assert outcomes.count(True) == 1
    assert calls.value == 1
    assert count(sessions, AutomationRun) == 1
