"""Read back what the restart path stored: a task's whole document and its actions (the server itself reads tasks
only through `storage.tasks.TaskWrites`)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from accessgov.storage.schema import Task, TaskAction, TaskHistoryStep
from accessgov.storage.task_history import join


def get_task(session: Session, task_id: str) -> dict[str, Any] | None:
    """The whole document of task `task_id` (its history's steps in place), or None."""
    task = session.get(Task, task_id)
    if task is None:
        return None
    end = task.history_start + task.history_length
    steps = select(TaskHistoryStep.step).where(
        TaskHistoryStep.task_id == task.id,
        TaskHistoryStep.position >= task.history_start,
        TaskHistoryStep.position < end,
    )
    return join(task.document, list(session.scalars(steps.order_by(TaskHistoryStep.position))))


def list_task_actions(session: Session, task_id: str) -> list[TaskAction]:
    """The actions of a task, oldest first."""
    stmt = select(TaskAction).where(TaskAction.task_id == task_id).order_by(TaskAction.created_at, TaskAction.id)
    return list(session.scalars(stmt))
