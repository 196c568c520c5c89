"""Controls: harmless changes a correct kit must accept (unknown enum values, extra fields, key order, wording)."""

from __future__ import annotations

from typing import Any

from tests.conformance.selftest.asgi import Forward, Handler, Request, Response
from tests.conformance.selftest.mutants.base import Mutant
from tests.conformance.selftest.target import Fixtures


def _walk(value: Any, change: Any) -> Any:
    """`value` rebuilt bottom-up, each object passed through `change`."""
    if isinstance(value, list):
        return [_walk(item, change) for item in value]
    if isinstance(value, dict):
        return change({key: _walk(item, change) for key, item in value.items()})
    return value


# An unknown value per open enumeration, by the traceability variant (TYPES-ENUMS-GROW/<variant>) it exercises;
# the objects of each enum are picked by their shape (a task has `numericId`). Where the contract pins the value
# an enum must have, it is left alone: the current step after a restart is ACTIVE (restart's description), a run
# the contract skips is SKIPPED; a grown enum changes the values the contract leaves open, not those.
def _is_task(document: dict[str, Any]) -> bool:
    return "numericId" in document


def _not_skipped(document: dict[str, Any]) -> bool:
    return document.get("status") != "AUTOMATION_RUN_STATUS_SKIPPED"


ENUMS: dict[str, tuple[str, Any, str]] = {  # variant -> (member, which objects, the unknown value)
    "task-state": ("state", _is_task, "TASK_STATE_SELFTEST_NEW"),
    "task-processing": ("processing", _is_task, "TASK_PROCESSING_TYPE_SELFTEST_NEW"),
    "task-origin": ("origin", _is_task, "TASK_ORIGIN_SELFTEST_NEW"),
    "task-recommendation": ("recommendation", _is_task, "INSIGHT_RECOMMENDATION_SELFTEST_NEW"),
    "task-outcome": ("outcome", lambda d: True, "SELFTEST_OUTCOME_NEW"),
    "policy-type": ("policyType", lambda d: True, "POLICY_TYPE_SELFTEST_NEW"),
    "automation-run-status": ("status", _not_skipped, "AUTOMATION_RUN_STATUS_SELFTEST_NEW"),
}
STEP_STATE = "POLICY_STEP_STATE_SELFTEST_NEW"


def _unknown(*variants: str) -> Any:
    """A `change` giving the enums of `variants` (and, for `task-action`, the task's actions) unknown values."""

    def change(document: dict[str, Any]) -> dict[str, Any]:
        changed = dict(document)
        for variant in variants:
            if variant == "task-action" and _is_task(document) and isinstance(document.get("actions"), list):
                changed["actions"] = [*document["actions"], "TASK_ACTION_TYPE_SELFTEST_NEW"]
            elif variant == "step-state" and isinstance(document.get("history"), list):  # a PolicyInstance
                steps = document["history"]
                changed["history"] = [{**s, "state": STEP_STATE} if isinstance(s, dict) else s for s in steps]
            elif variant in ENUMS:
                member, which, value = ENUMS[variant]
                if isinstance(document.get(member), str) and which(document):
                    changed[member] = value
        return changed

    return change


# Objects whose schema is a record (named properties, unknown ones allowed), by the member holding them; maps
# such as `annotations` or `policySteps` are left alone (a new key there must have the map's value type).
RECORDS = {
    "taskView", "task", "policy", "current", "history", "next", "list", "appEntitlement", "automationRun",
    "details", "objectPermissions", "expanded", "grant", "revoke", "certify", "offboarding", "action", "finding",
    "approval", "provision", "accept", "reject", "wait", "form",
}  # fmt: skip


def _with_extra_fields(value: Any, record: bool = True) -> Any:
    """`value` with an extra member in itself (when `record`) and in every nested record."""
    if isinstance(value, list):
        return [_with_extra_fields(item, record) for item in value]
    if not isinstance(value, dict):
        return value
    changed = {key: _with_extra_fields(item, key in RECORDS) for key, item in value.items()}
    return {**changed, "selftestExtra": "a member this version of the spec does not define"} if record else changed


def _reordered(document: dict[str, Any]) -> dict[str, Any]:
    return dict(reversed(list(document.items())))


def _reworded(document: dict[str, Any]) -> dict[str, Any]:
    if isinstance(document.get("message"), str) and isinstance(document.get("code"), str):
        return {**document, "message": "reworded: " + document["message"][::-1]}
    return document


def _with_headers(response: Response) -> Response:
    """Headers the spec does not name, as proxies and frameworks add them (none it names is touched)."""
    present = {name.lower() for name, _ in response.headers}
    extra = [(b"x-selftest-extra", b"1"), (b"x-powered-by", b"selftest"), (b"vary", b"Accept-Encoding")]
    return Response(response.status, [*response.headers, *(h for h in extra if h[0] not in present)], response.body)


def _with_charset(response: Response) -> Response:
    headers = [
        (k, v + b"; charset=utf-8") if k.lower() == b"content-type" and v.startswith(b"application/json") else (k, v)
        for k, v in response.headers
    ]
    return Response(response.status, headers, response.body)


def _every_response(change: Any) -> Any:
    def handlers(_: Fixtures) -> dict[str, Handler]:
        async def handle(request: Request, forward: Forward) -> Response:
            return change(await forward(request))  # type: ignore[no-any-return]

        return {"*": handle}

    return handlers


def _every_json_body(change: Any, whole: bool = False) -> Any:
    """Handlers applying `change` to every object of every JSON response (`whole`: to the document, once)."""

    def handlers(_: Fixtures) -> dict[str, Handler]:
        async def handle(request: Request, forward: Forward) -> Response:
            response = await forward(request)
            content_type = dict(response.headers).get(b"content-type", b"")
            document = response.json() if content_type.startswith(b"application/json") else None
            if document is None:
                return response
            return response.with_json(change(document) if whole else _walk(document, change))

        return {"*": handle}

    return handlers


ALLOWED_ERRORS = ("other-message", "extra-member", "reordered-members", "extra-header")
EVERY_ENUM = (*ENUMS, "task-action", "step-state")


def _control(control_id: str, breaks: str, handlers: Any, *covers: str) -> Mutant:
    return Mutant(control_id, "control", breaks, handlers, control=True, covers=covers)


CONTROLS = [
    _control("control-unchanged", "The reference server as it is.", lambda _: {}),
    _control(
        "control-unknown-enum",
        "Every open enumeration in responses carries a value the spec does not list, all at once.",
        _every_json_body(_unknown(*EVERY_ENUM)),
        *(f"TYPES-ENUMS-GROW/{variant}" for variant in EVERY_ENUM),
    ),
    _control(
        "control-extra-field",
        "Every record in a JSON response, nested ones and Error bodies included (not the maps), has an extra member.",
        _every_json_body(_with_extra_fields, whole=True),
        "TYPES-UNKNOWN-MEMBERS/nested-extra-member",
        "ERR-TOLERATED-CHANGES/extra-member",
    ),
    _control(
        "control-reordered-keys",
        "Every JSON object in a response has its members in reverse order.",
        _every_json_body(_reordered),
        "TYPES-UNKNOWN-MEMBERS/reordered-members",
        "ERR-TOLERATED-CHANGES/reordered-members",
    ),
    _control(
        "control-reworded-messages",
        "Error `message` texts differ (the spec says they are for humans and may change).",
        _every_json_body(_reworded),
        "ERR-TOLERATED-CHANGES/other-message",
    ),
    _control(
        "control-extra-headers",
        "Every response carries headers the spec does not name (X-Selftest-Extra, X-Powered-By, Vary).",
        _every_response(_with_headers),
        "ERR-TOLERATED-CHANGES/extra-header",
    ),
    _control(
        "control-json-charset",
        "Every JSON response is labelled `application/json; charset=utf-8`.",
        _every_response(_with_charset),
        "ERR-MEDIA-TYPE-PARAMETERS/charset-parameter",
    ),
]
