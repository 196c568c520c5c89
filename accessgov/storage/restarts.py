"""A restart's transaction: lock the task, restart it (`domain.restart`, a pure function), store it and record the
action, with the other restarts queued at the time (group commit), in task id order. `restart` is the one call the
handler makes (`api/restart.py`: parse, this, shape the answer)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, NamedTuple

from accessgov.domain import expand
from accessgov.domain import restart as restarting
from accessgov.errors import ApiError, NotFound, quoted
from accessgov.jsoncodec import GrowingArrays
from accessgov.storage import directory, tasks
from accessgov.storage.database import Database, Dialect
from accessgov.storage.statement_steps import Steps

# Each restart appends one step to the task's history: its text is extended, not written again. Sized to hold the
# text of every history `tasks._STEPS_KEPT` keeps parsed (200,000 steps of ~200 bytes): an LRU smaller than the set of
# tasks being restarted in turn misses on every restart (with 250 tasks of ~190 steps, 8 MB did), and each miss
# writes the whole history again.
_HISTORIES = GrowingArrays(max_bytes=64 * 2**20)


class Request(NamedTuple):
    """One restart: the task (its id, or the numeric id it spells), the new step's id, when, why and by whom."""

    task_id: str
    step_id: str
    now: datetime
    comment: str | None
    actor: str


class Restarted(NamedTuple):
    """The restarted task, its policy instance (the history as JSON text), the recorded action's id, and the
    related objects `expand_paths` asked for with the task's fields that locate them (`domain.expand`)."""

    task: dict[str, Any]
    policy: dict[str, Any]
    action_id: str
    expanded: list[dict[str, Any]]
    path_fields: dict[str, str]


class _Done(NamedTuple):
    restarted: Restarted
    writes: tasks.TaskWrites  # to publish once committed


async def restart(db: Database, request: Request, expand_paths: Sequence[str] = ()) -> Restarted:
    """Restart `request`'s task in a write transaction shared with the restarts queued meanwhile; 404 for no such
    task and 409 for one that cannot restart are raised before anything is written (the batch goes on). The
    related objects of `expand_paths` are read afterwards, outside that transaction."""
    done: _Done = await db.write_steps(_batch, request)
    done.writes.publish()  # committed: the task's history may be kept for its next restart
    restarted = done.restarted
    if not expand_paths:
        return restarted
    task = restarted.task
    expanded, path_fields = await db.read(
        lambda session: expand.expand(task, expand_paths, directory.task_lookup(session))
    )
    return restarted._replace(expanded=expanded, path_fields=path_fields)


def rfc3339(moment: datetime) -> str:
    """`moment` (UTC) as RFC 3339 with seconds and `Z`; isoformat is several times cheaper than strftime."""
    return moment.replace(tzinfo=None, microsecond=0).isoformat() + "Z"


class _PolicyNeeded(Exception):
    """`domain.restart.restart` asked for a policy not read yet: read it, then restart again (a pure function)."""

    def __init__(self, policy_id: str) -> None:
        self.policy_id = policy_id


def _steps(writes: tasks.TaskWrites, request: Request) -> Steps[_Done]:
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
            updated = restarting.restart(
                document,
                load_policy=load_policy,
                new_step_id=request.step_id,
                now=rfc3339(request.now),
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
    return _Done(Restarted(updated, policy, action_id, [], {}), writes)


def _lock_order(requests: list[Request]) -> list[int]:
    """The batch's restarts in task id order: two batches on PostgreSQL lock their tasks in the same order, so
    neither waits for the other's lock while holding one it wants (a deadlock, broken only after a second)."""
    return sorted(range(len(requests)), key=lambda n: requests[n].task_id)


def _batch(dialect: Dialect, requests: list[Request]) -> Steps[list[_Done | ApiError | None]]:
    """The restarts of a batch, one after another in the writer's transaction: a restart's 404 or 409 is its
    result, and the batch goes on."""
    results: list[_Done | ApiError | None] = [None] * len(requests)
    for n in _lock_order(requests):
        try:
            results[n] = yield from _steps(tasks.TaskWrites(dialect), requests[n])
        except ApiError as error:
            results[n] = error
    return results
