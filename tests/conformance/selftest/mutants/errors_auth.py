"""Error-body, authentication and evidence (no successful call at all) mutants.

The authentication ones break one variant each of the traceability section `auth`
(`conformance/accessgov_conformance/traceability.yaml`): which credentials the tenant API takes and where, and
the token endpoint's RFC 6749 answers."""

from __future__ import annotations

import base64
import secrets
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qsl, urlencode

from tests.conformance.selftest.asgi import Forward, Handler, Request, Response
from tests.conformance.selftest.mutants.base import Mutant, on_response
from tests.conformance.selftest.target import Fixtures

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


KNOWN_TOKENS = {"demo-admin-token", "demo-viewer-token"}
CLIENT_ID, CLIENT_SECRET = "demo-client", "demo-client-secret"
BASIC = "Basic " + base64.b64encode(f"{CLIENT_ID}:{CLIENT_SECRET}".encode()).decode()


def _bearer(request: Request) -> str | None:
    scheme, _, token = (request.header("authorization") or "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" else None


def _unauthenticated() -> Response:
    return Response.error(401, "UNAUTHENTICATED", "the bearer token is unknown", WWW_Authenticate='Bearer realm="api"')


def _api_tokens_only(_: Fixtures) -> dict[str, Handler]:
    """Only the configured API tokens open the API: an OAuth access token is refused (oauth not honoured)."""

    async def handle(request: Request, forward: Forward) -> Response:
        token = _bearer(request)
        if token is not None and token not in KNOWN_TOKENS:
            return _unauthenticated()
        return await forward(request)

    return _tenant_api(handle)


def _scheme_case_sensitive(_: Fixtures) -> dict[str, Handler]:
    async def handle(request: Request, forward: Forward) -> Response:
        value = request.header("authorization") or ""
        if value[:7].lower() == "bearer " and not value.startswith("Bearer "):
            return _unauthenticated()
        return await forward(request)

    return _tenant_api(handle)


def _query_token(_: Fixtures) -> dict[str, Handler]:
    """RFC 6750's access_token query parameter is honoured (the contract takes the header only)."""

    async def handle(request: Request, forward: Forward) -> Response:
        query = request.query()
        if "access_token" in query and not request.header("authorization"):
            rest = {k: v for k, v in query.items() if k != "access_token"}
            request = request.with_query(rest).with_header("authorization", f"Bearer {query['access_token']}")
        return await forward(request)

    return _tenant_api(handle)


def _basic_on_api(_: Fixtures) -> dict[str, Handler]:
    """The OAuth client's id and secret in HTTP Basic are taken on the tenant API as its access token."""

    async def handle(request: Request, forward: Forward) -> Response:
        if request.header("authorization") == BASIC:
            request = request.with_header("authorization", ADMIN)
        return await forward(request)

    return _tenant_api(handle)


def _first_header_wins(_: Fixtures) -> dict[str, Handler]:
    """Of several Authorization headers the first is used (the reference refuses them all)."""

    async def handle(request: Request, forward: Forward) -> Response:
        lines = [value for name, value in request.scope["headers"] if name.lower() == b"authorization"]
        if len(lines) > 1:
            request = request.with_header("authorization", bytes(lines[0]).decode("latin-1"))
        return await forward(request)

    return _tenant_api(handle)


def _near_tokens(match: Callable[[str, str], bool]) -> Callable[[Fixtures], dict[str, Handler]]:
    """A bearer token that is not one the token endpoint issued but `match`es one is taken as that one."""

    def handlers(_: Fixtures) -> dict[str, Handler]:
        issued: list[str] = []

        async def token_endpoint(request: Request, forward: Forward) -> Response:
            response = await forward(request)
            document = response.json()
            if response.status == 200 and isinstance(document, dict) and document.get("access_token"):
                issued.append(str(document["access_token"]))
            return response

        async def api(request: Request, forward: Forward) -> Response:
            token = _bearer(request)
            if token and token not in issued:
                found = next((t for t in issued if match(token, t)), None)
                if found is not None:
                    request = request.with_header("authorization", f"Bearer {found}")
            return await forward(request)

        return {"token": token_endpoint, "restart": api, "list": api}

    return handlers


def _form(request: Request) -> dict[str, str]:
    return dict(parse_qsl(request.body.decode("latin-1"), keep_blank_values=True))


def _token_rewrite(
    change: Callable[[Request, dict[str, str]], Request | Response | None],
) -> Callable[[Fixtures], dict[str, Handler]]:
    """The token endpoint reads the request as `change(request, form)` returns it (a Response: answered so;
    None: as sent)."""

    def handlers(_: Fixtures) -> dict[str, Handler]:
        async def handle(request: Request, forward: Forward) -> Response:
            changed = change(request, _form(request))
            if isinstance(changed, Response):
                return changed
            return await forward(changed or request)

        return {"token": handle}

    return handlers


def _with_form(request: Request, form: dict[str, str]) -> Request:
    return request.with_body(urlencode(form).encode())


def _oauth_error(status: int, error: str, **headers: str) -> Response:
    extra = {k.replace("_", "-"): v for k, v in headers.items()}
    return Response.of_json(
        status, {"error": error, "error_description": error}, {"Cache-Control": "no-store", **extra}
    )


def _basic_refused(request: Request, form: dict[str, str]) -> Response | None:
    if (request.header("authorization") or "").lower().startswith("basic "):
        return _oauth_error(401, "invalid_client", WWW_Authenticate='Basic realm="token"')
    return None


def _form_refused(request: Request, form: dict[str, str]) -> Response | None:
    if "client_secret" in form and not request.header("authorization"):
        return _oauth_error(401, "invalid_client", WWW_Authenticate='Basic realm="token"')
    return None


def _any_secret(request: Request, form: dict[str, str]) -> Request | None:
    """Any secret is taken for a known client: only the client id is checked."""
    if form.get("client_id") == CLIENT_ID and form.get("client_secret"):
        return _with_form(request, {**form, "client_secret": CLIENT_SECRET})
    basic = request.header("authorization") or ""
    if basic.lower().startswith("basic "):
        try:
            client_id = base64.b64decode(basic[6:]).decode().split(":", 1)[0]
        except (ValueError, UnicodeDecodeError):
            return None
        if client_id == CLIENT_ID:
            return request.with_header("authorization", BASIC)
    return None


def _secret_prefix(request: Request, form: dict[str, str]) -> Request | None:
    """The secret is compared over the length sent: a prefix of it is taken."""
    secret = form.get("client_secret", "")
    if form.get("client_id") == CLIENT_ID and secret and CLIENT_SECRET.startswith(secret):
        return _with_form(request, {**form, "client_secret": CLIENT_SECRET})
    return None


def _unknown_client_400(_: Fixtures) -> dict[str, Handler]:
    async def handle(request: Request, forward: Forward) -> Response:
        response = await forward(request)
        form = _form(request)
        if response.status == 401 and form.get("client_id") not in (None, CLIENT_ID):
            return _oauth_error(400, "invalid_request")
        return response

    return {"token": handle}


def _token_401_bare(request: Request, response: Response) -> Response:
    if response.status == 401:
        response.headers = [(k, v) for k, v in response.headers if k.lower() != b"www-authenticate"]
    return response


def _basic_failure_400(_: Fixtures) -> dict[str, Handler]:
    """A failed HTTP Basic client authentication is answered 400 (RFC 6749 says 401 for it)."""

    async def handle(request: Request, forward: Forward) -> Response:
        response = await forward(request)
        if response.status == 401 and (request.header("authorization") or "").lower().startswith("basic "):
            return _oauth_error(400, "invalid_client")
        return response

    return {"token": handle}


def _anonymous(request: Request, form: dict[str, str]) -> Request | None:
    if not request.header("authorization") and "client_secret" not in form and "client_id" not in form:
        return request.with_header("authorization", BASIC)
    return None


def _both_methods(request: Request, form: dict[str, str]) -> Request | None:
    if request.header("authorization") and "client_secret" in form:
        return _with_form(request, {k: v for k, v in form.items() if k != "client_secret"})
    return None


def _json_as_form(request: Request, form: dict[str, str]) -> Request | None:
    """A JSON token request is read as if it were the form (the media type not checked)."""
    document = request.json()
    if (request.header("content-type") or "").startswith("application/json") and isinstance(document, dict):
        fields = {str(k): str(v) for k, v in document.items()}
        return _with_form(request, fields).with_header("content-type", "application/x-www-form-urlencoded")
    return None


def _charset_refused(request: Request, form: dict[str, str]) -> Response | None:
    """A Content-Type with parameters (charset) is refused: the media type compared as the whole header."""
    if ";" in (request.header("content-type") or ""):
        return _oauth_error(400, "invalid_request")
    return None


def _grant(rewrite: Callable[[str | None], str | None]) -> Callable[[Request, dict[str, str]], Request | None]:
    def change(request: Request, form: dict[str, str]) -> Request | None:
        grant = rewrite(form.get("grant_type"))
        if grant == form.get("grant_type"):
            return None
        return _with_form(request, {**form, "grant_type": grant or ""})

    return change


def _unsupported_as_invalid(request: Request, response: Response) -> Response:
    document = response.json()
    if response.status == 400 and isinstance(document, dict) and document.get("error") == "unsupported_grant_type":
        return response.with_json({**document, "error": "invalid_request"})
    return response


def _no_store_missing(request: Request, response: Response) -> Response:
    if response.status == 200:
        response.headers = [(k, v) for k, v in response.headers if k.lower() != b"cache-control"]
    return response


def _unusable_token(request: Request, response: Response) -> Response:
    """The token endpoint answers a well-formed token the API does not know (a canned answer)."""
    document = response.json()
    if response.status == 200 and isinstance(document, dict) and "access_token" in document:
        return response.with_json({**document, "access_token": secrets.token_urlsafe(32)})
    return response


def _token_type(request: Request, response: Response) -> Response:
    document = response.json()
    if response.status == 200 and isinstance(document, dict) and "token_type" in document:
        return response.with_json({**document, "token_type": "mac"})
    return response


def _m(mutant_id: str, family: str, breaks: str, handlers: Any, *covers: str) -> Mutant:
    return Mutant(mutant_id, family, breaks, handlers, covers=covers)


MUTANTS = [
    Mutant(
        "errors-without-code",
        "errors",
        "Error bodies have no `code` (only `message`).",
        lambda _: {"*": _on_any(_without_code)},
        covers=("ERR-BODY-SHAPE/code-missing",),
    ),
    Mutant(
        "errors-detail-without-reason",
        "errors",
        "The `details` entries of error bodies have no `reason`.",
        lambda _: {"*": _on_any(_details_without_reason)},
        covers=("ERR-BODY-SHAPE/detail-without-reason",),
    ),
    Mutant(
        "errors-not-json",
        "errors",
        "Error responses are text/plain, not an application/json Error body.",
        lambda _: {"*": _on_any(_plain_text)},
        covers=("ERR-MEDIA-TYPE/body-not-json",),
    ),
    _m(
        "auth-list-without-credentials",
        "auth",
        "Listing entitlements without an Authorization header succeeds instead of 401.",
        _anonymous_list,
        "AUTH-REQUIRED/list-anonymous",
    ),
    _m(
        "auth-any-token-accepted",
        "auth",
        "An unknown bearer token is accepted on the tenant API instead of 401.",
        _any_token,
        "AUTH-TOKEN-EXACT/unknown",
    ),
    _m(
        "auth-near-token-accepted",
        "auth",
        "A bearer token that is an issued access token cut short, extended or with its last character changed "
        "is taken as that token.",
        _near_tokens(
            lambda sent, issued: sent[:-4] == issued[:-4] or issued.startswith(sent) or sent.startswith(issued)
        ),
        "AUTH-TOKEN-EXACT/near-miss",
    ),
    _m(
        "auth-token-case-insensitive",
        "auth",
        "Bearer tokens are compared ignoring letter case.",
        _near_tokens(lambda sent, issued: sent.lower() == issued.lower()),
        "AUTH-TOKEN-EXACT/other-case",
    ),
    _m(
        "auth-oauth-token-refused",
        "auth",
        "Only the API tokens open the tenant API: an OAuth access token in the same header is refused 401.",
        _api_tokens_only,
        "AUTH-ONE-HEADER/oauth-token-refused",
    ),
    _m(
        "auth-scheme-case-sensitive",
        "auth",
        "Authorization: bearer <token> (lower case) is refused 401 although the scheme is case-insensitive.",
        _scheme_case_sensitive,
        "AUTH-SCHEME-CASE/lower-or-upper-case",
    ),
    _m(
        "auth-query-token-accepted",
        "auth",
        "A token in the query string (access_token=) is accepted instead of 401.",
        _query_token,
        "AUTH-ONLY-IN-HEADER/query-string",
    ),
    _m(
        "auth-basic-on-api-accepted",
        "auth",
        "The OAuth client's id and secret in HTTP Basic open the tenant API instead of 401.",
        _basic_on_api,
        "AUTH-ONLY-IN-HEADER/basic",
    ),
    _m(
        "auth-first-of-two-headers",
        "auth",
        "Of two Authorization headers the first is used instead of refusing the request 401.",
        _first_header_wins,
        "AUTH-ONLY-IN-HEADER/two-headers",
    ),
    _m(
        "auth-token-no-store-missing",
        "auth",
        "The token response has no Cache-Control: no-store.",
        on_response("token", _no_store_missing),
        "AUTH-TOKEN-ISSUED/no-store",
    ),
    _m(
        "auth-token-basic-refused",
        "auth",
        "HTTP Basic client authentication at the token endpoint is refused 401.",
        _token_rewrite(_basic_refused),
        "AUTH-TOKEN-ISSUED/basic-refused",
    ),
    _m(
        "auth-token-form-refused",
        "auth",
        "client_id and client_secret in the form body are refused 401.",
        _token_rewrite(_form_refused),
        "AUTH-TOKEN-ISSUED/form-refused",
    ),
    _m(
        "auth-token-unusable",
        "auth",
        "The token endpoint answers an access token the tenant API does not know.",
        on_response("token", _unusable_token),
        "AUTH-TOKEN-ISSUED/unusable",
    ),
    _m(
        "auth-token-type-not-bearer",
        "auth",
        "The token response's token_type is not Bearer.",
        on_response("token", _token_type),
        "AUTH-TOKEN-ISSUED/token-type",
    ),
    _m(
        "auth-token-any-secret",
        "auth",
        "Any client_secret is taken for a known client_id (body or HTTP Basic).",
        _token_rewrite(_any_secret),
        "AUTH-CLIENT-SECRET/wrong-secret",
    ),
    _m(
        "auth-token-secret-prefix",
        "auth",
        "A prefix of the client secret is taken (compared over the length sent).",
        _token_rewrite(_secret_prefix),
        "AUTH-CLIENT-SECRET/prefix",
    ),
    _m(
        "auth-token-empty-secret",
        "auth",
        "The token endpoint issues a token for an empty client_secret instead of refusing the client.",
        _empty_secret,
        "AUTH-CLIENT-SECRET/empty",
    ),
    _m(
        "auth-token-unknown-client-400",
        "auth",
        "An unknown client_id is answered 400 invalid_request instead of 401 invalid_client.",
        _unknown_client_400,
        "AUTH-CLIENT-SECRET/unknown-client-400",
    ),
    _m(
        "auth-token-basic-failure-400",
        "auth",
        "A wrong secret in HTTP Basic is answered 400 instead of 401 with WWW-Authenticate.",
        _basic_failure_400,
        "AUTH-CLIENT-SECRET/basic-failure-400",
    ),
    _m(
        "auth-token-401-without-www-authenticate",
        "auth",
        "The token endpoint's 401 has no WWW-Authenticate: Basic.",
        on_response("token", _token_401_bare),
        "AUTH-CLIENT-SECRET/no-www-authenticate",
    ),
    _m(
        "auth-token-anonymous-issued",
        "auth",
        "A token request without any client authentication gets a token (the default client's).",
        _token_rewrite(_anonymous),
        "AUTH-CLIENT-REQUIRED/anonymous",
    ),
    _m(
        "auth-token-both-methods-accepted",
        "auth",
        "HTTP Basic and a client_secret in the body together are accepted (the body secret ignored).",
        _token_rewrite(_both_methods),
        "AUTH-ONE-CLIENT-METHOD/both",
    ),
    _m(
        "auth-token-json-accepted",
        "auth",
        "A token request with a JSON body is served as if it were the form instead of 400 invalid_request.",
        _token_rewrite(_json_as_form),
        "AUTH-FORM-ENCODED/json-accepted",
    ),
    _m(
        "auth-token-charset-refused",
        "auth",
        "A form token request whose Content-Type has a charset parameter is refused 400.",
        _token_rewrite(_charset_refused),
        "AUTH-FORM-ENCODED/charset-refused",
    ),
    _m(
        "auth-token-password-grant",
        "auth",
        "grant_type=password is served as client_credentials instead of 400 unsupported_grant_type.",
        _token_rewrite(_grant(lambda g: "client_credentials" if g == "password" else g)),
        "AUTH-GRANT/password",
    ),
    _m(
        "auth-token-grant-case-folded",
        "auth",
        "grant_type is compared ignoring case: CLIENT_CREDENTIALS is served.",
        _token_rewrite(_grant(lambda g: g.lower() if g and g.lower() == "client_credentials" else g)),
        "AUTH-GRANT/other-case",
    ),
    _m(
        "auth-token-missing-grant-defaulted",
        "auth",
        "A request without grant_type is served as client_credentials instead of 400 invalid_request.",
        _token_rewrite(_grant(lambda g: "client_credentials" if g is None else g)),
        "AUTH-GRANT/missing",
    ),
    _m(
        "auth-token-unsupported-as-invalid-request",
        "auth",
        "An unsupported grant type is answered 400 invalid_request instead of unsupported_grant_type.",
        on_response("token", _unsupported_as_invalid),
        "AUTH-GRANT/wrong-error",
    ),
    Mutant(
        "evidence-tenant-api-throttled",
        "evidence",
        "Every restart and list request is answered 429: no positive call ever succeeds.",
        _throttled,
        covers=("AUTH-VALID-NOT-THROTTLED/valid-token-throttled",),
    ),
    Mutant(
        "evidence-webhook-always-401",
        "evidence",
        "Every webhook request is answered 401: no delivery is ever accepted.",
        _webhook_always_unauthorized,
        covers=("HMAC-EXACT/as-specified",),  # a delivery signed exactly as the contract says is refused
    ),
]
