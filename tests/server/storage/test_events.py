"""Durable idempotency of webhook deliveries: once per (listener, event id), whatever the concurrency."""

from __future__ import annotations

import multiprocessing
import threading
from datetime import datetime, timedelta

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from accessgov.storage import events
from accessgov.storage.backends import create_engine
from accessgov.storage.engine import session_factory
from accessgov.storage.schema import AutomationRun, Listener, WebhookEvent
from tests.server.storage import _workers
from tests.server.storage.conftest import NOW, MakeListener
from tests.support import deliveries

EVENT = "7f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b"
PAYLOAD = {"user": {"email": "ada@example.com"}, "action": "created"}
LEASE = timedelta(seconds=60)


def deliver(
    sessions: sessionmaker[Session],
    listener_id: str,
    event_id: str = EVENT,
    now: datetime = NOW,
    skip_reason: str | None = None,
) -> events.DeliveryResult:
    with sessions.begin() as session:
        return deliveries.record_delivery(
            session, listener_id=listener_id, event_id=event_id, payload=PAYLOAD, now=now, skip_reason=skip_reason
        )


def claim(sessions: sessionmaker[Session], now: datetime = NOW, limit: int = 10) -> list[events.ClaimedRun]:
    with sessions.begin() as session:
        return events.claim_runs(session, now=now, lease=LEASE, limit=limit)


def finish(sessions: sessionmaker[Session], run: events.ClaimedRun, status: str = "SUCCEEDED") -> bool:
    with sessions.begin() as session:
        return events.finish_runs(session, [events.RunOutcome(run, status, None, {"ok": True})], now=NOW) == 1


def count(sessions: sessionmaker[Session], model: type[WebhookEvent] | type[AutomationRun]) -> int:
    with sessions() as session:
        return session.scalar(sa.select(sa.func.count()).select_from(model)) or 0


def test_first_delivery_is_accepted_and_queues_a_run(
    sessions: sessionmaker[Session], make_listener: MakeListener
) -> None:
    listener = make_listener()
    result = deliver(sessions, listener.id)
    assert result.accepted and not result.duplicate
    assert (result.status, result.reason) == ("QUEUED", None)
    with sessions() as session:
        stored = session.get(AutomationRun, result.run_id or "")
        assert stored is not None
        assert (stored.status, stored.context, stored.outputs, stored.created_at) == ("QUEUED", PAYLOAD, {}, NOW)
        assert (stored.attempts, stored.finished_at) == (0, None)
        assert deliveries.event_seen(session, listener.id, EVENT)


def test_skipped_delivery_is_recorded_finished(sessions: sessionmaker[Session], make_listener: MakeListener) -> None:
    listener = make_listener()
    result = deliver(sessions, listener.id, skip_reason="trigger disabled")
    assert (result.status, result.reason) == ("SKIPPED", "trigger disabled")
    assert claim(sessions) == []  # nothing to run
    with sessions() as session:
        stored = session.get(AutomationRun, result.run_id or "")
        assert stored is not None and stored.finished_at == NOW


def test_second_delivery_is_a_duplicate_and_queues_nothing(
    sessions: sessionmaker[Session], make_listener: MakeListener
) -> None:
    listener = make_listener()
    assert deliver(sessions, listener.id).accepted
    second = deliver(sessions, listener.id, now=NOW + timedelta(minutes=1))
    assert second.duplicate and second.run_id is None
    assert count(sessions, AutomationRun) == 1


def test_same_event_id_on_another_listener_is_independent(
    sessions: sessionmaker[Session], make_listener: MakeListener
) -> None:
    first, second = make_listener(), make_listener()
    assert deliver(sessions, first.id).accepted
    assert deliver(sessions, second.id).accepted
    assert deliver(sessions, second.id).duplicate
    assert count(sessions, AutomationRun) == 2


def test_a_failed_transaction_keeps_nothing_and_the_retry_is_accepted(
    sessions: sessionmaker[Session], make_listener: MakeListener
) -> None:
    listener = make_listener()
    with pytest.raises(RuntimeError, match="crashed"), sessions.begin() as session:
        deliveries.record_delivery(session, listener_id=listener.id, event_id=EVENT, payload=PAYLOAD, now=NOW)
        raise RuntimeError("crashed before commit")
    assert count(sessions, WebhookEvent) == 0
    assert count(sessions, AutomationRun) == 0
    assert deliver(sessions, listener.id).accepted


def test_unknown_listener_is_an_error_not_a_duplicate(sessions: sessionmaker[Session]) -> None:
    with pytest.raises(IntegrityError):
        deliver(sessions, "no-such-listener")


def test_claimed_runs_are_leased_and_finished_once(
    sessions: sessionmaker[Session], make_listener: MakeListener
) -> None:
    listener = make_listener()
    for n in range(3):
        deliver(sessions, listener.id, event_id=f"e{n}", now=NOW + timedelta(seconds=n))
    runs = claim(sessions, limit=2)
    assert [run.event_id for run in runs] == ["e0", "e1"]  # oldest first
    assert all(run.attempt == 1 and run.lease_until == NOW + LEASE for run in runs)
    assert [run.event_id for run in claim(sessions)] == ["e2"]  # leased runs are not handed out again
    assert claim(sessions) == []
    assert finish(sessions, runs[0])
    assert not finish(sessions, runs[0])  # finished already: never recorded twice
    with sessions() as session:
        stored = session.get(AutomationRun, runs[0].id)
        assert stored is not None and (stored.status, stored.outputs) == ("SUCCEEDED", {"ok": True})


def test_a_dead_runners_lease_expires_and_its_late_result_is_discarded(
    sessions: sessionmaker[Session], make_listener: MakeListener
) -> None:
    listener = make_listener()
    deliver(sessions, listener.id)
    [dead] = claim(sessions)  # this runner dies before finishing
    assert claim(sessions, now=NOW + LEASE - timedelta(seconds=1)) == []
    [again] = claim(sessions, now=NOW + LEASE + timedelta(seconds=1))  # lease expired: claimed again
    assert (again.id, again.attempt) == (dead.id, 2)
    assert not finish(sessions, dead)  # the first runner wakes up late: its claim is stale
    assert finish(sessions, again, "FAILED")
    assert count(sessions, AutomationRun) == 1


def test_queued_runs_come_before_expired_leases_and_a_claim_never_sorts_the_backlog(
    sessions: sessionmaker[Session], make_listener: MakeListener
) -> None:
    listener = make_listener()
    deliver(sessions, listener.id, event_id="old")
    [stale] = claim(sessions)  # its runner dies; the lease expires below
    for n in range(3):
        deliver(sessions, listener.id, event_id=f"new{n}", now=NOW + timedelta(seconds=n + 1))
    engine = sessions.kw["bind"]
    later = NOW + LEASE + timedelta(seconds=5)
    assert [run.event_id for run in claim(sessions, limit=3, now=later)] == ["new0", "new1", "new2"]
    assert [(run.event_id, run.attempt) for run in claim(sessions, now=later)] == [("old", 2)]
    assert stale.event_id == "old"
    if engine.dialect.name == "sqlite":  # each claim query is a range scan of an index: no sort of all queued runs
        statements = events._runner_statements(engine.dialect)
        with engine.connect() as connection:
            for query, values in ((statements.queued, {"limit": 3}), (statements.expired, {"now": later, "limit": 3})):
                explained = connection.exec_driver_sql("EXPLAIN QUERY PLAN " + query.sql, query.params(values))
                plan = " ".join(row[-1] for row in explained)
                assert "USING INDEX" in plan and "TEMP B-TREE" not in plan, plan


def test_a_run_claimed_too_often_is_given_up(sessions: sessionmaker[Session], make_listener: MakeListener) -> None:
    listener = make_listener()
    deliver(sessions, listener.id)
    moment = NOW
    for attempt in range(1, events.MAX_ATTEMPTS + 1):
        [run] = claim(sessions, now=moment)
        assert run.attempt == attempt
        moment += LEASE + timedelta(seconds=1)
    assert claim(sessions, now=moment) == []
    with sessions() as session:
        [stored] = events.list_runs(session)
        assert stored.status == "FAILED" and "gave up" in (stored.reason or "")


def test_runs_given_up_beside_one_still_claimable(sessions: sessionmaker[Session], make_listener: MakeListener) -> None:
    listener = make_listener()
    for n in range(2):
        deliver(sessions, listener.id, event_id=f"tired{n}")
    moment = NOW
    for _ in range(events.MAX_ATTEMPTS):
        assert len(claim(sessions, now=moment)) == 2
        moment += LEASE + timedelta(seconds=1)
    deliver(sessions, listener.id, event_id="fresh", now=moment)
    assert [(run.event_id, run.attempt) for run in claim(sessions, now=moment)] == [("fresh", 1)]
    with sessions() as session:
        runs = {run.event_id: (run.status, run.reason) for run in events.list_runs(session)}
    assert runs["tired0"] == runs["tired1"] == ("FAILED", f"gave up after {events.MAX_ATTEMPTS} attempts")
    assert runs["fresh"] == ("RUNNING", None)


def test_finish_rejects_a_non_final_status(sessions: sessionmaker[Session], make_listener: MakeListener) -> None:
    listener = make_listener()
    deliver(sessions, listener.id)
    [run] = claim(sessions)
    with pytest.raises(ValueError, match="status"):
        finish(sessions, run, "QUEUED")


def test_purge_forgets_events_older_than_seven_days(
    sessions: sessionmaker[Session], make_listener: MakeListener
) -> None:
    listener = make_listener()
    assert deliver(sessions, listener.id, event_id="old", now=NOW - timedelta(days=7, seconds=1)).accepted
    assert deliver(sessions, listener.id, event_id="recent", now=NOW - timedelta(days=6)).accepted
    with sessions.begin() as session:
        assert events.purge_events(session, now=NOW) == 1
    assert deliver(sessions, listener.id, event_id="old").accepted  # forgotten: accepted again
    assert deliver(sessions, listener.id, event_id="recent").duplicate  # 6 days old: still known
    assert count(sessions, AutomationRun) == 3  # runs are history, not purged


def test_purge_retention_is_configurable(sessions: sessionmaker[Session], make_listener: MakeListener) -> None:
    listener = make_listener()
    assert deliver(sessions, listener.id, now=NOW - timedelta(hours=2)).accepted
    with sessions.begin() as session:
        assert events.purge_events(session, now=NOW, retention=timedelta(hours=3)) == 0
        assert events.purge_events(session, now=NOW, retention=timedelta(hours=1)) == 1


def test_duplicates_survive_a_restart(db_url: str, engine: Engine, make_listener: MakeListener) -> None:
    listener = make_listener()
    assert deliver(session_factory(engine), listener.id).accepted
    engine.dispose()
    restarted = create_engine(db_url)  # a new process would build exactly this
    try:
        assert deliver(session_factory(restarted), listener.id).duplicate
    finally:
        restarted.dispose()


def test_list_runs_newest_first(sessions: sessionmaker[Session], make_listener: MakeListener) -> None:
    first, second = make_listener(), make_listener()
    for minute in range(3):
        deliver(sessions, first.id, event_id=f"a{minute}", now=NOW + timedelta(minutes=minute))
    deliver(sessions, second.id, event_id="b0", now=NOW + timedelta(minutes=10))
    with sessions() as session:
        assert [r.event_id for r in events.list_runs(session)] == ["b0", "a2", "a1", "a0"]
        assert [r.event_id for r in events.list_runs(session, first.id, limit=2)] == ["a2", "a1"]
        assert events.count_runs_by_status(session) == {"QUEUED": 4}


def test_concurrent_threads_deliver_once(sessions: sessionmaker[Session], make_listener: MakeListener) -> None:
    listener: Listener = make_listener()
    threads_count = 40
    barrier = threading.Barrier(threads_count)
    results: list[bool] = []
    errors: list[BaseException] = []

    def attempt() -> None:
        barrier.wait(timeout=30)
        try:
            results.append(deliver(sessions, listener.id).accepted)
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=attempt) for _ in range(threads_count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert errors == []
    assert sorted(results) == [False] * (threads_count - 1) + [True]
    assert count(sessions, AutomationRun) == 1
    assert count(sessions, WebhookEvent) == 1


@pytest.mark.slow
def test_concurrent_processes_deliver_once(
    db_url: str, sessions: sessionmaker[Session], make_listener: MakeListener
) -> None:
    """Several server processes sharing the database (4 processes x 10 attempts), forked from a fork server that
    imported the workers' module once (spawned, each spent ~1 CPU-s importing it first)."""
    listener = make_listener()
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload([_workers.__name__])
    processes_count, attempts = 4, 10
    barrier = context.Barrier(processes_count)
    results = context.Queue()
    processes = [
        context.Process(target=_workers.deliver, args=(db_url, listener.id, EVENT, NOW, attempts, barrier, results))
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
    assert count(sessions, AutomationRun) == 1


FRESH = "0b6f4d7e-2a1c-4e5f-9a8b-7c6d5e4f3a2b"


def mixed_batch(first: str, second: str) -> list[events.Delivery]:
    """A batch for two listeners, `EVENT` already recorded for `first`: see `assert_decided_event_by_event`."""
    return [
        events.Delivery(first, EVENT, PAYLOAD, NOW),  # recorded before
        events.Delivery(first, FRESH, PAYLOAD, NOW),
        events.Delivery(second, EVENT, PAYLOAD, NOW),  # same event id, another listener: new
        events.Delivery(first, FRESH, PAYLOAD, NOW),  # repeated within the batch
        events.Delivery(second, "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a", PAYLOAD, NOW, "trigger disabled"),
    ]


def assert_decided_event_by_event(sessions: sessionmaker[Session], results: list[events.DeliveryResult]) -> None:
    assert [result.accepted for result in results] == [False, True, True, False, True]
    assert [result.status for result in results] == [None, "QUEUED", "QUEUED", None, "SKIPPED"]
    assert count(sessions, WebhookEvent) == 4  # committed: seen from another connection
    assert count(sessions, AutomationRun) == 4


def test_a_batch_of_deliveries_is_decided_event_by_event(
    sessions: sessionmaker[Session], make_listener: MakeListener
) -> None:
    """One call for many deliveries (the writer's batch): an event already recorded and an event repeated in
    the batch are duplicates, the others each queue one run, and skipped runs stay skipped."""
    first, second = make_listener(), make_listener()
    deliver(sessions, first.id, EVENT)
    with sessions.begin() as session:
        results = deliveries.record_deliveries(session, mixed_batch(first.id, second.id))
    assert_decided_event_by_event(sessions, results)
    assert len({result.run_id for result in results if result.accepted}) == 3
    assert {run.event_id for run in claim(sessions)} == {EVENT, FRESH}


def test_a_batch_with_an_unknown_listener_raises_like_one_delivery(
    sessions: sessionmaker[Session], make_listener: MakeListener
) -> None:
    listener = make_listener()
    with pytest.raises(IntegrityError), sessions.begin() as session:
        batch = [events.Delivery(listener.id, EVENT, PAYLOAD, NOW), events.Delivery("wh_gone", EVENT, PAYLOAD, NOW)]
        deliveries.record_deliveries(session, batch)
    assert count(sessions, WebhookEvent) == 0


def test_outcomes_of_a_batch_are_written_together_and_stale_claims_are_not(
    sessions: sessionmaker[Session], make_listener: MakeListener
) -> None:
    listener = make_listener()
    for event_id in (EVENT, "0b6f4d7e-2a1c-4e5f-9a8b-7c6d5e4f3a2b", "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a"):
        deliver(sessions, listener.id, event_id)
    first, second, third = claim(sessions)
    assert [run.attempt for run in (first, second, third)] == [1, 1, 1]
    (reclaimed,) = claim(sessions, now=NOW + LEASE * 2, limit=1)  # the lease of the oldest expired: taken again
    assert (reclaimed.id, reclaimed.attempt) == (first.id, 2)
    outcomes = [
        events.RunOutcome(first, "SUCCEEDED", None, {"n": 1}),  # stale: attempt 1 of a run now at attempt 2
        events.RunOutcome(second, "SUCCEEDED", None, {"n": 2}),
        events.RunOutcome(third, "FAILED", "step x failed", {}),
    ]
    with sessions.begin() as session:
        assert events.finish_runs(session, outcomes, now=NOW) == 2
    with sessions() as session:
        rows = {row.id: (row.status, row.reason, row.outputs) for row in session.query(AutomationRun)}
    assert rows == {
        first.id: ("RUNNING", None, {}),
        second.id: ("SUCCEEDED", None, {"n": 2}),
        third.id: ("FAILED", "step x failed", {}),
    }
