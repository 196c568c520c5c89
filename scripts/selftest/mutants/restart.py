"""Restart mutants: closed tasks, numericId, `ticketActionId`, the workflow's first step, `expanded` and the
`*Path` fields, and the 401/403/404/409 answers."""

from __future__ import annotations

import copy
import uuid
from typing import Any

from scripts.selftest.asgi import Forward, Handler, Request, Response, path_param
from scripts.selftest.mutants.base import Mutant, on_response
from scripts.selftest.target import Fixtures

ADMIN = "Bearer demo-admin-token"


def _ok(response: Response) -> dict[str, Any] | None:
    document = response.json()
    return document if response.status == 200 and isinstance(document, dict) else None


def _closed_restarted(request: Request, response: Response) -> Response:
    if response.status != 409:
        return response
    task_id = path_param(request, "restart", "task_id")
    task = {"id": task_id, "state": "TASK_STATE_OPEN", "processing": "TASK_PROCESSING_TYPE_PROCESSING"}
    return Response.of_json(200, {"taskView": {"task": task}, "expanded": [], "ticketActionId": uuid.uuid4().hex})


def _numeric_refused(_: Fixtures) -> dict[str, Handler]:
    async def handle(request: Request, forward: Forward) -> Response:
        task_id = path_param(request, "restart", "task_id")
        if task_id.isdigit():
            return Response.error(404, "NOT_FOUND", f"no task with id {task_id!r}")
        return await forward(request)

    return {"restart": handle}


def _without_ticket(request: Request, response: Response) -> Response:
    document = _ok(response)
    if document is None:
        return response
    return response.with_json({k: v for k, v in document.items() if k != "ticketActionId"})


def _ticket_as_number(request: Request, response: Response) -> Response:
    document = _ok(response)
    return response if document is None else response.with_json({**document, "ticketActionId": 123})


def _teapot(request: Request, response: Response) -> Response:
    return Response.error(418, "TEAPOT", "I'm a teapot")


def _ticket_reused(_: Fixtures) -> dict[str, Handler]:
    """The action id is derived from the task: every restart of a task answers the first one's."""
    first: dict[str, str] = {}

    async def handle(request: Request, forward: Forward) -> Response:
        response = await forward(request)
        document = _ok(response)
        task = ((document or {}).get("taskView") or {}).get("task") or {}
        if document is None or "id" not in task:
            return response
        ticket = first.setdefault(task["id"], str(document.get("ticketActionId")))
        return response.with_json({**document, "ticketActionId": ticket})

    return {"restart": handle}


def _not_reset(request: Request, response: Response) -> Response:
    """The workflow is left one step on: the first step is in history and the second is current."""
    document = _ok(response)
    policy = (((document or {}).get("taskView") or {}).get("task") or {}).get("policy")
    if document is None or not isinstance(policy, dict) or not policy.get("current") or not policy.get("next"):
        return response
    document = copy.deepcopy(document)
    policy = document["taskView"]["task"]["policy"]
    done = {**policy["current"], "state": "POLICY_STEP_STATE_DONE"}
    step = policy["next"][0]
    policy["history"] = [*(policy.get("history") or []), done]
    policy["current"] = {
        "id": f"step-{uuid.uuid4().hex[:20]}",
        "policyGenerationId": done.get("policyGenerationId", ""),
        "state": "POLICY_STEP_STATE_ACTIVE",
        **step,
    }
    policy["next"] = policy["next"][1:]
    return response.with_json(document)


def _expanded_missing(request: Request, response: Response) -> Response:
    document = _ok(response)
    if document is None or not document.get("expanded"):
        return response
    return response.with_json({k: v for k, v in document.items() if k != "expanded"})


def _paths_dangling(request: Request, response: Response) -> Response:
    """Every `*Path` points one past the end of `expanded` (indexes counted from 1)."""
    document = _ok(response)
    view = (document or {}).get("taskView")
    if document is None or not isinstance(view, dict):
        return response
    count = len(document.get("expanded") or [])
    view = {
        key: (f"$.expanded[{count + n}]" if key.endswith("Path") and isinstance(value, str) and value else value)
        for n, (key, value) in enumerate(view.items())
    }
    return response.with_json({**document, "taskView": view})


def _credentials_optional(_: Fixtures) -> dict[str, Handler]:
    async def handle(request: Request, forward: Forward) -> Response:
        if not request.header("authorization"):
            request = request.with_header("authorization", ADMIN)
        return await forward(request)

    return {"restart": handle}


def _viewer_allowed(_: Fixtures) -> dict[str, Handler]:
    """Permissions are not checked: a valid token without the restart action restarts anyway."""

    async def handle(request: Request, forward: Forward) -> Response:
        response = await forward(request)
        if response.status == 403:
            return await forward(request.with_header("authorization", ADMIN))
        return response

    return {"restart": handle}


def _status_swap(old: int, new: int, code: str) -> Any:
    def change(request: Request, response: Response) -> Response:
        if response.status != old:
            return response
        return Response.error(new, code, f"task {path_param(request, 'restart', 'task_id')} ({old} as {new})")

    return on_response("restart", change)


def _without_www_authenticate(request: Request, response: Response) -> Response:
    if response.status == 401:
        response.headers = [(k, v) for k, v in response.headers if k.lower() != b"www-authenticate"]
    return response


MUTANTS = [
    Mutant(
        "restart-closed-task-restarted",
        "restart",
        "A closed task is restarted (200) instead of 409 TASK_NOT_RESTARTABLE.",
        on_response("restart", _closed_restarted),
    ),
    Mutant(
        "restart-numeric-id-refused",
        "restart",
        "A task's numericId in the path is answered 404 instead of restarting that task.",
        _numeric_refused,
    ),
    Mutant(
        "restart-ticket-missing",
        "restart",
        "The 200 response has no ticketActionId.",
        on_response("restart", _without_ticket),
    ),
    Mutant(
        "restart-ticket-wrong-type",
        "restart",
        "ticketActionId is a number, not the string the schema says.",
        on_response("restart", _ticket_as_number),
    ),
    Mutant(
        "restart-undocumented-status",
        "restart",
        "Every restart is answered 418, a status the operation does not document.",
        on_response("restart", _teapot),
    ),
    Mutant(
        "restart-ticket-reused",
        "restart",
        "Every restart of a task returns the ticketActionId of its first restart instead of a new one.",
        _ticket_reused,
    ),
    Mutant(
        "restart-workflow-not-reset",
        "restart",
        "The task is left at its workflow's second step instead of going back to the first.",
        on_response("restart", _not_reset),
    ),
    Mutant(
        "restart-expanded-missing",
        "restart",
        "`expanded` is left out although expandMask asked for related objects (the *Path fields dangle).",
        on_response("restart", _expanded_missing),
    ),
    Mutant(
        "restart-paths-dangling",
        "restart",
        "The taskView *Path fields point past the end of `expanded` instead of at the objects.",
        on_response("restart", _paths_dangling),
    ),
    Mutant(
        "restart-without-credentials",
        "restart",
        "A restart without an Authorization header is performed (as an admin) instead of 401.",
        _credentials_optional,
    ),
    Mutant(
        "restart-permission-ignored",
        "restart",
        "A token whose role does not allow restart restarts anyway instead of 403.",
        _viewer_allowed,
    ),
    Mutant(
        "restart-unknown-task-409",
        "restart",
        "An unknown task id is answered 409 TASK_NOT_RESTARTABLE instead of 404.",
        _status_swap(404, 409, "TASK_NOT_RESTARTABLE"),
    ),
    Mutant(
        "restart-closed-task-404",
        "restart",
        "A closed task is answered 404 NOT_FOUND instead of 409 TASK_NOT_RESTARTABLE.",
        _status_swap(409, 404, "NOT_FOUND"),
    ),
    Mutant(
        "restart-401-without-www-authenticate",
        "restart",
        "A 401 has no WWW-Authenticate header.",
        on_response("restart", _without_www_authenticate),
    ),
]
