"""Credentials: the tenant API's bearer tokens and the OAuth2 client-credentials token endpoint."""

from __future__ import annotations

import base64
import json
import re
import urllib.parse
from collections.abc import Callable

from .. import spec
from ..context import Context, Exchange
from ..registry import rule
from ..verdicts import Fail, NoEvidence, NotApplicable

FAMILY = "auth"
TOKEN_OP = "spec/paths/auth_v1_token.yaml"
LIST_OP = "spec/paths/api_v1_apps_{app_id}_entitlements.yaml"
SECTION = "Authentication"


def _client(ctx: Context) -> tuple[str, str]:
    if not (ctx.config.oauth_client_id and ctx.config.oauth_client_secret):
        raise NotApplicable("the configuration names no OAuth client (auth.oauth_client_id / oauth_client_secret)")
    return ctx.config.oauth_client_id, ctx.config.oauth_client_secret


def _oauth_error(ctx: Context, exchange: Exchange, status: int, error: str, what: str) -> None:
    body = ctx.expect(exchange, status, what=what)
    if not isinstance(body, dict) or body.get("error") != error:
        raise Fail(f"{what}: HTTP {status} as expected but the RFC 6749 error is {body!r}, not {error!r}")


def _list(ctx: Context, token: str | None, headers: dict[str, str] | None = None, **params: str) -> Exchange:
    app_id = ctx.config.app_id or "app-conformance"
    path = f"/api/v1/apps/{app_id}/entitlements"
    return ctx.api("GET", spec.LIST_ENTITLEMENTS, path, token=token, headers=headers, params=params or None)


def _refused(ctx: Context, exchange: Exchange, what: str) -> None:
    """401 UNAUTHENTICATED with WWW-Authenticate: the tenant API's answer to every credential it does not take."""
    ctx.expect(exchange, 401, code="UNAUTHENTICATED", what=what)
    if "www-authenticate" not in {name.lower() for name in exchange.response_headers}:
        raise Fail(f"{what}: the 401 has no WWW-Authenticate header")


def _altered(token: str) -> list[tuple[str, str]]:
    """Near misses of a real access token: it must be the exact token that opens the API, nothing like it."""
    last = "A" if token[-1:] != "A" else "B"
    near = [
        ("the issued token with its last character changed", token[:-1] + last),
        ("the issued token truncated", token[: max(1, len(token) - 4)]),
        ("the issued token extended", token + "A"),
    ]
    if token.swapcase() != token:
        near.append(("the issued token in other letter case", token.swapcase()))
    return near


def issued_only(ctx: Context, token: str, what: str, send: Callable[[str], Exchange] | None = None) -> None:
    """Accepting `token` shows something only where the tenant API refuses what it did not issue: its first near
    miss (`_altered`), sent as `send` sends a token (default: the app's listing), must be 401. Accepted too, it is
    no evidence (a mock takes any credential); answered otherwise, a failure."""
    label, near = _altered(token)[0]
    exchange = send(near) if send is not None else _list(ctx, near)
    if 200 <= exchange.status < 300:
        ctx.blamed = ctx.blamed or exchange
        raise NoEvidence(
            f"{what}: the tenant API accepts {label} too (HTTP {exchange.status}): it takes a credential it never "
            "issued, so its accepting this one shows nothing"
        )
    _refused(ctx, exchange, f"{what}: {label}")


def _works(ctx: Context, exchange: Exchange, what: str, *, near_misses: int = 1) -> None:
    """A 200 token response (no-store, token_type Bearer) whose access_token the tenant API accepts, and the
    first `near_misses` near misses of which it refuses: a token endpoint answer is a real credential, not any
    string. Each near miss is a failed authentication the target may count toward a 429: AU-OAUTH-001 sends all."""
    body = ctx.expect(exchange, 200, what=what)
    if "no-store" not in exchange.response_headers.get("cache-control", ""):
        raise Fail(f"{what}: the token response lacks Cache-Control: no-store")
    if body.get("token_type") != "Bearer":
        raise Fail(f"{what}: token_type is {body.get('token_type')!r}, not exactly 'Bearer' (its description: always)")
    if ctx.config.is_mock or not ctx.config.app_id:
        return
    token = str(body["access_token"])
    ctx.expect(_list(ctx, token), 200, what=f"{what}: the issued access token on the tenant API")
    for label, near in _altered(token)[:near_misses]:
        _refused(ctx, _list(ctx, near), f"{what}: {label}")


@rule(
    "AU-OAUTH-001",
    family=FAMILY,
    title="The token endpoint issues a usable token (client secret in the body)",
    text="grant_type=client_credentials with client_id and client_secret in the form body is answered 200 with a "
    "Bearer token (Cache-Control: no-store) that the tenant API accepts.",
    spec=f"{TOKEN_OP}#/post/responses/200",
    requirements=SECTION,
    mock=True,
)
def body_credentials(ctx: Context) -> None:
    client_id, secret = _client(ctx)
    form = {"grant_type": "client_credentials", "client_id": client_id, "client_secret": secret}
    _works(ctx, ctx.token_request(data=form), "client_secret in the body", near_misses=4)


@rule(
    "AU-OAUTH-002",
    family=FAMILY,
    title="The token endpoint accepts HTTP Basic client authentication",
    text="grant_type=client_credentials with the client in an Authorization: Basic header is answered 200, also "
    "when the body names the same client_id.",
    spec=f"{TOKEN_OP}#/post/security",
    requirements=SECTION,
    mock=True,
)
def basic_credentials(ctx: Context) -> None:
    client = _client(ctx)
    _works(ctx, ctx.client_credentials(), "HTTP Basic")
    form = {"grant_type": "client_credentials", "client_id": client[0]}
    both = ctx.token_request(data=form, auth=client)
    _works(ctx, both, "HTTP Basic with the same client_id in the body", near_misses=0)


@rule(
    "AU-OAUTH-003",
    family=FAMILY,
    title="A wrong or empty client secret, or an unknown client, is refused",
    text="A wrong client_secret (in the body or in HTTP Basic) or an unknown client_id is 401 invalid_client "
    "with WWW-Authenticate: Basic; an empty secret is refused (401 invalid_client or 400 invalid_request); "
    "never a token.",
    spec=f"{TOKEN_OP}#/post/responses/401",
    requirements=SECTION,
)
def wrong_secret(ctx: Context) -> None:
    client_id, secret = _client(ctx)
    grant = {"grant_type": "client_credentials"}
    attempts: list[tuple[str, dict[str, str], tuple[str, str] | None]] = [
        ("wrong client_secret in the body", {**grant, "client_id": client_id, "client_secret": secret + "x"}, None),
        ("wrong client_secret in HTTP Basic", grant, (client_id, secret + "x")),
        ("a prefix of the client_secret", {**grant, "client_id": client_id, "client_secret": secret[:-1]}, None),
        ("unknown client_id", {**grant, "client_id": client_id + "-conformance", "client_secret": secret}, None),
    ]
    for what, form, basic in attempts:
        wrong = ctx.token_request(data=form, auth=basic)
        _oauth_error(ctx, wrong, 401, "invalid_client", what)
        if "basic" not in wrong.response_headers.get("www-authenticate", "").lower():
            raise Fail(f"{what}: the 401 lacks WWW-Authenticate: Basic")
    empty = ctx.token_request(data={**grant, "client_id": client_id, "client_secret": ""})
    if empty.status not in (400, 401):
        raise Fail(f"an empty client_secret got HTTP {empty.status}, not a refusal (400/401)")
    ctx.conforms(empty, what="empty client_secret")


@rule(
    "AU-OAUTH-004",
    family=FAMILY,
    title="The token endpoint requires client authentication",
    text="grant_type=client_credentials with no client credentials is answered 401 invalid_client.",
    spec=f"{TOKEN_OP}#/post/description",
    requirements=SECTION,
)
def no_client(ctx: Context) -> None:
    _client(ctx)  # not applicable without an OAuth client
    _oauth_error(ctx, ctx.token_request(data={"grant_type": "client_credentials"}), 401, "invalid_client", "no client")


@rule(
    "AU-OAUTH-005",
    family=FAMILY,
    title="One client authentication method per request",
    text="HTTP Basic and a client_secret in the body together are answered 400 invalid_request.",
    spec=f"{TOKEN_OP}#/post/description",
    requirements=SECTION,
)
def two_methods(ctx: Context) -> None:
    client_id, secret = _client(ctx)
    form = {"grant_type": "client_credentials", "client_id": client_id, "client_secret": secret}
    _oauth_error(ctx, ctx.token_request(data=form, auth=(client_id, secret)), 400, "invalid_request", "Basic and body")


UNSUPPORTED_GRANTS = ("password", "authorization_code", "refresh_token", "CLIENT_CREDENTIALS", "client_credential")


@rule(
    "AU-OAUTH-006",
    family=FAMILY,
    title="Only the client-credentials grant is supported",
    text="grant_type password, authorization_code, refresh_token, CLIENT_CREDENTIALS (grant types are "
    "case-sensitive) or client_credential is answered 400 unsupported_grant_type; no grant_type is 400 "
    "invalid_request (RFC 6749 section 5.2).",
    spec="spec/components/schemas/OAuthTokenRequest.yaml#/properties/grant_type",
    requirements=SECTION,
    mock=True,
)
def other_grant(ctx: Context) -> None:
    client_id, secret = _client(ctx)
    credentials = {"client_id": client_id, "client_secret": secret}
    # A mock validating the form against the schema cannot tell the two RFC 6749 codes apart.
    lenient = ("unsupported_grant_type", "invalid_request") if ctx.config.is_mock else ("unsupported_grant_type",)
    for grant in UNSUPPORTED_GRANTS:
        what = f"grant_type={grant}"
        body = ctx.expect(ctx.token_request(data={"grant_type": grant, **credentials}), 400, what=what)
        if not isinstance(body, dict) or body.get("error") not in lenient:
            raise Fail(f"{what}: the RFC 6749 error is {body!r}, not unsupported_grant_type")
    if not ctx.config.is_mock:
        _oauth_error(ctx, ctx.token_request(data=credentials), 400, "invalid_request", "no grant_type")


@rule(
    "AU-OAUTH-007",
    family=FAMILY,
    title="The token request is form-encoded",
    text="A token request with a JSON body is answered 400 invalid_request; a form body whose Content-Type has "
    "a charset parameter is answered 200 (RFC 6749 section 3.2).",
    spec=f"{TOKEN_OP}#/post/description",
    requirements=SECTION,
)
def form_encoded(ctx: Context) -> None:
    client_id, secret = _client(ctx)
    form = {"grant_type": "client_credentials", "client_id": client_id, "client_secret": secret}
    as_json = ctx.token_request(
        headers={"Content-Type": "application/json"},
        content=json.dumps(form).encode(),
    )
    _oauth_error(ctx, as_json, 400, "invalid_request", "a JSON token request")
    with_charset = ctx.token_request(
        headers={"Content-Type": "application/x-www-form-urlencoded; charset=utf-8"},
        content=urllib.parse.urlencode(form).encode(),
    )
    _works(ctx, with_charset, "a form body with a charset parameter", near_misses=0)


@rule(
    "AU-API-001",
    family=FAMILY,
    title="Listing requires credentials",
    text="GET .../entitlements without Authorization is 401 UNAUTHENTICATED with WWW-Authenticate; with an "
    "unknown token, an empty one, or one of characters no token has, likewise.",
    spec=f"{LIST_OP}#/get/security; spec/components/responses/Unauthorized.yaml",
    requirements="Authentication (Restart and other tenant API operations)",
    mock=True,
)
def list_unauthenticated(ctx: Context) -> None:
    _refused(ctx, _list(ctx, None), "no token")
    if ctx.config.is_mock:
        return
    for what, value in (
        ("unknown token", f"Bearer conformance-{ctx.rng.getrandbits(64):x}"),
        ("no token after the scheme", "Bearer"),
        ("garbage token", "Bearer %%% not a token %%%"),
    ):
        _refused(ctx, _list(ctx, None, {"Authorization": value}), what)


@rule(
    "AU-API-002",
    family=FAMILY,
    title="An OAuth access token is accepted as the bearer token",
    text="The tenant API accepts an access token from the token endpoint in Authorization: Bearer (bearerAuth "
    "and oauth travel in the same header; one header, no second credential).",
    spec="spec/openapi.yaml#/info/description (Tenant API credentials)",
    requirements="Authentication (bearerAuth and oauth in a single requirement)",
)
def oauth_on_api(ctx: Context) -> None:
    _client(ctx)  # not applicable without an OAuth client
    if not ctx.config.app_id:
        raise NotApplicable("the configuration names no app (fixtures.app_id)")
    exchange = ctx.client_credentials()
    body = ctx.expect(exchange, 200, what="token")
    token = str(body["access_token"])
    ctx.expect(_list(ctx, token), 200, what="list with the OAuth access token")
    if ctx.config.token:
        ctx.expect(_list(ctx, ctx.config.token), 200, what="list with the API token")
    # Accepting the token means something only if the API refuses what is not a token it issued.
    label, near = _altered(token)[0]
    _refused(ctx, _list(ctx, near), label)


@rule(
    "AU-API-003",
    family=FAMILY,
    title="The Bearer scheme name is case-insensitive",
    text="Authorization: bearer <token> and BEARER <token> are accepted like Bearer <token> (RFC 9110 section "
    "11.1: the scheme is case-insensitive; RFC 6750 uses it as is).",
    spec="spec/components/securitySchemes/bearerAuth.yaml#/description",
    requirements="Authentication (Restart and other tenant API operations)",
)
def scheme_case(ctx: Context) -> None:
    if not ctx.config.app_id:
        raise NotApplicable("the configuration names no app (fixtures.app_id)")
    token = ctx.api_token()
    for scheme in ("bearer", "BEARER"):
        what = f"Authorization: {scheme} <token>"
        ctx.expect(_list(ctx, None, {"Authorization": f"{scheme} {token}"}), 200, what=what)


@rule(
    "AU-API-004",
    family=FAMILY,
    title="A credential anywhere but one Authorization: Bearer header is refused",
    text="The token in the query string (access_token), the OAuth client in HTTP Basic, and two Authorization "
    "headers (a valid token beside an unknown one, in either order) are each answered 401 UNAUTHENTICATED.",
    spec="spec/openapi.yaml#/info/description (Tenant API credentials); "
    "spec/components/securitySchemes/bearerAuth.yaml#/description",
    requirements="Authentication (bearerAuth and oauth in a single requirement)",
)
def elsewhere(ctx: Context) -> None:
    if not ctx.config.app_id:
        raise NotApplicable("the configuration names no app (fixtures.app_id)")
    token = ctx.api_token()
    _refused(ctx, _list(ctx, None, access_token=token), "the token as ?access_token=")
    if ctx.config.oauth_client_id and ctx.config.oauth_client_secret:
        pair = f"{ctx.config.oauth_client_id}:{ctx.config.oauth_client_secret}".encode()
        basic = {"Authorization": f"Basic {base64.b64encode(pair).decode()}"}
        _refused(ctx, _list(ctx, None, basic), "the OAuth client in HTTP Basic")
    unknown = f"conformance-{ctx.rng.getrandbits(64):x}"
    # Two header lines: the names differ in letter case only, so the client sends both.
    for first, second in ((token, unknown), (unknown, token)):
        lines = {"Authorization": f"Bearer {first}", "authorization": f"Bearer {second}"}
        what = "two Authorization headers, the valid token " + ("first" if first == token else "second")
        _refused(ctx, _list(ctx, None, lines), what)


INTEGER = re.compile(rb'"expires_in"\s*:\s*(-?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?|"[^"]*"|\w+)')


@rule(
    "AU-OAUTH-008",
    family=FAMILY,
    title="The token response's fields are spelled and typed exactly: expires_in whole seconds, token_type Bearer",
    text="A token response has access_token (a non-empty string), token_type exactly `Bearer` and expires_in "
    "written as a JSON integer of at least 1 (seconds: not a string, not 3600.0 or 3.6e3), under exactly those "
    "names (RFC 6749 section 5.1), and Cache-Control exactly no-store, with HTTP Basic and with the client in the "
    "body.",
    spec="spec/components/schemas/OAuthTokenResponse.yaml",
    requirements=SECTION,
    mock=True,
)
def token_fields(ctx: Context) -> None:
    client_id, secret = _client(ctx)
    form = {"grant_type": "client_credentials", "client_id": client_id, "client_secret": secret}
    for what, exchange in (
        ("HTTP Basic", ctx.client_credentials()),
        ("client in the body", ctx.token_request(data=form)),
    ):
        body = ctx.expect(exchange, 200, what=what)
        if not isinstance(body.get("access_token"), str) or not body["access_token"]:
            raise Fail(f"{what}: access_token is {body.get('access_token')!r}, not a non-empty string")
        if body.get("token_type") != "Bearer":
            raise Fail(f"{what}: token_type is {body.get('token_type')!r}, not exactly 'Bearer'")
        cache = exchange.response_headers.get("cache-control")
        if cache is None or cache.strip().lower() != "no-store":
            raise Fail(f"{what}: Cache-Control is {cache!r}, not exactly no-store (its schema's const)")
        written = INTEGER.search(exchange.response_body)
        literal = written.group(1).decode("ascii", "replace") if written else None
        if literal is None or not literal.isdigit() or int(literal) < 1:
            raise Fail(f"{what}: expires_in is written {literal!r}, not a whole number of seconds (at least 1)")
