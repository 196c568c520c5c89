"""Probes of the restart mutants added for issue 37 (tests/conformance/selftest/mutants/restart.py): one request each on
which the mutant answers differently from the unchanged reference server."""

from __future__ import annotations

from typing import Any

import httpx

from tests.conformance.selftest.probes.probing import ADMIN, RESTART, Probe, Target


def _raw(t: Target, content: bytes) -> httpx.Response:
    """A restart whose body is sent as these bytes (JSON the helper would not send: [], null)."""
    headers = {**ADMIN, "Content-Type": "application/json"}
    return t.client.post(RESTART.format(t.fx.open_task_ids[0]), content=content, headers=headers)


def _status(body: Any) -> Probe:
    return lambda t: t.restart(body=body).status_code


def _task(response: httpx.Response) -> dict[str, Any]:
    task: dict[str, Any] = ((response.json().get("taskView") or {}).get("task")) or {}
    return task


def _path_fields(t: Target, body: Any) -> list[str]:
    view = t.restart(body=body).json()["taskView"]
    return sorted(name for name, value in view.items() if name.endswith("Path") and value)


def _numeric_restarts(t: Target) -> Any:
    numeric = _task(t.restart())["numericId"]
    return _task(t.restart(numeric)).get("id")


def _comment_counted(t: Target) -> int:
    before = _task(t.restart())["commentCount"]
    return int(_task(t.restart(body={"comment": "probe"}))["commentCount"]) - int(before)


PROBES: dict[str, Probe] = {
    "restart-deleted-task-404": lambda t: t.restart(t.fx.deleted_task_ids[0]).status_code,
    "restart-canned-task": lambda t: _task(t.restart()).get("id"),
    "restart-other-task": lambda t: _task(t.restart()).get("id"),
    "restart-numeric-id-off-by-one": _numeric_restarts,
    "restart-ticket-empty": lambda t: t.restart().json()["ticketActionId"] == "",
    "restart-current-not-active": lambda t: _task(t.restart())["policy"]["current"]["state"],
    "restart-next-dropped": lambda t: len(_task(t.restart())["policy"]["next"]),
    "restart-paths-swapped": lambda t: t.restart(body={"expandMask": {"paths": ["*"]}}).json()["taskView"]["userPath"],
    "restart-expand-specific-as-star": lambda t: _path_fields(t, {"expandMask": {"paths": ["user_id"]}}),
    "restart-expand-without-mask": lambda t: _path_fields(t, {"comment": "probe"}),
    "restart-expand-unknown-ignored": _status({"expandMask": {"paths": ["no_such_path"]}}),
    "restart-expand-case-folded": _status({"expandMask": {"paths": ["USER_ID"]}}),
    "restart-expand-whitespace-trimmed": _status({"expandMask": {"paths": [" user_id"]}}),
    "restart-expand-empty-ignored": _status({"expandMask": {"paths": [""]}}),
    "restart-body-non-object-accepted": lambda t: _raw(t, b"[]").status_code,
    "restart-comment-coerced": _status({"comment": 42}),
    "restart-expandmask-type-ignored": _status({"expandMask": "user_id"}),
    "restart-paths-string-wrapped": _status({"expandMask": {"paths": "user_id"}}),
    "restart-paths-numbers-dropped": _status({"expandMask": {"paths": [1]}}),
    "restart-policystepid-type-ignored": _status({"policyStepId": 7}),
    "restart-comment-truncated": _status({"comment": "c" * 4097}),
    "restart-unknown-member-refused": _status({"probeExtra": 1}),
    "restart-null-expandmask-refused": _status({"expandMask": None}),
    "restart-empty-object-refused": lambda t: _raw(t, b"{}").status_code,
    "restart-comment-limit-exclusive": _status({"comment": "c" * 4096}),
    "restart-policystepid-rejected": _status({"policyStepId": "step-probe"}),
    "restart-policystepid-honoured": lambda t: len(_task(t.restart(body={"policyStepId": "s"}))["policy"]["next"]),
    "restart-policystepid-looked-up": _status({"policyStepId": "step-probe-unknown"}),
    "restart-comment-dropped": _comment_counted,
    "restart-forbidden-as-401": lambda t: t.restart(headers={"Authorization": "Bearer demo-viewer-token"}).status_code,
    "restart-unknown-numeric-400": lambda t: t.restart("987654321").status_code,
    "restart-numeric-leading-zero-refused": lambda t: t.restart("0" + _task(t.restart())["numericId"]).status_code,
    "restart-id-case-insensitive": lambda t: t.restart(t.fx.open_task_ids[0].upper()).status_code,
    "restart-id-trimmed": lambda t: t.restart(t.fx.open_task_ids[0] + " ").status_code,
    "restart-numeric-sign-accepted": lambda t: t.restart("+" + _task(t.restart())["numericId"]).status_code,
}
