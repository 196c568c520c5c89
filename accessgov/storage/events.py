"""Durable idempotency of inbound webhook events, and the automation runs they trigger.

The (listener_id, event_id) primary key of `webhook_events` is what makes a delivery count once: the
claim is an `INSERT ... ON CONFLICT DO NOTHING`, so concurrent deliveries of one event (threads,
processes, servers) are decided by the database, never by a read-then-write check.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete, insert, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from accessgov.storage import ids
from accessgov.storage.schema import RUN_STATUSES, AutomationRun, WebhookEvent

EVENT_RETENTION = timedelta(days=7)
# Backends with INSERT ... ON CONFLICT DO NOTHING; others fall back to catching the key violation.
ON_CONFLICT_DIALECTS = frozenset({"postgresql", "sqlite"})

# (status, reason, outputs) as returned by the automation: status is one of RUN_STATUSES.
RunOutcome = tuple[str, str | None, Mapping[str, Any]]


@dataclass(frozen=True)
class DeliveryResult:
    """`accepted` with the recorded `run`, or a duplicate (`run` is None, the automation did not run)."""

    accepted: bool
    run: AutomationRun | None = None

    @property
    def duplicate(self) -> bool:
        return not self.accepted


def _claim_event(session: Session, listener_id: str, event_id: str, now: datetime) -> bool:
    """Insert the event record unless it exists; True when this call inserted it."""
    table = WebhookEvent.__table__
    values = {"listener_id": listener_id, "event_id": event_id, "received_at": now}
    dialect = session.get_bind().dialect.name
    if dialect in ON_CONFLICT_DIALECTS:
        dialect_insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
        # Only a primary-key conflict is ignored; a foreign-key violation (unknown listener) still raises.
        # RETURNING tells whether a row went in (rowcount is not reported for this statement everywhere).
        stmt = (
            dialect_insert(table)
            .values(values)
            .on_conflict_do_nothing(index_elements=["listener_id", "event_id"])
            .returning(table.c.event_id)
        )
        return session.execute(stmt).first() is not None
    # Other backends: let the constraint fail, in a savepoint so the transaction survives.
    try:
        with session.begin_nested():
            session.execute(insert(table).values(values))
    except IntegrityError:
        if session.get(WebhookEvent, (listener_id, event_id)) is None:
            raise  # not a duplicate: some other constraint
        return False
    return True


def record_delivery(
    session_factory: sessionmaker[Session],
    *,
    listener_id: str,
    event_id: str,
    payload: Any,
    now: datetime,
    run: Callable[[], RunOutcome],
) -> DeliveryResult:
    """Record event `event_id` for `listener_id` and run its automation, exactly once.

    One transaction holds the event record and the run row. A concurrent delivery of the same event
    waits on the first one's uncommitted row and then sees the conflict, so `run` is called at most once
    per committed event. If `run` raises, nothing is committed and a retry is accepted.
    """
    with session_factory() as session, session.begin():
        if not _claim_event(session, listener_id, event_id, now):
            return DeliveryResult(accepted=False)
        status, reason, outputs = run()
        if status not in RUN_STATUSES:
            raise ValueError(f"automation status must be one of {RUN_STATUSES}, not {status!r}")
        row = AutomationRun(
            id=ids.sortable_id(now),
            listener_id=listener_id,
            event_id=event_id,
            status=status,
            reason=reason,
            context=payload,
            outputs=dict(outputs),
            created_at=now,
        )
        session.add(row)
    return DeliveryResult(accepted=True, run=row)


def purge_events(session: Session, *, now: datetime, retention: timedelta = EVENT_RETENTION) -> int:
    """Delete event records received more than `retention` before `now` (their ids are accepted again);
    returns how many. Runs are kept. The caller commits."""
    result = session.execute(delete(WebhookEvent).where(WebhookEvent.received_at < now - retention))
    return result.rowcount


def event_seen(session: Session, listener_id: str, event_id: str) -> bool:
    """Whether an event record exists (diagnostics; deliveries must use `record_delivery`)."""
    return session.get(WebhookEvent, (listener_id, event_id)) is not None


def get_run(session: Session, run_id: str) -> AutomationRun | None:
    return session.get(AutomationRun, run_id)


def list_runs(session: Session, listener_id: str | None = None, limit: int = 50) -> list[AutomationRun]:
    """The newest runs first, of one listener or of all."""
    stmt = select(AutomationRun).order_by(AutomationRun.created_at.desc(), AutomationRun.id.desc()).limit(limit)
    if listener_id is not None:
        stmt = stmt.where(AutomationRun.listener_id == listener_id)
    return list(session.scalars(stmt))
