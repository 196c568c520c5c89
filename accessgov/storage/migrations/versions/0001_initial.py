"""Initial schema: webhook listeners and idempotency, tasks, directory documents, entitlements, credentials.

Revision ID: 0001
Revises:
Create Date: 2026-11-23

Frozen: it spells out its types instead of importing the models, so later model changes need a new
revision (the models/migration equality test says when).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

UTC_DATETIME = sa.DateTime(timezone=True)


def _sort_key(length: int) -> sa.types.TypeEngine[str]:
    # Bytewise order on PostgreSQL too, as SQLite's BINARY collation: keyset paging order is the same.
    return sa.String(length).with_variant(sa.String(length, collation="C"), "postgresql")


def _document_table(name: str, id_length: int) -> None:
    op.create_table(
        name,
        sa.Column("id", sa.String(id_length), nullable=False),
        sa.Column("document", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f(f"pk_{name}")),
    )


def upgrade() -> None:
    op.create_table(
        "listeners",
        sa.Column("id", sa.String(128), nullable=False),
        sa.Column("auth_method", sa.String(8), nullable=False),
        sa.Column("hmac_secret", sa.String(512), nullable=True),
        sa.Column("jwks_url", sa.String(2048), nullable=True),
        sa.Column("allowed_cidrs", sa.JSON(), nullable=False),
        sa.Column("automation_id", sa.String(64), nullable=False),
        sa.Column("automation_name", sa.String(256), nullable=False),
        sa.Column("automation_steps", sa.JSON(), nullable=False),
        sa.Column("automation_published", sa.Boolean(), nullable=False),
        sa.Column("trigger_enabled", sa.Boolean(), nullable=False),
        sa.Column("created_at", UTC_DATETIME, nullable=False),
        sa.Column("updated_at", UTC_DATETIME, nullable=False),
        sa.CheckConstraint("auth_method IN ('HMAC', 'JWT')", name=op.f("ck_listeners_auth_method")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_listeners")),
    )
    op.create_table(
        "webhook_events",
        sa.Column("listener_id", sa.String(128), nullable=False),
        sa.Column("event_id", sa.String(128), nullable=False),
        sa.Column("received_at", UTC_DATETIME, nullable=False),
        sa.ForeignKeyConstraint(
            ["listener_id"],
            ["listeners.id"],
            name=op.f("fk_webhook_events_listener_id_listeners"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("listener_id", "event_id", name=op.f("pk_webhook_events")),
    )
    op.create_index(op.f("ix_webhook_events_received_at"), "webhook_events", ["received_at"])
    op.create_table(
        "automation_runs",
        sa.Column("id", sa.String(64), nullable=False),
        sa.Column("listener_id", sa.String(128), nullable=False),
        sa.Column("event_id", sa.String(128), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.Column("context", sa.JSON(), nullable=False),
        sa.Column("outputs", sa.JSON(), nullable=False),
        sa.Column("created_at", UTC_DATETIME, nullable=False),
        sa.CheckConstraint("status IN ('SUCCEEDED', 'SKIPPED', 'FAILED')", name=op.f("ck_automation_runs_status")),
        sa.ForeignKeyConstraint(
            ["listener_id"],
            ["listeners.id"],
            name=op.f("fk_automation_runs_listener_id_listeners"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_automation_runs")),
    )
    op.create_index(op.f("ix_automation_runs_listener_id_created_at"), "automation_runs", ["listener_id", "created_at"])

    op.create_table(
        "tasks",
        sa.Column("id", sa.String(128), nullable=False),
        sa.Column("numeric_id", sa.BigInteger(), nullable=False),
        sa.Column("document", sa.JSON(), nullable=False),
        sa.Column("updated_at", UTC_DATETIME, nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tasks")),
        sa.UniqueConstraint("numeric_id", name=op.f("uq_tasks_numeric_id")),
    )
    op.create_table(
        "task_actions",
        sa.Column("id", sa.String(64), nullable=False),
        sa.Column("task_id", sa.String(128), nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("comment", sa.Text(), nullable=True),
        sa.Column("actor", sa.String(256), nullable=False),
        sa.Column("created_at", UTC_DATETIME, nullable=False),
        sa.ForeignKeyConstraint(
            ["task_id"], ["tasks.id"], name=op.f("fk_task_actions_task_id_tasks"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_task_actions")),
    )
    op.create_index(op.f("ix_task_actions_task_id_created_at"), "task_actions", ["task_id", "created_at"])

    _document_table("users", 128)
    _document_table("apps", 128)
    _document_table("app_users", 256)
    _document_table("policies", 128)
    op.create_table(
        "app_entitlements",
        sa.Column("app_id", _sort_key(128), nullable=False),
        sa.Column("id", _sort_key(128), nullable=False),
        sa.Column("document", sa.JSON(), nullable=False),
        sa.Column("created_at", UTC_DATETIME, nullable=False),
        # The keyset index: WHERE app_id = ? AND id > ? ORDER BY id LIMIT n.
        sa.PrimaryKeyConstraint("app_id", "id", name=op.f("pk_app_entitlements")),
    )

    op.create_table(
        "api_tokens",
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("name", sa.String(256), nullable=False),
        sa.Column("roles", sa.JSON(), nullable=False),
        sa.Column("created_at", UTC_DATETIME, nullable=False),
        sa.PrimaryKeyConstraint("token_hash", name=op.f("pk_api_tokens")),
    )
    op.create_table(
        "oauth_clients",
        sa.Column("client_id", sa.String(256), nullable=False),
        sa.Column("secret_hash", sa.String(64), nullable=False),
        sa.Column("roles", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("client_id", name=op.f("pk_oauth_clients")),
    )
    op.create_table(
        "oauth_access_tokens",
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("client_id", sa.String(256), nullable=False),
        sa.Column("roles", sa.JSON(), nullable=False),
        sa.Column("expires_at", UTC_DATETIME, nullable=False),
        sa.PrimaryKeyConstraint("token_hash", name=op.f("pk_oauth_access_tokens")),
    )
    op.create_index(op.f("ix_oauth_access_tokens_expires_at"), "oauth_access_tokens", ["expires_at"])
    op.create_table(
        "settings",
        sa.Column("key", sa.String(128), nullable=False),
        sa.Column("value", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_settings")),
    )


def downgrade() -> None:
    for table in (
        "settings",
        "oauth_access_tokens",
        "oauth_clients",
        "api_tokens",
        "app_entitlements",
        "policies",
        "app_users",
        "apps",
        "users",
        "task_actions",
        "tasks",
        "automation_runs",
        "webhook_events",
        "listeners",
    ):
        op.drop_table(table)  # their indexes go with them
