"""Statements about the resource types and the shared error rules that no schema can state: the policy's
baseline entry, and the body-size limit every operation with a body shares (the restart operation's here)."""

from __future__ import annotations

import urllib.parse
import uuid
from typing import Any

from .. import spec
from ..context import Context, Exchange
from ..registry import rule
from ..verdicts import Fail, NotApplicable
from .restart import restart, restarted

BODY_LIMIT = 64 * 1024
POLICY_TYPE_PREFIX = "POLICY_TYPE_"


def _known_policy_types() -> set[str]:
    """The PolicyType values this version of the contract lists (its open enum's known branch)."""
    schema = spec.load()["components"]["schemas"]["PolicyType"]
    return {value for branch in schema.get("anyOf", [schema]) for value in branch.get("enum", [])}


@rule(
    "TY-POLICY-001",
    family="types",
    title="A policy holds exactly one baseline: its lowercased-type entry or baselinePolicyId",
    text="Policy.policySteps always has the baseline entry keyed by the lowercased policy type (POLICY_TYPE_GRANT: "
    "`grant`), unless baselinePolicyId is set, which is mutually exclusive with that entry and never the policy's "
    "own id.",
    spec="spec/components/schemas/Policy.yaml#/properties/policySteps",
    requirements="Resources and their fields > Policy",
)
def policy_baseline(ctx: Context) -> None:
    if not ctx.config.open_task_ids:
        raise NotApplicable("the configuration names no open task (fixtures.open_task_ids)")
    result = restarted(ctx, ctx.config.open_task_ids[0], what="restart to read the task's policy")
    task = (result.get("taskView") or {}).get("task") or {}
    policy = (task.get("policy") or {}).get("policy")
    if not isinstance(policy, dict):
        raise NotApplicable("the restarted task carries no policy (taskView.task.policy.policy is null)")
    policy_type = policy.get("policyType")
    if policy_type not in _known_policy_types() or policy_type == "POLICY_TYPE_UNSPECIFIED":
        # An enum value added later (or unspecified): its baseline key is not this version's to derive.
        raise NotApplicable(f"policyType {policy_type!r} has no baseline key this version of the contract knows")
    key = policy_type.removeprefix(POLICY_TYPE_PREFIX).lower()
    steps = policy.get("policySteps") or {}
    deferred = bool(policy.get("baselinePolicyId"))
    if deferred and policy.get("baselinePolicyId") == policy.get("id"):
        raise Fail(f"policy {policy.get('id')!r} names itself as its baselinePolicyId (a chain may not self-reference)")
    if deferred and key in steps:
        raise Fail(f"policy {policy.get('id')!r} sets baselinePolicyId and also has the baseline entry {key!r}")
    if not deferred and key not in steps:
        raise Fail(
            f"policy {policy.get('id')!r} ({policy_type}) has neither baselinePolicyId nor the baseline entry "
            f"{key!r} in policySteps (keys: {', '.join(sorted(steps)) or 'none'})"
        )


@rule(
    "TY-EXPANDED-001",
    family="types",
    title="Each object of `expanded` has a string @type",
    text="The related objects a restart returns in `expanded` (expandMask `*`) each carry a string `@type` naming "
    "their kind, beside arbitrary further members.",
    spec="spec/components/schemas/TaskActionsServiceRestartResponse.yaml#/properties/expanded",
    requirements="Endpoints > Restart a task (expanded: each object has string @type)",
)
def expanded_typed(ctx: Context) -> None:
    if not ctx.config.open_task_ids:
        raise NotApplicable("the configuration names no open task (fixtures.open_task_ids)")
    task_id = ctx.config.open_task_ids[0]
    result = restarted(ctx, task_id, {"expandMask": {"paths": ["*"]}}, what="restart with expandMask *")
    expanded = result.get("expanded") or []
    if not expanded:
        raise NotApplicable("the restart returned no related objects in `expanded` to read")
    untyped = [
        i for i, item in enumerate(expanded) if not isinstance(item, dict) or not isinstance(item.get("@type"), str)
    ]
    if untyped:
        raise Fail(f"expanded[{untyped[0]}] (and {len(untyped) - 1} more) has no string @type")


@rule(
    "ER-SIZE-001",
    family="errors",
    title="A request body over 64 KB is refused 413, one of 64 KB is read (restart, token endpoint)",
    text="A body larger than 64 KB (65,536 bytes) is refused with 413 PAYLOAD_TOO_LARGE and nothing is processed; "
    "a body of exactly 65,536 bytes is read (judged on its content, never 413). Sent to the restart operation "
    "and the token endpoint (the webhook's limit is WH-SIZE-*).",
    spec="spec/components/responses/PayloadTooLarge.yaml",
    requirements="Limits (64 KB)",
)
def body_limit(ctx: Context) -> None:
    task_id = ctx.config.open_task_ids[0] if ctx.config.open_task_ids else "task-conformance"
    head, tail = b'{"comment":"', b'"}'

    def body(size: int) -> bytes:
        return head + b"a" * (size - len(head) - len(tail)) + tail

    over = restart(ctx, task_id, body(BODY_LIMIT + 1))
    ctx.expect(over, 413, code="PAYLOAD_TOO_LARGE", what="a restart body of 65,537 bytes")
    at_limit = restart(ctx, task_id, body(BODY_LIMIT))
    ctx.conforms(at_limit, what="a restart body of exactly 65,536 bytes")
    if at_limit.status == 413:
        raise Fail("a restart body of exactly 65,536 bytes (64 KB) was refused 413; the limit is 'larger than 64 KB'")
    # The token endpoint: the over-limit form is refused before its client is looked at (no failed
    # authentication is counted); the one at the limit carries the configured client, so it is no failure either.
    client_id = ctx.config.oauth_client_id or "conformance-client"
    secret = ctx.config.oauth_client_secret or "conformance-secret"
    over = _token_form(ctx, client_id, secret, BODY_LIMIT + 1)
    ctx.expect(over, 413, code="PAYLOAD_TOO_LARGE", what="a token request body of 65,537 bytes")
    if not ctx.config.oauth_client_id:
        return
    at_limit = _token_form(ctx, client_id, secret, BODY_LIMIT)
    ctx.conforms(at_limit, what="a token request body of exactly 65,536 bytes")
    if at_limit.status == 413:
        raise Fail("a token request body of exactly 65,536 bytes (64 KB) was refused 413")


def _token_form(ctx: Context, client_id: str, secret: str, size: int) -> Exchange:
    """A client-credentials form of exactly `size` bytes (an extra parameter pads it; RFC 6749 3.2 says an
    unrecognised parameter is ignored)."""
    fields = {"grant_type": "client_credentials", "client_id": client_id, "client_secret": secret}
    head = urllib.parse.urlencode(fields).encode() + b"&pad="
    headers = {"Content-Type": "application/x-www-form-urlencoded"}
    content = head + b"a" * (size - len(head))
    return ctx.token_request(headers=headers, content=content)


def _is_uuid(text: str) -> bool:
    try:
        uuid.UUID(text)
    except ValueError:
        return False
    return len(text) == 36


def _task_statements(task: dict[str, Any]) -> list[str]:
    """What the Task's descriptions say of it that its schema does not, for an open task just restarted."""
    problems = []
    if task.get("deletedAt") not in (None, ""):
        problems.append(f"deletedAt is {task['deletedAt']!r}, but a deleted task cannot be restarted")
    kind: dict[str, Any] = task["type"] if isinstance(task.get("type"), dict) else {}
    action: dict[str, Any] | None = kind["action"] if isinstance(kind.get("action"), dict) else None
    if (
        action is not None
        and action.get("outcome") != "ACTION_OUTCOME_SUCCESS"
        and action.get("createdAppEntitlementIds")
    ):
        problems.append(
            f"createdAppEntitlementIds is {action['createdAppEntitlementIds']!r} before the outcome "
            "ACTION_OUTCOME_SUCCESS (filled only after it)"
        )
    grant: dict[str, Any] | None = kind["grant"] if isinstance(kind.get("grant"), dict) else None
    duration = grant.get("grantDuration") if grant is not None else None
    if duration is not None and (not isinstance(duration, str) or not spec.DURATION.match(duration)):
        problems.append(f"grantDuration is {duration!r}, not an ISO 8601 duration (or null)")
    policy = ((task.get("policy") or {}).get("policy")) if isinstance(task.get("policy"), dict) else None
    known = policy.get("policyType") in _known_policy_types() if isinstance(policy, dict) else False
    if isinstance(policy, dict) and isinstance(policy.get("policySteps"), dict) and known:
        # (a policy type added later: its baseline key is not this version's to derive)
        baseline = str(policy.get("policyType", "")).removeprefix(POLICY_TYPE_PREFIX).lower()
        others = [key for key in policy["policySteps"] if key != baseline and not _is_uuid(key)]
        if others:
            problems.append(f"policySteps keys {others} are neither the baseline {baseline!r} nor opaque UUIDs")
    form = task.get("form") if isinstance(task.get("form"), dict) else None
    names = [field.get("name") for field in (form or {}).get("fields") or [] if isinstance(field, dict)]
    repeated = sorted({name for name in names if names.count(name) > 1 and name is not None})
    if repeated:
        problems.append(f"the form's field names {repeated} repeat (unique within its form)")
    return problems


@rule(
    "TY-TASK-001",
    family="types",
    title="A restarted task is what its field descriptions say",
    text="Each configured open task, restarted, is not deleted (deletedAt null), has no createdAppEntitlementIds "
    "before the outcome ACTION_OUTCOME_SUCCESS, a grantDuration that is an ISO 8601 duration or null, form field "
    "names unique within the form, and a policy whose policySteps keys other than the baseline are opaque UUIDs.",
    spec="spec/components/schemas/Task.yaml#/properties",
    requirements="Resources and their fields > Task",
)
def task_statements(ctx: Context) -> None:
    if not ctx.config.open_task_ids:
        raise NotApplicable("the configuration names no open task (fixtures.open_task_ids)")
    for task_id in ctx.config.open_task_ids:
        result = restarted(ctx, task_id, what=f"restart {task_id}")
        task = (result.get("taskView") or {}).get("task") or {}
        problems = _task_statements(task)
        if problems:
            raise Fail(f"task {task_id}: {'; '.join(problems)}")
