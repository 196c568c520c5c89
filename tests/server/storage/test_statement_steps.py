"""`statement_steps` awaited on a psycopg async connection, as PostgreSQL's loop runs a restart: the same task
reads and writes as `drive` on a session (tests/server/storage/test_tasks.py and test_task_history.py run those)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, TypeVar

import pytest
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session, sessionmaker

from accessgov.storage import tasks
from accessgov.storage.postgres import _async_connector
from accessgov.storage.statement_steps import Statement, Steps, drive_async
from tests.server.storage.conftest import NOW
from tests.server.storage.test_task_history import TASK_ID, step, step_rows, task_doc
from tests.support import stored_tasks

pytestmark = [pytest.mark.postgres, pytest.mark.parametrize("db_url", ["postgres"], indirect=True)]
T = TypeVar("T")


def on_loop(engine: Engine, work: Callable[[tasks.TaskWrites], Steps[T]], *, commit: bool = True) -> T:
    """`work`'s steps awaited in one transaction on a new async connection, committed unless it raises."""

    async def main() -> T:
        connection = await _async_connector(engine, autocommit=False)()
        try:
            result = await drive_async(work(tasks.TaskWrites(engine.dialect)), connection)
            if commit:
                await connection.commit()
            return result
        finally:
            await connection.close()

    return asyncio.run(main())


def statements_of(steps: Steps[T], seen: list[str]) -> Steps[T]:
    """`steps`, noting the first word of each statement's SQL as it goes by."""
    result: Any = None
    while True:
        try:
            statement: Statement = steps.send(result)
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]
        seen.append(statement.query.sql.split()[0])
        result = yield statement


def test_a_restart_appends_its_step_and_records_its_action_in_one_statement(
    engine: Engine, sessions: sessionmaker[Session]
) -> None:
    with sessions.begin() as session:
        tasks.save_task(session, TASK_ID, task_doc([step(1), step(2)]), now=NOW)
    seen: list[str] = []

    def restart(writes: tasks.TaskWrites) -> Steps[str | None]:
        row_id, document = yield from writes.lock("4242")  # by numeric id
        history = [*document["policy"]["history"], step(3)]
        changed = {**document, "policy": {**document["policy"], "history": history}}
        return (yield from writes.replace(row_id, changed, NOW, action=tasks.Action("RESTART", "why", "someone")))

    action_id = on_loop(engine, lambda writes: statements_of(restart(writes), seen))
    assert seen[-1] == "WITH" and seen.count("SELECT") == len(seen) - 1  # the writes: one statement
    with sessions() as session:
        assert stored_tasks.get_task(session, TASK_ID) == task_doc([step(1), step(2), step(3)])
        positions = [position for position, _ in step_rows(session)]
        assert positions == list(range(positions[0], positions[0] + 3))  # appended after the first two
        [action] = stored_tasks.list_task_actions(session, TASK_ID)
        assert (action.id, action.kind, action.comment, action.actor) == (action_id, "RESTART", "why", "someone")


def test_a_history_replaced_whole_is_written_row_by_row_on_the_loop(
    engine: Engine, sessions: sessionmaker[Session]
) -> None:
    with sessions.begin() as session:
        tasks.save_task(session, TASK_ID, task_doc([step(1), step(2)]), now=NOW)

    def rewrite(writes: tasks.TaskWrites) -> Steps[str | None]:
        row_id, document = yield from writes.lock(TASK_ID)
        changed = {**document, "policy": {**document["policy"], "history": [step(7), step(8), step(9)]}}
        return (yield from writes.replace(row_id, changed, NOW, action=tasks.Action("EDIT", None, "someone")))

    action_id = on_loop(engine, rewrite)
    with sessions() as session:
        assert stored_tasks.get_task(session, TASK_ID) == task_doc([step(7), step(8), step(9)])
        assert [value for _, value in step_rows(session)] == [step(7), step(8), step(9)]
        assert [action.id for action in stored_tasks.list_task_actions(session, TASK_ID)] == [action_id]


def test_an_error_in_the_steps_reaches_the_caller_and_nothing_is_stored(
    engine: Engine, sessions: sessionmaker[Session]
) -> None:
    with sessions.begin() as session:
        tasks.save_task(session, TASK_ID, task_doc([step(1)]), now=NOW)

    def broken(writes: tasks.TaskWrites) -> Steps[None]:
        row_id, document = yield from writes.lock(TASK_ID)
        yield from writes.replace(row_id, {**document, "displayName": "changed"}, NOW)
        yield from writes.replace("no-such-task", document, NOW)  # raises: no history to extend

    with pytest.raises(LookupError, match="no-such-task"):
        on_loop(engine, broken)
    with sessions() as session:
        assert stored_tasks.get_task(session, TASK_ID) == task_doc([step(1)])
