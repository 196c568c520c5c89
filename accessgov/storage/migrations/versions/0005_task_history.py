"""A task's policy history in rows of its own (`task_history_steps`), appended to by a restart, instead of inside
the task's document, which every restart rewrote whole (its cost grew with the history).

The data step runs here, in Python (`storage.task_history.split` / `join`), a batch of tasks at a time.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-25
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BATCH = 500
TASKS = sa.table(
    "tasks",
    sa.column("id", sa.String(128)),
    sa.column("document", sa.JSON()),
    sa.column("history_start", sa.BigInteger()),
    sa.column("history_length", sa.Integer()),
)
STEPS = sa.table(
    "task_history_steps",
    sa.column("task_id", sa.String(128)),
    sa.column("position", sa.BigInteger()),
    sa.column("step", sa.JSON()),
)


def upgrade() -> None:
    with op.batch_alter_table("tasks") as batch:
        batch.add_column(sa.Column("history_start", sa.BigInteger(), nullable=False, server_default="0"))
        batch.add_column(sa.Column("history_length", sa.Integer(), nullable=False, server_default="0"))
    op.create_table(
        "task_history_steps",
        sa.Column("task_id", sa.String(128), nullable=False),
        sa.Column("position", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("step", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(
            ["task_id"], ["tasks.id"], name=op.f("fk_task_history_steps_task_id_tasks"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("task_id", "position", name=op.f("pk_task_history_steps")),
    )
    from accessgov.storage.task_history import split

    connection = op.get_bind()
    after = ""
    while rows := connection.execute(
        sa.select(TASKS.c.id, TASKS.c.document).where(TASKS.c.id > after).order_by(TASKS.c.id).limit(BATCH)
    ).all():
        for task_id, document in rows:
            stripped, steps = split(document)
            if not steps:
                continue
            connection.execute(
                TASKS.update()
                .where(TASKS.c.id == task_id)
                .values(document=stripped, history_start=0, history_length=len(steps))
            )
            connection.execute(
                STEPS.insert(), [{"task_id": task_id, "position": n, "step": step} for n, step in enumerate(steps)]
            )
        after = rows[-1][0]


def downgrade() -> None:
    from accessgov.storage.task_history import join

    connection = op.get_bind()
    tasks = connection.execute(
        sa.select(TASKS.c.id, TASKS.c.document, TASKS.c.history_start, TASKS.c.history_length).where(
            TASKS.c.history_length > 0
        )
    ).all()
    for task_id, document, start, length in tasks:
        steps = connection.execute(
            sa.select(STEPS.c.step)
            .where(STEPS.c.task_id == task_id, STEPS.c.position >= start, STEPS.c.position < start + length)
            .order_by(STEPS.c.position)
        ).scalars()
        connection.execute(TASKS.update().where(TASKS.c.id == task_id).values(document=join(document, list(steps))))
    op.drop_table("task_history_steps")
    with op.batch_alter_table("tasks") as batch:
        batch.drop_column("history_length")
        batch.drop_column("history_start")
