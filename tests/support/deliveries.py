"""Webhook deliveries recorded straight into a database, as the server records them (the writer's batch unit)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from accessgov.storage import events
from accessgov.storage.schema import WebhookEvent
from accessgov.storage.statement_steps import drive_in


def record_deliveries(session: Session, deliveries: Sequence[events.Delivery]) -> list[events.DeliveryResult]:
    """The steps the server's database records `deliveries` with (`Database.delivery_steps`: a claim per event on
    PostgreSQL, one look-up under SQLite's write lock), in `session`'s transaction (the caller commits)."""
    dialect = session.connection().dialect
    steps = events.claim_each if dialect.name == "postgresql" else events.record_looked_up
    return drive_in(session, steps(dialect, list(deliveries)))


def record_delivery(
    session: Session, *, listener_id: str, event_id: str, payload: Any, now: datetime, skip_reason: str | None = None
) -> events.DeliveryResult:
    """One delivery: its event recorded and its run queued (SKIPPED with `skip_reason`), or a duplicate."""
    delivery = events.Delivery(listener_id, event_id, payload, now, skip_reason)
    return record_deliveries(session, [delivery])[0]


def event_seen(session: Session, listener_id: str, event_id: str) -> bool:
    """Whether the event's record exists (it is purged after the retention period)."""
    return session.get(WebhookEvent, (listener_id, event_id)) is not None
