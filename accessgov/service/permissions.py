"""What a caller may do with a task, by role. Tokens carry roles; see `accessgov.service.auth`."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from accessgov.service.demo import ALL_ACTIONS

ADMIN, OPERATOR, VIEWER = "admin", "operator", "viewer"
RESTART = "TASK_ACTION_TYPE_RESTART"


def may_act(roles: Collection[str]) -> bool:
    return ADMIN in roles or OPERATOR in roles


def task_actions(task: Mapping[str, Any], roles: Collection[str]) -> list[str]:
    """The `actions` of a task for a caller with `roles`: nothing but comments on closed tasks or for viewers."""
    open_task = task.get("state") != "TASK_STATE_CLOSED" and not task.get("deletedAt")
    if not roles:
        return []
    if not open_task or not may_act(roles):
        return ["TASK_ACTION_TYPE_COMMENT"]
    return list(ALL_ACTIONS)


def object_permissions(task: Mapping[str, Any], roles: Collection[str]) -> dict[str, Any]:
    return {
        "read": bool(roles),
        "edit": may_act(roles),
        "delete": ADMIN in roles,
        "extra": {"restart": RESTART in task_actions(task, roles)},
    }
