"""Mutants of the statements the spec writes in its own text (issue 46), by kind: lengths counted in bytes or UTF-16
units, each-once and one order broken across a response or pages, lifetimes that end early, ignored members and
scope honoured, caller-relative fields computed for the wrong caller, routes and methods the contract does not
list, values a restart changes, `*` that is not everything, page sizes that do not hold on later pages,
token-response spelling, values quoted whole, generated request ids, a run shared by deliveries, a JWT limit
measured from the wrong instant, and constraints of response schemas. Each breaks the one traceability variant
its `covers` names (`conformance/accessgov_conformance/traceability.yaml`); the controls change what the contract
leaves open."""

from __future__ import annotations

import copy
import json
import re
import time
import urllib.parse
import uuid
from collections.abc import Callable
from typing import Any

import jwt
from accessgov_conformance import spec

from tests.conformance.selftest.asgi import ROUTES, Forward, Handler, Request, Response, path_param
from tests.conformance.selftest.mutants.base import Mutant, let_through, on_response, refuse
from tests.conformance.selftest.target import CREDENTIAL_AGE, Fixtures

LATE = CREDENTIAL_AGE / 2  # seconds after which a lifetime mutant's credential has "expired"
ADMIN = "Bearer demo-admin-token"


def _m(
    mutant_id: str, family: str, breaks: str, handlers: Callable[[Fixtures], dict[str, Handler]], *covers: str
) -> Mutant:
    return Mutant(mutant_id, family, breaks, handlers, covers=covers)


def _ok(response: Response) -> dict[str, Any] | None:
    document = response.json()
    return document if response.status == 200 and isinstance(document, dict) else None


def _task(document: dict[str, Any]) -> dict[str, Any]:
    task: dict[str, Any] = (document.get("taskView") or {}).get("task") or {}
    return task


def _restart_change(change: Callable[[dict[str, Any], Request], None]) -> Callable[[Fixtures], dict[str, Handler]]:
    """A restart 200 whose body `change` rewrites in place (a deep copy of the reference's)."""

    def rewrite(request: Request, response: Response) -> Response:
        document = _ok(response)
        if document is None:
            return response
        document = copy.deepcopy(document)
        change(document, request)
        return response.with_json(document)

    return on_response("restart", rewrite)


def _webhook_change(change: Callable[[dict[str, Any], Request], None]) -> Callable[[Fixtures], dict[str, Handler]]:
    def rewrite(request: Request, response: Response) -> Response:
        document = _ok(response)
        if document is None or not isinstance(document.get("automationRun"), dict):
            return response
        document = copy.deepcopy(document)
        change(document, request)
        return response.with_json(document)

    return on_response("webhook", rewrite)


def _list_change(change: Callable[[dict[str, Any], Request], None]) -> Callable[[Fixtures], dict[str, Handler]]:
    def rewrite(request: Request, response: Response) -> Response:
        document = _ok(response)
        if document is None or not isinstance(document.get("list"), list):
            return response
        document = copy.deepcopy(document)
        change(document, request)
        return response.with_json(document)

    return on_response("list", rewrite)


def _token_change(change: Callable[[dict[str, Any]], bytes]) -> Callable[[Fixtures], dict[str, Handler]]:
    """A token 200 whose body `change` writes out as raw bytes (spellings json.dumps never makes)."""

    def rewrite(request: Request, response: Response) -> Response:
        document = _ok(response)
        return response if document is None else response.with_body(change(dict(document)))

    return on_response("token", rewrite)


# --- JSON text ------------------------------------------------------------------------------------------------

LONE = (b"\\ud800", b"\\udc00")


def _has_lone(request: Request) -> bool:
    return any(escape in request.body for escape in LONE)


def _without_lone(request: Request) -> Request:
    body = request.body
    for escape in LONE:
        body = body.replace(escape, b"x")
    return request.with_body(body)


def _has_huge(request: Request) -> bool:
    return b"1e400" in request.body


def _without_huge(request: Request) -> Request:
    return request.with_body(request.body.replace(b"1e400", b"1"))


def _restart_fix(
    condition: Callable[[Request], bool], fix: Callable[[Request], Request]
) -> Callable[[Fixtures], dict[str, Handler]]:
    def handlers(_: Fixtures) -> dict[str, Handler]:
        async def handle(request: Request, forward: Forward) -> Response:
            return await forward(fix(request) if condition(request) else request)

        return {"restart": handle}

    return handlers


# --- runs and events --------------------------------------------------------------------------------------------


def _run_reused(document: dict[str, Any], request: Request) -> None:
    document["automationRun"]["id"] = "run-selftest-shared"


def _run_per_listener(document: dict[str, Any], request: Request) -> None:
    document["automationRun"]["id"] = f"run-{path_param(request, 'webhook', 'listener_id')}"


def _events_forgotten(_: Fixtures) -> dict[str, Handler]:
    """An event id is remembered for LATE seconds only: a later replay is accepted again (a new run)."""
    accepted: dict[tuple[str, str], float] = {}

    async def handle(request: Request, forward: Forward) -> Response:
        response = await forward(request)
        key = (path_param(request, "webhook", "listener_id"), (request.header("webhook-event-id") or "").lower())
        if response.status == 200:
            accepted.setdefault(key, time.time())
        elif response.status == 409 and key in accepted and time.time() - accepted[key] > LATE:
            run = {"id": uuid.uuid4().hex, "status": "AUTOMATION_RUN_STATUS_QUEUED", "reason": None}
            return Response.of_json(200, {"eventId": request.header("webhook-event-id"), "automationRun": run})
        return response

    return {"webhook": handle}


def _long_id_not_refused(route: str, name: str) -> Callable[[Fixtures], dict[str, Handler]]:
    """An id over 128 characters is looked up (404) instead of refused 400."""

    def rewrite(request: Request, response: Response) -> Response:
        if response.status == 400 and len(path_param(request, route, name)) > 128:
            return Response.error(404, "NOT_FOUND", "no such object")
        return response

    return on_response(route, rewrite)


def _id_in_bytes(route: str, name: str) -> Callable[[Fixtures], dict[str, Handler]]:
    """An id's 128 counted in UTF-8 bytes: a shorter id of multi-byte characters is refused 400."""

    def condition(request: Request) -> bool:
        value = path_param(request, route, name)
        return len(value) <= 128 < len(value.encode())

    return refuse(route, condition, 400, "INVALID_ARGUMENT", f"{name} is longer than 128")


# --- JWT instants ------------------------------------------------------------------------------------------------


def _claims(request: Request) -> dict[str, Any]:
    authorization = request.header("authorization") or ""
    try:
        claims: dict[str, Any] = jwt.decode(authorization.partition(" ")[2], options={"verify_signature": False})
    except jwt.PyJWTError:
        return {}
    return claims


def _exp_from(instant: Callable[[Request, dict[str, Any]], Any]) -> Callable[[Request], bool]:
    def condition(request: Request) -> bool:
        claims = _claims(request)
        start, exp = instant(request, claims), claims.get("exp")
        return isinstance(start, int | float) and isinstance(exp, int | float) and exp - start > 605

    return condition


def _timestamp(request: Request, claims: dict[str, Any]) -> Any:
    text = request.header("webhook-timestamp") or ""
    return int(text) if text.isdigit() else None


# --- restart -----------------------------------------------------------------------------------------------------

COMMENT = re.compile(rb'"comment"\s*:\s*"((?:[^"\\]|\\.)*)"')


def _comment(request: Request) -> str | None:
    body = request.json()
    comment = body.get("comment") if isinstance(body, dict) else None
    return comment if isinstance(comment, str) else None


def _counted(measure: Callable[[Request, str], int]) -> Callable[[Request], bool]:
    def condition(request: Request) -> bool:
        comment = _comment(request)
        return comment is not None and len(comment) <= 4096 < measure(request, comment)

    return condition


def _escaped_length(request: Request, comment: str) -> int:
    match = COMMENT.search(request.body)
    return len(match.group(1).decode("utf-8", "replace")) if match else len(comment)


def _multibyte_over(request: Request) -> bool:
    comment = _comment(request)
    return comment is not None and len(comment) > 4096 and not comment.isascii()


def _cut_comment(request: Request) -> Request:
    body = dict(request.json())
    body["comment"] = body["comment"][:4096]
    return request.with_body(json.dumps(body).encode())


def _counter() -> Callable[[], int]:
    state = {"n": 0}

    def bump() -> int:
        state["n"] += 1
        return state["n"]

    return bump


def _renumbered(_: Fixtures) -> dict[str, Handler]:
    bump = _counter()

    def change(document: dict[str, Any], request: Request) -> None:
        task = _task(document)
        if str(task.get("numericId", "")).isdigit():
            task["numericId"] = str(int(task["numericId"]) + 1000 * bump())

    return _restart_change(change)(_)


def _created_now(_: Fixtures) -> dict[str, Handler]:
    """Each restart stamps createdAt anew (a second later each time: restarts within a second still differ)."""
    bump = _counter()

    def change(document: dict[str, Any], request: Request) -> None:
        _task(document)["createdAt"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + bump()))

    return _restart_change(change)(_)


def _generation_bumped(_: Fixtures) -> dict[str, Handler]:
    bump = _counter()

    def change(document: dict[str, Any], request: Request) -> None:
        _task(document)["policyGenerationId"] = f"gen-{bump()}"

    return _restart_change(change)(_)


def _star_without_user(_: Fixtures) -> dict[str, Handler]:
    """`*` is every path but user_id: a restart with ["*"] is served as the list without it."""
    values = spec.load()["components"]["schemas"]["TaskExpandMask"]["properties"]["paths"]["items"]["enum"]
    narrowed = [value for value in values if value not in ("*", "user_id")]

    async def handle(request: Request, forward: Forward) -> Response:
        body = request.json()
        paths = ((body or {}).get("expandMask") or {}).get("paths") if isinstance(body, dict) else None
        if paths == ["*"]:
            request = request.with_body(json.dumps({**body, "expandMask": {"paths": narrowed}}).encode())
        return await forward(request)

    return {"restart": handle}


def _cache_control_extended(request: Request, response: Response) -> Response:
    if response.status != 200:
        return response
    headers = [(k, v) for k, v in response.headers if k.lower() != b"cache-control"]
    return Response(response.status, [*headers, (b"cache-control", b"no-store, max-age=0")], response.body)


def _star_swapped(document: dict[str, Any], request: Request) -> None:
    body = request.json()
    paths = ((body or {}).get("expandMask") or {}).get("paths") if isinstance(body, dict) else None
    view = document.get("taskView") or {}
    if paths == ["*"] and view.get("userPath") and view.get("appPath"):
        view["userPath"], view["appPath"] = view["appPath"], view["userPath"]


def _pair_refused(request: Request) -> bool:
    return re.search(rb"\\ud8[3-9a-b][0-9a-f]\\ud[c-f][0-9a-f]{2}", request.body, re.I) is not None


def _ticket_from_request(document: dict[str, Any], request: Request) -> None:
    body = request.json()
    if isinstance(body, dict) and isinstance(body.get("ticketActionId"), str):
        document["ticketActionId"] = body["ticketActionId"]


def _case_folded(request: Request) -> bool:
    body = request.json()
    return isinstance(body, dict) and any(
        key.lower() in ("comment", "expandmask") and key not in ("comment", "expandMask") for key in body
    )


def _fold(request: Request) -> Request:
    body = request.json()
    named = {"comment": "comment", "expandmask": "expandMask"}
    folded = {named.get(key.lower(), key): value for key, value in body.items()}
    return request.with_body(json.dumps(folded).encode())


# --- paging ------------------------------------------------------------------------------------------------------


def _sizes_remembered(use: Callable[[Request, int], Request]) -> Callable[[Fixtures], dict[str, Handler]]:
    """The page size a token was issued at, remembered; `use` rewrites a later request with that token."""

    def handlers(_: Fixtures) -> dict[str, Handler]:
        sizes: dict[str, int] = {}

        async def handle(request: Request, forward: Forward) -> Response:
            token = request.query().get("page_token", "")
            if token in sizes:
                request = use(request, sizes[token])
            response = await forward(request)
            document = _ok(response)
            if document is not None and document.get("nextPageToken"):
                sizes[document["nextPageToken"]] = len(document.get("list") or [])
            return response

        return {"list": handle}

    return handlers


def _size_from_token(request: Request, size: int) -> Request:
    return request.with_query({**request.query(), "page_size": str(size)})


def _default_from_token(request: Request, size: int) -> Request:
    query = request.query()
    return request if "page_size" in query else request.with_query({**query, "page_size": str(size)})


def _later_not_clamped(_: Fixtures) -> dict[str, Handler]:
    """A later page (one asked with a page token) of page_size above 100 gets that many items (up to 500)."""

    async def handle(request: Request, forward: Forward) -> Response:
        query = request.query()
        size = int(query["page_size"]) if query.get("page_size", "").isdigit() else 0
        response = await forward(request)
        document = _ok(response)
        if document is None or not query.get("page_token") or size <= 100:
            return response
        items = list(document["list"])
        page: dict[str, Any] | None = document
        while page is not None and page.get("nextPageToken") and len(items) < min(size, 500):
            page = _ok(await forward(request.with_query({**query, "page_token": page["nextPageToken"]})))
            items.extend((page or {}).get("list") or [])
        return response.with_json(
            {**document, "list": items[: min(size, 500)], "nextPageToken": (page or {}).get("nextPageToken", "")}
        )

    return {"list": handle}


def _reversed_at_ten(document: dict[str, Any], request: Request) -> None:
    if request.query().get("page_size") == "10":
        document["list"] = list(reversed(document["list"]))


def _object_per_item(document: dict[str, Any], request: Request) -> None:
    expanded = list(document.get("expanded") or [])
    for index, item in enumerate(document["list"]):
        if isinstance(item, dict) and item.get("appPath") and expanded:
            item["appPath"] = f"$.expanded[{len(expanded) + index}]"
    document["expanded"] = expanded + [copy.deepcopy(expanded[0]) for _ in document["list"]] if expanded else expanded


def _path_past_the_end(document: dict[str, Any], request: Request) -> None:
    size = len(document.get("expanded") or [])
    for item in document["list"]:
        if isinstance(item, dict) and item.get("appPath"):
            item["appPath"] = f"$.expanded[{size}]"


def _page_tokens_expire(_: Fixtures) -> dict[str, Handler]:
    issued: dict[str, float] = {}

    async def handle(request: Request, forward: Forward) -> Response:
        token = request.query().get("page_token", "")
        if token in issued and time.time() - issued[token] > LATE:
            return Response.error(400, "INVALID_PAGE_TOKEN", "page_token has expired")
        response = await forward(request)
        document = _ok(response)
        if document is not None and document.get("nextPageToken"):
            issued.setdefault(document["nextPageToken"], time.time())
        return response

    return {"list": handle}


# --- the token endpoint and access tokens -----------------------------------------------------------------------


def _issued_tokens(refused: Callable[[str, dict[str, Any]], bool]) -> Callable[[Fixtures], dict[str, Handler]]:
    """Access tokens the mutant saw issued (value -> issue time, order); `refused(token, issued)` says which of
    them the tenant API answers 401."""

    def handlers(_: Fixtures) -> dict[str, Handler]:
        issued: dict[str, Any] = {"tokens": {}, "order": []}

        async def token(request: Request, forward: Forward) -> Response:
            response = await forward(request)
            document = _ok(response)
            if document is not None and isinstance(document.get("access_token"), str):
                issued["tokens"][document["access_token"]] = time.time()
                issued["order"].append(document["access_token"])
            return response

        async def api(request: Request, forward: Forward) -> Response:
            bearer = (request.header("authorization") or "").partition(" ")[2]
            if bearer in issued["tokens"] and refused(bearer, issued):
                return Response.error(401, "UNAUTHENTICATED", "the access token has expired", WWW_Authenticate="Bearer")
            return await forward(request)

        return {"token": token, "list": api, "restart": api}

    return handlers


def _scope_honoured(_: Fixtures) -> dict[str, Handler]:
    """A token asked with scope=viewer may not restart (403), as a viewer's."""
    viewers: set[str] = set()

    async def token(request: Request, forward: Forward) -> Response:
        response = await forward(request)
        form = dict(urllib.parse.parse_qsl(request.body.decode("latin-1")))
        document = _ok(response)
        if document is not None and form.get("scope") == "viewer":
            viewers.add(str(document.get("access_token")))
        return response

    async def restart(request: Request, forward: Forward) -> Response:
        if (request.header("authorization") or "").partition(" ")[2] in viewers:
            return Response.error(403, "PERMISSION_DENIED", "the token's scope does not allow restart")
        return await forward(request)

    return {"token": token, "restart": restart}


def _scope_refused(request: Request) -> bool:
    return "scope" in dict(urllib.parse.parse_qsl(request.body.decode("latin-1")))


def _oauth_refusal(status: int, error: str) -> Callable[[Fixtures], dict[str, Handler]]:
    def handlers(_: Fixtures) -> dict[str, Handler]:
        async def handle(request: Request, forward: Forward) -> Response:
            if _scope_refused(request):
                return Response.of_json(status, {"error": error})
            return await forward(request)

        return {"token": handle}

    return handlers


# --- callers -----------------------------------------------------------------------------------------------------


def _fixed_caller_actions(document: dict[str, Any], request: Request) -> None:
    if request.header("authorization") != ADMIN:
        _task(document)["actions"] = ["TASK_ACTION_TYPE_COMMENT"]


def _fixed_role_permissions(document: dict[str, Any], request: Request) -> None:
    view = document.get("taskView") or {}
    view["objectPermissions"] = {"read": True, "edit": True, "delete": True, "extra": {"restart": True}}


def _first_caller_cached(_: Fixtures) -> dict[str, Handler]:
    first: dict[str, Any] = {}

    def change(document: dict[str, Any], request: Request) -> None:
        view = document.get("taskView") or {}
        task_id = str(_task(document).get("id"))
        cached = first.setdefault(
            task_id, copy.deepcopy((view.get("objectPermissions"), _task(document).get("actions")))
        )
        view["objectPermissions"], _task(document)["actions"] = copy.deepcopy(cached)

    return _restart_change(change)(_)


# --- errors ------------------------------------------------------------------------------------------------------


def _quoted_whole(
    route: str, status: int, value: Callable[[Request], str | None]
) -> Callable[[Fixtures], dict[str, Handler]]:
    def rewrite(request: Request, response: Response) -> Response:
        sent = value(request)
        if response.status != status or not sent:
            return response
        document = response.json()
        if not isinstance(document, dict):
            return response
        return response.with_json({**document, "message": f"{document.get('message', '')}: {sent!r}"})

    return on_response(route, rewrite)


def _expand_value(request: Request) -> str | None:
    body = request.json()
    paths = ((body or {}).get("expandMask") or {}).get("paths") if isinstance(body, dict) else None
    return str(paths[0]) if isinstance(paths, list) and paths else None


def _request_ids(make: Callable[[], str]) -> Callable[[Fixtures], dict[str, Handler]]:
    """Every generated X-Request-Id replaced by `make()` (a client's valid one is still echoed)."""
    valid = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")

    def handlers(_: Fixtures) -> dict[str, Handler]:
        async def handle(request: Request, forward: Forward) -> Response:
            response = await forward(request)
            if valid.match(request.header("x-request-id") or ""):
                return response
            headers = [(k, v) for k, v in response.headers if k.lower() != b"x-request-id"]
            return Response(response.status, [*headers, (b"x-request-id", make().encode())], response.body)

        return {"*": handle}

    return handlers


def _known_route(request: Request) -> bool:
    return any(pattern.match(request.path) for _, pattern in ROUTES.values())


def _route_answer(answer: Callable[[], Response]) -> Callable[[Fixtures], dict[str, Handler]]:
    def handlers(_: Fixtures) -> dict[str, Handler]:
        async def handle(request: Request, forward: Forward) -> Response:
            if not _known_route(request) and request.path.startswith(("/api/", "/auth/")):
                return answer()
            return await forward(request)

        return {"*": handle}

    return handlers


def _method_answered_404(_: Fixtures) -> dict[str, Handler]:
    async def handle(request: Request, forward: Forward) -> Response:
        response = await forward(request)
        return Response.error(404, "NOT_FOUND", "Not Found") if response.status == 405 else response

    return {"*": handle}


def _get_restart_served(_: Fixtures) -> dict[str, Handler]:
    """GET on the restart path is served as a POST with an empty body."""

    async def handle(request: Request, forward: Forward) -> Response:
        if request.scope["method"] == "GET" and ROUTES["restart"][1].match(request.path):
            headers = [
                (k, v) for k, v in request.scope["headers"] if k.lower() not in (b"content-type", b"content-length")
            ]
            headers += [(b"content-type", b"application/json"), (b"content-length", b"2")]
            request = Request({**request.scope, "method": "POST", "headers": headers}, b"{}")
        return await forward(request)

    return {"*": handle}


# --- types -------------------------------------------------------------------------------------------------------


def _created_ids(document: dict[str, Any], request: Request) -> None:
    action = (_task(document).get("type") or {}).get("action")
    if isinstance(action, dict) and action.get("outcome") != "ACTION_OUTCOME_SUCCESS":
        action["createdAppEntitlementIds"] = ["ent-selftest-created"]


def _duration_in_seconds(document: dict[str, Any], request: Request) -> None:
    grant = (_task(document).get("type") or {}).get("grant")
    if isinstance(grant, dict):
        grant["grantDuration"] = "14400"


def _step_key_named(document: dict[str, Any], request: Request) -> None:
    policy = (_task(document).get("policy") or {}).get("policy") or {}
    steps = policy.get("policySteps") or {}
    for key in list(steps):
        if re.fullmatch(r"[0-9a-f-]{36}", key):
            steps["elevated-path"] = steps.pop(key)


def _count_overflow(document: dict[str, Any], request: Request) -> None:
    _task(document)["commentCount"] = 2**31


def _long_next_token(_: Fixtures) -> dict[str, Handler]:
    pad = "~" * 1100

    async def handle(request: Request, forward: Forward) -> Response:
        token = request.query().get("page_token", "")
        if token.endswith(pad):
            request = request.with_query({**request.query(), "page_token": token.removesuffix(pad)})
        response = await forward(request)
        document = _ok(response)
        if document is not None and document.get("nextPageToken"):
            return response.with_json({**document, "nextPageToken": document["nextPageToken"] + pad})
        return response

    return {"list": handle}


def _extra_not_boolean(document: dict[str, Any], request: Request) -> None:
    view = document.get("taskView") or {}
    if isinstance(view.get("objectPermissions"), dict):
        view["objectPermissions"]["extra"] = {"restart": "yes"}


def _status_a_number(document: dict[str, Any], request: Request) -> None:
    document["automationRun"]["status"] = 1


MUTANTS = [
    # webhook
    _m(
        "text-webhook-lone-surrogate-accepted",
        "webhook",
        "A webhook body with an unpaired surrogate escape (\\ud800) is accepted.",
        let_through(_has_lone, _without_lone),
        "JSON-TEXT/lone-surrogate-accepted",
    ),
    _m(
        "text-webhook-huge-number-accepted",
        "webhook",
        "A webhook body with a number beyond a double (1e400) is accepted.",
        let_through(_has_huge, _without_huge),
        "JSON-TEXT/huge-number-accepted",
    ),
    _m(
        "text-run-id-reused",
        "webhook",
        "Every accepted delivery names the same run id.",
        _webhook_change(_run_reused),
        "RUN-PER-DELIVERY/run-id-reused",
    ),
    _m(
        "text-run-id-per-listener",
        "webhook",
        "A delivery's run id is its listener's: deliveries to one listener share it.",
        _webhook_change(_run_per_listener),
        "RUN-PER-DELIVERY/run-id-per-listener",
    ),
    _m(
        "text-event-ids-forgotten",
        "webhook",
        "An accepted event id is remembered for 3 s: a later replay is accepted again.",
        _events_forgotten,
        "EVENT-ID-LIFETIME/ids-forgotten-after-seconds",
    ),
    _m(
        "text-listener-id-129-looked-up",
        "webhook",
        "A listener id of 129 characters is looked up (404) instead of refused 400.",
        _long_id_not_refused("webhook", "listener_id"),
        "LISTENER-ID-LENGTH/listener-id-129-not-refused",
    ),
    _m(
        "text-jwt-exp-from-iat",
        "webhook",
        "The JWT exp limit is measured from iat: exp 605 s ahead with iat 300 s past is refused.",
        refuse("webhook", _exp_from(lambda r, c: c.get("iat")), 401, "INVALID_CLAIM", "exp too far after iat"),
        "JWT-EXP-FROM-NOW/limit-from-iat",
    ),
    _m(
        "text-jwt-exp-from-timestamp",
        "webhook",
        "The JWT exp limit is measured from Webhook-Timestamp: exp 605 s ahead, the timestamp 250 s past, is refused.",
        refuse("webhook", _exp_from(_timestamp), 401, "INVALID_CLAIM", "exp too far after the timestamp"),
        "JWT-EXP-FROM-NOW/limit-from-timestamp",
    ),
    # restart
    _m(
        "text-comment-in-bytes",
        "restart",
        "The comment's 4096 counted in UTF-8 bytes: 4096 non-ASCII characters are refused.",
        refuse("restart", _counted(lambda r, c: len(c.encode())), 400, "INVALID_ARGUMENT", "comment too long"),
        "RESTART-COMMENT-LENGTH/counted-in-bytes",
    ),
    _m(
        "text-comment-in-utf16",
        "restart",
        "The comment's 4096 counted in UTF-16 code units: 4096 astral characters are refused.",
        refuse(
            "restart",
            _counted(lambda r, c: len(c.encode("utf-16-le")) // 2),
            400,
            "INVALID_ARGUMENT",
            "comment too long",
        ),
        "RESTART-COMMENT-LENGTH/counted-in-utf16-units",
    ),
    _m(
        "text-comment-in-escapes",
        "restart",
        "The comment's 4096 counted in the JSON text as written: 4096 characters sent as \\u escapes are refused.",
        refuse("restart", _counted(_escaped_length), 400, "INVALID_ARGUMENT", "comment too long"),
        "RESTART-COMMENT-LENGTH/counted-in-escaped-text",
    ),
    _m(
        "text-comment-multibyte-over",
        "restart",
        "A comment of 4097 characters is cut to 4096 and accepted when it is not ASCII.",
        _restart_fix(_multibyte_over, _cut_comment),
        "RESTART-COMMENT-LENGTH/multibyte-over-accepted",
    ),
    _m(
        "text-task-id-in-bytes",
        "restart",
        "task_id's 128 counted in UTF-8 bytes: 128 non-ASCII characters are refused 400.",
        _id_in_bytes("restart", "task_id"),
        "RESTART-TASK-ID-LENGTH/task-id-counted-in-bytes",
    ),
    _m(
        "text-task-id-129-looked-up",
        "restart",
        "A task_id of 129 characters is looked up (404) instead of refused 400.",
        _long_id_not_refused("restart", "task_id"),
        "RESTART-TASK-ID-LENGTH/task-id-129-not-refused",
    ),
    _m(
        "text-numeric-id-renumbered",
        "restart",
        "Each restart gives the task a new numericId.",
        _renumbered,
        "RESTART-UNCHANGED/numeric-id-renumbered",
    ),
    _m(
        "text-created-at-reset",
        "restart",
        "A restart sets the task's createdAt anew.",
        _created_now,
        "RESTART-UNCHANGED/created-at-reset",
    ),
    _m(
        "text-generation-bumped",
        "restart",
        "Each restart bumps the task's policyGenerationId, though its policy did not change.",
        _generation_bumped,
        "RESTART-UNCHANGED/generation-bumped",
    ),
    _m(
        "text-star-without-user",
        "restart",
        'expandMask ["*"] expands every path but user_id.',
        _star_without_user,
        "RESTART-EXPAND-STAR/star-omits-a-path",
    ),
    _m(
        "text-star-swapped",
        "restart",
        'With ["*"], userPath and appPath locate each other\'s objects.',
        _restart_change(_star_swapped),
        "RESTART-EXPAND-STAR/star-locates-another-object",
    ),
    _m(
        "text-restart-lone-surrogate-accepted",
        "restart",
        "A restart body with an unpaired surrogate escape is accepted.",
        _restart_fix(_has_lone, _without_lone),
        "RESTART-JSON-TEXT/lone-surrogate-accepted",
    ),
    _m(
        "text-restart-huge-number-accepted",
        "restart",
        "A restart body with a number beyond a double (1e400) is accepted.",
        _restart_fix(_has_huge, _without_huge),
        "RESTART-JSON-TEXT/huge-number-accepted",
    ),
    _m(
        "text-surrogate-pair-refused",
        "restart",
        "A restart body with an escaped surrogate pair is refused 400 INVALID_JSON.",
        refuse("restart", _pair_refused, 400, "INVALID_JSON", "surrogate escape"),
        "RESTART-JSON-TEXT/surrogate-pair-refused",
    ),
    _m(
        "text-ticket-from-request",
        "restart",
        "A ticketActionId in the restart request is answered back as the new action's id.",
        _restart_change(_ticket_from_request),
        "RESTART-MEMBERS-IGNORED/ticket-taken-from-request",
    ),
    _m(
        "text-member-names-folded",
        "restart",
        "Restart members are matched in any letter case: `Comment` adds a comment.",
        _restart_fix(_case_folded, _fold),
        "RESTART-MEMBERS-IGNORED/member-names-case-folded",
    ),
    # paging
    _m(
        "text-later-page-not-clamped",
        "paging",
        "On a later page, a page_size above 100 is served as given.",
        _later_not_clamped,
        "PAGING-SIZE-LATER-PAGES/later-page-not-clamped",
    ),
    _m(
        "text-later-size-from-token",
        "paging",
        "A later page's size is the size its token was issued at, whatever page_size says.",
        _sizes_remembered(_size_from_token),
        "PAGING-SIZE-LATER-PAGES/later-page-size-from-token",
    ),
    _m(
        "text-later-default-from-token",
        "paging",
        "A later page without page_size is the size its token was issued at, not 25.",
        _sizes_remembered(_default_from_token),
        "PAGING-SIZE-LATER-PAGES/later-page-default-from-token",
    ),
    _m(
        "text-app-id-in-bytes",
        "paging",
        "app_id's 128 counted in UTF-8 bytes: 128 non-ASCII characters are refused 400.",
        _id_in_bytes("list", "app_id"),
        "PAGING-APP-ID-LENGTH/app-id-counted-in-bytes",
    ),
    _m(
        "text-order-depends-on-size",
        "paging",
        "Pages at page_size 10 list their items in reverse order.",
        _list_change(_reversed_at_ten),
        "PAGING-ONE-ORDER/order-depends-on-size",
    ),
    _m(
        "text-expanded-per-item",
        "paging",
        "A page's `expanded` holds the app once per item.",
        _list_change(_object_per_item),
        "PAGING-EXPANDED-ONCE/object-per-item",
    ),
    _m(
        "text-app-path-past-the-end",
        "paging",
        "Items' appPath locates one past the end of `expanded`.",
        _list_change(_path_past_the_end),
        "PAGING-EXPANDED-ONCE/path-past-the-end",
    ),
    _m(
        "text-page-tokens-expire",
        "paging",
        "A page token expires 3 s after it was issued.",
        _page_tokens_expire,
        "PAGING-TOKEN-LIFETIME/token-expires-in-seconds",
    ),
    # auth
    _m(
        "text-token-type-lower-case",
        "auth",
        "The token response says token_type `bearer`.",
        _token_change(lambda d: json.dumps({**d, "token_type": "bearer"}).encode()),
        "AUTH-TOKEN-FIELDS/token-type-lower-case",
    ),
    _m(
        "text-expires-in-fraction",
        "auth",
        "The token response writes expires_in as 3600.0.",
        _token_change(
            lambda d: json.dumps({**d, "expires_in": 1}).replace('"expires_in": 1', '"expires_in": 3600.0').encode()
        ),
        "AUTH-TOKEN-FIELDS/expires-in-fraction",
    ),
    _m(
        "text-cache-control-extended",
        "auth",
        "The token response's Cache-Control is `no-store, max-age=0`, not the const `no-store`.",
        on_response("token", _cache_control_extended),
        "AUTH-TOKEN-FIELDS/cache-control-not-exact",
    ),
    _m(
        "text-token-lives-milliseconds",
        "auth",
        "An access token expires after expires_in milliseconds (3.6 s), not seconds.",
        _issued_tokens(lambda token, issued: time.time() - issued["tokens"][token] > LATE),
        "AUTH-TOKEN-LIFETIME/lives-milliseconds-not-seconds",
    ),
    _m(
        "text-newer-token-revokes-older",
        "auth",
        "Issuing an access token revokes the ones issued before it.",
        _issued_tokens(lambda token, issued: token != issued["order"][-1]),
        "AUTH-TOKEN-LIFETIME/newer-token-revokes-older",
    ),
    _m(
        "text-scope-honoured",
        "auth",
        "A token asked with scope=viewer may not restart (403).",
        _scope_honoured,
        "AUTH-SCOPE-IGNORED/scope-honoured",
    ),
    _m(
        "text-scope-refused",
        "auth",
        "A token request with a scope is refused 400 invalid_scope.",
        _oauth_refusal(400, "invalid_scope"),
        "AUTH-SCOPE-IGNORED/scope-refused",
    ),
    _m(
        "text-actions-of-a-viewer",
        "auth",
        "Task.actions are computed for a viewer for every caller but the admin token.",
        _restart_change(_fixed_caller_actions),
        "CALLER-ACTIONS/actions-of-a-fixed-caller",
    ),
    _m(
        "text-permissions-of-admin",
        "auth",
        "objectPermissions are the admin's for every caller.",
        _restart_change(_fixed_role_permissions),
        "CALLER-PERMISSIONS/permissions-of-a-fixed-role",
    ),
    _m(
        "text-first-caller-cached",
        "auth",
        "A task's actions and objectPermissions are the first caller's, cached for every later one.",
        _first_caller_cached,
        "CALLER-INDEPENDENT/first-caller-cached",
    ),
    # errors
    _m(
        "text-page-size-quoted-whole",
        "errors",
        "The 400 for an invalid page_size quotes it whole.",
        _quoted_whole("list", 400, lambda r: r.query().get("page_size")),
        "ERR-QUOTE-LIMIT/page-size-quoted-whole",
    ),
    _m(
        "text-page-token-quoted-whole",
        "errors",
        "The 400 for an invalid page_token quotes it whole.",
        _quoted_whole("list", 400, lambda r: r.query().get("page_token")),
        "ERR-QUOTE-LIMIT/page-token-quoted-whole",
    ),
    _m(
        "text-unknown-id-quoted-whole",
        "errors",
        "The 404 for an unknown app quotes its id whole.",
        _quoted_whole("list", 404, lambda r: path_param(r, "list", "app_id")),
        "ERR-QUOTE-LIMIT/unknown-id-quoted-whole",
    ),
    _m(
        "text-expand-path-quoted-whole",
        "errors",
        "The 400 for an unknown expand path quotes it whole.",
        _quoted_whole("restart", 400, _expand_value),
        "ERR-QUOTE-LIMIT/expand-path-quoted-whole",
    ),
    _m(
        "text-event-id-quoted-whole",
        "errors",
        "The 400 for an invalid Webhook-Event-Id quotes it whole.",
        _quoted_whole("webhook", 400, lambda r: r.header("webhook-event-id")),
        "ERR-QUOTE-LIMIT/header-quoted-whole",
    ),
    _m(
        "text-listener-id-quoted-whole",
        "errors",
        "The 404 for an unknown listener quotes its id whole.",
        _quoted_whole("webhook", 404, lambda r: path_param(r, "webhook", "listener_id")),
        "ERR-QUOTE-LIMIT/listener-id-quoted-whole",
    ),
    _m(
        "text-comment-quoted-whole",
        "errors",
        "The 400 for a comment over its limit quotes it whole.",
        _quoted_whole("restart", 400, _comment),
        "ERR-QUOTE-LIMIT/comment-quoted-whole",
    ),
    _m(
        "text-request-id-not-hex",
        "errors",
        "A generated X-Request-Id is `req-` and a UUID, not 32 hex digits.",
        _request_ids(lambda: f"req-{uuid.uuid4()}"),
        "ERR-REQID-GENERATED/generated-not-hex",
    ),
    _m(
        "text-request-id-repeated",
        "errors",
        "Every generated X-Request-Id is the same 32 hex digits.",
        _request_ids(lambda: "deadbeef" * 4),
        "ERR-REQID-GENERATED/generated-repeated",
    ),
    _m(
        "text-route-html",
        "errors",
        "A path no operation has is answered 404 with an HTML page.",
        _route_answer(
            lambda: Response(
                404, [(b"content-type", b"text/html"), (b"x-request-id", b"0" * 32)], b"<h1>Not Found</h1>"
            )
        ),
        "ERR-UNKNOWN-ROUTE/route-without-error-body",
    ),
    _m(
        "text-route-400",
        "errors",
        "A path no operation has is answered 400 INVALID_ARGUMENT.",
        _route_answer(lambda: Response.error(400, "INVALID_ARGUMENT", "no such route", X_Request_Id="0" * 32)),
        "ERR-UNKNOWN-ROUTE/route-refused-400",
    ),
    _m(
        "text-method-404",
        "errors",
        "A method a path does not take is answered 404 NOT_FOUND, not 405.",
        _method_answered_404,
        "ERR-OTHER-METHOD/method-answered-404",
    ),
    _m(
        "text-get-restart-served",
        "errors",
        "GET on the restart path restarts the task, as POST does.",
        _get_restart_served,
        "ERR-OTHER-METHOD/method-served",
    ),
    # types
    _m(
        "text-created-ids-early",
        "restart",
        "An action task lists createdAppEntitlementIds before its outcome is ACTION_OUTCOME_SUCCESS.",
        _restart_change(_created_ids),
        "TYPES-TASK-STATEMENTS/created-ids-before-success",
    ),
    _m(
        "text-grant-duration-seconds",
        "restart",
        "A grant task's grantDuration is a number of seconds (`14400`), not an ISO 8601 duration.",
        _restart_change(_duration_in_seconds),
        "TYPES-TASK-STATEMENTS/grant-duration-in-seconds",
    ),
    _m(
        "text-step-key-named",
        "restart",
        "A policy's non-baseline step sequence is keyed `elevated-path`, not by an opaque UUID.",
        _restart_change(_step_key_named),
        "TYPES-POLICY-KEYS/step-key-not-uuid",
    ),
    _m(
        "text-count-overflow",
        "restart",
        "A task's commentCount is 2**31, beyond its int32 format.",
        _restart_change(_count_overflow),
        "TYPES-RESPONSE-SCHEMA/int32-overflow",
    ),
    _m(
        "text-next-token-long",
        "paging",
        "nextPageToken is longer than its maxLength of 1024 (and accepted back).",
        _long_next_token,
        "TYPES-RESPONSE-SCHEMA/next-token-over-1024",
    ),
    _m(
        "text-extra-not-boolean",
        "restart",
        "objectPermissions.extra maps to a string, not a boolean.",
        _restart_change(_extra_not_boolean),
        "TYPES-RESPONSE-SCHEMA/permission-extra-not-boolean",
    ),
    _m(
        "text-run-status-number",
        "webhook",
        "automationRun.status is a number.",
        _webhook_change(_status_a_number),
        "TYPES-RESPONSE-SCHEMA/run-status-a-number",
    ),
]


# --- controls: what the contract leaves open ---------------------------------------------------------------------


def _quote_64(route: str) -> Callable[[Fixtures], dict[str, Handler]]:
    """Every 4xx message quotes 64 characters of the request's path, the most the contract allows."""

    def rewrite(request: Request, response: Response) -> Response:
        document = response.json()
        if not 400 <= response.status < 500 or not isinstance(document, dict) or "code" not in document:
            return response
        sent = urllib.parse.unquote(request.path)[-64:]
        return response.with_json({**document, "message": f"{document.get('message', '')} (at {sent})"})

    return on_response(route, rewrite)


def _quotes_64(_: Fixtures) -> dict[str, Handler]:
    return {route: _quote_64(route)(_)[route] for route in ("list", "restart", "webhook")}


def _page_token_per_answer(_: Fixtures) -> dict[str, Handler]:
    """Each answer's nextPageToken carries a suffix of its own; every token given out stays valid (any other
    text, an altered or extended one, goes to the reference server as it came, which refuses it)."""
    issued: set[str] = set()

    async def handle(request: Request, forward: Forward) -> Response:
        token = request.query().get("page_token", "")
        if token in issued:
            request = request.with_query({**request.query(), "page_token": token.rsplit("~", 1)[0]})
        response = await forward(request)
        document = _ok(response)
        if document is not None and document.get("nextPageToken"):
            mine = f"{document['nextPageToken']}~{uuid.uuid4().hex[:8]}"
            issued.add(mine)
            return response.with_json({**document, "nextPageToken": mine})
        return response

    return {"list": handle}


def _run_ids_uuid(document: dict[str, Any], request: Request) -> None:
    document["automationRun"]["id"] = str(uuid.uuid4())


def _actions_reordered(document: dict[str, Any], request: Request) -> None:
    task = _task(document)
    if isinstance(task.get("actions"), list):
        task["actions"] = list(reversed(task["actions"]))


CONTROLS = [
    Mutant(
        "control-quotes-64-characters",
        "errors",
        "Every 4xx message quotes 64 characters of the request's path: the most the contract allows.",
        _quotes_64,
        control=True,
        covers=("ERR-QUOTE-AT-LIMIT/quotes-64",),
    ),
    Mutant(
        "control-request-ids-upper-hex",
        "errors",
        "Generated X-Request-Ids are 32 upper-case hex digits.",
        _request_ids(lambda: uuid.uuid4().hex.upper()),
        control=True,
        covers=("ERR-REQID-GENERATED-FORMS/upper-case-hex",),
    ),
    Mutant(
        "control-page-token-per-answer",
        "paging",
        "Every answer's nextPageToken is a new string (a suffix of its own); each stays valid.",
        _page_token_per_answer,
        control=True,
        covers=("PAGING-TOKEN-FORMS/token-per-answer",),
    ),
    Mutant(
        "control-run-ids-uuid",
        "webhook",
        "Run ids are UUIDs.",
        _webhook_change(_run_ids_uuid),
        control=True,
        covers=("RUN-ID-FORMS/uuid-run-ids",),
    ),
    Mutant(
        "control-actions-reordered",
        "restart",
        "Task.actions in another order.",
        _restart_change(_actions_reordered),
        control=True,
        covers=("CALLER-FIELDS-ORDER/actions-reordered",),
    ),
]
