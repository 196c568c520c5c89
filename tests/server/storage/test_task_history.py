"""A task's policy history in rows of its own: appended by a restart, whole again when read, moved there (and back)
by migration 0005, on SQLite and PostgreSQL."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import sqlalchemy as sa
from alembic import command
from sqlalchemy.orm import Session, sessionmaker

from accessgov.storage import tasks
from accessgov.storage.backends import create_engine
from accessgov.storage.engine import alembic_config, migrate, session_factory
from accessgov.storage.schema import Task, TaskHistoryStep
from accessgov.storage.task_history import join, split
from tests.server.storage.conftest import NOW, DrivenTaskWrites
from tests.support import stored_tasks

TASK_ID = "2bXyZ0000000000000000000042"


def step(n: int) -> dict[str, Any]:
    return {"id": f"step-{n}", "state": "POLICY_STEP_STATE_DONE", "approval": {"approverIds": [f"user-{n}"]}}


def task_doc(history: Any, **extra: Any) -> dict[str, Any]:
    policy = {"current": {"id": "now"}, "history": history, "next": [], "policy": {"id": "policy-1"}}
    return {"id": TASK_ID, "numericId": "4242", "policy": policy, "state": "TASK_STATE_OPEN", **extra}


def step_rows(session: Session) -> list[tuple[int, Any]]:
    rows = session.execute(
        sa.select(TaskHistoryStep.position, TaskHistoryStep.step)
        .where(TaskHistoryStep.task_id == TASK_ID)
        .order_by(TaskHistoryStep.position)
    )
    return [tuple(row) for row in rows]


def test_split_and_join_keep_the_document_and_its_key_order() -> None:
    document = task_doc([step(1), step(2)])
    stored, steps = split(document)
    assert steps == [step(1), step(2)] and stored["policy"]["history"] == []
    assert json.dumps(join(stored, steps)) == json.dumps(document)  # same keys, same order
    for odd in ({"id": "t"}, {"policy": None}, {"policy": {"history": None}}, {"policy": {"history": {"a": 1}}}):
        assert split(odd) == (odd, None) and join(odd, []) == odd  # no history list: stored as it is


def test_a_restart_appends_one_row_and_the_task_reads_back_whole(sessions: sessionmaker[Session]) -> None:
    with sessions.begin() as session:
        tasks.save_task(session, TASK_ID, task_doc([step(1), step(2)]), now=NOW)
    for n in (3, 4):
        with sessions.begin() as session:
            writes = DrivenTaskWrites(session)
            row_id, document = writes.lock("4242")
            policy = document["policy"]
            writes.replace(row_id, {**document, "policy": {**policy, "history": [*policy["history"], step(n)]}}, NOW)
    with sessions() as session:
        assert stored_tasks.get_task(session, TASK_ID) == task_doc([step(n) for n in (1, 2, 3, 4)])
        task = session.get(Task, TASK_ID)
        assert task is not None and task.document["policy"]["history"] == []
        rows = step_rows(session)
        # The first two written whole, the next two appended after them: one row each, nothing rewritten.
        assert [position - task.history_start for position, _ in rows] == [0, 1, 2, 3]
        assert [value for _, value in rows] == [step(n) for n in (1, 2, 3, 4)]


def test_a_history_replaced_whole_gets_new_positions(sessions: sessionmaker[Session]) -> None:
    with sessions.begin() as session:
        tasks.save_task(session, TASK_ID, task_doc([step(1), step(2)]), now=NOW)
        first = session.get(Task, TASK_ID).history_start  # type: ignore[union-attr]
    with sessions.begin() as session:
        writes = DrivenTaskWrites(session)
        row_id, document = writes.lock(TASK_ID)
        writes.replace(row_id, {**document, "policy": {**document["policy"], "history": [step(9)]}}, NOW)
    with sessions.begin() as session:  # and through the ORM, as the CLI or the seed would
        tasks.save_task(session, TASK_ID, task_doc([step(7), step(8)]), now=NOW + timedelta(seconds=1))
    with sessions() as session:
        assert stored_tasks.get_task(session, TASK_ID) == task_doc([step(7), step(8)])
        positions = [position for position, _ in step_rows(session)]
        assert len(positions) == 2 and min(positions) >= first + 3  # past every position used before
    with sessions.begin() as session:  # a step changed in place is a new history too, not an append
        writes = DrivenTaskWrites(session)
        row_id, document = writes.lock(TASK_ID)
        changed = [step(7), {**step(8), "state": "POLICY_STEP_STATE_SKIPPED"}]
        writes.replace(row_id, {**document, "policy": {**document["policy"], "history": changed}}, NOW)
    with sessions.begin() as session:
        assert DrivenTaskWrites(session).lock(TASK_ID) == (TASK_ID, task_doc(changed))


def test_a_history_changed_by_another_process_is_read_anew(sessions: sessionmaker[Session]) -> None:
    """Steps kept from an earlier transaction are used only for the history the task row names now."""
    with sessions.begin() as session:
        tasks.save_task(session, TASK_ID, task_doc([step(1)]), now=NOW)
    locked_and_kept(sessions, [step(1)])
    with sessions.begin() as session:  # elsewhere: deleted and saved again, a history of the same length
        session.execute(sa.delete(Task).where(Task.id == TASK_ID))
        session.flush()
        tasks.save_task(session, TASK_ID, task_doc([step(5)]), now=NOW)
    locked_and_kept(sessions, [step(5)])
    with sessions.begin() as session:  # elsewhere: a step appended
        task = session.get(Task, TASK_ID)
        assert task is not None
        session.execute(
            sa.insert(TaskHistoryStep).values(
                task_id=TASK_ID, position=task.history_start + task.history_length, step=step(6)
            )
        )
        task.history_length += 1
    locked_and_kept(sessions, [step(5), step(6)])


def locked_and_kept(sessions: sessionmaker[Session], history: list[Any]) -> None:
    """Lock the task, check its history, and keep what was read once the transaction committed (as a restart)."""
    with sessions.begin() as session:
        writes = DrivenTaskWrites(session)
        assert writes.lock(TASK_ID)[1]["policy"]["history"] == history
    writes.publish()


def test_an_append_rolled_back_is_never_taken_for_a_later_one(sessions: sessionmaker[Session]) -> None:
    """Histories are kept only once their transaction committed: a rolled-back append must not pass for the step
    another writer appends later at the same position."""
    with sessions.begin() as session:
        tasks.save_task(session, TASK_ID, task_doc([step(1)]), now=NOW)
    locked_and_kept(sessions, [step(1)])
    with sessions() as session:
        writes = DrivenTaskWrites(session)
        row_id, document = writes.lock(TASK_ID)
        appended = [*document["policy"]["history"], step(2)]  # the same step objects first: an append
        writes.replace(row_id, {**document, "policy": {**document["policy"], "history": appended}}, NOW)
        session.rollback()  # the batch failed: nothing of it is stored, and `publish` is not called
    with sessions.begin() as session:  # elsewhere: another step appended at that position
        task = session.get(Task, TASK_ID)
        assert task is not None and task.history_length == 1
        session.execute(
            sa.insert(TaskHistoryStep).values(task_id=TASK_ID, position=task.history_start + 1, step=step(3))
        )
        task.history_length = 2
    locked_and_kept(sessions, [step(1), step(3)])


def test_migration_moves_histories_into_rows_and_back(db_url: str) -> None:
    engine = create_engine(db_url)
    document = task_doc([step(1), step(2), step(3)])
    plain = {**task_doc(None), "id": "t-plain", "numericId": "7"}
    try:
        with engine.begin() as connection:
            command.upgrade(alembic_config(connection), "0004")
            for task in (document, plain):
                connection.execute(
                    # `at` typed as the column is: sqlite3's own datetime adapter is deprecated since Python 3.12.
                    sa.text(
                        "INSERT INTO tasks (id, numeric_id, document, updated_at) VALUES (:id, :n, :doc, :at)"
                    ).bindparams(sa.bindparam("at", type_=sa.DateTime(timezone=True))),
                    {"id": task["id"], "n": int(task["numericId"]), "doc": json.dumps(task), "at": NOW},
                )
        migrate(engine)
        with session_factory(engine)() as session:
            assert stored_tasks.get_task(session, TASK_ID) == document
            assert stored_tasks.get_task(session, "t-plain") == plain
            assert len(step_rows(session)) == 3
            assert session.get(Task, TASK_ID).document["policy"]["history"] == []  # type: ignore[union-attr]
        with engine.begin() as connection:
            command.downgrade(alembic_config(connection), "0004")
            stored = dict(connection.execute(sa.text("SELECT id, document FROM tasks")).all())
        assert {key: value if isinstance(value, dict) else json.loads(value) for key, value in stored.items()} == {
            TASK_ID: document,
            "t-plain": plain,
        }
    finally:
        engine.dispose()
