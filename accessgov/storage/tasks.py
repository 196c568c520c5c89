"""Tasks (API documents, their policy history in rows of its own: `storage.task_history`) and their audit trail of
actions."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, NamedTuple

from sqlalchemy import Text, bindparam, cast, delete, insert, select, update
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import Session

from accessgov.jsoncodec import RawJSON, dumps_bytes, extends, loads_each
from accessgov.storage import ids
from accessgov.storage.database import Database
from accessgov.storage.parsed_documents import ParsedDocuments
from accessgov.storage.prepared import PreparedQuery, json_column, per_dialect
from accessgov.storage.schema import Policy, Task, TaskAction, TaskHistoryStep
from accessgov.storage.statement_steps import Steps, read, write, write_many
from accessgov.storage.task_history import HistoryCache, join, split

__all__ = ["Action", "TaskWrites", "parse_numeric_id", "save_task"]

INT64_MAX = 2**63 - 1


def parse_numeric_id(value: str) -> int | None:
    """`value` as a task numeric id: ASCII digits only and within int64, else None."""
    # isascii first: str.isdigit() also accepts digits such as '²' or '٣' that int() rejects or converts.
    # The length check keeps int() away from huge inputs.
    if not value or len(value) > 19 or not (value.isascii() and value.isdigit()):
        return None
    number = int(value)
    return number if number <= INT64_MAX else None


def _numeric_id(document: Mapping[str, Any]) -> int:
    value = document.get("numericId")
    # The API renders int64 as a string; accept a plain int too.
    number = value if isinstance(value, int) and not isinstance(value, bool) else parse_numeric_id(str(value or ""))
    if number is None or not 0 <= number <= INT64_MAX:
        raise ValueError(f"task document needs numericId as an int64 (or its decimal string), not {value!r}")
    return number


def save_task(session: Session, task_id: str, document: Mapping[str, Any], *, now: datetime | None = None) -> Task:
    """Insert or replace task `task_id` with `document` (its `numericId` is indexed). The caller commits."""
    if document.get("id", task_id) != task_id:
        raise ValueError(f"document id {document.get('id')!r} does not match task id {task_id!r}")
    numeric = _numeric_id(document)
    now = now or ids.utcnow()
    stored, steps = split(document)
    task = session.get(Task, task_id)
    if task is None:
        start = _fresh_start(0)
        task = Task(id=task_id, numeric_id=numeric, document=stored, updated_at=now, history_start=start)
        session.add(task)
    else:
        # A new history is written at new positions (step rows never change: see `storage.task_history`).
        start = _fresh_start(task.history_start + task.history_length)
        session.execute(delete(TaskHistoryStep).where(TaskHistoryStep.task_id == task_id))
        # A new dict object: in-place changes of a JSON column are not tracked.
        task.document, task.numeric_id, task.updated_at, task.history_start = stored, numeric, now, start
    task.history_length = len(steps or ())
    session.flush()
    if steps:
        session.execute(
            insert(TaskHistoryStep),
            [{"task_id": task_id, "position": start + n, "step": step} for n, step in enumerate(steps)],
        )
    return task


def _fresh_start(after: int) -> int:
    """The first position of a history written whole: past every position the task used, and past any it may
    have used before it was deleted and saved again (microseconds since the epoch; a restart appends one step
    in far more than a microsecond)."""
    return max(after, time.time_ns() // 1000)


# The restart path's statements, run on the transaction's DBAPI connection: the ORM and Core's per-call machinery
# cost more than the statements (profiled: ~55% of a restart's writer time).
_TASKS = Task.__table__
_ACTIONS = TaskAction.__table__
# The document as stored text on every backend (PostgreSQL's json type keeps the text as written), so that
# `ParsedDocuments` can tell whether it is the text it parsed before.
_STORED_TEXT = cast(_TASKS.c.document, Text)
_HISTORY = (_TASKS.c.history_start, _TASKS.c.history_length)
_BY_ID = select(_TASKS.c.id, _STORED_TEXT, *_HISTORY).where(_TASKS.c.id == bindparam("key"))
_BY_NUMERIC = select(_TASKS.c.id, _STORED_TEXT, *_HISTORY).where(_TASKS.c.numeric_id == bindparam("key"))
_HISTORY_OF = select(*_HISTORY).where(_TASKS.c.id == bindparam("key"))
_POLICY = select(Policy.document).where(Policy.id == bindparam("key"))
_REPLACE = (
    update(_TASKS)
    .where(_TASKS.c.id == bindparam("task_id"))
    .values(
        document=bindparam("document", type_=_TASKS.c.document.type),
        updated_at=bindparam("now"),
        history_start=bindparam("start"),
        history_length=bindparam("length"),
    )
)
_INSERT_ACTION = insert(_ACTIONS).values({column.name: bindparam(column.name) for column in _ACTIONS.columns})
_STEPS = TaskHistoryStep.__table__
_STEP_TEXTS = (
    select(cast(_STEPS.c.step, Text))
    .where(_STEPS.c.task_id == bindparam("task_id"), _STEPS.c.position >= bindparam("start"))
    .where(_STEPS.c.position < bindparam("end"))
    .order_by(_STEPS.c.position)
)
_INSERT_STEP = insert(_STEPS).values(
    task_id=bindparam("task_id"), position=bindparam("position"), step=bindparam("step", type_=_STEPS.c.step.type)
)
_DELETE_STEPS = delete(_STEPS).where(_STEPS.c.task_id == bindparam("task_id"))
# Where CTEs may write (`Database.writes_in_ctes`: PostgreSQL), a restart's three writes in one statement
# (data-modifying CTEs run whether or not it reads them): psycopg's work per statement was ~40 % of a restart's CPU on
# the loop (profiled).
_RESTART = _REPLACE.add_cte(_INSERT_STEP.cte("appended")).add_cte(_INSERT_ACTION.cte("recorded"))


@dataclass(frozen=True)
class _Statements:
    by_id: PreparedQuery
    by_numeric: PreparedQuery
    history_of: PreparedQuery
    policy: PreparedQuery
    replace: PreparedQuery
    insert_action: PreparedQuery
    step_texts: PreparedQuery
    insert_step: PreparedQuery
    delete_steps: PreparedQuery
    restart: PreparedQuery | None  # `_RESTART`, where CTEs may write


@per_dialect
def _statements(dialect: Dialect) -> _Statements:
    # The task's row locked until the transaction ends (SQLite renders no row lock: its writer holds the database).
    by_id, by_numeric, history_of = (stmt.with_for_update() for stmt in (_BY_ID, _BY_NUMERIC, _HISTORY_OF))
    return _Statements(
        by_id=PreparedQuery(by_id, dialect),
        by_numeric=PreparedQuery(by_numeric, dialect),
        history_of=PreparedQuery(history_of, dialect),
        policy=PreparedQuery(_POLICY, dialect),
        replace=PreparedQuery(_REPLACE, dialect),
        insert_action=PreparedQuery(_INSERT_ACTION, dialect),
        step_texts=PreparedQuery(_STEP_TEXTS, dialect),
        insert_step=PreparedQuery(_INSERT_STEP, dialect),
        delete_steps=PreparedQuery(_DELETE_STEPS, dialect),
        restart=PreparedQuery(_RESTART, dialect) if Database.of(dialect).writes_in_ctes else None,
    )


# A task restarted again is not parsed again (see `ParsedDocuments`), nor are its history's steps read again.
_PARSED = ParsedDocuments()
_STEPS_KEPT = HistoryCache()


class Action(NamedTuple):
    """An action to record on a task (`TaskWrites.replace`)."""

    kind: str
    comment: str | None
    actor: str


class TaskWrites:
    """The reads and writes of task actions inside one write transaction, as `statement_steps` (run them with
    `drive` on a session's connection or `drive_async` on the loop's)."""

    def __init__(self, dialect: Dialect) -> None:
        self._statements = _statements(dialect)
        # The history of each task read or written here: (start, steps), for `replace` to append to, and kept for
        # later transactions by `publish` once this one committed.
        self._histories: dict[str, tuple[int, list[Any]]] = {}

    def lock(self, task_id: str) -> Steps[tuple[str, dict[str, Any]] | None]:
        """(id, document) of the task whose id is `task_id`, else whose numeric id it spells, locked until the
        transaction ends (PostgreSQL `FOR UPDATE`; SQLite's writer already holds the database); None if absent.

        The document's parts are shared with later calls (see `ParsedDocuments`, `HistoryCache`): build a new
        document, never modify it.
        """
        rows = yield read(self._statements.by_id, key=task_id)
        if not rows:
            numeric = parse_numeric_id(task_id)
            if numeric is None:
                return None
            rows = yield read(self._statements.by_numeric, key=numeric)
        if not rows:
            return None
        row_id, text, start, length = rows[0]
        steps = yield from self._steps(row_id, start, length)
        self._histories[row_id] = (start, steps)
        return row_id, join(_PARSED.parse(row_id, text), steps)

    def _steps(self, task_id: str, start: int, length: int) -> Steps[list[Any]]:
        """The history's steps: those kept from before, and the rows appended since (all of them the first time)."""
        kept = _STEPS_KEPT.known(task_id, start, length) or []
        if len(kept) == length:
            return kept
        texts = yield read(self._statements.step_texts, task_id=task_id, start=start + len(kept), end=start + length)
        return kept + loads_each([text for (text,) in texts])

    def policy(self, policy_id: str) -> Steps[dict[str, Any] | None]:
        """The document of policy `policy_id`, or None."""
        rows = yield read(self._statements.policy, key=policy_id)
        return json_column(rows[0][0]) if rows else None

    def replace(
        self, task_id: str, document: dict[str, Any], now: datetime, *, action: Action | None = None
    ) -> Steps[str | None]:
        """Store a changed task document (its id and numeric id unchanged): the document without its history, and
        the history's new steps appended (a restart's one), or the whole history at new positions when it does not
        extend the one `lock` read. With `action`, also record that action and return its id (on PostgreSQL, a
        restart's writes go as one statement)."""
        stored, steps = split(document)
        start, before = self._histories.get(task_id) or (yield from self._history_of(task_id))
        steps = steps or []
        if extends(steps, before):
            added, first = steps[len(before) :], start + len(before)  # a restart: one step more
        else:
            yield write(self._statements.delete_steps, task_id=task_id)
            start = _fresh_start(start + len(before))
            added, first = steps, start
        text = dumps_bytes(stored)
        if action is not None and len(added) == 1 and self._statements.restart is not None:
            action_id = ids.sortable_id(now)
            yield write(
                self._statements.restart,
                task_id=task_id,
                position=first,
                step=added[0],
                document=RawJSON(text),
                now=now,
                start=start,
                length=len(steps),
                id=action_id,
                kind=action.kind,
                comment=action.comment,
                actor=action.actor,
                created_at=now,
            )
            self._replaced(task_id, text, stored, start, steps)
            return action_id
        if added:
            query = self._statements.insert_step
            rows = [
                query.params({"task_id": task_id, "position": first + n, "step": step}) for n, step in enumerate(added)
            ]
            yield write_many(query, rows)
        yield write(
            self._statements.replace, task_id=task_id, document=RawJSON(text), now=now, start=start, length=len(steps)
        )
        self._replaced(task_id, text, stored, start, steps)
        if action is None:
            return None
        return (
            yield from self.record_action(
                task_id=task_id, kind=action.kind, comment=action.comment, actor=action.actor, now=now
            )
        )

    def _replaced(self, task_id: str, text: bytes, stored: dict[str, Any], start: int, steps: list[Any]) -> None:
        _PARSED.remember(task_id, text.decode(), stored)  # checked against the stored text: safe before the commit
        self._histories[task_id] = (start, steps)

    def publish(self) -> None:
        """Keep the histories this transaction read and wrote for later ones; call once it committed. Kept before,
        an append that was then rolled back could pass for another one committed later at the same position."""
        for task_id, (start, steps) in self._histories.items():
            _STEPS_KEPT.keep(task_id, start, steps)

    def _history_of(self, task_id: str) -> Steps[tuple[int, list[Any]]]:
        """(start, steps) of a task not read by `lock` in this transaction."""
        rows = yield read(self._statements.history_of, key=task_id)
        if not rows:
            raise LookupError(f"no task with id {task_id!r}")
        start, length = rows[0]
        return start, (yield from self._steps(task_id, start, length))

    def record_action(self, *, task_id: str, kind: str, comment: str | None, actor: str, now: datetime) -> Steps[str]:
        """Record an action on a task; returns its id, which sorts by time."""
        action_id = ids.sortable_id(now)
        yield write(
            self._statements.insert_action,
            id=action_id,
            task_id=task_id,
            kind=kind,
            comment=comment,
            actor=actor,
            created_at=now,
        )
        return action_id
