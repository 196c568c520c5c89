"""Handler of `POST /api/v1/tasks/{task_id}/action/restart`."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from accessgov.service import expand, permissions, restart
from accessgov.service.auth import Principal
from accessgov.service.errors import ApiError, not_found
from accessgov.service.spec_app import RequestContext
from accessgov.storage import directory, tasks


def _rfc3339(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


class RestartHandler:
    """Restart a task from the beginning of its current policy workflow, recording a restart action."""

    def __init__(self, sessions: sessionmaker[Session], clock: Callable[[], float] = time.time) -> None:
        self.sessions = sessions
        self.clock = clock

    def __call__(self, ctx: RequestContext) -> tuple[int, dict[str, Any]]:
        principal: Principal = ctx.principal
        body = ctx.body or {}
        mask = body.get("expandMask") or {}
        wanted = expand.normalise_paths(mask.get("paths"))  # 400 before anything changes
        comment = body.get("comment") or None
        now = datetime.fromtimestamp(self.clock(), UTC)
        with self.sessions.begin() as session:
            row = tasks.get_task_by_id_or_numeric(session, ctx.path_params["task_id"], for_update=True)
            if row is None:
                raise not_found(f"no task with id {ctx.path_params['task_id']!r}")
            task = dict(row.document)
            if permissions.RESTART not in permissions.task_actions(task, principal.roles) and restart.is_restartable(
                task
            ):
                raise ApiError(403, "PERMISSION_DENIED", "the caller may not restart this task")
            updated = restart.restart(
                task,
                load_policy=lambda policy_id: directory.get_document(session, "policy", policy_id),
                new_step_id=f"step-{uuid.uuid4().hex[:20]}",
                now=_rfc3339(now),
                comment=comment,
            )
            tasks.save_task(session, row.id, updated)
            action = tasks.add_task_action(
                session, task_id=row.id, kind="RESTART", comment=comment, actor=principal.subject, now=now
            )
            expanded, path_fields = expand.expand(updated, wanted, self._lookup(session))
        view_task = {**updated, "actions": permissions.task_actions(updated, principal.roles)}
        task_view = {
            "task": view_task,
            "objectPermissions": permissions.object_permissions(updated, principal.roles),
            **path_fields,
        }
        return 200, {"taskView": task_view, "expanded": expanded, "ticketActionId": action.id}

    @staticmethod
    def _lookup(session: Session) -> Callable[[str, str, Mapping[str, Any]], Mapping[str, Any] | None]:
        def lookup(kind: str, object_id: str, task: Mapping[str, Any]) -> Mapping[str, Any] | None:
            if kind == "app_entitlement":
                member = next(iter((task.get("type") or {}).values()), {})
                return directory.get_entitlement(session, member.get("appId", ""), object_id)
            return directory.get_document(session, kind, object_id)

        return lookup
