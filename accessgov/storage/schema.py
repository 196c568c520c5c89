"""Declarative models of every table; `migrations/versions/` creates exactly these (a test holds them equal).

API resources are kept whole as JSON documents (camelCase, as the API returns them); only what is
queried gets its own column and index.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, ClassVar

import sqlalchemy as sa
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

# Named constraints, so the migration and the models agree on names on every backend.
NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

AUTH_METHODS = ("HMAC", "JWT")
FINAL_RUN_STATUSES = ("SUCCEEDED", "SKIPPED", "FAILED")


class UTCDateTime(sa.TypeDecorator[datetime]):
    """`DateTime(timezone=True)` that stores UTC and returns aware UTC datetimes (SQLite keeps no offset); naive input
    is rejected rather than guessed."""

    impl = sa.DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None or value.utcoffset() is None:
            raise ValueError(f"naive datetime {value!r}: pass an aware (UTC) datetime")
        return value.astimezone(UTC)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)

    def bind_processor(self, dialect: Dialect) -> Callable[[datetime | None], Any] | None:
        """A value already in UTC straight to the driver's own processor (a backend's: SQLite's text is
        `storage.sqlite`'s), any other through `process_bind_param` first."""
        check = self.process_bind_param
        driver = self.impl_instance.bind_processor(dialect)
        if driver is None:

            def checked(value: datetime | None) -> Any:
                return value if value is None or value.tzinfo is UTC else check(value, dialect)

            return checked

        def process(value: datetime | None) -> Any:
            if value is not None and value.tzinfo is not UTC:
                value = check(value, dialect)
            return driver(value)

        return process


def sort_key_string(length: int) -> sa.types.TypeEngine[str]:
    """A string compared bytewise on every backend (SQLite's BINARY is already bytewise; PostgreSQL's
    default collation may not be), so keyset order is identical and index-friendly everywhere."""
    return sa.String(length).with_variant(sa.String(length, collation="C"), "postgresql")


class Base(DeclarativeBase):
    if TYPE_CHECKING:  # every model here maps a Table (SQLAlchemy types `__table__` as any FromClause)
        __table__: ClassVar[sa.Table]
    metadata = sa.MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map: ClassVar[dict[Any, Any]] = {
        datetime: UTCDateTime(),
        dict[str, Any]: sa.JSON(),
        list[Any]: sa.JSON(),
    }


class Listener(Base):
    """An inbound webhook listener and the automation it triggers."""

    __tablename__ = "listeners"
    __table_args__ = (sa.CheckConstraint("auth_method IN ('HMAC', 'JWT')", name="auth_method"),)

    id: Mapped[str] = mapped_column(sa.String(128), primary_key=True)  # the spec allows 128
    auth_method: Mapped[str] = mapped_column(sa.String(8))
    # Sealed (AES-GCM under the keyring, `accessgov.keys`), never plaintext: a copy of the database alone
    # reveals no signing secret. The previous secret stays valid until `previous_secret_expires_at` (rotation
    # with overlap), then the hourly purge drops it.
    hmac_secret_sealed: Mapped[str | None] = mapped_column(sa.String(512))
    previous_hmac_secret_sealed: Mapped[str | None] = mapped_column(sa.String(512))
    previous_secret_expires_at: Mapped[datetime | None] = mapped_column()
    jwks_url: Mapped[str | None] = mapped_column(sa.String(2048))
    allowed_cidrs: Mapped[list[Any]] = mapped_column()
    automation_id: Mapped[str] = mapped_column(sa.String(64))
    automation_name: Mapped[str] = mapped_column(sa.String(256))
    # [{"name": str, "expression": str}, ...]: CEL, evaluated by the service.
    automation_steps: Mapped[list[Any]] = mapped_column()
    automation_published: Mapped[bool] = mapped_column()
    trigger_enabled: Mapped[bool] = mapped_column()
    created_at: Mapped[datetime] = mapped_column()
    updated_at: Mapped[datetime] = mapped_column()


class WebhookEvent(Base):
    """One received event id per listener: the primary key is the idempotency guarantee."""

    __tablename__ = "webhook_events"

    listener_id: Mapped[str] = mapped_column(
        sa.String(128), sa.ForeignKey("listeners.id", ondelete="CASCADE"), primary_key=True
    )
    event_id: Mapped[str] = mapped_column(sa.String(128), primary_key=True)
    received_at: Mapped[datetime] = mapped_column(index=True)  # purge scans by age


class AutomationRun(Base):
    """One run of a listener's automation for one accepted event: queued in the delivery's transaction (the
    outbox), then claimed by a runner under a lease (`RUNNING`) and finished (`SUCCEEDED`/`FAILED`), or
    recorded `SKIPPED` at once when the automation is unpublished or its trigger disabled."""

    __tablename__ = "automation_runs"
    __table_args__ = (
        sa.CheckConstraint("status IN ('QUEUED', 'RUNNING', 'SUCCEEDED', 'SKIPPED', 'FAILED')", name="status"),
        sa.Index(None, "listener_id", "created_at"),
        sa.Index(None, "status", "created_at"),  # runners claim the oldest queued runs
    )

    id: Mapped[str] = mapped_column(sa.String(64), primary_key=True)
    # No foreign key to webhook_events: runs outlive the purged idempotency records.
    listener_id: Mapped[str] = mapped_column(sa.String(128), sa.ForeignKey("listeners.id", ondelete="CASCADE"))
    event_id: Mapped[str] = mapped_column(sa.String(128))
    status: Mapped[str] = mapped_column(sa.String(16))
    reason: Mapped[str | None] = mapped_column(sa.Text)
    context: Mapped[Any] = mapped_column(sa.JSON)
    outputs: Mapped[dict[str, Any]] = mapped_column()
    created_at: Mapped[datetime] = mapped_column()
    attempts: Mapped[int] = mapped_column(sa.Integer, server_default="0")
    # A runner owns a RUNNING run until then; past it, another runner may claim the run again.
    lease_until: Mapped[datetime | None] = mapped_column()
    finished_at: Mapped[datetime | None] = mapped_column()


class Task(Base):
    """A task; `document` is the Task resource as the API returns it, but its policy's history is `[]`: the steps are
    rows of `task_history_steps` at positions `history_start` up to `history_start + history_length`."""

    __tablename__ = "tasks"

    id: Mapped[str] = mapped_column(sa.String(128), primary_key=True)
    numeric_id: Mapped[int] = mapped_column(sa.BigInteger, unique=True)
    document: Mapped[dict[str, Any]] = mapped_column()
    updated_at: Mapped[datetime] = mapped_column()
    history_start: Mapped[int] = mapped_column(sa.BigInteger, server_default="0")
    history_length: Mapped[int] = mapped_column(sa.Integer, server_default="0")


class TaskHistoryStep(Base):
    """One step of a task's policy history. Never changed once written: a history replaced as a whole gets rows at
    new positions, so a (task, position) pair always means the same step (caches rely on it)."""

    __tablename__ = "task_history_steps"

    task_id: Mapped[str] = mapped_column(
        sa.String(128), sa.ForeignKey("tasks.id", ondelete="CASCADE"), primary_key=True
    )
    position: Mapped[int] = mapped_column(sa.BigInteger, primary_key=True, autoincrement=False)
    step: Mapped[Any] = mapped_column(sa.JSON, nullable=False)


class TaskAction(Base):
    """An action taken on a task (restart, comment, ...), kept as an audit trail."""

    __tablename__ = "task_actions"
    __table_args__ = (sa.Index(None, "task_id", "created_at"),)

    id: Mapped[str] = mapped_column(sa.String(64), primary_key=True)
    task_id: Mapped[str] = mapped_column(sa.String(128), sa.ForeignKey("tasks.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(sa.String(32))
    comment: Mapped[str | None] = mapped_column(sa.Text)
    actor: Mapped[str] = mapped_column(sa.String(256))
    created_at: Mapped[datetime] = mapped_column()


class User(Base):
    __tablename__ = "users"

    id: Mapped[str] = mapped_column(sa.String(128), primary_key=True)
    document: Mapped[dict[str, Any]] = mapped_column()


class App(Base):
    __tablename__ = "apps"

    id: Mapped[str] = mapped_column(sa.String(128), primary_key=True)
    document: Mapped[dict[str, Any]] = mapped_column()


class AppUser(Base):
    """An app's account of a user (what a task's `appUserId` points at)."""

    __tablename__ = "app_users"

    id: Mapped[str] = mapped_column(sa.String(256), primary_key=True)
    document: Mapped[dict[str, Any]] = mapped_column()


class Policy(Base):
    __tablename__ = "policies"

    id: Mapped[str] = mapped_column(sa.String(128), primary_key=True)
    document: Mapped[dict[str, Any]] = mapped_column()


class DirectoryObject(Base):
    """Related objects of the kinds without a table of their own, keyed by (kind, id)."""

    __tablename__ = "directory_objects"

    kind: Mapped[str] = mapped_column(sa.String(64), primary_key=True)
    id: Mapped[str] = mapped_column(sa.String(256), primary_key=True)
    document: Mapped[dict[str, Any]] = mapped_column()


class AppEntitlement(Base):
    """Entitlements of an app. The composite primary key (app_id, id) is the index behind keyset paging:
    `WHERE app_id = ? AND id > ? ORDER BY id LIMIT n` is a range scan of it, with no sort."""

    __tablename__ = "app_entitlements"

    # No foreign key to apps: bulk seeding (millions of rows) must not depend on insertion order.
    app_id: Mapped[str] = mapped_column(sort_key_string(128), primary_key=True)
    id: Mapped[str] = mapped_column(sort_key_string(128), primary_key=True)
    document: Mapped[dict[str, Any]] = mapped_column()
    created_at: Mapped[datetime] = mapped_column()


class ApiToken(Base):
    """A static API token, stored only as its SHA-256."""

    __tablename__ = "api_tokens"

    token_hash: Mapped[str] = mapped_column(sa.String(64), primary_key=True)
    name: Mapped[str] = mapped_column(sa.String(256))
    roles: Mapped[list[Any]] = mapped_column()
    created_at: Mapped[datetime] = mapped_column()


class OAuthClient(Base):
    """An OAuth2 client-credentials client; the secret is stored only as its SHA-256."""

    __tablename__ = "oauth_clients"

    client_id: Mapped[str] = mapped_column(sa.String(256), primary_key=True)
    secret_hash: Mapped[str] = mapped_column(sa.String(64))
    roles: Mapped[list[Any]] = mapped_column()


class OAuthAccessToken(Base):
    """An issued access token, stored only as its SHA-256."""

    __tablename__ = "oauth_access_tokens"

    token_hash: Mapped[str] = mapped_column(sa.String(64), primary_key=True)
    client_id: Mapped[str] = mapped_column(sa.String(256))
    roles: Mapped[list[Any]] = mapped_column()
    expires_at: Mapped[datetime] = mapped_column(index=True)  # purge scans by expiry


class Setting(Base):
    """Server-wide values shared by every worker (e.g. the page-token keys, sealed like listener secrets)."""

    __tablename__ = "settings"

    key: Mapped[str] = mapped_column(sa.String(128), primary_key=True)
    value: Mapped[str] = mapped_column(sa.Text)
