"""Every operation declares the 503 the server can answer it with, naming the codes it really sends: the
connection cap (`SERVICE_UNAVAILABLE`, on every operation), the database (`SERVICE_UNAVAILABLE`, on the ones that
read or write it), a missing key (`KEY_UNAVAILABLE`, the webhook's listener secret), readiness (`NOT_READY`).
Each example is a valid `Error` with a code whose status in the `Error` table is 503."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from accessgov.errors import ErrorCode
from tests.spec.test_error_codes import documented

BUNDLE = json.loads((Path(__file__).resolve().parents[2] / "generated" / "openapi.json").read_text(encoding="utf-8"))
ERROR = Draft202012Validator({"$ref": "#/components/schemas/Error", "components": BUNDLE["components"]})
DATABASE = {ErrorCode.SERVICE_UNAVAILABLE}  # the database, or the connection cap
EXPECTED = {
    "svc.api.app.v1.AppEntitlementsService.List": DATABASE,
    "svc.api.task.v1.TaskActionsService.Restart": DATABASE,
    "svc.api.webhooks.v1.IncomingWebhookService.Receive": DATABASE | {ErrorCode.KEY_UNAVAILABLE},
    "svc.api.auth.v1.AuthService.Token": DATABASE,
    "svc.api.meta.v1.OperationsService.Readyz": {ErrorCode.NOT_READY, ErrorCode.SERVICE_UNAVAILABLE},
}


def resolve(node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        target: Any = BUNDLE
        for part in node["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        node = target
    return node


def operations() -> dict[str, dict[str, Any]]:
    return {
        operation["operationId"]: operation
        for item in BUNDLE["paths"].values()
        for method, operation in item.items()
        if method in ("get", "put", "post", "delete", "patch")
    }


def test_every_operation_declares_503_with_the_codes_the_server_sends() -> None:
    found = operations()
    assert set(EXPECTED) <= set(found), sorted(found)
    for operation_id, operation in found.items():
        assert "503" in operation["responses"], f"{operation_id} declares no 503 (the connection cap answers it)"
        response = resolve(operation["responses"]["503"])
        examples = response["content"]["application/json"]["examples"]
        codes = set()
        for name, example in examples.items():
            value = resolve(example)["value"]
            assert not list(ERROR.iter_errors(value)), (operation_id, name)
            assert documented()[value["code"]] == 503, (operation_id, name, value["code"])
            codes.add(value["code"])
        assert codes == {code.value for code in EXPECTED.get(operation_id, {ErrorCode.SERVICE_UNAVAILABLE})}, (
            operation_id,
            codes,
        )
        for code in codes:
            assert f"`{code}`" in response["description"], (operation_id, code)
