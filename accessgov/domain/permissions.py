"""What a caller may do with a task, by role. Tokens carry roles (`admin`, `operator`, `viewer`)."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

ADMIN, OPERATOR, VIEWER = "admin", "operator", "viewer"
RESTART = "TASK_ACTION_TYPE_RESTART"
COMMENT = "TASK_ACTION_TYPE_COMMENT"
# The actions an operator or admin may take on an open task.
OPEN_TASK_ACTIONS = (
    "TASK_ACTION_TYPE_CLOSE",
    "TASK_ACTION_TYPE_APPROVE",
    "TASK_ACTION_TYPE_DENY",
    COMMENT,
    "TASK_ACTION_TYPE_REASSIGN",
    RESTART,
    "TASK_ACTION_TYPE_SEND_REMINDER",
    "TASK_ACTION_TYPE_SKIP_STEP",
)


@dataclass(frozen=True)
class Principal:
    """Who is calling, and with which roles."""

    subject: str
    roles: tuple[str, ...]


def may_act(roles: Collection[str]) -> bool:
    return ADMIN in roles or OPERATOR in roles


def is_open(task: Mapping[str, Any]) -> bool:
    """Neither closed nor deleted: the task takes actions, a restart among them."""
    return task.get("state") != "TASK_STATE_CLOSED" and not task.get("deletedAt")


def task_actions(task: Mapping[str, Any], roles: Collection[str]) -> list[str]:
    """The `actions` of a task for a caller with `roles`: nothing but comments on closed tasks or for viewers."""
    if not roles:
        return []
    if not is_open(task) or not may_act(roles):
        return [COMMENT]
    return list(OPEN_TASK_ACTIONS)


def may_restart(roles: Collection[str]) -> bool:
    """Whether the caller's role includes the restart action at all, whatever the task's state.

    Checked before the task's state, so a caller without the right is told 403, never a 409 that would
    reveal whether the task is open.
    """
    return may_act(roles)


def object_permissions(task: Mapping[str, Any], roles: Collection[str]) -> dict[str, Any]:
    return {
        "read": bool(roles),
        "edit": may_act(roles),
        "delete": ADMIN in roles,
        "extra": {"restart": RESTART in task_actions(task, roles)},
    }
