"""`POST /api/v1/tasks/{task_id}/action/restart`: restart a task's current policy workflow."""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from accessgov.domain import expand, permissions
from accessgov.domain.permissions import Principal
from accessgov.errors import ErrorCode, PermissionDenied
from accessgov.http.context import RequestContext
from accessgov.storage import restarts
from accessgov.storage.database import Database


class RestartHandler:
    """Restart a task from the beginning of its current policy workflow, recording a restart action.

    Order of answers: 401 (engine) -> 400 body and expand paths -> 403 caller may not restart -> 404 task ->
    409 task not restartable. The task is read, changed and written in one write transaction (`storage.restarts`);
    related objects for `expandMask` are read afterwards, outside it.
    """

    def __init__(self, db: Database, clock: Callable[[], float] = time.time) -> None:
        self.db = db
        self.clock = clock

    async def __call__(self, ctx: RequestContext) -> tuple[int, dict[str, Any]]:
        principal: Principal = ctx.principal
        body = ctx.body or {}
        mask = body.get("expandMask") or {}
        wanted = expand.normalise_paths(mask.get("paths"))  # 400 before anything changes
        if not permissions.may_restart(principal.roles):
            raise PermissionDenied(ErrorCode.PERMISSION_DENIED, "the caller may not restart tasks")
        request = restarts.Request(
            task_id=ctx.path_params["task_id"],
            step_id=f"step-{secrets.token_hex(10)}",  # 20 hex digits, as before (uuid4 cost 3x more)
            now=datetime.fromtimestamp(self.clock(), UTC),
            comment=body.get("comment") or None,
            actor=principal.subject,
        )
        restarted = await restarts.restart(self.db, request, wanted)
        updated = restarted.task
        task_view = {
            "task": {
                **updated,
                "policy": restarted.policy,
                "actions": permissions.task_actions(updated, principal.roles),
            },
            "objectPermissions": permissions.object_permissions(updated, principal.roles),
            **restarted.path_fields,
        }
        return 200, {"taskView": task_view, "expanded": restarted.expanded, "ticketActionId": restarted.action_id}
