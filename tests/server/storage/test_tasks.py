"""Tasks by id or numeric id, task actions, and directory documents."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from accessgov.storage import directory, tasks
from accessgov.storage.schema import Task
from tests.server.storage.conftest import NOW, DrivenTaskWrites
from tests.support import stored_tasks

TASK_ID = "2bXyZ0000000000000000000001"


def task_doc(task_id: str = TASK_ID, numeric: Any = "1001", **extra: Any) -> dict[str, Any]:
    return {"id": task_id, "numericId": numeric, "displayName": "Grant task", "state": "TASK_STATE_OPEN", **extra}


@pytest.fixture
def saved(sessions: sessionmaker[Session]) -> None:
    with sessions.begin() as session:
        tasks.save_task(session, TASK_ID, task_doc(), now=NOW)
        tasks.save_task(session, "12345", task_doc("12345", 77))  # an all-digit id that is not a numeric id


LOOKUPS = [
    (TASK_ID, TASK_ID),
    ("1001", TASK_ID),
    ("12345", "12345"),  # the id wins over a numeric reading
    ("77", "12345"),
    ("01001", TASK_ID),
    ("1002", None),
    ("", None),
    ("-1001", None),
    ("1001.0", None),
    ("\u0661\u0660\u0660\u0661", None),  # Arabic-Indic digits: str.isdigit() says yes, the API says no
    ("9223372036854775808", None),  # int64 max + 1
    ("9" * 5000, None),
]


@pytest.mark.usefixtures("saved")
def test_a_task_is_found_by_id_or_numeric_id(sessions: sessionmaker[Session]) -> None:
    # One database for all cases (a table, not a parametrization: each database costs a migration).
    with sessions.begin() as session:
        for given, found in LOOKUPS:
            task = DrivenTaskWrites(session).lock(given)
            assert (task[0] if task else None) == found, f"looking up {given[:30]!r}"


@pytest.mark.usefixtures("saved")
def test_save_replaces_the_document_and_its_numeric_id(sessions: sessionmaker[Session]) -> None:
    later = NOW + timedelta(minutes=5)
    with sessions.begin() as session:
        tasks.save_task(session, TASK_ID, task_doc(state="TASK_STATE_CLOSED", numeric=2002), now=later)
    with sessions.begin() as session:
        writes = DrivenTaskWrites(session)
        assert writes.lock("1001") is None
        assert writes.lock("2002") == (TASK_ID, task_doc(state="TASK_STATE_CLOSED", numeric=2002))
        saved = session.get(Task, TASK_ID)
        assert saved is not None and (saved.numeric_id, saved.updated_at) == (2002, later)


INVALID_TASKS = [
    (task_doc(numeric=None), "numericId"),
    (task_doc(numeric="12a"), "numericId"),
    (task_doc(numeric=-1), "numericId"),
    (task_doc(numeric=True), "numericId"),
    (task_doc("other-id"), "does not match"),
]


def test_save_task_validates(sessions: sessionmaker[Session]) -> None:
    with sessions() as session:
        for document, message in INVALID_TASKS:
            with pytest.raises(ValueError, match=message):
                tasks.save_task(session, TASK_ID, document)


@pytest.mark.usefixtures("saved")
def test_numeric_ids_are_unique(sessions: sessionmaker[Session]) -> None:
    with sessions() as session, pytest.raises(IntegrityError):
        tasks.save_task(session, "another", task_doc("another", "1001"))


@pytest.mark.usefixtures("saved")
def test_task_actions_are_recorded_in_order(sessions: sessionmaker[Session]) -> None:
    with sessions.begin() as session:
        writes = DrivenTaskWrites(session)
        first = writes.record_action(task_id=TASK_ID, kind="RESTART", comment="again", actor="api-token", now=NOW)
        second = writes.record_action(
            task_id=TASK_ID, kind="COMMENT", comment=None, actor="u", now=NOW + timedelta(seconds=1)
        )
    assert first < second, "ids sort by time"
    with sessions() as session:
        actions = stored_tasks.list_task_actions(session, TASK_ID)
    assert [(a.kind, a.comment, a.actor, a.created_at) for a in actions] == [
        ("RESTART", "again", "api-token", NOW),
        ("COMMENT", None, "u", NOW + timedelta(seconds=1)),
    ]
    with sessions() as session, pytest.raises(IntegrityError, match=r"(?i)foreign key"):  # no such task
        DrivenTaskWrites(session).record_action(task_id="missing", kind="RESTART", comment=None, actor="x", now=NOW)


def test_directory_documents(sessions: sessionmaker[Session]) -> None:
    with sessions.begin() as session:
        directory.put_document(session, "user", {"id": "user-1", "displayName": "Ada"})
        directory.put_document(session, "app", {"id": "app-1", "displayName": "GitHub"})
        directory.put_document(session, "policy", {"id": "policy-1", "displayName": "Grant"})
        assert directory.put_documents(session, "app_user", [{"id": "au-1"}, {"id": "au-2"}]) == 2
    with sessions.begin() as session:
        directory.put_document(session, "user", {"id": "user-1", "displayName": "Ada Lovelace"})  # replaces
    with sessions() as session:
        assert directory.get_document(session, "user", "user-1") == {"id": "user-1", "displayName": "Ada Lovelace"}
        assert directory.get_document(session, "app", "app-1") == {"id": "app-1", "displayName": "GitHub"}
        assert directory.get_document(session, "policy", "policy-1") == {"id": "policy-1", "displayName": "Grant"}
        assert directory.get_document(session, "app_user", "au-2") == {"id": "au-2"}
        assert directory.get_document(session, "user", "user-2") is None
        assert directory.get_document(session, "insight", "insight-1") is None
    with sessions.begin() as session:
        directory.put_document(session, "insight", {"id": "insight-1", "score": 3})  # a generic directory kind
        directory.put_document(session, "resource", {"id": "insight-1"})  # same id, other kind: independent
    with sessions() as session:
        assert directory.get_document(session, "insight", "insight-1") == {"id": "insight-1", "score": 3}
        assert directory.get_document(session, "resource", "insight-1") == {"id": "insight-1"}
        with pytest.raises(ValueError, match="without a string id"):
            directory.put_document(session, "user", {"displayName": "nobody"})


@pytest.mark.usefixtures("saved")
def test_task_writes_lock_replace_and_record(sessions: sessionmaker[Session]) -> None:
    """The restart path's statements on the transaction's DBAPI connection, on every backend."""
    later = NOW + timedelta(minutes=1)
    with sessions.begin() as session:
        writes = DrivenTaskWrites(session)
        assert writes.lock("nope") is None and writes.lock("1002") is None
        row_id, document = writes.lock("1001")
        assert (row_id, document) == (TASK_ID, task_doc())
        changed = {**document, "displayName": "Renamed", "policy": {"history": [{"id": "s-1"}]}}
        writes.replace(row_id, changed, later)
        action_id = writes.record_action(task_id=row_id, kind="RESTART", comment=None, actor="demo", now=later)
        assert writes.policy("policy-none") is None
    with sessions() as session:
        assert stored_tasks.get_task(session, TASK_ID) == changed
        assert session.get(Task, TASK_ID).updated_at == later  # type: ignore[union-attr]
        assert [a.id for a in stored_tasks.list_task_actions(session, TASK_ID)] == [action_id]
    with sessions.begin() as session:
        assert DrivenTaskWrites(session).lock(TASK_ID) == (TASK_ID, changed)


@pytest.mark.usefixtures("saved")
def test_task_writes_parse_what_another_writer_stored(sessions: sessionmaker[Session]) -> None:
    """A document remembered from an earlier replace is used only while the stored text is still its own."""
    with sessions.begin() as session:
        writes = DrivenTaskWrites(session)
        writes.replace(TASK_ID, task_doc(displayName="mine"), NOW)
        assert writes.lock(TASK_ID)[1]["displayName"] == "mine"
    with sessions.begin() as session:
        tasks.save_task(session, TASK_ID, task_doc(displayName="theirs"))  # through the ORM, elsewhere
    with sessions.begin() as session:
        assert DrivenTaskWrites(session).lock(TASK_ID)[1]["displayName"] == "theirs"
