"""Error-body, authentication and evidence (no successful call at all) mutants."""

from __future__ import annotations

from typing import Any

from scripts.selftest.asgi import Forward, Handler, Request, Response
from scripts.selftest.mutants.base import Mutant
from scripts.selftest.target import Fixtures

ADMIN = "Bearer demo-admin-token"


def _error_document(response: Response) -> dict[str, Any] | None:
    document = response.json()
    return document if response.status >= 400 and isinstance(document, dict) and "code" in document else None


def _without_code(request: Request, response: Response) -> Response:
    document = _error_document(response)
    return response if document is None else response.with_json({k: v for k, v in document.items() if k != "code"})


def _details_without_reason(request: Request, response: Response) -> Response:
    document = _error_document(response)
    if document is None or not document.get("details"):
        return response
    details = [{k: v for k, v in detail.items() if k != "reason"} for detail in document["details"]]
    return response.with_json({**document, "details": details})


def _plain_text(request: Request, response: Response) -> Response:
    document = _error_document(response)
    if document is None:
        return response
    return response.with_body(f"{response.status} {document.get('message', '')}\n".encode(), "text/plain")


def _tenant_api(handle: Any) -> dict[str, Any]:
    return {"restart": handle, "list": handle}


def _anonymous_list(_: Fixtures) -> dict[str, Handler]:
    async def handle(request: Request, forward: Forward) -> Response:
        if not request.header("authorization"):
            request = request.with_header("authorization", ADMIN)
        return await forward(request)

    return {"list": handle}


def _any_token(_: Fixtures) -> dict[str, Handler]:
    """Any bearer token is taken as the admin's: an unknown or made-up token is accepted."""

    async def handle(request: Request, forward: Forward) -> Response:
        response = await forward(request)
        if response.status == 401 and (request.header("authorization") or "").lower().startswith("bearer "):
            return await forward(request.with_header("authorization", ADMIN))
        return response

    return _tenant_api(handle)


def _empty_secret(_: Fixtures) -> dict[str, Handler]:
    """The token endpoint takes a client whose client_secret is empty as authenticated."""

    async def handle(request: Request, forward: Forward) -> Response:
        from urllib.parse import parse_qsl, urlencode

        form = dict(parse_qsl(request.body.decode("latin-1"), keep_blank_values=True))
        if "client_secret" in form and form["client_secret"] == "" and form.get("client_id") == "demo-client":
            form["client_secret"] = "demo-client-secret"
            request = request.with_body(urlencode(form).encode())
        return await forward(request)

    return {"token": handle}


def _throttled(_: Fixtures) -> dict[str, Handler]:
    async def handle(request: Request, forward: Forward) -> Response:
        return Response.error(
            429, "TOO_MANY_FAILED_ATTEMPTS", "too many failed authentications from this address", Retry_After="60"
        )

    return _tenant_api(handle)


def _webhook_always_unauthorized(_: Fixtures) -> dict[str, Handler]:
    async def handle(request: Request, forward: Forward) -> Response:
        return Response.error(401, "SIGNATURE_MISMATCH", "Webhook-Signature does not match the request")

    return {"webhook": handle}


def _on_any(change: Any) -> Handler:
    async def handle(request: Request, forward: Forward) -> Response:
        changed: Response = change(request, await forward(request))
        return changed

    return handle


MUTANTS = [
    Mutant(
        "errors-without-code",
        "errors",
        "Error bodies have no `code` (only `message`).",
        lambda _: {"*": _on_any(_without_code)},
    ),
    Mutant(
        "errors-detail-without-reason",
        "errors",
        "The `details` entries of error bodies have no `reason`.",
        lambda _: {"*": _on_any(_details_without_reason)},
    ),
    Mutant(
        "errors-not-json",
        "errors",
        "Error responses are text/plain, not an application/json Error body.",
        lambda _: {"*": _on_any(_plain_text)},
    ),
    Mutant(
        "auth-list-without-credentials",
        "auth",
        "Listing entitlements without an Authorization header succeeds instead of 401.",
        _anonymous_list,
    ),
    Mutant(
        "auth-any-token-accepted",
        "auth",
        "An unknown bearer token is accepted on the tenant API instead of 401.",
        _any_token,
    ),
    Mutant(
        "auth-token-empty-secret",
        "auth",
        "The token endpoint issues a token for an empty client_secret instead of refusing the client.",
        _empty_secret,
    ),
    Mutant(
        "evidence-tenant-api-throttled",
        "evidence",
        "Every restart and list request is answered 429: no positive call ever succeeds.",
        _throttled,
    ),
    Mutant(
        "evidence-webhook-always-401",
        "evidence",
        "Every webhook request is answered 401: no delivery is ever accepted.",
        _webhook_always_unauthorized,
    ),
]
