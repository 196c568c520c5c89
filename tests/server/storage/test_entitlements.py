"""Keyset paging of app entitlements (the statements the list operation runs) and their bulk insert."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from accessgov.storage import directory, entitlements
from accessgov.storage.prepared import PreparedQuery
from accessgov.storage.schema import AppEntitlement
from tests.server.storage.conftest import NOW

APP = "app-github"


def doc(n: int, app_id: str = APP) -> dict[str, Any]:
    return {"id": f"ent-{n:07d}", "appId": app_id, "displayName": f"Entitlement {n}", "slug": f"e-{n}"}


def page_after(session: Session, app_id: str, after: str | None, limit: int) -> list[str]:
    """The ids of one page as the list operation reads them (`FIRST_ROWS`/`NEXT_ROWS`, prepared for the dialect)."""
    dialect = session.get_bind().dialect
    statement, values = (entitlements.FIRST_ROWS, {}) if after is None else (entitlements.NEXT_ROWS, {"after": after})
    dbapi = session.connection().connection.driver_connection
    return [key for key, _text in PreparedQuery(statement, dialect).run(dbapi, app_id=app_id, limit=limit, **values)]


def walk(
    sessions: sessionmaker[Session], page_size: int, between_pages: Callable[[str], None] | None = None
) -> list[str]:
    """Every id reachable page by page, each page in its own session (as separate requests would be)."""
    seen: list[str] = []
    after: str | None = None
    while True:
        with sessions() as session:
            page = page_after(session, APP, after, page_size)
        if not page:
            return seen
        seen += page
        after = page[-1]
        if between_pages:
            between_pages(after)


def test_walk_returns_every_entitlement_once_in_order(sessions: sessionmaker[Session]) -> None:
    with sessions.begin() as session:
        assert entitlements.insert_entitlements(session, APP, (doc(n) for n in range(2500, 0, -1)), now=NOW) == 2500
        entitlements.insert_entitlements(session, "app-other", [doc(n, "app-other") for n in range(1, 50)])
    ids = walk(sessions, page_size=100)
    assert ids == [f"ent-{n:07d}" for n in range(1, 2501)]
    with sessions() as session:
        assert session.scalar(sa.select(sa.func.count()).where(AppEntitlement.app_id == APP)) == 2500
        assert page_after(session, APP, None, 1) == ["ent-0000001"]
        first = session.get(AppEntitlement, (APP, "ent-0000001"))
        assert first is not None and first.document == doc(1)
        assert first.created_at == NOW


def test_inserts_between_pages_cause_no_duplicates_or_skips(sessions: sessionmaker[Session]) -> None:
    """Existing rows: even numbers. Between pages, odd ids land just behind and just ahead of the cursor."""
    with sessions.begin() as session:
        entitlements.insert_entitlements(session, APP, [doc(n) for n in range(2, 5001, 2)])
    behind: list[str] = []
    ahead: list[str] = []

    def insert_around(cursor: str) -> None:
        n = int(cursor.removeprefix("ent-"))
        new = [m for m in (n - 1, n + 1, n - 301, n + 777) if 0 < m < 5001]
        with sessions.begin() as session:
            entitlements.insert_entitlements(session, APP, [doc(m) for m in new])
        behind.extend(f"ent-{m:07d}" for m in new if m < n)
        ahead.extend(f"ent-{m:07d}" for m in new if m > n)

    ids = walk(sessions, page_size=97, between_pages=insert_around)
    assert ids == sorted(ids) and len(ids) == len(set(ids)), "ids must come strictly increasing, never twice"
    existing = [f"ent-{n:07d}" for n in range(2, 5001, 2)]
    assert set(existing) <= set(ids), "a pre-existing entitlement was skipped"
    assert not set(behind) & set(ids), "rows inserted behind the cursor cannot show up"
    assert set(ahead) <= set(ids), "rows inserted ahead of the cursor show up once"
    assert set(ids) == set(existing) | set(ahead)


def test_after_an_id_that_does_not_exist(sessions: sessionmaker[Session]) -> None:
    with sessions.begin() as session:
        entitlements.insert_entitlements(session, APP, [doc(n) for n in (10, 20, 30)])
    with sessions() as session:
        assert page_after(session, APP, "ent-0000015", 10) == ["ent-0000020", "ent-0000030"]
        assert page_after(session, APP, "ent-0000030", 10) == []
        assert page_after(session, "app-none", None, 10) == []


def test_order_is_bytewise(sessions: sessionmaker[Session]) -> None:
    """Same order on SQLite and PostgreSQL whatever the locale: uppercase before lowercase, '-' before digits."""
    names = ["b", "B", "a-1", "a1", "a_1", "A", "é"]
    with sessions.begin() as session:
        entitlements.insert_entitlements(session, APP, [{"id": name} for name in names])
    assert walk(sessions, page_size=2) == sorted(names, key=lambda s: s.encode())


def test_insert_rejects_bad_documents_and_duplicates(sessions: sessionmaker[Session]) -> None:
    with sessions() as session:
        with pytest.raises(ValueError, match="without a string id"):
            entitlements.insert_entitlements(session, APP, [{"displayName": "x"}])
        with pytest.raises(ValueError, match="belongs to app"):
            entitlements.insert_entitlements(session, APP, [doc(1, "app-okta")])
        entitlements.insert_entitlements(session, APP, [doc(1)])  # the transaction is still usable
        session.commit()
        with pytest.raises(IntegrityError):
            entitlements.insert_entitlements(session, APP, [doc(2), doc(1)])
        with pytest.raises(ValueError, match="without a string id"):
            entitlements.insert_entitlements(session, APP, [doc(3), {"id": None}], batch_size=1)
        entitlements.insert_entitlements(session, APP, [doc(4)])
        session.commit()
    with sessions() as session:  # each failed call left nothing behind
        assert page_after(session, APP, None, 10) == ["ent-0000001", "ent-0000004"]


def test_app_exists_and_entitlement_lookup(sessions: sessionmaker[Session]) -> None:
    with sessions.begin() as session:
        directory.put_document(session, "app", {"id": APP, "displayName": "GitHub"})
        entitlements.insert_entitlements(session, APP, [doc(7)])
    with sessions() as session:
        assert entitlements.app_exists(session, APP)
        assert not entitlements.app_exists(session, "app-none")
        assert directory.app_exists(session, APP)
        assert entitlements.get_entitlement(session, APP, "ent-0000007") == doc(7)
        assert directory.get_entitlement(session, APP, "ent-0000008") is None
        assert directory.get_entitlement(session, "app-okta", "ent-0000007") is None
