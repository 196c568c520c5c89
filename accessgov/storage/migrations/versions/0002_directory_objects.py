"""Directory objects of other kinds (access reviews, insights, usage, scope bindings, resources).

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-23
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "directory_objects",
        sa.Column("kind", sa.String(64), nullable=False),
        sa.Column("id", sa.String(256), nullable=False),
        sa.Column("document", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("kind", "id", name=op.f("pk_directory_objects")),
    )


def downgrade() -> None:
    op.drop_table("directory_objects")
