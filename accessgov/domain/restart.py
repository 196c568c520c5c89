"""Restarting a task: pick the policy's step sequence again and make its first step current.

Pure functions over API-shaped documents; the HTTP handler loads and stores them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from accessgov.domain.cel import ExpressionError, compile_expression, run_program, to_cel
from accessgov.domain.permissions import is_open
from accessgov.errors import Conflict, ErrorCode

MAX_BASELINE_DEPTH = 5
STEP_MEMBERS = ("approval", "provision", "accept", "reject", "wait", "form", "action")


class PolicyError(ValueError):
    """A policy whose baseline chain is broken (cycle, self-reference, too deep, missing policy)."""


class TaskNotRestartable(Conflict):
    """The task is closed or deleted, has no policy workflow, or its policy's baseline chain is broken (409)."""

    def __init__(self, message: str) -> None:
        super().__init__(ErrorCode.TASK_NOT_RESTARTABLE, message)


def baseline_key(policy: Mapping[str, Any]) -> str:
    """The baseline entry of `policySteps` is keyed by the lowercased policy type (`POLICY_TYPE_GRANT` -> `grant`)."""
    return str(policy.get("policyType", "")).removeprefix("POLICY_TYPE_").lower()


def select_steps(
    policy: Mapping[str, Any],
    task: Mapping[str, Any],
    load_policy: Callable[[str], Mapping[str, Any] | None],
) -> list[dict[str, Any]]:
    """The step sequence the policy selects for `task`: first matching rule, else the baseline.

    A baseline may defer to another policy (`baselinePolicyId`); the chain must not cycle or exceed depth 5.
    """
    seen: list[str] = []
    current: Mapping[str, Any] | None = policy
    rules: _Rules | None = None  # the task as rules see it, taken once for every rule
    while current is not None:
        seen.append(str(current.get("id", "")))
        steps = current.get("policySteps") or {}
        for rule in current.get("rules") or []:
            condition, key = rule.get("condition"), rule.get("policyKey")
            if not condition or key not in steps:
                continue
            if rules is None:
                rules = _Rules(_named_fields(task, current.get("rules") or []))
            if rules.matches(condition):
                return _step_list(steps[key])
        key = baseline_key(current)
        if key in steps:
            return _step_list(steps[key])
        deferred = current.get("baselinePolicyId")
        if not deferred:
            return []
        if deferred in seen:
            raise PolicyError(f"baseline chain of policy {seen[0]} cycles through {deferred}")
        if len(seen) > MAX_BASELINE_DEPTH:
            raise PolicyError(f"baseline chain of policy {seen[0]} is deeper than {MAX_BASELINE_DEPTH}")
        current = load_policy(deferred)
        if current is None:
            raise PolicyError(f"policy {seen[-1]} defers to missing policy {deferred}")
    return []


def _named_fields(task: Mapping[str, Any], rules: list[Any]) -> dict[str, Any]:
    """The task as rules see it: its top-level fields that some rule names. A field no condition mentions
    cannot be read by it, and converting the whole task (its growing policy history above all) to CEL values
    was the largest cost of a restart."""
    text = " ".join(str(rule.get("condition") or "") for rule in rules if isinstance(rule, Mapping))
    names = set(_IDENTIFIER.findall(text))
    return {key: value for key, value in task.items() if key in names}


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

# Results of rule conditions by (condition, the named fields' repr): CEL is deterministic, so a condition
# over equal fields has the same result. A celpy evaluation cost ~300 us (profiled: the largest share of a
# restart's writer unit when a rule applies); most tasks of a policy carry the same few field values.
_RESULTS: dict[tuple[str, str], bool] = {}
_MAX_RESULTS = 4096
_MAX_KEY_CHARS = 1024  # larger field values are evaluated each time rather than kept


class _Rules:
    """Rule conditions over one task's named fields: converted to CEL values at most once."""

    def __init__(self, fields: dict[str, Any]) -> None:
        self.fields = fields
        self._variables: dict[str, Any] | None = None
        # repr tells JSON values apart exactly (1, 1.0, True, "1", NaN) and keeps key order (CEL map iteration
        # may see it).
        key = repr(fields)
        self._key = key if len(key) <= _MAX_KEY_CHARS else None

    def matches(self, condition: str) -> bool:
        """Whether `condition` holds; one that cannot be evaluated does not match (the baseline applies)."""
        remembered = _RESULTS.get((condition, self._key)) if self._key is not None else None
        if remembered is not None:
            return remembered
        try:
            if self._variables is None:
                self._variables = to_cel({"task": self.fields})
            matched = run_program(compile_expression(condition), self._variables, condition) is True
        except ExpressionError:
            matched = False
        if self._key is not None:
            if len(_RESULTS) >= _MAX_RESULTS:
                _RESULTS.clear()
            _RESULTS[(condition, self._key)] = matched
        return matched


def _step_list(entry: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [_copy_json(step) for step in entry.get("steps") or [] if isinstance(step, dict)]


def _copy_json(value: Any) -> Any:
    """A deep copy of JSON-shaped data (dicts, lists, scalars): copy.deepcopy's memo and dispatch made it the
    second largest cost of a restart's writer unit (profiled: ~1/8 of it)."""
    if isinstance(value, dict):
        return {key: _copy_json(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_copy_json(item) for item in value]
    return value


def step_member(step: Mapping[str, Any]) -> str | None:
    return next((member for member in STEP_MEMBERS if member in step), None)


def restart(
    task: dict[str, Any],
    *,
    load_policy: Callable[[str], Mapping[str, Any] | None],
    new_step_id: str,
    now: str,
    comment: str | None,
) -> dict[str, Any]:
    """The task after a restart (a new document; `task` is not modified).

    The interrupted current step moves to `history` (as done), the first selected step becomes current
    (active), the remaining steps become `next`, and processing starts over.
    """
    if not is_open(task):  # only an open, undeleted task has a current policy workflow to restart
        raise TaskNotRestartable(f"task {task.get('numericId')} is closed or deleted")
    result = dict(task)  # shallow: every nested value that changes is rebuilt below, none is mutated
    instance = result.get("policy") or {}
    policy = instance.get("policy")
    if not policy:
        raise TaskNotRestartable(f"task {task.get('numericId')} has no policy workflow")
    try:
        steps = select_steps(policy, task, load_policy)
    except PolicyError as error:
        raise TaskNotRestartable(str(error)) from None
    history = list(instance.get("history") or [])
    if instance.get("current"):
        history.append({**instance["current"], "state": "POLICY_STEP_STATE_DONE"})
    current = None
    if steps:
        first = steps[0]
        member = step_member(first) or "action"
        current = {
            "id": new_step_id,
            "policyGenerationId": result.get("policyGenerationId", ""),
            "state": "POLICY_STEP_STATE_ACTIVE",
            member: dict(first.get(member) or {}),
        }
    result["policy"] = {"current": current, "history": history, "next": steps[1:], "policy": policy}
    result["processing"] = "TASK_PROCESSING_TYPE_PROCESSING"
    result["stepApproverIds"] = list((current or {}).get("approval", {}).get("approverIds") or [])
    if comment:
        result["commentCount"] = int(result.get("commentCount") or 0) + 1
    result["updatedAt"] = now
    return result
