"""The restart operation: by id and by numericId, its effect on the workflow, expansion, and refusals."""

from __future__ import annotations

import re
from typing import Any

from .. import spec
from ..context import Context, Exchange
from ..registry import Fail, NoEvidence, NotApplicable, rule

FAMILY = "restart"
OP = "spec/paths/api_v1_tasks_{task_id}_action_restart.yaml"
SEED = "Endpoints > Restart a task"
PATH_FIELD = re.compile(r"^\$\.expanded\[(\d+)\]$")
FLOW_TASKS = 6


def _open_task(ctx: Context) -> str:
    if not ctx.config.open_task_ids:
        raise NotApplicable("the configuration names no open task (fixtures.open_task_ids)")
    return ctx.rng.choice(ctx.config.open_task_ids)


def restart(ctx: Context, task_id: str, body: Any = None, **options: Any) -> Exchange:
    return ctx.api("POST", spec.RESTART, f"/api/v1/tasks/{task_id}/action/restart", body=body or {}, **options)


def restarted(ctx: Context, task_id: str, body: Any = None, what: str = "") -> dict[str, Any]:
    """The 200 body of restarting the configured open task `task_id`; a refusal means the fixture is unusable."""
    exchange = restart(ctx, task_id, body)
    if exchange.status in (404, 409):
        raise NoEvidence(f"the configured open task {task_id!r} cannot be restarted (HTTP {exchange.status})")
    result = ctx.expect(exchange, 200, what=what)
    ticket = result.get("ticketActionId") if isinstance(result, dict) else None
    if not isinstance(ticket, str) or not ticket:
        raise Fail(f"{what + ': ' if what else ''}the 200 has no ticketActionId")
    return result


def _task(result: dict[str, Any], what: str) -> dict[str, Any]:
    task = (result.get("taskView") or {}).get("task")
    if not isinstance(task, dict):
        raise Fail(f"{what}: the 200 has no taskView.task")
    return task


def _member(step: dict[str, Any]) -> str | None:
    """The one set member of a step (approval, provision, accept, reject, wait, form, action)."""
    members = [key for key in ("approval", "provision", "accept", "reject", "wait", "form", "action") if key in step]
    return members[0] if len(members) == 1 else None


@rule(
    "RS-OK-001",
    family=FAMILY,
    title="Restarting an open task succeeds with a ticketActionId",
    text="POST .../action/restart on an open task is answered 200 with a TaskActionsServiceRestartResponse "
    "whose ticketActionId is not empty and whose task is the one addressed.",
    spec=f"{OP}#/post/responses/200",
    seed=f"{SEED}; States and transitions",
)
def restart_by_id(ctx: Context) -> None:
    task_id = _open_task(ctx)
    task = _task(restarted(ctx, task_id), "restart by id")
    if not ctx.config.is_mock and task.get("id") != task_id:
        raise Fail(f"restarting {task_id} returned task {task.get('id')!r}")
    if not ctx.config.is_mock and task.get("state") != "TASK_STATE_OPEN":
        raise Fail(f"the restarted task is in state {task.get('state')!r}, not TASK_STATE_OPEN")


@rule(
    "RS-NUM-001",
    family=FAMILY,
    title="A task's numericId may replace its id in the path",
    text="Restarting by the numericId the task reports restarts that same task (200, same id).",
    spec="spec/components/parameters/TaskId.yaml#/description",
    seed=f"{SEED} (task_id); Resources > Task numericId",
)
def restart_by_numeric_id(ctx: Context) -> None:
    task_id = _open_task(ctx)
    numeric = _task(restarted(ctx, task_id, what="restart by id"), "restart by id").get("numericId")
    if not isinstance(numeric, str) or not numeric.isdigit():
        raise Fail(f"the task reports numericId {numeric!r}, not a decimal string")
    again = _task(restarted(ctx, numeric, what=f"restart by numericId {numeric}"), "restart by numericId")
    if again.get("id") != task_id:
        raise Fail(f"restarting by numericId {numeric} returned task {again.get('id')!r}, not {task_id}")


@rule(
    "RS-TICKET-001",
    family=FAMILY,
    title="Each restart creates a new action record",
    text="Two restarts of the same task return two different ticketActionIds.",
    spec="spec/components/schemas/TaskActionsServiceRestartResponse.yaml",
    seed="States and transitions (a restart action record is created)",
)
def new_ticket(ctx: Context) -> None:
    task_id = _open_task(ctx)
    first = restarted(ctx, task_id, what="first restart")["ticketActionId"]
    second = restarted(ctx, task_id, what="second restart")["ticketActionId"]
    if first == second:
        raise Fail(f"two restarts returned the same ticketActionId {first!r}")


@rule(
    "RS-FLOW-001",
    family=FAMILY,
    title="A restarted task is back at the first step of its workflow",
    text="After a restart the current step is active and it plus `next` are one whole step sequence of the "
    "task's policy (not a later suffix of it).",
    spec=f"{OP}#/post/description",
    seed="States and transitions (task returns to the beginning of its current policy workflow)",
)
def first_step(ctx: Context) -> None:
    if not ctx.config.open_task_ids:
        raise NotApplicable("the configuration names no open task (fixtures.open_task_ids)")
    judged = 0
    # Every configured task (up to a few): a step sequence one step on can equal another sequence of the same
    # policy (an elevated one with an extra approval), so one task alone may not show the rule broken.
    for task_id in ctx.config.open_task_ids[:FLOW_TASKS]:
        instance = _task(restarted(ctx, task_id, what=f"restart {task_id}"), f"restart {task_id}").get("policy") or {}
        current = instance.get("current")
        if not isinstance(current, dict):
            raise Fail(f"the restarted task {task_id} has no current step")
        if current.get("state") != "POLICY_STEP_STATE_ACTIVE":
            raise Fail(f"task {task_id}: the current step's state is {current.get('state')!r}, not ACTIVE")
        policy = instance.get("policy") or {}
        sequences = [
            [_member(step) for step in (entry or {}).get("steps") or []]
            for entry in (policy.get("policySteps") or {}).values()
        ]
        actual = [_member(current)] + [_member(step) for step in instance.get("next") or []]
        if actual in sequences:
            judged += 1
        elif not policy.get("baselinePolicyId"):  # with a baseline policy the steps may be ones not shown here
            raise Fail(f"task {task_id}: current + next steps are {actual}, not a whole step sequence {sequences}")
    if not judged:
        raise NotApplicable("no configured task's policy shows the step sequence it runs (baseline in another policy)")


def _resolve_paths(result: dict[str, Any]) -> list[str]:
    """The `*Path` fields of the taskView that do not resolve into `expanded`."""
    view = result.get("taskView") or {}
    expanded = result.get("expanded") or []
    broken = []
    for name, value in view.items():
        if not name.endswith("Path") or value in (None, ""):
            continue
        match = PATH_FIELD.match(str(value))
        if not match or int(match.group(1)) >= len(expanded):
            broken.append(f"{name}={value!r}")
    return broken


@rule(
    "RS-EXPAND-001",
    family=FAMILY,
    title="expandMask fills `expanded` and every *Path resolves into it",
    text='A restart with expandMask.paths ["*"] returns related objects in `expanded`, and every non-empty '
    "*Path field of taskView is a JSONPath `$.expanded[i]` with i inside `expanded`.",
    spec="spec/components/schemas/TaskView.yaml",
    seed="Resources > Task expansion types",
)
def expansion(ctx: Context) -> None:
    task_id = _open_task(ctx)
    result = restarted(ctx, task_id, {"expandMask": {"paths": ["*"]}}, what="expandMask *")
    if not result.get("expanded"):
        raise Fail('expandMask.paths ["*"] returned no expanded objects')
    view = result.get("taskView") or {}
    if not any(name.endswith("Path") and value for name, value in view.items()):
        raise Fail('expandMask.paths ["*"] returned no *Path field in taskView')
    broken = _resolve_paths(result)
    if broken:
        raise Fail(f"*Path fields that do not resolve into expanded: {', '.join(broken)}")
    plain = restarted(ctx, task_id, what="no expandMask")
    broken = _resolve_paths(plain)
    if broken:
        raise Fail(f"without expandMask, *Path fields that do not resolve into expanded: {', '.join(broken)}")


@rule(
    "RS-EXPAND-002",
    family=FAMILY,
    title="An unknown expand path is rejected",
    text="expandMask.paths with a value outside the allowed list is answered 400 INVALID_EXPAND_PATH (or "
    "INVALID_ARGUMENT).",
    spec="spec/components/schemas/TaskExpandMask.yaml",
    seed="Resources > Task expansion types (Allowed values)",
    mock=True,
)
def unknown_expand_path(ctx: Context) -> None:
    task_id = ctx.config.open_task_ids[0] if ctx.config.open_task_ids else "task-conformance"
    exchange = restart(ctx, task_id, {"expandMask": {"paths": ["no_such_path"]}})
    body = ctx.expect(exchange, 400)
    # The Error table names INVALID_EXPAND_PATH; INVALID_ARGUMENT ("the JSON body fails the contract") is as true.
    if body.get("code") not in ("INVALID_EXPAND_PATH", "INVALID_ARGUMENT"):
        raise Fail(f"HTTP 400 as expected but Error.code is {body.get('code')!r}, not INVALID_EXPAND_PATH")


@rule(
    "RS-BODY-001",
    family=FAMILY,
    title="A restart body of the wrong shape is rejected",
    text="A restart whose comment is not a string is answered 400 INVALID_ARGUMENT.",
    spec="spec/components/schemas/TaskActionsServiceRestartRequest.yaml",
    seed=f"{SEED} (Request body)",
    mock=True,
)
def wrong_body(ctx: Context) -> None:
    task_id = ctx.config.open_task_ids[0] if ctx.config.open_task_ids else "task-conformance"
    ctx.expect(restart(ctx, task_id, {"comment": 42}), 400, code="INVALID_ARGUMENT")


@rule(
    "RS-DEPR-001",
    family=FAMILY,
    title="The deprecated policyStepId is accepted",
    text="A restart with policyStepId (deprecated, no effect) and a comment is answered 200.",
    spec="spec/components/schemas/TaskActionsServiceRestartRequest.yaml#/properties/policyStepId",
    seed="Versioning (deprecated fields are kept accepted)",
    mock=True,
)
def deprecated_field(ctx: Context) -> None:
    task_id = _open_task(ctx)
    restarted(ctx, task_id, {"policyStepId": "step-conformance", "comment": "conformance kit"})


@rule(
    "RS-401-001",
    family=FAMILY,
    title="Restart requires credentials",
    text="A restart without Authorization is answered 401 UNAUTHENTICATED with a WWW-Authenticate header; one "
    "with an unknown token likewise.",
    spec=f"{OP}#/post/security; spec/components/responses/Unauthorized.yaml",
    seed="Authentication (Restart and other tenant API operations)",
    mock=True,
)
def unauthenticated(ctx: Context) -> None:
    task_id = ctx.config.open_task_ids[0] if ctx.config.open_task_ids else "task-conformance"
    tokens: list[str | None] = [None] if ctx.config.is_mock else [None, f"conformance-{ctx.rng.getrandbits(64):x}"]
    for token in tokens:
        what = "no token" if token is None else "unknown token"
        exchange = restart(ctx, task_id, token=token)
        ctx.expect(exchange, 401, code="UNAUTHENTICATED", what=what)
        if "www-authenticate" not in {name.lower() for name in exchange.response_headers}:
            raise Fail(f"{what}: the 401 has no WWW-Authenticate header")


@rule(
    "RS-403-001",
    family=FAMILY,
    title="A caller without the restart action gets 403",
    text="A valid token whose role does not include restart is answered 403 PERMISSION_DENIED.",
    spec=f"{OP}#/post/responses/403",
    seed="Authentication (Restart and other tenant API operations)",
)
def forbidden(ctx: Context) -> None:
    if not ctx.config.restricted_token:
        raise NotApplicable("the configuration names no token without restart permission (auth.restricted_token)")
    exchange = restart(ctx, _open_task(ctx), token=ctx.config.restricted_token)
    ctx.expect(exchange, 403, code="PERMISSION_DENIED")


@rule(
    "RS-404-001",
    family=FAMILY,
    title="An unknown task is 404",
    text="Restarting a task id (or numericId) the target does not have is answered 404 NOT_FOUND.",
    spec=f"{OP}#/post/responses/404",
    seed=SEED,
)
def unknown_task(ctx: Context) -> None:
    for task_id in (f"task-conformance-{ctx.rng.getrandbits(48):x}", str(9_000_000_000 + ctx.rng.randrange(10**9))):
        ctx.expect(restart(ctx, task_id), 404, code="NOT_FOUND", what=f"task {task_id}")


@rule(
    "RS-409-001",
    family=FAMILY,
    title="A closed task cannot be restarted",
    text="Restarting a closed task is answered 409 TASK_NOT_RESTARTABLE.",
    spec=f"{OP}#/post/responses/409",
    seed="States and transitions",
)
def closed_task(ctx: Context) -> None:
    if not ctx.config.closed_task_id:
        raise NotApplicable("the configuration names no closed task (fixtures.closed_task_id)")
    exchange = restart(ctx, ctx.config.closed_task_id)
    if exchange.status == 404:
        raise NoEvidence(f"the configured closed task {ctx.config.closed_task_id!r} does not exist (404)")
    ctx.expect(exchange, 409, code="TASK_NOT_RESTARTABLE")


@rule(
    "RS-409-002",
    family=FAMILY,
    title="A deleted task cannot be restarted",
    text="Restarting a deleted task is answered 409 TASK_NOT_RESTARTABLE.",
    spec=f"{OP}#/post/description",
    seed="States and transitions",
)
def deleted_task(ctx: Context) -> None:
    if not ctx.config.deleted_task_id:
        raise NotApplicable("the configuration names no deleted task (fixtures.deleted_task_id)")
    ctx.expect(restart(ctx, ctx.config.deleted_task_id), 409, code="TASK_NOT_RESTARTABLE")
