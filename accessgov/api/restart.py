"""`POST /api/v1/tasks/{task_id}/action/restart`: restart a task's current policy workflow."""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

from sqlalchemy.orm import Session

from accessgov.domain import expand, permissions, restart
from accessgov.domain.permissions import Principal
from accessgov.errors import ErrorCode, NotFound, PermissionDenied
from accessgov.http.context import RequestContext
from accessgov.jsoncodec import GrowingArrays
from accessgov.storage import directory, tasks
from accessgov.storage.database import Database


def _rfc3339(moment: datetime) -> str:
    """`moment` (UTC) as RFC 3339 with seconds and `Z`; isoformat is several times cheaper than strftime."""
    return moment.replace(tzinfo=None, microsecond=0).isoformat() + "Z"


def _lookup(session: Session) -> Callable[[str, str, Mapping[str, Any]], Mapping[str, Any] | None]:
    def lookup(kind: str, object_id: str, task: Mapping[str, Any]) -> Mapping[str, Any] | None:
        if kind == "app_entitlement":
            member = next(iter((task.get("type") or {}).values()), {})
            return directory.get_entitlement(session, member.get("appId", ""), object_id)
        return directory.get_document(session, kind, object_id)

    return lookup


# Each restart appends one step to the task's history: its text is extended, not written again. Sized to hold the
# text of every history `tasks._STEPS_KEPT` keeps parsed (200,000 steps of ~200 bytes): an LRU smaller than the set of
# tasks being restarted in turn misses on every restart (with 250 tasks of ~190 steps, 8 MB did), and each miss
# writes the whole history again.
_HISTORIES = GrowingArrays(max_bytes=64 * 2**20)


class RestartHandler:
    """Restart a task from the beginning of its current policy workflow, recording a restart action.

    Order of answers: 401 (engine) -> 400 body and expand paths -> 403 caller may not restart -> 404 task ->
    409 task not restartable. The task is read, changed and written in one write transaction; related objects
    for `expandMask` are read afterwards, outside it.
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
        comment = body.get("comment") or None
        task_id = ctx.path_params["task_id"]
        now = datetime.fromtimestamp(self.clock(), UTC)
        step_id = f"step-{secrets.token_hex(10)}"  # 20 hex digits, as before (uuid4 cost 3x more)

        def restart_task(session: Session) -> tuple[dict[str, Any], dict[str, Any], str, tasks.TaskWrites]:
            store = tasks.TaskWrites(session)
            found = store.lock(task_id)
            if found is None:
                raise NotFound(f"no task with id {task_id!r}")
            row_id, document = found
            updated = restart.restart(
                document, load_policy=store.policy, new_step_id=step_id, now=_rfc3339(now), comment=comment
            )
            # The policy instance holds the growing history: stored as one step appended (`TaskWrites.replace`),
            # and its text for the response extended from the last restart's, then copied once, into the response.
            instance = updated["policy"]
            policy = {**instance, "history": _HISTORIES.dumps(row_id, instance["history"])}
            store.replace(row_id, updated, now)
            action_id = store.record_action(
                task_id=row_id, kind="RESTART", comment=comment, actor=principal.subject, now=now
            )
            return updated, policy, action_id, store

        updated, policy, action_id, store = await self.db.write(restart_task)
        store.publish()  # committed: the task's history may be kept for its next restart
        expanded, path_fields = [], {}
        if wanted:
            expanded, path_fields = await self.db.read(lambda session: expand.expand(updated, wanted, _lookup(session)))
        task_view = {
            "task": {**updated, "policy": policy, "actions": permissions.task_actions(updated, principal.roles)},
            "objectPermissions": permissions.object_permissions(updated, principal.roles),
            **path_fields,
        }
        return 200, {"taskView": task_view, "expanded": expanded, "ticketActionId": action_id}
