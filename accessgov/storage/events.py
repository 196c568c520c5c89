"""Durable idempotency of inbound webhook events, and the queue of automation runs they trigger (an outbox).

The (listener_id, event_id) primary key of `webhook_events` makes a delivery count once: the database decides
between concurrent deliveries of one event, never a read-then-write check. The same transaction queues the run;
runners claim runs under a lease and finish them with an update conditional on their attempt, so a runner that
dies loses nothing and a stale runner's result is never recorded.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, NamedTuple

from sqlalchemy import BindParameter, ColumnElement, and_, bindparam, delete, insert, or_, select, update
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import Session

from accessgov.storage import ids
from accessgov.storage.engine import rowcount
from accessgov.storage.prepared import PreparedQuery, per_dialect
from accessgov.storage.schema import FINAL_RUN_STATUSES, AutomationRun, WebhookEvent
from accessgov.storage.statement_steps import (
    WRITE_MANY,
    Statement,
    Steps,
    drive_in,
    read,
    write_many,
    write_many_returning,
)

EVENT_RETENTION = timedelta(days=7)
QUEUED, RUNNING, SUCCEEDED, SKIPPED, FAILED = "QUEUED", "RUNNING", "SUCCEEDED", "SKIPPED", "FAILED"
# A run whose runner died this many times is given up as FAILED rather than claimed forever.
MAX_ATTEMPTS = 5

_EVENTS = WebhookEvent.__table__
_RUNS = AutomationRun.__table__


class DeliveryResult(NamedTuple):
    """`accepted` with the queued (or skipped) run, or a duplicate (no run was queued). A named tuple, as
    `Delivery`: one of each per delivery, and a frozen dataclass's `__init__` costs several times a tuple's."""

    accepted: bool
    run_id: str | None = None
    status: str | None = None
    reason: str | None = None

    @property
    def duplicate(self) -> bool:
        return not self.accepted


@dataclass(frozen=True)
class ClaimedRun:
    """A run a runner now owns until `lease_until`; `attempt` identifies this claim."""

    id: str
    listener_id: str
    event_id: str
    context: Any
    attempt: int
    lease_until: datetime
    queued_at: datetime


def _claim_statement() -> Any:
    """PostgreSQL's claim of an event: only a primary-key conflict is ignored (a foreign-key violation, an unknown
    listener, still raises); RETURNING tells whether a row went in."""
    from sqlalchemy.dialects import postgresql  # ~0.1 s to import: only where its statement is compiled

    return (
        postgresql.insert(_EVENTS)
        .values(_all_columns(_EVENTS))
        .on_conflict_do_nothing(index_elements=["listener_id", "event_id"])
        .returning(_EVENTS.c.event_id)
    )


def _all_columns(table: Any) -> dict[str, Any]:
    return {column.name: bindparam(column.name) for column in table.columns}


def _claim_and_queue_statement() -> Any:
    """PostgreSQL: claim the event and queue its run in one statement (the run's row is inserted only when the
    event's was; RETURNING says which). A delivery transaction is then one pipelined round trip and the
    commit, where a claim and a separate run insert took two and the commit."""
    claimed = _claim_statement().cte("claimed")
    run_values = [
        claimed.c.event_id if column.name == "event_id" else bindparam(column.name, type_=column.type)
        for column in _RUNS.columns
    ]
    return (
        insert(_RUNS)
        .from_select([column.name for column in _RUNS.columns], select(*run_values).select_from(claimed))
        .returning(_RUNS.c.id)
    )


@dataclass(frozen=True)
class _Statements:
    """The delivery path's statements for one dialect, compiled once."""

    dialect: Dialect
    insert_event: PreparedQuery  # plain INSERT: a batch whose events are known to be new
    insert_run: PreparedQuery
    lookups: dict[int, PreparedQuery]  # `recorded`'s, by the length of their IN list

    def recorded(self, count: int) -> tuple[PreparedQuery, int]:
        """The look-up of `count` event ids of one listener, and the length of its IN list (the next power of
        two)."""
        size = 1 << (count - 1).bit_length()
        query = self.lookups.get(size)
        if query is None:
            query = self.lookups[size] = PreparedQuery(_lookup_statement(size), self.dialect)
        return query, size


@per_dialect
def _prepared(dialect: Dialect) -> _Statements:
    return _Statements(
        dialect=dialect,
        insert_event=PreparedQuery(insert(_EVENTS).values(_all_columns(_EVENTS)), dialect),
        insert_run=PreparedQuery(insert(_RUNS).values(_all_columns(_RUNS)), dialect),
        lookups={},
    )


@per_dialect
def _claim_and_queue(dialect: Dialect) -> PreparedQuery:
    """`claim_each`'s statement (compiled only for the backends whose `Database.delivery_steps` it is)."""
    return PreparedQuery(_claim_and_queue_statement(), dialect)


class Delivery(NamedTuple):
    """One verified event to record; `skip_reason` (unpublished automation, disabled trigger) records its run as
    SKIPPED instead of queued."""

    listener_id: str
    event_id: str
    payload: Any
    now: datetime
    skip_reason: str | None = None


def record_looked_up(dialect: Dialect, deliveries: Sequence[Delivery]) -> Steps[list[DeliveryResult]]:
    """Record each of `deliveries` (its event and its run, exactly once per listener and event id; a repeat in the
    list is a duplicate), in order, in the caller's transaction, when that transaction holds the only write lock
    (SQLite's writer, from `BEGIN IMMEDIATE`): one look-up and two multi-row inserts decide the batch (a fifth of
    the CPU of two statements per delivery)."""
    statements = _prepared(dialect)
    seen = yield from _recorded(statements, {(delivery.listener_id, delivery.event_id) for delivery in deliveries})
    accepted = []
    for delivery in deliveries:
        key = (delivery.listener_id, delivery.event_id)
        accepted.append(key not in seen)  # a repeat within the batch is seen by then too
        seen.add(key)
    new_events = [_event_values(delivery) for delivery, new in zip(deliveries, accepted, strict=True) if new]
    if new_events:
        yield write_many(statements.insert_event, [statements.insert_event.params(row) for row in new_events])
    runs = [_run_values(delivery) if new else None for delivery, new in zip(deliveries, accepted, strict=True)]
    rows = [statements.insert_run.params(run) for run in runs if run is not None]
    if rows:
        yield write_many(statements.insert_run, rows)
    return [_accepted(run) if run is not None else DeliveryResult(accepted=False) for run in runs]


def claim_each(dialect: Dialect, deliveries: Sequence[Delivery]) -> Steps[list[DeliveryResult]]:
    """`record_looked_up` where other servers write concurrently (PostgreSQL): each event claims itself by its own
    conflict handling and queues its run in the same statement (a repeat within the batch conflicts with its
    first), all claims in one pipelined `executemany`."""
    query = _claim_and_queue(dialect)
    runs = [_run_values(delivery) for delivery in deliveries]
    rows = [query.params({**_event_values(delivery), **run}) for delivery, run in zip(deliveries, runs, strict=True)]
    inserted = yield write_many_returning(query, rows)
    # A row back says this batch inserted the event and its run.
    return [
        _accepted(run) if row is not None else DeliveryResult(accepted=False)
        for run, row in zip(runs, inserted, strict=True)
    ]


def _accepted(run: Mapping[str, Any]) -> DeliveryResult:
    return DeliveryResult(accepted=True, run_id=run["id"], status=run["status"], reason=run["reason"])


def _recorded(statements: _Statements, keys: set[tuple[str, str]]) -> Steps[set[tuple[str, str]]]:
    """Which of `keys` (listener id, event id) already have an event record: per listener, an `IN` list on the
    primary key (a row-value `IN (VALUES ...)` is not matched against the index by SQLite: a full scan)."""
    by_listener: dict[str, list[str]] = {}
    for listener_id, event_id in keys:
        by_listener.setdefault(listener_id, []).append(event_id)
    found: set[tuple[str, str]] = set()
    for listener_id, event_ids in by_listener.items():
        for start in range(0, len(event_ids), _LOOKUP_CHUNK):
            chunk = event_ids[start : start + _LOOKUP_CHUNK]
            query, size = statements.recorded(len(chunk))
            rows = yield read(query, listener_id=listener_id, **_padded(chunk, size))
            found.update((listener_id, event_id) for (event_id,) in rows)
    return found


# Event ids looked up per statement: well under SQLite's bound-parameter limit.
_LOOKUP_CHUNK = 512


def _lookup_statement(size: int) -> Any:
    """The events of one listener among `size` event ids (`e0`...)."""
    event_ids: list[BindParameter[str]] = [bindparam(f"e{n}") for n in range(size)]
    listener = _EVENTS.c.listener_id == bindparam("listener_id")
    return select(_EVENTS.c.event_id).where(listener, _EVENTS.c.event_id.in_(event_ids))


def _padded(event_ids: list[str], size: int) -> dict[str, str]:
    """`event_ids` as the parameters of an IN list of `size` (at least as many): the last id fills the rest (a
    statement per power of two of ids, compiled once, not one per length)."""
    padded = [*event_ids, *[event_ids[-1]] * (size - len(event_ids))]
    return {f"e{n}": event_id for n, event_id in enumerate(padded)}


def _event_values(delivery: Delivery) -> dict[str, Any]:
    return {"listener_id": delivery.listener_id, "event_id": delivery.event_id, "received_at": delivery.now}


def _run_values(delivery: Delivery) -> dict[str, Any]:
    skipped = delivery.skip_reason is not None
    return {
        "id": ids.sortable_id(delivery.now),
        "listener_id": delivery.listener_id,
        "event_id": delivery.event_id,
        "status": SKIPPED if skipped else QUEUED,
        "reason": delivery.skip_reason,
        "context": delivery.payload,
        "outputs": {},
        "created_at": delivery.now,
        "attempts": 0,
        "lease_until": None,
        "finished_at": delivery.now if skipped else None,
    }


def _expired(now: datetime | ColumnElement[datetime]) -> Any:
    """Claimed runs whose runner's lease ran out (it died, or is too slow): claimable again."""
    return and_(_RUNS.c.status == RUNNING, _RUNS.c.lease_until < now)


@dataclass(frozen=True)
class _RunnerStatements:
    """The runner's statements for one dialect, compiled once: a claim and a finish per batch, through Core,
    were about a quarter of the runner's CPU per run (py-spy), most of it compiling and binding."""

    queued: PreparedQuery  # the oldest queued runs
    expired: PreparedQuery  # the oldest running runs whose lease ran out
    take: PreparedQuery  # one claimed run: RUNNING under the new lease, one more attempt
    finish: PreparedQuery  # `_FINISH`


@per_dialect
def _runner_statements(dialect: Dialect) -> _RunnerStatements:
    columns = (_RUNS.c.id, _RUNS.c.listener_id, _RUNS.c.event_id, _RUNS.c.context, _RUNS.c.attempts, _RUNS.c.created_at)
    limit: BindParameter[int] = bindparam("limit")
    selects = [
        select(*columns).where(claimable).order_by(_RUNS.c.created_at).limit(limit)
        for claimable in (_RUNS.c.status == QUEUED, _expired(bindparam("now", type_=_RUNS.c.lease_until.type)))
    ]
    # Runners share the queue without waiting on each other's rows (SQLite renders no row lock: its writer holds the
    # database).
    selects = [stmt.with_for_update(skip_locked=True) for stmt in selects]
    take = (
        update(_RUNS)
        .where(_RUNS.c.id == bindparam("run_id"))
        .values(status=RUNNING, attempts=_RUNS.c.attempts + 1, lease_until=bindparam("lease_until"))
    )
    return _RunnerStatements(*(PreparedQuery(stmt, dialect) for stmt in (*selects, take, _FINISH)))


def claim_runs(session: Session, *, now: datetime, lease: timedelta, limit: int) -> list[ClaimedRun]:
    """Take up to `limit` runs, oldest first: queued ones, and running ones whose lease has expired (PostgreSQL
    skips rows another runner locked). Runs claimed `MAX_ATTEMPTS` times already are finished as FAILED instead."""
    return drive_in(session, _claim_steps(_runner_statements(session.connection().dialect), now, lease, limit))


def _claim_steps(statements: _RunnerStatements, now: datetime, lease: timedelta, limit: int) -> Steps[list[ClaimedRun]]:
    # Fresh work first, then runs whose lease expired: two range scans of the (status, created_at) index. One
    # statement with `OR` made SQLite gather and sort the whole backlog for every batch (a temporary B-tree).
    rows = statements.queued.typed((yield read(statements.queued, limit=limit)))
    if len(rows) < limit:
        expired = yield read(statements.expired, now=now, limit=limit - len(rows))
        rows += statements.expired.typed(expired)
    claimed = []
    gave_up = []
    lease_until = now + lease
    for run_id, listener_id, event_id, context, attempts, created_at in rows:
        if attempts >= MAX_ATTEMPTS:
            gave_up.append(_finish_params(run_id, attempts, FAILED, f"gave up after {attempts} attempts", {}))
        else:
            claimed.append(ClaimedRun(run_id, listener_id, event_id, context, attempts + 1, lease_until, created_at))
    if gave_up:
        finish = statements.finish
        yield write_many(finish, finish.params_many(gave_up, now=now))
    if claimed:  # an idle runner polls every second: no statement when there is nothing to take
        take = statements.take
        yield write_many(take, take.params_many([{"run_id": run.id} for run in claimed], lease_until=lease_until))
    return claimed


_FINISH = (
    update(_RUNS)
    .where(
        _RUNS.c.id == bindparam("run_id"),
        _RUNS.c.attempts == bindparam("attempt"),
        # Two comparisons, not IN: an IN list is an "expanding" parameter, which executemany refuses.
        or_(_RUNS.c.status == QUEUED, _RUNS.c.status == RUNNING),
    )
    .values(
        status=bindparam("new_status"),
        reason=bindparam("new_reason"),
        outputs=bindparam("new_outputs", type_=_RUNS.c.outputs.type),
        lease_until=None,
        finished_at=bindparam("now", type_=_RUNS.c.finished_at.type),
    )
)


def _finish_all(session: Session, rows: Sequence[Mapping[str, Any]], now: datetime) -> int:
    """`_FINISH` once per row of `_finish_params`; returns how many runs it changed."""
    finish = _runner_statements(session.connection().dialect).finish
    return drive_in(session, _changed(Statement(finish, finish.params_many(rows, now=now), WRITE_MANY)))


def _changed(statement: Statement) -> Steps[int]:
    """How many rows `statement` (a `WRITE_MANY`) changed."""
    changed: int = yield statement
    return changed


def _finish_params(
    run_id: str, attempt: int, status: str, reason: str | None, outputs: Mapping[str, Any]
) -> dict[str, Any]:
    """The parameters of `_FINISH` for one run (`now` is the batch's)."""
    return {
        "run_id": run_id,
        "attempt": attempt,
        "new_status": status,
        "new_reason": reason,
        "new_outputs": dict(outputs),
    }


@dataclass(frozen=True)
class RunOutcome:
    """How a claimed run ended, for `finish_runs`."""

    run: ClaimedRun
    status: str
    reason: str | None
    outputs: Mapping[str, Any]


def finish_runs(session: Session, outcomes: Sequence[RunOutcome], *, now: datetime) -> int:
    """Record each outcome in one multi-row statement; returns how many were written. A stale claim writes nothing:
    its lease expired and another runner claimed the run again, or it was finished already."""
    if not outcomes:
        return 0
    for outcome in outcomes:
        if outcome.status not in FINAL_RUN_STATUSES:
            raise ValueError(f"a finished run's status is one of {FINAL_RUN_STATUSES}, not {outcome.status!r}")
    rows = [
        _finish_params(outcome.run.id, outcome.run.attempt, outcome.status, outcome.reason, outcome.outputs)
        for outcome in outcomes
    ]
    return _finish_all(session, rows, now)


def purge_events(session: Session, *, now: datetime, retention: timedelta = EVENT_RETENTION) -> int:
    """Delete event records received more than `retention` before `now` (their ids are accepted again);
    returns how many. Runs are kept. The caller commits."""
    result = session.execute(delete(WebhookEvent).where(WebhookEvent.received_at < now - retention))
    return rowcount(result)


def list_runs(
    session: Session, listener_id: str | None = None, limit: int = 50, status: str | None = None
) -> list[AutomationRun]:
    """The newest runs first, of one listener or of all, optionally in one status."""
    stmt = select(AutomationRun).order_by(AutomationRun.created_at.desc(), AutomationRun.id.desc()).limit(limit)
    if listener_id is not None:
        stmt = stmt.where(AutomationRun.listener_id == listener_id)
    if status is not None:
        stmt = stmt.where(AutomationRun.status == status)
    return list(session.scalars(stmt))


def count_runs_by_status(session: Session) -> dict[str, int]:
    from sqlalchemy import func

    rows = session.execute(select(_RUNS.c.status, func.count()).group_by(_RUNS.c.status)).all()
    return {status: count for status, count in rows}
