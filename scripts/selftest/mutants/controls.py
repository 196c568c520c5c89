"""Controls: harmless changes a correct kit must accept (unknown enum values, extra fields, key order, wording)."""

from __future__ import annotations

from typing import Any

from scripts.selftest.asgi import Forward, Handler, Request, Response
from scripts.selftest.mutants.base import Mutant
from scripts.selftest.target import Fixtures


def _walk(value: Any, change: Any) -> Any:
    """`value` rebuilt bottom-up, each object passed through `change`."""
    if isinstance(value, list):
        return [_walk(item, change) for item in value]
    if isinstance(value, dict):
        return change({key: _walk(item, change) for key, item in value.items()})
    return value


UNKNOWN_ENUMS = {
    "origin": "TASK_ORIGIN_SELFTEST_NEW",
    "recommendation": "INSIGHT_RECOMMENDATION_SELFTEST_NEW",
    "processing": "TASK_PROCESSING_TYPE_SELFTEST_NEW",
    "outcome": "SELFTEST_OUTCOME_NEW",
}


def _unknown_enum(document: dict[str, Any]) -> dict[str, Any]:
    """Open enumerations get values the spec does not list (`actions` gains one beside the real ones)."""
    changed = {
        key: UNKNOWN_ENUMS.get(key, value) if isinstance(value, str) else value for key, value in document.items()
    }
    if isinstance(document.get("actions"), list):
        changed["actions"] = [*document["actions"], "TASK_ACTION_TYPE_SELFTEST_NEW"]
    return changed


# Objects whose schema is a record (named properties, unknown ones allowed), by the member holding them; maps
# such as `annotations` or `policySteps` are left alone (a new key there must have the map's value type).
RECORDS = {"taskView", "task", "policy", "current", "list", "appEntitlement", "automationRun", "details"}


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


CONTROLS = [
    Mutant("control-unchanged", "control", "The reference server as it is.", lambda _: {}, control=True),
    Mutant(
        "control-unknown-enum",
        "control",
        "Open enumerations in responses carry values the spec does not list.",
        _every_json_body(_unknown_enum),
        control=True,
    ),
    Mutant(
        "control-extra-field",
        "control",
        "Every record in a JSON response (not the maps) has an extra member the spec does not define.",
        _every_json_body(_with_extra_fields, whole=True),
        control=True,
    ),
    Mutant(
        "control-reordered-keys",
        "control",
        "Every JSON object in a response has its members in reverse order.",
        _every_json_body(_reordered),
        control=True,
    ),
    Mutant(
        "control-reworded-messages",
        "control",
        "Error `message` texts differ (the spec says they are for humans and may change).",
        _every_json_body(_reworded),
        control=True,
    ),
]
