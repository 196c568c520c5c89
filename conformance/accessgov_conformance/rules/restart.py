"""The restart operation: by id and by numericId, its effect on the workflow, expansion, bodies and refusals.

Every 200 a rule reads is first held to being about what it asked (`restarted`): the task it names is the task
addressed, and its `ticketActionId` is new (no earlier restart of the run returned it). A canned answer, as a
stateless mock gives, therefore never passes a rule that needs state.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .. import spec
from ..config import Config
from ..context import Context, Exchange
from ..registry import Variant, rule, variants
from ..verdicts import Fail, NoEvidence, NotApplicable

FAMILY = "restart"
OP = "spec/paths/api_v1_tasks_{task_id}_action_restart.yaml"
REQUEST = "spec/components/schemas/TaskActionsServiceRestartRequest.yaml"
SECTION = "Endpoints > Restart a task"
PATH_FIELD = re.compile(r"^\$\.expanded\[(\d+)\]$")
FLOW_TASKS = 6
MEMBERS = ("approval", "provision", "accept", "reject", "wait", "form", "action")
COMMENT_LIMIT = 4096
# The objects a *Path field locates whose id the task itself names: the located object, when it carries an `id`,
# must be that one (a path pointing at another object of `expanded` is as wrong as one pointing past it).
NAMED_BY_TASK = {
    "userPath": ("userId",),
    "createdByUserPath": ("createdByUserId",),
    "appPath": ("type", "appId"),
    "appUserPath": ("type", "appUserId"),
    "identityUserPath": ("type", "identityUserId"),
}


def _open_task(ctx: Context) -> str:
    if not ctx.config.open_task_ids:
        raise NotApplicable("the configuration names no open task (fixtures.open_task_ids)")
    return ctx.rng.choice(ctx.config.open_task_ids)


def _any_task(ctx: Context) -> str:
    """A task id for a request the target must refuse before looking the task up (any id will do)."""
    return ctx.config.open_task_ids[0] if ctx.config.open_task_ids else "task-conformance"


def restart(ctx: Context, task_id: str, body: Any = None, **options: Any) -> Exchange:
    return ctx.api("POST", spec.RESTART, f"/api/v1/tasks/{task_id}/action/restart", body=body or {}, **options)


def _tickets_before(ctx: Context, exchange: Exchange) -> set[str]:
    """The ticketActionIds of the 200 restarts this rule saw before `exchange`."""
    seen: set[str] = set()
    for earlier in ctx.exchanges:
        if earlier is exchange:
            break
        body = earlier.response_json() if earlier.operation == ("POST", spec.RESTART) else None
        if earlier.status == 200 and isinstance(body, dict) and isinstance(body.get("ticketActionId"), str):
            seen.add(body["ticketActionId"])
    return seen


def restarted(
    ctx: Context,
    task_id: str,
    body: Any = None,
    what: str = "",
    *,
    expect_id: str | None = None,
    token: str | None = "default",
) -> dict[str, Any]:
    """The 200 body of restarting the configured open task `task_id`; a refusal means the fixture is unusable.

    Held to the request: a non-empty ticketActionId no earlier restart returned, and (an implementation) the
    task `expect_id` (default `task_id`) in taskView.task.id.
    """
    label = f"{what}: " if what else ""
    exchange = restart(ctx, task_id, body, token=token)
    if exchange.status in (404, 409):
        raise NoEvidence(f"the configured open task {task_id!r} cannot be restarted (HTTP {exchange.status})")
    body = ctx.expect(exchange, 200, what=what)
    result: dict[str, Any] = body if isinstance(body, dict) else {}
    ticket = result.get("ticketActionId")
    if not isinstance(ticket, str) or not ticket:
        raise Fail(f"{label}the 200 has no ticketActionId")
    if ctx.config.is_mock:
        return result
    if ticket in _tickets_before(ctx, exchange):
        raise Fail(f"{label}ticketActionId {ticket!r} was already returned by an earlier restart (one per request)")
    task = _task(result, what or "restart")
    wanted = expect_id or task_id
    if task.get("id") != wanted:
        raise Fail(f"{label}restarting {task_id} answered about task {task.get('id')!r}, not {wanted}")
    return result


def _task(result: dict[str, Any], what: str) -> dict[str, Any]:
    task = (result.get("taskView") or {}).get("task")
    if not isinstance(task, dict):
        raise Fail(f"{what}: the 200 has no taskView.task")
    return task


def _member(step: Any) -> str | None:
    """The one set member of a step (approval, provision, accept, reject, wait, form, action)."""
    members = [key for key in MEMBERS if isinstance(step, dict) and key in step]
    return members[0] if len(members) == 1 else None


def _workflow(task: dict[str, Any]) -> tuple[Any, list[str | None]]:
    """(current step's state, the member names of current + next): what a restart resets."""
    instance = task.get("policy") or {}
    current = instance.get("current")
    if not isinstance(current, dict):
        return None, []
    return current.get("state"), [_member(current)] + [_member(step) for step in instance.get("next") or []]


@rule(
    "RS-OK-001",
    family=FAMILY,
    title="Restarting an open task succeeds with a ticketActionId",
    text="POST .../action/restart on an open task is answered 200 with a TaskActionsServiceRestartResponse "
    "whose ticketActionId is not empty and new, and whose task is the one addressed (any task state: the "
    "contract does not say which state a restarted task is in).",
    spec=f"{OP}#/post/responses/200",
    requirements=f"{SECTION}; States and transitions",
)
def restart_by_id(ctx: Context) -> None:
    task_id = _open_task(ctx)
    restarted(ctx, task_id, what="restart by id")


@rule(
    "RS-NUM-001",
    family=FAMILY,
    title="A task's numericId may replace its id in the path",
    text="Restarting by the numericId the task reports restarts that same task (200, same id and numericId), "
    "also written with a leading zero (the numericId is a number).",
    spec="spec/components/parameters/TaskId.yaml#/description",
    requirements=f"{SECTION} (task_id); Resources > Task numericId",
)
def restart_by_numeric_id(ctx: Context) -> None:
    for task_id in ctx.config.open_task_ids[:2] or [_open_task(ctx)]:
        numeric = _task(restarted(ctx, task_id, what=f"restart {task_id}"), "restart by id").get("numericId")
        if not isinstance(numeric, str) or not numeric.isdigit():
            raise Fail(f"task {task_id} reports numericId {numeric!r}, not a decimal string")
        for spelling in (numeric, "0" + numeric):
            what = f"restart by numericId {spelling}"
            again = _task(restarted(ctx, spelling, what=what, expect_id=task_id), what)
            if again.get("numericId") != numeric:
                raise Fail(f"{what}: the task answered has numericId {again.get('numericId')!r}")


@rule(
    "RS-TICKET-001",
    family=FAMILY,
    title="Each restart creates a new action record",
    text="Restarts of the same task, and of two tasks, return ticketActionIds that are all different.",
    spec="spec/components/schemas/TaskActionsServiceRestartResponse.yaml",
    requirements="States and transitions (a restart action record is created)",
)
def new_ticket(ctx: Context) -> None:
    tasks = [_open_task(ctx)] * 2 + list(ctx.config.open_task_ids[:2])
    for n, task_id in enumerate(tasks, 1):
        restarted(ctx, task_id, what=f"restart {n} ({task_id})")  # `restarted` refuses a ticket seen before


@rule(
    "RS-FLOW-001",
    family=FAMILY,
    title="A restarted task is back at the first step of its workflow",
    text="After a restart the current step is active and it plus `next` are one whole step sequence of the "
    "task's policy (not a later suffix of it, not missing its later steps).",
    spec=f"{OP}#/post/description",
    requirements="States and transitions (task returns to the beginning of its current policy workflow)",
)
def first_step(ctx: Context) -> None:
    if not ctx.config.open_task_ids:
        raise NotApplicable("the configuration names no open task (fixtures.open_task_ids)")
    judged = 0
    # Every configured task (up to a few): a step sequence one step on can equal another sequence of the same
    # policy (an elevated one with an extra approval), so one task alone may not show the rule broken.
    for task_id in ctx.config.open_task_ids[:FLOW_TASKS]:
        task = _task(restarted(ctx, task_id, what=f"restart {task_id}"), f"restart {task_id}")
        state, actual = _workflow(task)
        if not actual:
            raise Fail(f"the restarted task {task_id} has no current step")
        if state != "POLICY_STEP_STATE_ACTIVE":
            raise Fail(f"task {task_id}: the current step's state is {state!r}, not POLICY_STEP_STATE_ACTIVE")
        policy = (task.get("policy") or {}).get("policy") or {}
        sequences = [
            [_member(step) for step in (entry or {}).get("steps") or []]
            for entry in (policy.get("policySteps") or {}).values()
        ]
        if actual in sequences:
            judged += 1
        elif not policy.get("baselinePolicyId"):  # with a baseline policy the steps may be ones not shown here
            raise Fail(f"task {task_id}: current + next steps are {actual}, not a whole step sequence {sequences}")
    if not judged:
        raise NotApplicable("no configured task's policy shows the step sequence it runs (baseline in another policy)")


def _path_fields(result: dict[str, Any]) -> dict[str, str]:
    """The set (non-empty) `*Path` fields of the taskView."""
    view = result.get("taskView") or {}
    return {name: str(value) for name, value in view.items() if name.endswith("Path") and value not in (None, "")}


def _located(result: dict[str, Any], what: str) -> dict[str, Any]:
    """Each set *Path field -> the object of `expanded` it locates; Fail for one that locates nothing."""
    expanded = result.get("expanded") or []
    located: dict[str, Any] = {}
    for name, value in _path_fields(result).items():
        match = PATH_FIELD.match(value)
        if not match or int(match.group(1)) >= len(expanded):
            raise Fail(f"{what}: {name}={value!r} does not locate an object of `expanded` ({len(expanded)} objects)")
        located[name] = expanded[int(match.group(1))]
    return located


def _named(task: dict[str, Any], keys: tuple[str, ...]) -> str | None:
    """The id the task names under `keys` (`type` is the task type's one set member)."""
    value: Any = task
    for key in keys:
        if key == "type":
            members = [member for member in (task.get("type") or {}).values() if isinstance(member, dict)]
            value = members[0] if len(members) == 1 else None
        else:
            value = value.get(key) if isinstance(value, dict) else None
    return value if isinstance(value, str) and value else None


def _check_located(task: dict[str, Any], located: dict[str, Any], what: str) -> None:
    for name, obj in located.items():
        expected = _named(task, NAMED_BY_TASK.get(name, ()))
        if expected and isinstance(obj, dict) and isinstance(obj.get("id"), str) and obj["id"] != expected:
            raise Fail(f"{what}: {name} locates the object with id {obj['id']!r}, not the task's {expected!r}")


@rule(
    "RS-EXPAND-001",
    family=FAMILY,
    title="expandMask fills `expanded` with what was asked, and every *Path locates it",
    text='A restart with expandMask.paths ["*"] returns related objects in `expanded`, every non-empty *Path '
    "field of taskView is a JSONPath `$.expanded[i]` with i inside `expanded` locating the object the task "
    'names; ["user_id"] sets userPath and no other path field; no expandMask sets no path field.',
    spec="spec/components/schemas/TaskView.yaml",
    requirements="Resources > Task expansion types",
)
def expansion(ctx: Context) -> None:
    task_id = _open_task(ctx)
    result = restarted(ctx, task_id, {"expandMask": {"paths": ["*"]}}, what='expandMask ["*"]')
    if not result.get("expanded"):
        raise Fail('expandMask.paths ["*"] returned no expanded objects')
    located = _located(result, 'expandMask ["*"]')
    if not located:
        raise Fail('expandMask.paths ["*"] returned no *Path field in taskView')
    task = _task(result, 'expandMask ["*"]')
    _check_located(task, located, 'expandMask ["*"]')
    plain = restarted(ctx, task_id, what="no expandMask")
    if _path_fields(plain):
        raise Fail(f"without expandMask, path fields are set: {sorted(_path_fields(plain))} (only what was asked)")
    if not task.get("userId"):
        return
    one = restarted(ctx, task_id, {"expandMask": {"paths": ["user_id"]}}, what='expandMask ["user_id"]')
    fields = _located(one, 'expandMask ["user_id"]')
    if "userPath" not in fields:
        raise Fail('expandMask.paths ["user_id"] on a task with a userId set no userPath')
    if set(fields) != {"userPath"}:
        raise Fail(f'expandMask.paths ["user_id"] set other path fields too: {sorted(set(fields) - {"userPath"})}')
    _check_located(_task(one, 'expandMask ["user_id"]'), fields, 'expandMask ["user_id"]')


UNKNOWN_PATHS = ("no_such_path", "USER_ID", " user_id", "user_id ", "", "users_id")


@rule(
    "RS-EXPAND-002",
    family=FAMILY,
    title="An unknown expand path is rejected",
    text="expandMask.paths with a value outside the allowed list (unknown, another letter case, surrounding "
    "whitespace, empty) is answered 400 INVALID_EXPAND_PATH (or INVALID_ARGUMENT).",
    spec="spec/components/schemas/TaskExpandMask.yaml",
    requirements="Resources > Task expansion types (Allowed values)",
    mock=True,
)
def unknown_expand_path(ctx: Context) -> None:
    for value in UNKNOWN_PATHS:
        what = f"expandMask.paths [{value!r}]"
        body = ctx.expect(restart(ctx, _any_task(ctx), {"expandMask": {"paths": [value]}}), 400, what=what)
        # The Error table names INVALID_EXPAND_PATH; INVALID_ARGUMENT ("the JSON body fails the contract") is as true.
        if body.get("code") not in ("INVALID_EXPAND_PATH", "INVALID_ARGUMENT"):
            raise Fail(f"{what}: HTTP 400 as expected but Error.code is {body.get('code')!r}, not INVALID_EXPAND_PATH")


WRONG_BODIES: tuple[tuple[str, bytes], ...] = (
    ("a JSON array", b"[]"),
    ("a JSON string", b'"restart"'),
    ("a JSON number", b"1"),
    ("JSON null", b"null"),
    ("comment a number", b'{"comment": 42}'),
    ("comment a boolean", b'{"comment": true}'),
    ("comment an object", b'{"comment": {"text": "x"}}'),
    ("expandMask a string", b'{"expandMask": "user_id"}'),
    ("expandMask.paths a string", b'{"expandMask": {"paths": "user_id"}}'),
    ("expandMask.paths with a number", b'{"expandMask": {"paths": [1]}}'),
    ("policyStepId a number", b'{"policyStepId": 7}'),
    (f"comment of {COMMENT_LIMIT + 1} characters", b'{"comment": "' + b"c" * (COMMENT_LIMIT + 1) + b'"}'),
)


@rule(
    "RS-BODY-001",
    family=FAMILY,
    title="A restart body of the wrong shape is rejected",
    text="A restart whose body is not a JSON object, or whose comment, expandMask, expandMask.paths or "
    "policyStepId has the wrong type, or whose comment exceeds 4096 characters, is answered 400 "
    "INVALID_ARGUMENT (INVALID_EXPAND_PATH also for a wrong expandMask).",
    spec=REQUEST,
    requirements=f"{SECTION} (Request body)",
    mock=True,
)
def wrong_body(ctx: Context) -> None:
    for what, body in WRONG_BODIES:
        answer = ctx.expect(restart(ctx, _any_task(ctx), body), 400, what=what)
        allowed = ("INVALID_ARGUMENT", "INVALID_EXPAND_PATH") if "expandMask" in what else ("INVALID_ARGUMENT",)
        if answer.get("code") not in allowed:
            raise Fail(f"{what}: HTTP 400 as expected but Error.code is {answer.get('code')!r}, not {allowed[0]}")


ALLOWED_BODIES: tuple[tuple[str, Any], ...] = (
    ("an empty object", {}),
    ("expandMask null", {"expandMask": None}),
    ("expandMask.paths null", {"expandMask": {"paths": None}}),
    ("expandMask without paths", {"expandMask": {}}),
    ("a member the schema does not define", {"conformanceExtra": 1, "comment": "conformance kit"}),
    (f"a comment of {COMMENT_LIMIT} characters", {"comment": "c" * COMMENT_LIMIT}),
)


@rule(
    "RS-BODY-002",
    family=FAMILY,
    title="Every body the schema allows is accepted",
    text="A restart body that is an empty object, has expandMask or expandMask.paths null, an expandMask "
    "without paths, a member the schema does not define, or a comment of exactly 4096 characters, is "
    "answered 200 about the task addressed.",
    spec=REQUEST,
    requirements=f"{SECTION} (Request body)",
)
def allowed_body(ctx: Context) -> None:
    task_id = _open_task(ctx)
    for what, body in ALLOWED_BODIES:
        restarted(ctx, task_id, body, what=what)


@rule(
    "RS-DEPR-001",
    family=FAMILY,
    title="The deprecated policyStepId is accepted and changes nothing",
    text="A restart with policyStepId naming a real step of the task (or no step at all) is answered 200 and "
    "leaves the task exactly where a restart without it does (same current step kind, same `next`).",
    spec=f"{REQUEST}#/properties/policyStepId",
    requirements="Versioning (deprecated fields are kept accepted)",
    mock=True,
)
def deprecated_field(ctx: Context) -> None:
    if ctx.config.is_mock:
        restarted(ctx, _open_task(ctx), {"policyStepId": "step-conformance", "comment": "conformance kit"})
        return
    # A task whose workflow has more than one step, so that a policyStepId taking effect can show: honoured, it
    # would leave the task at (or after) the step it names instead of at the first.
    for task_id in ctx.config.open_task_ids[:FLOW_TASKS] or [_open_task(ctx)]:
        base = _task(restarted(ctx, task_id, what=f"restart {task_id} without policyStepId"), "no policyStepId")
        state, expected = _workflow(base)
        if len(expected) > 1:
            break
    steps = [(base.get("policy") or {}).get("current") or {}, *((base.get("policy") or {}).get("history") or [])]
    real = [str(step["id"]) for step in steps if isinstance(step, dict) and isinstance(step.get("id"), str)]
    if not real or not expected:
        raise NoEvidence(f"task {task_id} shows no step instance id to name in policyStepId")
    for step_id in (real[-1], real[0], f"step-conformance-{ctx.rng.getrandbits(32):08x}"):
        what = f"policyStepId {step_id!r}"
        task = _task(restarted(ctx, task_id, {"policyStepId": step_id, "comment": "conformance kit"}, what=what), what)
        if _workflow(task) != (state, expected):
            raise Fail(f"{what}: the task is at {_workflow(task)}, a restart without it at {(state, expected)}")


@rule(
    "RS-COMMENT-001",
    family=FAMILY,
    title="A restart's comment is added to the task's comments",
    text="A restart with a comment answers a task whose commentCount is higher than a restart without one "
    "answered just before (twice over: other clients may comment in between, never take one away).",
    spec=f"{REQUEST}#/properties/comment",
    requirements=f"{SECTION} (Request body: comment)",
)
def comment_added(ctx: Context) -> None:
    task_id = _open_task(ctx)
    grown: list[tuple[int, int]] = []
    for attempt in (1, 2):
        before = _task(restarted(ctx, task_id, what=f"restart {attempt} without comment"), "without comment")
        with_comment = {"comment": f"conformance kit {attempt}"}
        after = _task(restarted(ctx, task_id, with_comment, what=f"restart {attempt} with comment"), "comment")
        counts = before.get("commentCount"), after.get("commentCount")
        if not (isinstance(counts[0], int) and isinstance(counts[1], int)):
            raise Fail(f"the restarted task's commentCount is {counts}, not an integer")
        grown.append((counts[0], counts[1]))
    if not all(after > before for before, after in grown):  # both: a comment of another client can mask one
        raise Fail(f"commentCount before and after a restart with a comment: {grown} (the comment was not added)")


@rule(
    "RS-401-001",
    family=FAMILY,
    title="Restart requires credentials",
    text="A restart without Authorization is answered 401 UNAUTHENTICATED with a WWW-Authenticate header; one "
    "with an unknown token likewise.",
    spec=f"{OP}#/post/security; spec/components/responses/Unauthorized.yaml",
    requirements="Authentication (Restart and other tenant API operations)",
    mock=True,
)
def unauthenticated(ctx: Context) -> None:
    task_id = _any_task(ctx)
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
    requirements="Authentication (Restart and other tenant API operations)",
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
    text="Restarting a task id (or numericId) the target does not have is answered 404 NOT_FOUND, and so is a "
    "near miss of a real one: its id in other letter case or with a trailing space, its numericId with a sign.",
    spec=f"{OP}#/post/responses/404",
    requirements=SECTION,
)
def unknown_task(ctx: Context) -> None:
    for task_id in (f"task-conformance-{ctx.rng.getrandbits(48):x}", str(9_000_000_000 + ctx.rng.randrange(10**9))):
        ctx.expect(restart(ctx, task_id), 404, code="NOT_FOUND", what=f"task {task_id}")
    if not ctx.config.open_task_ids:
        return
    real = _open_task(ctx)
    numeric = _task(restarted(ctx, real, what=f"restart {real}"), f"restart {real}").get("numericId")
    near = [(f"{real!r} in other letter case", real.swapcase()), (f"{real!r} with a trailing space", real + " ")]
    if isinstance(numeric, str) and numeric.isdigit():
        near.append((f"numericId {numeric} with a + sign", "+" + numeric))
    for what, task_id in near:
        if task_id != real:
            ctx.expect(restart(ctx, task_id), 404, code="NOT_FOUND", what=what)


@dataclass(frozen=True)
class Unrestartable:
    """A configured task no restart may reopen: `kind` names it (its fixture is `fixtures.{kind}_task_id`)."""

    kind: str
    task_id: Callable[[Config], str | None]
    # Whether a 404 means the fixture names no task (a closed task still exists; a deleted one may not be found).
    must_exist: bool


def not_restartable(ctx: Context, value: Unrestartable) -> None:
    task_id = value.task_id(ctx.config)
    if not task_id:
        raise NotApplicable(f"the configuration names no {value.kind} task (fixtures.{value.kind}_task_id)")
    exchange = restart(ctx, task_id)
    if value.must_exist and exchange.status == 404:
        raise NoEvidence(f"the configured {value.kind} task {task_id!r} does not exist (404)")
    ctx.expect(exchange, 409, code="TASK_NOT_RESTARTABLE")


variants(
    FAMILY,
    not_restartable,
    (
        Variant(
            "RS-409-001",
            title="A closed task cannot be restarted",
            text="Restarting a closed task is answered 409 TASK_NOT_RESTARTABLE.",
            spec=f"{OP}#/post/responses/409",
            requirements="States and transitions",
            value=Unrestartable("closed", lambda config: config.closed_task_id, must_exist=True),
        ),
        Variant(
            "RS-409-002",
            title="A deleted task cannot be restarted",
            text="Restarting a deleted task is answered 409 TASK_NOT_RESTARTABLE.",
            spec=f"{OP}#/post/description",
            requirements="States and transitions",
            value=Unrestartable("deleted", lambda config: config.deleted_task_id, must_exist=False),
        ),
    ),
)


# What a restart leaves as it was: the task's identity, origin and details, who created it and for whom, its policy
# generation ("it changes when the policy on the task is changed", which a restart does not do).
UNCHANGED = (
    "id",
    "numericId",
    "displayName",
    "description",
    "origin",
    "type",
    "policyGenerationId",
    "createdAt",
    "createdByUserId",
    "userId",
    "deletedAt",
    "emergencyAccess",
    "data",
    "insightIds",
    "externalRefs",
    "revocationTargets",
)


@rule(
    "RS-STABLE-001",
    family=FAMILY,
    title="A restart changes the workflow, not the task's identity or details",
    text="Restarting an open task three times (by id, by numericId, by id) answers the same id, numericId, "
    "displayName, description, origin, type, policyGenerationId, createdAt, createdByUserId, userId, deletedAt, "
    "emergencyAccess, data, insightIds, externalRefs and revocationTargets each time.",
    spec=f"{OP}#/post/description",
    requirements="States and transitions (task returns to the beginning of its current policy workflow)",
)
def unchanged_by_restart(ctx: Context) -> None:
    if not ctx.config.open_task_ids:
        raise NotApplicable("the configuration names no open task (fixtures.open_task_ids)")
    for task_id in ctx.config.open_task_ids[:1]:
        first = _task(restarted(ctx, task_id, what=f"restart {task_id}"), "restart")
        numeric = first.get("numericId")
        spellings = [str(numeric) if isinstance(numeric, str) and numeric.isdigit() else task_id, task_id]
        for turn, spelling in enumerate(spellings, 2):
            again = _task(restarted(ctx, spelling, what=f"restart {turn}", expect_id=task_id), "restart again")
            changed = [name for name in UNCHANGED if again.get(name) != first.get(name)]
            if changed:
                name = changed[0]
                raise Fail(
                    f"restart {turn} of task {task_id} changed {', '.join(changed)} (a restart changes the workflow "
                    f"only): {name} was {first.get(name)!r:.80}, is {again.get(name)!r:.80}"
                )


def _expand_values() -> list[str]:
    """The expandMask.paths values this version of the contract lists, `*` first."""
    schema = spec.load()["components"]["schemas"]["TaskExpandMask"]["properties"]["paths"]["items"]
    return [str(value) for value in schema.get("enum", [])]


def _located_ids(result: dict[str, Any], what: str) -> dict[str, Any]:
    """Each set *Path field -> the (canonical JSON of the) object it locates."""
    return {name: json.dumps(obj, sort_keys=True) for name, obj in _located(result, what).items()}


@rule(
    "RS-EXPAND-003",
    family=FAMILY,
    title="expandMask `*` requests everything: every path's objects, with every path field",
    text='A restart with expandMask.paths ["*"] sets every *Path field, locating the same object, that a restart '
    "naming every listed path sets; one naming a single path sets no path field that `*` does not.",
    spec="spec/components/schemas/TaskExpandMask.yaml#/description",
    requirements="Resources > Task expansion types (* requests everything)",
)
def star_is_everything(ctx: Context) -> None:
    if not ctx.config.open_task_ids:
        raise NotApplicable("the configuration names no open task (fixtures.open_task_ids)")
    values = [value for value in _expand_values() if value != "*"]
    for task_id in ctx.config.open_task_ids[:1]:
        star = _located_ids(restarted(ctx, task_id, {"expandMask": {"paths": ["*"]}}, what='["*"]'), '["*"]')
        # Every listed path at once, and one alone: what `*` must hold, in two requests.
        asked = [values, [ctx.rng.choice(values)]]
        for paths in asked:
            what = f"task {task_id}, expandMask {paths if len(paths) == 1 else 'of every listed path'}"
            named = _located_ids(restarted(ctx, task_id, {"expandMask": {"paths": paths}}, what=what), what)
            missing = sorted(set(named) - set(star))
            if missing:
                raise Fail(f'{what} sets {", ".join(missing)}, which ["*"] does not: `*` must request everything')
            differ = [name for name in named if star.get(name) != named[name]]
            if differ:
                raise Fail(f'{what}: {differ[0]} locates another object than with ["*"]')


NOT_JSON_TEXT = {
    "an unpaired high surrogate escape": b'{"comment":"\\ud800"}',
    "an unpaired low surrogate escape": b'{"comment":"x\\udc00y"}',
    "a number a double cannot hold": b'{"comment":"c","n":1e400}',
    "NaN": b'{"comment":"c","n":NaN}',
    "Infinity": b'{"comment":"c","n":-Infinity}',
    "invalid UTF-8": b'{"comment":"\xff\xfe"}',
    "a byte order mark": b'\xef\xbb\xbf{"comment":"c"}',
    "trailing data": b'{"comment":"c"} {}',
}


@rule(
    "RS-JSON-001",
    family=FAMILY,
    title="A restart body that is not JSON text is 400 INVALID_JSON; an escaped surrogate pair is one character",
    text="A restart body with an unpaired surrogate escape (\\ud800, \\udc00), a number a double cannot hold "
    "(1e400), NaN, Infinity, invalid UTF-8, a byte order mark or trailing data is 400 INVALID_JSON; "
    "a comment of an escaped surrogate pair (\\ud83d\\ude00) is accepted.",
    spec="spec/openapi.yaml#/info/description (JSON text)",
    requirements="Errors (400 body that is not valid JSON)",
)
def restart_json_text(ctx: Context) -> None:
    task_id = _open_task(ctx)
    for what, body in NOT_JSON_TEXT.items():
        exchange = restart(ctx, task_id, body)
        ctx.expect(exchange, 400, code="INVALID_JSON", what=f"a restart body with {what}")
    restarted(ctx, task_id, b'{"comment":"\\ud83d\\ude00"}', what="a comment of an escaped surrogate pair")
