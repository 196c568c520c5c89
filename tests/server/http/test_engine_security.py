"""The engine's security requirements over real HTTP: `bearerAuth` and `oauth` named in one requirement arrive in
one `Authorization` header, so one authenticator serving both checks the token once; distinct ones each check."""

from __future__ import annotations

import re
from typing import Any

import pytest

from accessgov.bundle.reader import operations_from_bundle
from accessgov.domain.permissions import Principal
from accessgov.http.context import HandlerSpec, RequestContext
from accessgov.http.engine import build_app, load_bundle
from accessgov.observability.access_log import AccessLogMiddleware
from tests.support import loopback
from tests.support.harness import serve

pytestmark = pytest.mark.slow

PAGE = "/api/v1/apps/app-github/entitlements"  # security: one requirement naming bearerAuth and oauth
LIST = "svc.api.app.v1.AppEntitlementsService.List"


class CountingAuthenticator:
    def __init__(self) -> None:
        self.calls = 0

    async def __call__(self, ctx: RequestContext) -> Principal:
        self.calls += 1
        return Principal("caller", ("admin",))


async def answer(ctx: RequestContext) -> tuple[int, dict[str, str]]:
    return 200, {"operation": ctx.operation_id}


def every_operation_answering(operations: list[dict[str, Any]]) -> dict[str, HandlerSpec]:
    return {entry["operation_id"]: HandlerSpec(answer) for entry in operations}


def calls_per_request(authenticators: dict[str, CountingAuthenticator]) -> list[int]:
    doc = load_bundle()
    operations = operations_from_bundle(doc)
    app = build_app(operations, doc, every_operation_answering(operations), authenticators=authenticators)
    with serve(app) as base_url:
        response = loopback.get(base_url + PAGE, headers={"Authorization": "Bearer t"})
    assert response.status_code == 200, response.text
    assert response.json() == {"operation": LIST}
    return [authenticator.calls for authenticator in authenticators.values()]


def test_one_authenticator_for_both_schemes_is_asked_once() -> None:
    shared = CountingAuthenticator()
    assert calls_per_request({"bearerAuth": shared, "oauth": shared}) == [1, 1]  # the same object, once


def test_distinct_authenticators_are_each_asked() -> None:
    assert calls_per_request({"bearerAuth": CountingAuthenticator(), "oauth": CountingAuthenticator()}) == [1, 1]


class BrokenAuthenticator:
    async def __call__(self, ctx: RequestContext) -> Principal:
        raise RuntimeError("a bug, not the client's fault")


def test_an_unexpected_error_is_the_contracts_500_with_the_request_id() -> None:
    """An operation that raises something other than an `ApiError` answers 500 `INTERNAL` in the `Error` shape,
    still through the access log (its request id on the answer), and leaves the server serving."""
    broken = BrokenAuthenticator()
    doc = load_bundle()
    operations = operations_from_bundle(doc)
    app = build_app(
        operations, doc, every_operation_answering(operations), authenticators={"bearerAuth": broken, "oauth": broken}
    )
    app.add_middleware(AccessLogMiddleware, log=False)
    with serve(app) as base_url:
        response = loopback.get(base_url + PAGE, headers={"Authorization": "Bearer t", "X-Request-Id": "req-500"})
        unknown = loopback.get(base_url + "/api/v1/nothing-here")
    assert response.status_code == 500
    assert response.json() == {"code": "INTERNAL", "message": "internal error"}
    assert response.headers["x-request-id"] == "req-500"
    assert unknown.status_code == 404 and unknown.json()["code"] == "NOT_FOUND"


def test_every_operation_needs_its_handler() -> None:
    doc = load_bundle()
    operations = operations_from_bundle(doc)
    handlers = every_operation_answering(operations)
    del handlers[LIST]
    with pytest.raises(ValueError, match=re.escape(f"operations without a handler: {[LIST]}")):
        build_app(operations, doc, handlers)
    with pytest.raises(ValueError, match="operations the spec does not have"):
        build_app(operations, doc, {**every_operation_answering(operations), "nope": HandlerSpec(answer)})
