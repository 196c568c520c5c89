"""Automation runs leave the delivery transaction: queued runs (an outbox) claimed by runners with a lease.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-23
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

OLD_STATUSES = "status IN ('SUCCEEDED', 'SKIPPED', 'FAILED')"
NEW_STATUSES = "status IN ('QUEUED', 'RUNNING', 'SUCCEEDED', 'SKIPPED', 'FAILED')"


def upgrade() -> None:
    # batch mode: SQLite cannot alter a CHECK constraint in place, so the table is copied.
    with op.batch_alter_table("automation_runs") as batch:
        batch.drop_constraint(op.f("ck_automation_runs_status"), type_="check")
        batch.create_check_constraint(op.f("ck_automation_runs_status"), NEW_STATUSES)
        batch.add_column(sa.Column("attempts", sa.Integer(), nullable=False, server_default="0"))
        batch.add_column(sa.Column("lease_until", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True))
    op.create_index(op.f("ix_automation_runs_status_created_at"), "automation_runs", ["status", "created_at"])


def downgrade() -> None:
    op.drop_index(op.f("ix_automation_runs_status_created_at"), "automation_runs")
    op.execute("UPDATE automation_runs SET status = 'FAILED' WHERE status IN ('QUEUED', 'RUNNING')")
    with op.batch_alter_table("automation_runs") as batch:
        batch.drop_column("finished_at")
        batch.drop_column("lease_until")
        batch.drop_column("attempts")
        batch.drop_constraint(op.f("ck_automation_runs_status"), type_="check")
        batch.create_check_constraint(op.f("ck_automation_runs_status"), OLD_STATUSES)
