"""Mutants of the `types` and `errors` traceability sections: a resource member of the wrong type or a broken
exactly-one union in the restart answer, an Error body of the wrong shape, a lost request id, the 64 KB limit.

Each rewrites what the reference server answered (never its database); the `covers` name the variants of
conformance/accessgov_conformance/traceability.yaml they break."""

from __future__ import annotations

import copy
import os
import re
from collections.abc import Callable
from typing import Any

from tests.conformance.selftest.asgi import TOKEN, Forward, Handler, Request, Response
from tests.conformance.selftest.mutants.base import BODY_LIMIT, Mutant, on_response
from tests.conformance.selftest.target import Fixtures

Change = Callable[[dict[str, Any]], None]


def _task_answer(change: Change) -> Callable[[Fixtures], dict[str, Handler]]:
    """A 200 restart answer whose document `change` edits in place (`taskView.task` is the task)."""

    def rewrite(_: Request, response: Response) -> Response:
        document = response.json()
        task = (document or {}).get("taskView", {}).get("task") if isinstance(document, dict) else None
        if response.status != 200 or not isinstance(task, dict):
            return response
        changed = copy.deepcopy(document)
        change(changed)
        return response.with_json(changed)

    return on_response("restart", rewrite)


def _task(change: Callable[[dict[str, Any]], None]) -> Change:
    return lambda document: change(document["taskView"]["task"])


def _policy(change: Callable[[dict[str, Any]], None]) -> Change:
    def edit(task: dict[str, Any]) -> None:
        policy = (task.get("policy") or {}).get("policy")
        if isinstance(policy, dict):
            change(policy)

    return _task(edit)


def _set(**members: Any) -> Callable[[dict[str, Any]], None]:
    return lambda target: target.update(members)


def _two_members(task: dict[str, Any]) -> None:
    kind = task.get("type") or {}
    task["type"] = {**kind, "revoke": {"appId": "app-x", "outcome": "REVOKE_OUTCOME_UNSPECIFIED"}, "grant": {}}


def _member_null(task: dict[str, Any]) -> None:
    task["type"] = {**(task.get("type") or {"grant": {}}), "finding": None}


def _two_targets(task: dict[str, Any]) -> None:
    task["type"] = {"action": {"type": "TYPE_WORKFLOW", "scopeRole": {}, "toolCall": {}}}


def _current_two_members(task: dict[str, Any]) -> None:
    current = (task.get("policy") or {}).get("current")
    if isinstance(current, dict):
        current["wait"] = {}
        current.setdefault("approval", {})


def _next_step_no_member(task: dict[str, Any]) -> None:
    policy = task.get("policy")
    if isinstance(policy, dict):
        policy["next"] = [*(policy.get("next") or []), {}]


def _next_not_array(task: dict[str, Any]) -> None:
    policy = task.get("policy")
    if isinstance(policy, dict):
        policy["next"] = {"steps": policy.get("next") or []}


FIELD = {"name": "reason", "displayName": "Reason", "required": True, "readOnly": False}
# A valid Field (one value type with one view, one provider config): each form mutant breaks one thing of it.
TEXT_FIELD = {**FIELD, "stringField": {"textField": {}}, "userConfig": {}}


def _form(field: dict[str, Any], relationships: list[dict[str, Any]] | None = None) -> Change:
    form = {"id": "form-selftest", "displayName": "Self-test form", "fields": [field]}
    form["fieldRelationships"] = relationships or []
    return _task(_set(form=form))


def _no_baseline(policy: dict[str, Any]) -> None:
    key = str(policy.get("policyType", "")).removeprefix("POLICY_TYPE_").lower()
    steps = policy.get("policySteps") or {}
    policy["policySteps"] = {name: value for name, value in steps.items() if name != key}
    policy["baselinePolicyId"] = ""


def _self_baseline(policy: dict[str, Any]) -> None:
    """The baseline deferred to the policy itself: its entry dropped and baselinePolicyId its own id."""
    _no_baseline(policy)
    policy["baselinePolicyId"] = policy.get("id")


def _expanded_without_type(document: dict[str, Any]) -> None:
    for item in document.get("expanded") or []:
        item.pop("@type", None)


def _list_expanded_without_type(_: Request, response: Response) -> Response:
    """A 200 page of entitlements whose related objects in `expanded` have no `@type`."""
    document = response.json()
    if response.status != 200 or not isinstance(document, dict) or not document.get("expanded"):
        return response
    changed = copy.deepcopy(document)
    _expanded_without_type(changed)
    return response.with_json(changed)


def _errors(change: Callable[[Response, dict[str, Any]], Response]) -> Callable[[Fixtures], dict[str, Handler]]:
    """Every JSON error answer of the tenant API and the webhooks (not the token endpoint's RFC 6749 ones)
    rewritten by `change(response, document)`."""

    def rewrite(request: Request, response: Response) -> Response:
        document = response.json()
        if response.status < 400 or TOKEN.match(request.path) or not isinstance(document, dict):
            return response
        return change(response, copy.deepcopy(document))

    return on_response("*", rewrite)


def _edit_error(edit: Callable[[dict[str, Any]], Any]) -> Callable[[Fixtures], dict[str, Handler]]:
    def change(response: Response, document: dict[str, Any]) -> Response:
        result = edit(document)
        return response.with_json(document if result is None else result)

    return _errors(change)


def _details(edit: Callable[[list[Any]], Any]) -> Callable[[dict[str, Any]], Any]:
    def change(document: dict[str, Any]) -> Any:
        if isinstance(document.get("details"), list):
            result = edit(document["details"])
            if result is not None:
                document["details"] = result
        return document

    return change


def _status(old: int, new: int) -> Callable[[Fixtures], dict[str, Handler]]:
    return _errors(
        lambda response, _: Response(new, response.headers, response.body) if response.status == old else response
    )


def _without_request_id(errors_only: bool, route: str = "*") -> Callable[[Fixtures], dict[str, Handler]]:
    def drop(_: Request, response: Response) -> Response:
        if errors_only and response.status < 400:
            return response
        return Response(
            response.status, [(k, v) for k, v in response.headers if k.lower() != b"x-request-id"], response.body
        )

    return on_response(route, drop)


def _request_id(edit: Callable[[str | None, bytes], bytes]) -> Callable[[Fixtures], dict[str, Handler]]:
    """The answer's X-Request-Id made `edit(the client's value, the server's)`."""

    def handlers(_: Fixtures) -> dict[str, Handler]:
        async def handle(request: Request, forward: Forward) -> Response:
            response = await forward(request)
            served = dict(response.headers).get(b"x-request-id", b"")
            value = edit(request.header("x-request-id"), served)
            kept = [(k, v) for k, v in response.headers if k.lower() != b"x-request-id"]
            return Response(response.status, [*kept, (b"x-request-id", value)], response.body)

        return {"*": handle}

    return handlers


REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}", re.ASCII)  # spec/components/headers/XRequestId.yaml


def _reqid_rule(valid: Callable[[str], bool]) -> Callable[[Fixtures], dict[str, Handler]]:
    """A server whose test of the client's X-Request-Id is `valid` instead of the contract's pattern: what it
    takes is echoed (as sent), anything else replaced by the id the server generated."""

    def edit(sent: str | None, served: bytes) -> bytes:
        if sent is None:
            return served
        if valid(sent):
            return sent.encode("latin-1")
        return os.urandom(16).hex().encode() if served == sent.encode("latin-1") else served

    return _request_id(edit)


def _reqid_without(cut: str) -> Callable[[str], bool]:
    """The contract's pattern less the characters `cut` (a one-character class or a length bound)."""
    return lambda sent: REQUEST_ID.fullmatch(sent) is not None and not any(c in cut for c in sent)


def _all_allowed(sent: str) -> bool:
    """The contract's characters, at any length."""
    return re.fullmatch(r"[A-Za-z0-9._:-]+", sent, re.ASCII) is not None


def _unicode_id(sent: str) -> bool:
    """`str.isalnum` on the UTF-8 reading: letters of any script pass, as with Python's Unicode-aware checks."""
    try:
        text = sent.encode("latin-1").decode("utf-8")
    except UnicodeDecodeError:
        return False
    return 0 < len(text) <= 128 and all(c.isalnum() or c in "._:-" for c in text)


def _refuse_invalid_request_id(_: Fixtures) -> dict[str, Handler]:
    async def handle(request: Request, forward: Forward) -> Response:
        sent = request.header("x-request-id")
        if sent is not None and REQUEST_ID.fullmatch(sent) is None:
            return Response.error(400, "INVALID_HEADER", "X-Request-Id must be 1-128 characters of [A-Za-z0-9._:-]")
        return await forward(request)

    return {"*": handle}


def _read_oversized(route: str, cut: Callable[[bytes], bytes]) -> Callable[[Fixtures], dict[str, Handler]]:
    """A body over the 64 KB limit of `route` is read (`cut` to what the server keeps) instead of refused."""

    def handlers(_: Fixtures) -> dict[str, Handler]:
        async def handle(request: Request, forward: Forward) -> Response:
            if len(request.body) > BODY_LIMIT:
                request = request.with_body(cut(request.body))
            return await forward(request)

        return {route: handle}

    return handlers


def _refuse_all(
    route: str, status: int, code: str, message: str, **headers: str
) -> Callable[[Fixtures], dict[str, Handler]]:
    """Every request of `route` refused, as an overloaded or throttling server would (X-Request-Id kept)."""

    def handlers(_: Fixtures) -> dict[str, Handler]:
        async def handle(request: Request, forward: Forward) -> Response:
            return Response.error(status, code, message, x_request_id="selftest-refused", **headers)

        return {route: handle}

    return handlers


def _m(mutant_id: str, family: str, breaks: str, handlers: Any, *covers: str) -> Mutant:
    return Mutant(mutant_id, family, breaks, handlers, covers=covers)


TYPES = [
    _m("types-numeric-id-number", "types", "Task.numericId is a JSON number, not the decimal string the schema says.",
       _task_answer(_task(lambda t: t.update(numericId=int(t.get("numericId") or 0)))),
       "TYPES-TASK-FIELDS/numeric-id-number"),
    _m("types-created-at-not-date-time", "types", "Task.createdAt is a Unix time string, not an RFC 3339 date-time.",
       _task_answer(_task(_set(createdAt="1767225600"))), "TYPES-TASK-FIELDS/timestamp-not-date-time"),
    _m("types-comment-count-string", "types", "Task.commentCount is a string, not an int32.",
       _task_answer(_task(lambda t: t.update(commentCount=str(t.get("commentCount", 0))))),
       "TYPES-TASK-FIELDS/count-not-integer"),
    _m("types-approver-ids-string", "types", "Task.stepApproverIds is a comma-joined string, not an array.",
       _task_answer(_task(lambda t: t.update(stepApproverIds=",".join(t.get("stepApproverIds") or ["user-1"])))),
       "TYPES-TASK-FIELDS/list-not-array"),
    _m("types-external-ref-name-number", "types", "Task.externalRefs holds a reference whose name is a number.",
       _task_answer(_task(_set(externalRefs=[{"externalRefSource": "JIRA", "name": 4711, "url": "https://x/4711"}]))),
       "TYPES-SMALL-TYPES/external-ref-name-number"),
    _m("types-revocation-target-ref-string", "types", "A revocation target's entitlementRef is an id string.",
       _task_answer(_task(_set(revocationTargets=[{"entitlementRef": "ent-0000001"}]))),
       "TYPES-SMALL-TYPES/revocation-target-ref-string"),
    _m("types-entitlement-ref-app-id-number", "types", "A revocation target's AppEntitlementRef has a numeric "
       "appId.", _task_answer(_task(_set(revocationTargets=[{"entitlementRef": {"appId": 7, "id": "ent-1"}}]))),
       "TYPES-SMALL-TYPES/entitlement-ref-app-id-number"),
    _m("types-external-ref-source-number", "types", "An ExternalRef's externalRefSource is a number (an ordinal).",
       _task_answer(_task(_set(externalRefs=[{"externalRefSource": 1, "name": "X-1", "url": "https://x/1"}]))),
       "TYPES-SMALL-TYPES/external-ref-source-number"),
    _m("types-state-number", "types", "Task.state is a number (the enum's ordinal), not a string.",
       _task_answer(_task(_set(state=1))), "TYPES-ENUM-STRINGS/state-a-number"),
    _m("types-action-null", "types", "Task.actions holds a null beside the action values.",
       _task_answer(_task(lambda t: t.update(actions=[*(t.get("actions") or []), None]))),
       "TYPES-ENUM-STRINGS/action-null"),
    _m("types-tasktype-two-members", "types", "Task.type sets two members (grant and revoke), not exactly one.",
       _task_answer(_task(_two_members)), "TYPES-TASKTYPE-ONE-MEMBER/two-members"),
    _m("types-tasktype-no-member", "types", "Task.type is an empty object: none of its six members is set.",
       _task_answer(_task(_set(type={}))), "TYPES-TASKTYPE-ONE-MEMBER/no-member"),
    _m("types-tasktype-member-null", "types", "Task.type carries an unset member as null instead of leaving it out.",
       _task_answer(_task(_member_null)), "TYPES-TASKTYPE-ONE-MEMBER/member-null"),
    _m("types-action-two-targets", "types", "An action task's TaskTypeAction sets two target members.",
       _task_answer(_task(_two_targets)), "TYPES-ACTION-ONE-TARGET/two-targets"),
    _m("types-step-two-members", "types", "The current PolicyStepInstance sets two members (approval and wait).",
       _task_answer(_task(_current_two_members)), "TYPES-STEP-ONE-MEMBER/current-two-members"),
    _m("types-next-step-no-member", "types", "policy.next ends with a PolicyStep that sets none of its members.",
       _task_answer(_task(_next_step_no_member)), "TYPES-STEP-ONE-MEMBER/next-step-no-member"),
    _m("types-next-not-array", "types", "policy.next is an object wrapping the steps, not an array.",
       _task_answer(_task(_next_not_array)), "TYPES-POLICY-INSTANCE/next-not-array"),
    _m("types-annotations-17", "types", "The policy has 17 annotations (the limit is 16).",
       _task_answer(_policy(_set(annotations={f"key{n}": "v" for n in range(17)}))),
       "TYPES-POLICY-ANNOTATIONS/seventeen-entries"),
    _m("types-annotation-value-257", "types", "A policy annotation value is 257 characters (the limit is 256).",
       _task_answer(_policy(_set(annotations={"managed_by": "a" * 257}))),
       "TYPES-POLICY-ANNOTATIONS/value-too-long"),
    _m("types-annotation-key-space", "types", "A policy annotation key has a space (keys are URL-safe ASCII).",
       _task_answer(_policy(_set(annotations={"managed by": "demo"}))),
       "TYPES-POLICY-ANNOTATIONS/key-not-url-safe"),
    _m("types-policy-no-baseline", "types", "The policy has no baseline entry (its lowercased type) and no "
       "baselinePolicyId.", _task_answer(_policy(_no_baseline)), "TYPES-POLICY-BASELINE/baseline-missing"),
    _m("types-policy-two-baselines", "types", "The policy sets baselinePolicyId and keeps its baseline entry.",
       _task_answer(_policy(_set(baselinePolicyId="policy-other"))),
       "TYPES-POLICY-BASELINE/baseline-and-reference"),
    _m("types-policy-self-baseline", "types", "The policy's baselinePolicyId is its own id (no baseline entry).",
       _task_answer(_policy(_self_baseline)), "TYPES-POLICY-CHAIN/self-reference"),
    _m("types-permission-not-boolean", "types", "objectPermissions.extra maps an action to a string, not a boolean.",
       _task_answer(lambda d: d["taskView"].update(objectPermissions={"read": True, "extra": {"restart": "yes"}})),
       "TYPES-TASKVIEW/permission-not-boolean"),
    _m("types-expanded-without-type", "types", "The objects of `expanded` have no `@type`.",
       _task_answer(_expanded_without_type), "TYPES-EXPANDED-TYPED/item-without-type"),
    _m("types-task-annotation-without-type", "types", "The task carries an annotation without `@type`.",
       _task_answer(_task(lambda task: task.update(annotations=[{"note": "reviewed"}]))),
       "TYPES-EXPANDED-TYPED/annotation-without-type"),
    _m("types-list-expanded-without-type", "types", "The objects of a page's `expanded` have no `@type`.",
       on_response("list", _list_expanded_without_type), "TYPES-EXPANDED-TYPED/list-item-without-type"),
    _m("types-field-two-value-types", "types", "The task's form has a Field with two value-type members.",
       _task_answer(_form({**TEXT_FIELD, "boolField": {"checkboxField": {}}})),
       "TYPES-FORM-ONE-OF/field-two-value-types"),
    _m("types-field-two-configs", "types", "The task's form has a Field with two provider-config members.",
       _task_answer(_form({**TEXT_FIELD, "adminConfig": {}})), "TYPES-FORM-ONE-OF/field-two-configs"),
    _m("types-string-field-two-views", "types", "The task's form has a StringField with two view members.",
       _task_answer(_form({**TEXT_FIELD, "stringField": {"textField": {}, "passwordField": {}}})),
       "TYPES-FORM-ONE-OF/string-field-two-views"),
    _m("types-relationship-two-kinds", "types", "The task's form has a FieldRelationship of two kinds.",
       _task_answer(_form(TEXT_FIELD, [{"fieldNames": ["reason"], "requiredTogether": {}, "atLeastOne": {}}])),
       "TYPES-FORM-ONE-OF/relationship-two-kinds"),
]  # fmt: skip

ERRORS = [
    _m("errors-body-code-lowercase", "errors", "Error.code is lower case (not_found), not UPPER_SNAKE.",
       _edit_error(lambda d: d.update(code=str(d.get("code", "")).lower())),
       "ERR-BODY-SHAPE/code-not-upper-snake"),
    _m("errors-body-message-missing", "errors", "Error bodies have no `message`.",
       _edit_error(lambda d: d.pop("message", None) and None), "ERR-BODY-SHAPE/message-missing"),
    _m("errors-body-array", "errors", "The Error object comes wrapped in a JSON array.",
       _edit_error(lambda d: [d]), "ERR-BODY-SHAPE/body-an-array"),
    _m("errors-body-details-object", "errors", "Error.details is one object, not an array of them.",
       _edit_error(_details(lambda items: items[0] if items else {})), "ERR-BODY-SHAPE/details-not-array"),
    _m("errors-body-detail-without-location", "errors", "The entries of Error.details have no `location`.",
       _edit_error(_details(lambda items: [{k: v for k, v in i.items() if k != "location"} for i in items])),
       "ERR-BODY-SHAPE/detail-without-location"),
    _m("errors-body-problem-json", "errors", "Error bodies are sent as application/problem+json.",
       _errors(lambda r, d: r.with_body(r.body, "application/problem+json")), "ERR-MEDIA-TYPE/problem-json"),
    _m("errors-body-422-for-400", "errors", "Every 400 is answered 422, which no operation documents.",
       _status(400, 422), "ERR-STATUS-DOCUMENTED/status-422-for-400"),
    _m("errors-body-500-for-bad-page-size", "errors", "A page_size that is not an integer gets 500 INTERNAL.",
       _errors(lambda r, d: Response.error(500, "INTERNAL", "internal error", **{"x_request_id": "selftest-500"})
               if d.get("code") == "INVALID_PAGE_SIZE" else r), "ERR-NO-5XX-FOR-INPUT/500-for-bad-page-size"),
    _m("errors-reqid-not-echoed", "errors", "A valid client X-Request-Id is replaced by a generated one.",
       _request_id(lambda _, served: b"0123456789abcdef0123456789abcdef" if served else served),
       "ERR-REQID-ECHO/valid-not-echoed"),
    _m("errors-reqid-invalid-echoed", "errors", "An invalid client X-Request-Id is echoed as sent.",
       _request_id(lambda sent, served: sent.encode("latin-1") if sent else served),
       "ERR-REQID-REPLACE/invalid-echoed"),
    _m("errors-reqid-one-char-replaced", "errors", "A one-character client X-Request-Id is replaced (2-128 taken).",
       _reqid_rule(lambda sent: len(sent) >= 2 and REQUEST_ID.fullmatch(sent) is not None),
       "ERR-REQID-ECHO/one-character"),
    _m("errors-reqid-max-64", "errors", "A client X-Request-Id over 64 characters is replaced (1-64 taken).",
       _reqid_rule(lambda sent: len(sent) <= 64 and REQUEST_ID.fullmatch(sent) is not None),
       "ERR-REQID-ECHO/128-characters"),
    _m("errors-reqid-no-underscore-colon", "errors", "A client X-Request-Id with `_` or `:` is replaced "
       "([A-Za-z0-9.-] taken).", _reqid_rule(_reqid_without("_:")), "ERR-REQID-ECHO/punctuation"),
    _m("errors-reqid-129-echoed", "errors", "A client X-Request-Id of any length is echoed (no 128 bound).",
       _reqid_rule(_all_allowed),
       "ERR-REQID-REPLACE/129-echoed"),
    _m("errors-reqid-129-truncated", "errors", "A client X-Request-Id over 128 characters is cut to 128 and echoed.",
       _request_id(lambda sent, served: sent[:128].encode() if sent and len(sent) > 128 and _all_allowed(sent)
                   else served),
       "ERR-REQID-REPLACE/129-truncated"),
    _m("errors-reqid-empty-echoed", "errors", "An empty client X-Request-Id is echoed (empty) instead of replaced.",
       _request_id(lambda sent, served: b"" if sent == "" else served), "ERR-REQID-REPLACE/empty-echoed"),
    _m("errors-reqid-non-ascii-echoed", "errors", "A client X-Request-Id of Unicode letters is echoed (checked with "
       "a Unicode-aware isalnum).", _reqid_rule(_unicode_id), "ERR-REQID-REPLACE/non-ascii-echoed"),
    _m("errors-reqid-invalid-refused", "errors", "An invalid client X-Request-Id is refused 400 instead of ignored.",
       _refuse_invalid_request_id, "ERR-REQID-REPLACE/invalid-refused"),
    _m("errors-reqid-generated-malformed", "errors", "A generated X-Request-Id has a space (`req <hex>`).",
       _request_id(lambda sent, served: served if sent is not None and sent.encode("latin-1") == served
                   else b"req " + served),
       "ERR-REQID-FORM/generated-malformed"),
    _m("errors-reqid-missing-on-errors", "errors", "Error responses carry no X-Request-Id.",
       _without_request_id(errors_only=True), "ERR-REQID-EVERY/missing-on-errors"),
    _m("errors-reqid-missing-on-webhook", "errors", "The webhook's 200 carries no X-Request-Id.",
       _without_request_id(errors_only=False, route="webhook"), "ERR-REQID-EVERY/missing-on-webhook"),
    _m("errors-list-always-401", "errors", "Every entitlement listing is answered 401, valid credentials or not.",
       _refuse_all("list", 401, "UNAUTHENTICATED", "not authenticated", www_authenticate='Bearer realm="api"'),
       "ERR-OPERATIONS-SERVED/list-never-served"),
    _m("errors-webhook-always-403", "errors", "Every webhook delivery is answered 403 SOURCE_NOT_ALLOWED.",
       _refuse_all("webhook", 403, "SOURCE_NOT_ALLOWED", "source address not allowed"),
       "ERR-OPERATIONS-SERVED/webhook-never-served"),
    _m("errors-restart-body-unlimited", "errors", "A restart body over 64 KB is read (as {}) instead of 413.",
       _read_oversized("restart", lambda _: b"{}"), "ERR-BODY-LIMIT/restart-over-limit-read"),
    _m("errors-token-body-unlimited", "errors", "A token request over 64 KB is read (its first 64 KB) instead of 413.",
       _read_oversized("token", lambda body: body[:BODY_LIMIT]), "ERR-BODY-LIMIT/token-over-limit-read"),
]  # fmt: skip

MUTANTS = [*TYPES, *ERRORS]
