"""`POST /api/v1/tasks/{task_id}/action/restart`: restart a task's current policy workflow."""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any, NamedTuple

from accessgov.domain import expand, permissions, restart
from accessgov.domain.permissions import Principal
from accessgov.errors import ApiError, ErrorCode, NotFound, PermissionDenied, quoted
from accessgov.http.context import RequestContext
from accessgov.jsoncodec import GrowingArrays
from accessgov.storage import directory, tasks
from accessgov.storage.database import Database, Dialect
from accessgov.storage.statement_steps import Steps, drive, drive_async


def _rfc3339(moment: datetime) -> str:
    """`moment` (UTC) as RFC 3339 with seconds and `Z`; isoformat is several times cheaper than strftime."""
    return moment.replace(tzinfo=None, microsecond=0).isoformat() + "Z"


# Each restart appends one step to the task's history: its text is extended, not written again. Sized to hold the
# text of every history `tasks._STEPS_KEPT` keeps parsed (200,000 steps of ~200 bytes): an LRU smaller than the set of
# tasks being restarted in turn misses on every restart (with 250 tasks of ~190 steps, 8 MB did), and each miss
# writes the whole history again.
_HISTORIES = GrowingArrays(max_bytes=64 * 2**20)


class _Request(NamedTuple):
    task_id: str
    step_id: str
    now: datetime
    comment: str | None
    actor: str


class _Restarted(NamedTuple):
    task: dict[str, Any]
    policy: dict[str, Any]  # the task's policy instance, its history as JSON text
    action_id: str
    writes: tasks.TaskWrites  # to publish once committed


class _PolicyNeeded(Exception):
    """`restart.restart` asked for a policy not read yet: read it, then restart again (a pure function)."""

    def __init__(self, policy_id: str) -> None:
        self.policy_id = policy_id


def _restart_steps(writes: tasks.TaskWrites, request: _Request) -> Steps[_Restarted]:
    """Lock the task, restart it, store it and record the action. 404 and 409 are raised before anything is written
    (the batch goes on without this restart)."""
    found = yield from writes.lock(request.task_id)
    if found is None:
        raise NotFound(f"no task with id {quoted(request.task_id)}")
    row_id, document = found
    policies: dict[str, Mapping[str, Any] | None] = {}

    def load_policy(policy_id: str) -> Mapping[str, Any] | None:
        if policy_id not in policies:
            raise _PolicyNeeded(policy_id)
        return policies[policy_id]

    while True:  # once per policy a baseline defers to (rare; five at most)
        try:
            updated = restart.restart(
                document,
                load_policy=load_policy,
                new_step_id=request.step_id,
                now=_rfc3339(request.now),
                comment=request.comment,
            )
            break
        except _PolicyNeeded as needed:
            policies[needed.policy_id] = yield from writes.policy(needed.policy_id)
    # The policy instance holds the growing history: stored as one step appended (`TaskWrites.replace`), and its
    # text for the response extended from the last restart's, then copied once, into the response.
    instance = updated["policy"]
    policy = {**instance, "history": _HISTORIES.dumps(row_id, instance["history"])}
    action = tasks.Action("RESTART", request.comment, request.actor)
    action_id = yield from writes.replace(row_id, updated, request.now, action=action)
    assert action_id is not None  # an action was given
    return _Restarted(updated, policy, action_id, writes)


def _lock_order(requests: list[_Request]) -> list[int]:
    """The batch's restarts in task id order: two batches on PostgreSQL lock their tasks in the same order, so
    neither waits for the other's lock while holding one it wants (a deadlock, broken only after a second)."""
    return sorted(range(len(requests)), key=lambda n: requests[n].task_id)


def _restart_batch_steps(dialect: Dialect, requests: list[_Request]) -> Steps[list[_Restarted | ApiError | None]]:
    """The restarts of a batch, one after another in the writer's transaction: a restart's 404 or 409 is its
    result, and the batch goes on."""
    results: list[_Restarted | ApiError | None] = [None] * len(requests)
    for n in _lock_order(requests):
        try:
            results[n] = yield from _restart_steps(tasks.TaskWrites(dialect), requests[n])
        except ApiError as error:
            results[n] = error
    return results


def _restart_batch(dbapi: Any, dialect: Dialect, requests: list[_Request]) -> list[_Restarted | ApiError | None]:
    """The batch on a DBAPI connection (SQLite's loop writer)."""
    return drive(_restart_batch_steps(dialect, requests), dbapi)


async def _restart_batch_on_loop(
    connection: Any, dialect: Dialect, requests: list[_Request]
) -> list[_Restarted | ApiError | None]:
    """The batch on PostgreSQL, awaited on the loop's async connection (`storage.loop_batches`)."""
    return await drive_async(_restart_batch_steps(dialect, requests), connection)


class RestartHandler:
    """Restart a task from the beginning of its current policy workflow, recording a restart action.

    Order of answers: 401 (engine) -> 400 body and expand paths -> 403 caller may not restart -> 404 task ->
    409 task not restartable. The task is read, changed and written in one write transaction, with the other
    restarts queued at the time (group commit); related objects for `expandMask` are read afterwards, outside it.
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
        request = _Request(
            task_id=ctx.path_params["task_id"],
            step_id=f"step-{secrets.token_hex(10)}",  # 20 hex digits, as before (uuid4 cost 3x more)
            now=datetime.fromtimestamp(self.clock(), UTC),
            comment=body.get("comment") or None,
            actor=principal.subject,
        )
        restarted: _Restarted = await self.db.write_batched(_restart_batch, request, on_loop=_restart_batch_on_loop)
        restarted.writes.publish()  # committed: the task's history may be kept for its next restart
        updated = restarted.task
        expanded: list[dict[str, Any]] = []
        path_fields: dict[str, str] = {}
        if wanted:
            expanded, path_fields = await self.db.read(
                lambda session: expand.expand(updated, wanted, directory.task_lookup(session))
            )
        task_view = {
            "task": {
                **updated,
                "policy": restarted.policy,
                "actions": permissions.task_actions(updated, principal.roles),
            },
            "objectPermissions": permissions.object_permissions(updated, principal.roles),
            **path_fields,
        }
        return 200, {"taskView": task_view, "expanded": expanded, "ticketActionId": restarted.action_id}
