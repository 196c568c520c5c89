"""Restart mutants: the task answered, numericId, `ticketActionId`, the workflow's first step, `expanded` and the
`*Path` fields, the request body (what it must refuse, what it must take), policyStepId, comments, and the
401/403/404/409 answers. Each breaks the one traceability variant its `covers` names
(`conformance/accessgov_conformance/traceability.yaml`, section `restart`)."""

from __future__ import annotations

import copy
import json
import uuid
from collections.abc import Callable
from typing import Any

from tests.conformance.selftest.asgi import Forward, Handler, Request, Response, path_param
from tests.conformance.selftest.mutants.base import BODY_LIMIT, Mutant, on_response, refuse
from tests.conformance.selftest.target import Fixtures

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


# The spec's own example task (components/examples/RestartResponse.yaml): what a stateless mock answers.
CANNED_ID, CANNED_NUMERIC = "2F3kT9mQ1xYzA7bC4dE5fG6hJ8k", "1042"
EXPAND_PATHS = {
    "*", "access_review_id", "user_id", "created_by_user_id", "app_id", "app_user_id", "app_entitlement_ids",
    "step_approver_ids", "approver_ids", "identity_user_id", "insight_ids", "app_user_last_usage",
    "entitlement_scope_bindings", "scope_role_resources", "resource",
}  # fmt: skip
KNOWN_MEMBERS = {"comment", "expandMask", "policyStepId"}
COMMENT_LIMIT = 4096
Body = dict[str, Any]


def _task_of(document: Any) -> Body | None:
    task = ((document or {}).get("taskView") or {}).get("task") if isinstance(document, dict) else None
    return task if isinstance(task, dict) else None


def _canned_task(request: Request, response: Response) -> Response:
    """Every restart answers the spec's example task, whatever was addressed (a stateless mock)."""
    document = _ok(response)
    if document is None or _task_of(document) is None:
        return response
    document = copy.deepcopy(document)
    document["taskView"]["task"].update(id=CANNED_ID, numericId=CANNED_NUMERIC)
    return response.with_json(document)


def _redirected(choose: Callable[[str, Fixtures], str | None]) -> Callable[[Fixtures], dict[str, Handler]]:
    """The restart is performed on the task `choose(path task_id)` names instead (None: the one addressed)."""

    def handlers(fixtures: Fixtures) -> dict[str, Handler]:
        async def handle(request: Request, forward: Forward) -> Response:
            other = choose(path_param(request, "restart", "task_id"), fixtures)
            if other is not None:
                request = request.with_path(f"/api/v1/tasks/{other}/action/restart")
            return await forward(request)

        return {"restart": handle}

    return handlers


def _another_open(task_id: str, fixtures: Fixtures) -> str | None:
    opened = fixtures.open_task_ids
    if task_id not in opened[:6]:
        return None
    return opened[6] if len(opened) > 6 else opened[(opened.index(task_id) + 1) % len(opened)]


def _numeric_elsewhere(task_id: str, fixtures: Fixtures) -> str | None:
    """A numericId resolves to the open task after the one it names (an off-by-one in the lookup)."""
    return str(int(task_id) + 1) if task_id.isdigit() and int(task_id) < 10**9 else None


def _retried_as(spelling: Callable[[str], str | None]) -> Callable[[Fixtures], dict[str, Handler]]:
    """A task id the reference does not know (404) is looked up again as `spelling(id)` (None: not again)."""

    def handlers(_: Fixtures) -> dict[str, Handler]:
        async def handle(request: Request, forward: Forward) -> Response:
            response = await forward(request)
            other = spelling(path_param(request, "restart", "task_id"))
            if response.status == 404 and other:
                return await forward(request.with_path(f"/api/v1/tasks/{other}/action/restart"))
            return response

        return {"restart": handle}

    return handlers


def _numeric_as_text(task_id: str, fixtures: Fixtures) -> str | None:
    """A numericId with a leading zero is no task: compared as text, not as the number it is."""
    return "no-such-task" if task_id.isdigit() and task_id.startswith("0") else None


def _ticket(value: Any) -> Callable[[Request, Response], Response]:
    def change(request: Request, response: Response) -> Response:
        document = _ok(response)
        return response if document is None else response.with_json({**document, "ticketActionId": value})

    return change


def _policy_change(change: Callable[[Body], None]) -> Callable[[Request, Response], Response]:
    def rewrite(request: Request, response: Response) -> Response:
        document = _ok(response)
        task = _task_of(document)
        if document is None or task is None or not isinstance(task.get("policy"), dict):
            return response
        document = copy.deepcopy(document)
        change(document["taskView"]["task"]["policy"])
        return response.with_json(document)

    return rewrite


def _current_not_active(policy: Body) -> None:
    if isinstance(policy.get("current"), dict):
        policy["current"]["state"] = "POLICY_STEP_STATE_UNSPECIFIED"


def _next_dropped(policy: Body) -> None:
    policy["next"] = []


def _body_rewrite(change: Callable[[Any], Any]) -> Callable[[Fixtures], dict[str, Handler]]:
    """The server reads the JSON body as `change(body)` (returning `body` itself: as sent)."""

    def handlers(_: Fixtures) -> dict[str, Handler]:
        async def handle(request: Request, forward: Forward) -> Response:
            if len(request.body) > BODY_LIMIT:  # refused for its size before it is read, as by the reference
                return await forward(request)
            try:
                body = json.loads(request.body)
            except ValueError:  # not JSON: refused as the reference refuses it
                return await forward(request)
            changed = change(copy.deepcopy(body))
            if changed != body or type(changed) is not type(body):
                request = request.with_body(json.dumps(changed).encode())
            return await forward(request)

        return {"restart": handle}

    return handlers


def _paths_map(rewrite: Callable[[list[Any]], list[Any]]) -> Callable[[Any], Any]:
    def change(body: Any) -> Any:
        mask = body.get("expandMask") if isinstance(body, dict) else None
        if isinstance(mask, dict) and isinstance(mask.get("paths"), list):
            mask["paths"] = rewrite(mask["paths"])
        return body

    return change


def _unknown_dropped(paths: list[Any]) -> list[Any]:
    """Values that are no spelling of an allowed path are ignored (case and whitespace variants still refused)."""
    return [v for v in paths if not isinstance(v, str) or v == "" or v.strip().lower() in EXPAND_PATHS]


def _case_folded(paths: list[Any]) -> list[Any]:
    return [v.lower() if isinstance(v, str) and v.lower() in EXPAND_PATHS else v for v in paths]


def _whitespace_trimmed(paths: list[Any]) -> list[Any]:
    return [v.strip() if isinstance(v, str) and v.strip() in EXPAND_PATHS else v for v in paths]


def _empty_dropped(paths: list[Any]) -> list[Any]:
    return [v for v in paths if v != ""]


def _numbers_dropped(paths: list[Any]) -> list[Any]:
    return [v for v in paths if isinstance(v, str)]


def _expand_everything(only_unasked: bool) -> Callable[[Any], Any]:
    """A specific expandMask (or, `only_unasked`, none at all) is served as `*`."""

    def change(body: Any) -> Any:
        if not isinstance(body, dict):
            return body
        paths = (body.get("expandMask") or {}).get("paths") if isinstance(body.get("expandMask"), dict) else None
        if only_unasked and "expandMask" not in body:
            return {**body, "expandMask": {"paths": ["*"]}}
        if not only_unasked and paths and "*" not in paths and all(p in EXPAND_PATHS for p in paths):
            return {**body, "expandMask": {"paths": ["*"]}}
        return body

    return change


def _paths_swapped(request: Request, response: Response) -> Response:
    """userPath and createdByUserPath trade places: each locates the other user."""
    document = _ok(response)
    view = (document or {}).get("taskView")
    if document is None or not isinstance(view, dict) or not (view.get("userPath") and view.get("createdByUserPath")):
        return response
    view = {**view, "userPath": view["createdByUserPath"], "createdByUserPath": view["userPath"]}
    return response.with_json({**document, "taskView": view})


_DROP = object()


def _member_type(member: str, wanted: type | tuple[type, ...], fix: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """A body member of the wrong type is `fix`ed (to `_DROP`: left out) instead of refused."""

    def change(body: Any) -> Any:
        if isinstance(body, dict) and member in body and not isinstance(body[member], wanted):
            value = fix(body[member])
            return {k: v for k, v in body.items() if k != member} | ({} if value is _DROP else {member: value})
        return body

    return change


def _non_object(body: Any) -> Any:
    return body if isinstance(body, dict) else {}


def _paths_string(body: Any) -> Any:
    mask = body.get("expandMask") if isinstance(body, dict) else None
    if isinstance(mask, dict) and isinstance(mask.get("paths"), str):
        mask["paths"] = [mask["paths"]]
    return body


def _comment_truncated(body: Any) -> Any:
    if isinstance(body, dict) and isinstance(body.get("comment"), str) and len(body["comment"]) > COMMENT_LIMIT:
        body["comment"] = body["comment"][:COMMENT_LIMIT]
    return body


def _comment_dropped(body: Any) -> Any:
    """A valid comment is accepted and then lost (one of the wrong type or length is still refused)."""
    comment = body.get("comment") if isinstance(body, dict) else None
    if isinstance(comment, str) and len(comment) <= COMMENT_LIMIT:
        return {k: v for k, v in body.items() if k != "comment"}
    return body


def _has_unknown_member(request: Request) -> bool:
    body = request.json()
    return isinstance(body, dict) and bool(set(body) - KNOWN_MEMBERS)


def _has_null_mask(request: Request) -> bool:
    body = request.json()
    if not isinstance(body, dict) or "expandMask" not in body:
        return False
    mask = body["expandMask"]
    return mask is None or (isinstance(mask, dict) and "paths" in mask and mask["paths"] is None)


def _is_empty_object(request: Request) -> bool:
    body = request.json()
    return isinstance(body, dict) and not body


def _max_comment(request: Request) -> bool:
    body = request.json()
    return isinstance(body, dict) and isinstance(body.get("comment"), str) and len(body["comment"]) >= COMMENT_LIMIT


def _names_step(request: Request) -> bool:
    body = request.json()
    return isinstance(body, dict) and "policyStepId" in body


def _policy_step_honoured(request: Request, response: Response) -> Response:
    """With a policyStepId the workflow is resumed (left one step on) instead of restarted."""
    return _not_reset(request, response) if _names_step(request) else response


def _policy_step_looked_up(_: Fixtures) -> dict[str, Handler]:
    """A policyStepId that names no step instance of the task is answered 404 (it should change nothing)."""

    async def handle(request: Request, forward: Forward) -> Response:
        response = await forward(request)
        body, task = request.json(), _task_of(response.json())
        if not _names_step(request) or task is None or response.status != 200:
            return response
        policy = task.get("policy") or {}
        steps = [policy.get("current") or {}, *(policy.get("history") or [])]
        if body["policyStepId"] not in {step.get("id") for step in steps if isinstance(step, dict)}:
            return Response.error(404, "NOT_FOUND", f"task has no policy step {body['policyStepId']!r}")
        return response

    return {"restart": handle}


def _for_task(ids: Callable[[Fixtures], list[str]], status: int, code: str) -> Callable[[Fixtures], dict[str, Handler]]:
    """The tasks `ids` names are answered `status` `code` instead of what the reference says."""

    def handlers(fixtures: Fixtures) -> dict[str, Handler]:
        async def handle(request: Request, forward: Forward) -> Response:
            if path_param(request, "restart", "task_id") in ids(fixtures):
                return Response.error(status, code, f"task {path_param(request, 'restart', 'task_id')}")
            return await forward(request)

        return {"restart": handle}

    return handlers


def _forbidden_as_401(request: Request, response: Response) -> Response:
    if response.status != 403:
        return response
    return Response.error(401, "UNAUTHENTICATED", "the token may not restart", WWW_Authenticate='Bearer realm="api"')


def _unknown_numeric_400(request: Request, response: Response) -> Response:
    if response.status == 404 and path_param(request, "restart", "task_id").isdigit():
        return Response.error(400, "INVALID_ARGUMENT", "task_id: no such numericId")
    return response


def _new_task_state(request: Request, response: Response) -> Response:
    document = _ok(response)
    if document is None or _task_of(document) is None:
        return response
    document = copy.deepcopy(document)
    document["taskView"]["task"]["state"] = "TASK_STATE_SELFTEST_NEW"
    return response.with_json(document)


def _m(mutant_id: str, breaks: str, handlers: Callable[[Fixtures], dict[str, Handler]], *covers: str) -> Mutant:
    return Mutant(mutant_id, "restart", breaks, handlers, covers=covers)


MUTANTS = [
    _m(
        "restart-closed-task-restarted",
        "A closed or deleted task is restarted (200) instead of 409 TASK_NOT_RESTARTABLE.",
        on_response("restart", _closed_restarted),
        "RESTART-CLOSED/restarted",
        "RESTART-DELETED/restarted",
    ),
    _m(
        "restart-closed-task-404",
        "A closed task is answered 404 NOT_FOUND instead of 409 TASK_NOT_RESTARTABLE.",
        _for_task(lambda fx: fx.closed_task_ids, 404, "NOT_FOUND"),
        "RESTART-CLOSED/answered-404",
    ),
    _m(
        "restart-deleted-task-404",
        "A deleted task is answered 404 NOT_FOUND instead of 409 TASK_NOT_RESTARTABLE.",
        _for_task(lambda fx: fx.deleted_task_ids, 404, "NOT_FOUND"),
        "RESTART-DELETED/answered-404",
    ),
    _m(
        "restart-canned-task",
        "Every restart answers the spec's example task (a stateless mock), not the task addressed.",
        on_response("restart", _canned_task),
        "RESTART-ADDRESSED/canned-task",
    ),
    _m(
        "restart-other-task",
        "A restart is performed on another open task than the one addressed, and answers that one.",
        _redirected(_another_open),
        "RESTART-ADDRESSED/other-task",
    ),
    _m(
        "restart-undocumented-status",
        "Every restart is answered 418, a status the operation does not document.",
        on_response("restart", _teapot),
        "RESTART-ADDRESSED/undocumented-status",
    ),
    _m(
        "restart-numeric-id-refused",
        "A task's numericId in the path is answered 404 instead of restarting that task.",
        _numeric_refused,
        "RESTART-NUMERIC-ID/refused",
    ),
    _m(
        "restart-numeric-id-off-by-one",
        "A numericId in the path restarts the task whose numericId is one higher.",
        _redirected(_numeric_elsewhere),
        "RESTART-NUMERIC-ID/other-task",
    ),
    _m(
        "restart-numeric-leading-zero-refused",
        "A numericId written with a leading zero (01001) is answered 404 instead of restarting task 1001.",
        _redirected(_numeric_as_text),
        "RESTART-NUMERIC-ID/leading-zero",
    ),
    _m(
        "restart-ticket-missing",
        "The 200 response has no ticketActionId.",
        on_response("restart", _without_ticket),
        "RESTART-TICKET/missing",
    ),
    _m(
        "restart-ticket-wrong-type",
        "ticketActionId is a number, not the string the schema says.",
        on_response("restart", _ticket_as_number),
        "RESTART-TICKET/wrong-type",
    ),
    _m(
        "restart-ticket-empty",
        'ticketActionId is the empty string "".',
        on_response("restart", _ticket("")),
        "RESTART-TICKET/empty",
    ),
    _m(
        "restart-ticket-reused",
        "Every restart of a task returns the ticketActionId of its first restart instead of a new one.",
        _ticket_reused,
        "RESTART-TICKET/reused-same-task",
    ),
    _m(
        "restart-workflow-not-reset",
        "The task is left at its workflow's second step instead of going back to the first.",
        on_response("restart", _not_reset),
        "RESTART-RESET/not-reset",
    ),
    _m(
        "restart-current-not-active",
        "The restarted task's current step is POLICY_STEP_STATE_UNSPECIFIED instead of ACTIVE.",
        on_response("restart", _policy_change(_current_not_active)),
        "RESTART-RESET/current-not-active",
    ),
    _m(
        "restart-next-dropped",
        "The restarted task's `next` is empty: the sequence's later steps are lost.",
        on_response("restart", _policy_change(_next_dropped)),
        "RESTART-RESET/next-dropped",
    ),
    _m(
        "restart-expanded-missing",
        "`expanded` is left out although expandMask asked for related objects (the *Path fields dangle).",
        on_response("restart", _expanded_missing),
        "RESTART-EXPAND/expanded-missing",
    ),
    _m(
        "restart-paths-dangling",
        "The taskView *Path fields point past the end of `expanded` instead of at the objects.",
        on_response("restart", _paths_dangling),
        "RESTART-EXPAND/paths-dangling",
    ),
    _m(
        "restart-paths-swapped",
        "userPath and createdByUserPath locate each other's user in `expanded`.",
        on_response("restart", _paths_swapped),
        "RESTART-EXPAND/wrong-object",
    ),
    _m(
        "restart-expand-specific-as-star",
        'A specific expandMask (["user_id"]) is served as ["*"]: path fields nobody asked for are set.',
        _body_rewrite(_expand_everything(only_unasked=False)),
        "RESTART-EXPAND/specific-gives-all",
    ),
    _m(
        "restart-expand-without-mask",
        "A restart without expandMask is served as if it asked for everything.",
        _body_rewrite(_expand_everything(only_unasked=True)),
        "RESTART-EXPAND/unasked-paths",
    ),
    _m(
        "restart-expand-unknown-ignored",
        "An unknown expandMask path is ignored (200) instead of 400.",
        _body_rewrite(_paths_map(_unknown_dropped)),
        "RESTART-EXPAND-PATHS/unknown",
    ),
    _m(
        "restart-expand-case-folded",
        "expandMask paths are matched case-insensitively: USER_ID is taken as user_id.",
        _body_rewrite(_paths_map(_case_folded)),
        "RESTART-EXPAND-PATHS/other-case",
    ),
    _m(
        "restart-expand-whitespace-trimmed",
        'expandMask paths are trimmed: " user_id" is taken as user_id.',
        _body_rewrite(_paths_map(_whitespace_trimmed)),
        "RESTART-EXPAND-PATHS/whitespace",
    ),
    _m(
        "restart-expand-empty-ignored",
        "An empty string among the expandMask paths is ignored instead of 400.",
        _body_rewrite(_paths_map(_empty_dropped)),
        "RESTART-EXPAND-PATHS/empty",
    ),
    _m(
        "restart-body-non-object-accepted",
        "A body that is JSON but not an object ([], a string, a number, null) is taken as {}.",
        _body_rewrite(_non_object),
        "RESTART-BODY-SHAPE/non-object",
    ),
    _m(
        "restart-comment-coerced",
        "A comment that is not a string is taken as its JSON text.",
        _body_rewrite(_member_type("comment", str, json.dumps)),
        "RESTART-BODY-SHAPE/comment-type",
    ),
    _m(
        "restart-expandmask-type-ignored",
        "An expandMask that is not an object (or null) is ignored instead of 400.",
        _body_rewrite(_member_type("expandMask", (dict, type(None)), lambda _: _DROP)),
        "RESTART-BODY-SHAPE/expandmask-type",
    ),
    _m(
        "restart-paths-string-wrapped",
        'expandMask.paths given as a string ("user_id") is taken as a one-item list.',
        _body_rewrite(_paths_string),
        "RESTART-BODY-SHAPE/paths-type",
    ),
    _m(
        "restart-paths-numbers-dropped",
        "Items of expandMask.paths that are not strings are ignored instead of 400.",
        _body_rewrite(_paths_map(_numbers_dropped)),
        "RESTART-BODY-SHAPE/paths-item-type",
    ),
    _m(
        "restart-policystepid-type-ignored",
        "A policyStepId that is not a string is ignored instead of 400.",
        _body_rewrite(_member_type("policyStepId", str, lambda _: _DROP)),
        "RESTART-BODY-SHAPE/policystepid-type",
    ),
    _m(
        "restart-comment-truncated",
        "A comment over 4096 characters is cut to 4096 instead of 400.",
        _body_rewrite(_comment_truncated),
        "RESTART-BODY-SHAPE/comment-too-long",
    ),
    _m(
        "restart-unknown-member-refused",
        "A body member the schema does not define is refused 400 instead of ignored.",
        refuse("restart", _has_unknown_member, 400, "INVALID_ARGUMENT", "body: unknown member"),
        "RESTART-BODY-OPEN/unknown-member",
    ),
    _m(
        "restart-null-expandmask-refused",
        "expandMask null (or paths null) is refused 400 although the schema allows null.",
        refuse("restart", _has_null_mask, 400, "INVALID_ARGUMENT", "body: /expandMask must not be null"),
        "RESTART-BODY-OPEN/null-expandmask",
    ),
    _m(
        "restart-empty-object-refused",
        "An empty body object {} is refused 400 although every member is optional.",
        refuse("restart", _is_empty_object, 400, "INVALID_ARGUMENT", "body: empty"),
        "RESTART-BODY-OPEN/empty-object",
    ),
    _m(
        "restart-comment-limit-exclusive",
        "A comment of exactly 4096 characters is refused (the limit taken as exclusive).",
        refuse("restart", _max_comment, 400, "INVALID_ARGUMENT", "body: /comment is too long"),
        "RESTART-BODY-OPEN/comment-at-limit",
    ),
    _m(
        "restart-policystepid-rejected",
        "A body with the deprecated policyStepId is refused 400 instead of accepted.",
        refuse("restart", _names_step, 400, "INVALID_ARGUMENT", "body: /policyStepId is not supported"),
        "RESTART-POLICY-STEP-ID/rejected",
    ),
    _m(
        "restart-policystepid-honoured",
        "policyStepId takes effect: the workflow is resumed one step on instead of restarted.",
        on_response("restart", _policy_step_honoured),
        "RESTART-POLICY-STEP-ID/honoured",
    ),
    _m(
        "restart-policystepid-looked-up",
        "A policyStepId naming no step of the task is answered 404 instead of being ignored.",
        _policy_step_looked_up,
        "RESTART-POLICY-STEP-ID/unknown-step",
    ),
    _m(
        "restart-comment-dropped",
        "The restart's comment is not added to the task's comments.",
        _body_rewrite(_comment_dropped),
        "RESTART-COMMENT/dropped",
    ),
    _m(
        "restart-without-credentials",
        "A restart without an Authorization header is performed (as an admin) instead of 401.",
        _credentials_optional,
        "RESTART-401/no-credentials",
    ),
    _m(
        "restart-401-without-www-authenticate",
        "A 401 has no WWW-Authenticate header.",
        on_response("restart", _without_www_authenticate),
        "RESTART-401/no-www-authenticate",
    ),
    _m(
        "restart-permission-ignored",
        "A token whose role does not allow restart restarts anyway instead of 403.",
        _viewer_allowed,
        "RESTART-403/ignored",
    ),
    _m(
        "restart-forbidden-as-401",
        "A valid token without the restart permission is answered 401 instead of 403.",
        on_response("restart", _forbidden_as_401),
        "RESTART-403/answered-401",
    ),
    _m(
        "restart-unknown-task-409",
        "An unknown task id is answered 409 TASK_NOT_RESTARTABLE instead of 404.",
        _status_swap(404, 409, "TASK_NOT_RESTARTABLE"),
        "RESTART-404/answered-409",
    ),
    _m(
        "restart-id-case-insensitive",
        "A task id in other letter case restarts the task (ids looked up ignoring case) instead of 404.",
        _retried_as(lambda task_id: task_id.lower() if task_id != task_id.lower() else None),
        "RESTART-404/other-case",
    ),
    _m(
        "restart-id-trimmed",
        "A task id with surrounding whitespace restarts the task (the id is trimmed) instead of 404.",
        _retried_as(lambda task_id: task_id.strip() if task_id != task_id.strip() else None),
        "RESTART-404/whitespace",
    ),
    _m(
        "restart-numeric-sign-accepted",
        "A numericId with a + sign (+1001) restarts task 1001 instead of 404.",
        _retried_as(lambda task_id: task_id[1:] if task_id.startswith("+") and task_id[1:].isdigit() else None),
        "RESTART-404/numeric-sign",
    ),
    _m(
        "restart-unknown-numeric-400",
        "An unknown numericId is answered 400 INVALID_ARGUMENT instead of 404.",
        on_response("restart", _unknown_numeric_400),
        "RESTART-404/numeric-answered-400",
    ),
]

CONTROLS = [
    Mutant(
        "control-restart-new-task-state",
        "control",
        "A restarted task's state is a value the spec does not list (enumerations may grow).",
        on_response("restart", _new_task_state),
        control=True,
        covers=("RESTART-ADDRESSED/any-task-state",),
    ),
]
