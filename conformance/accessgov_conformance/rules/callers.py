"""Fields the spec describes relative to the caller (`Task.actions`: "actions the calling user can perform",
`TaskView.objectPermissions`: "what the caller may do with the task"), checked with a caller of every role the
configuration names (`[[auth.callers]]`), one after another and interleaved: a caller's answer is about that
caller, whoever asked before."""

from __future__ import annotations

from typing import Any

from ..config import Caller
from ..context import Context
from ..registry import rule
from ..verdicts import Fail, NotApplicable
from .restart import restart, restarted

FAMILY = "callers"
RESTART_ACTION = "TASK_ACTION_TYPE_RESTART"
TASK = "spec/components/schemas/Task.yaml#/properties/actions"
VIEW = "spec/components/schemas/TaskView.yaml#/properties/objectPermissions"
SECTION = "Authentication (Restart and other tenant API operations); Resources and their fields > Task actions"


def _callers(ctx: Context, *, restarting: bool | None = None) -> list[Caller]:
    callers = [c for c in ctx.config.callers if restarting is None or c.restart == restarting]
    if not callers:
        kind = {None: "", True: " allowed to restart", False: " without restart permission"}[restarting]
        raise NotApplicable(f"the configuration names no caller{kind} ([[auth.callers]]: a token per role)")
    return callers


def _task_id(ctx: Context) -> str:
    if not ctx.config.open_task_ids:
        raise NotApplicable("the configuration names no open task (fixtures.open_task_ids)")
    return ctx.config.open_task_ids[0]


def caller_view(ctx: Context, caller: Caller, task_id: str, what: str) -> tuple[tuple[str, ...], dict[str, Any]]:
    """The `actions` and `objectPermissions` a restart answers `caller` (a caller allowed to restart), held to
    what the contract says of them for that caller."""
    label = f"{what} ({caller.role})"
    result = restarted(ctx, task_id, what=label, token=caller.token)
    view = result.get("taskView") or {}
    task = view.get("task") or {}
    actions = task.get("actions")
    if not isinstance(actions, list) or RESTART_ACTION not in actions:
        raise Fail(
            f"{label}: the caller restarted the task, so its `actions` include {RESTART_ACTION} (a caller without "
            f"it gets 403), but they are {actions!r}"
        )
    permissions = view.get("objectPermissions")
    permissions = permissions if isinstance(permissions, dict) else {}
    if permissions.get("read") is not True:
        raise Fail(f"{label}: the caller read the task, but objectPermissions.read is {permissions.get('read')!r}")
    for name, expected in caller.permissions:
        if permissions.get(name) is not expected:
            raise Fail(
                f"{label}: objectPermissions.{name} is {permissions.get(name)!r}; the {caller.role} role gets "
                f"{expected} ([[auth.callers]] permissions)"
            )
    shown = {key: permissions.get(key) for key in ("read", "edit", "delete")}
    return tuple(sorted(str(item) for item in actions)), shown


@rule(
    "CL-ROLE-001",
    family=FAMILY,
    title="Each role gets its own answer: 200 with its actions and permissions, or 403",
    text="A caller of each role the configuration names restarts an open task: a role allowed to restart gets 200 "
    "whose task.actions include TASK_ACTION_TYPE_RESTART and whose objectPermissions are the role's (read true; "
    "edit and delete as configured); a role without restart permission gets 403 PERMISSION_DENIED.",
    spec=TASK,
    requirements=SECTION,
)
def each_role(ctx: Context) -> None:
    task_id = _task_id(ctx)
    for caller in _callers(ctx):
        if caller.restart:
            caller_view(ctx, caller, task_id, "restart")
        else:
            exchange = restart(ctx, task_id, token=caller.token)
            ctx.expect(exchange, 403, code="PERMISSION_DENIED", what=f"restart by the {caller.role} role")


@rule(
    "CL-ROLE-002",
    family=FAMILY,
    title="A caller's actions and permissions do not depend on who asked before",
    text="Callers of the roles allowed to restart restart the same open task in turn (A, B, A) and another task in "
    "the other order (B, A): every answer to a caller carries that caller's actions and objectPermissions (the "
    "role's, where configured), the same each time on a task, never another caller's.",
    spec=VIEW,
    requirements=SECTION,
)
def interleaved(ctx: Context) -> None:
    callers = _callers(ctx, restarting=True)
    if ctx.config.token and all(caller.token != ctx.config.token for caller in callers):
        callers = [Caller("auth.token", ctx.config.token, True), *callers]
    if len(callers) < 2:
        raise NotApplicable("needs two callers allowed to restart ([[auth.callers]] with restart = true)")
    tasks = ctx.config.open_task_ids[:2]
    if not tasks:
        raise NotApplicable("the configuration names no open task (fixtures.open_task_ids)")
    # Compared per task: what a caller may do may depend on the task, never on who asked before.
    seen: dict[tuple[str, str], tuple[tuple[str, ...], dict[str, Any]]] = {}
    orders = [[*callers, callers[0]], list(reversed(callers))]
    for task_id, order in zip(tasks * 2, orders, strict=False):
        for turn, caller in enumerate(order, 1):
            view = caller_view(ctx, caller, task_id, f"task {task_id}, turn {turn}")
            first = seen.setdefault((task_id, caller.role), view)
            if view != first:
                raise Fail(
                    f"task {task_id}, turn {turn}: the {caller.role} caller got actions/objectPermissions {view}, "
                    f"earlier {first}: an answer carried another caller's view"
                )
