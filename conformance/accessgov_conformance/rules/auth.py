"""Credentials: the tenant API's bearer tokens and the OAuth2 client-credentials token endpoint."""

from __future__ import annotations

from .. import spec
from ..context import Context, Exchange
from ..registry import Fail, NotApplicable, rule

FAMILY = "auth"
TOKEN_OP = "spec/paths/auth_v1_token.yaml"
LIST_OP = "spec/paths/api_v1_apps_{app_id}_entitlements.yaml"
SEED = "Authentication"


def _client(ctx: Context) -> tuple[str, str]:
    if not (ctx.config.oauth_client_id and ctx.config.oauth_client_secret):
        raise NotApplicable("the configuration names no OAuth client (auth.oauth_client_id / oauth_client_secret)")
    return ctx.config.oauth_client_id, ctx.config.oauth_client_secret


def _token_request(ctx: Context, form: dict[str, str], basic: tuple[str, str] | None = None) -> Exchange:
    return ctx.request("POST", spec.TOKEN, operation=("POST", spec.TOKEN), data=form, auth=basic)


def _oauth_error(ctx: Context, exchange: Exchange, status: int, error: str, what: str) -> None:
    body = ctx.expect(exchange, status, what=what)
    if not isinstance(body, dict) or body.get("error") != error:
        raise Fail(f"{what}: HTTP {status} as expected but the RFC 6749 error is {body!r}, not {error!r}")


def _works(ctx: Context, exchange: Exchange, what: str) -> None:
    """A 200 token response (no-store) whose access_token the tenant API accepts."""
    body = ctx.expect(exchange, 200, what=what)
    if "no-store" not in exchange.response_headers.get("cache-control", ""):
        raise Fail(f"{what}: the token response lacks Cache-Control: no-store")
    if ctx.config.is_mock or not ctx.config.app_id:
        return
    listing = ctx.api(
        "GET",
        spec.LIST_ENTITLEMENTS,
        f"/api/v1/apps/{ctx.config.app_id}/entitlements",
        token=body["access_token"],
    )
    ctx.expect(listing, 200, what=f"{what}: the issued access token on the tenant API")


@rule(
    "AU-OAUTH-001",
    family=FAMILY,
    title="The token endpoint issues a usable token (client secret in the body)",
    text="grant_type=client_credentials with client_id and client_secret in the form body is answered 200 with a "
    "Bearer token (Cache-Control: no-store) that the tenant API accepts.",
    spec=f"{TOKEN_OP}#/post/responses/200",
    seed=SEED,
    mock=True,
)
def body_credentials(ctx: Context) -> None:
    client_id, secret = _client(ctx)
    form = {"grant_type": "client_credentials", "client_id": client_id, "client_secret": secret}
    _works(ctx, _token_request(ctx, form), "client_secret in the body")


@rule(
    "AU-OAUTH-002",
    family=FAMILY,
    title="The token endpoint accepts HTTP Basic client authentication",
    text="grant_type=client_credentials with the client in an Authorization: Basic header is answered 200, also "
    "when the body names the same client_id.",
    spec=f"{TOKEN_OP}#/post/security",
    seed=SEED,
    mock=True,
)
def basic_credentials(ctx: Context) -> None:
    client = _client(ctx)
    _works(ctx, _token_request(ctx, {"grant_type": "client_credentials"}, client), "HTTP Basic")
    form = {"grant_type": "client_credentials", "client_id": client[0]}
    _works(ctx, _token_request(ctx, form, client), "HTTP Basic with the same client_id in the body")


@rule(
    "AU-OAUTH-003",
    family=FAMILY,
    title="A wrong or empty client secret is refused",
    text="A wrong client_secret is 401 invalid_client with WWW-Authenticate: Basic; an empty one is refused "
    "(401 invalid_client or 400 invalid_request), never a token.",
    spec=f"{TOKEN_OP}#/post/responses/401",
    seed=SEED,
)
def wrong_secret(ctx: Context) -> None:
    client_id, secret = _client(ctx)
    wrong = _token_request(
        ctx, {"grant_type": "client_credentials", "client_id": client_id, "client_secret": secret + "x"}
    )
    _oauth_error(ctx, wrong, 401, "invalid_client", "wrong client_secret")
    if "basic" not in wrong.response_headers.get("www-authenticate", "").lower():
        raise Fail("wrong client_secret: the 401 lacks WWW-Authenticate: Basic")
    empty = _token_request(ctx, {"grant_type": "client_credentials", "client_id": client_id, "client_secret": ""})
    if empty.status not in (400, 401):
        raise Fail(f"an empty client_secret got HTTP {empty.status}, not a refusal (400/401)")
    ctx.conforms(empty, what="empty client_secret")


@rule(
    "AU-OAUTH-004",
    family=FAMILY,
    title="The token endpoint requires client authentication",
    text="grant_type=client_credentials with no client credentials is answered 401 invalid_client.",
    spec=f"{TOKEN_OP}#/post/description",
    seed=SEED,
)
def no_client(ctx: Context) -> None:
    _client(ctx)
    _oauth_error(ctx, _token_request(ctx, {"grant_type": "client_credentials"}), 401, "invalid_client", "no client")


@rule(
    "AU-OAUTH-005",
    family=FAMILY,
    title="One client authentication method per request",
    text="HTTP Basic and a client_secret in the body together are answered 400 invalid_request.",
    spec=f"{TOKEN_OP}#/post/description",
    seed=SEED,
)
def two_methods(ctx: Context) -> None:
    client_id, secret = _client(ctx)
    form = {"grant_type": "client_credentials", "client_id": client_id, "client_secret": secret}
    _oauth_error(ctx, _token_request(ctx, form, (client_id, secret)), 400, "invalid_request", "Basic and body")


@rule(
    "AU-OAUTH-006",
    family=FAMILY,
    title="Only the client-credentials grant is supported",
    text="grant_type=password is answered 400 (RFC 6749 error body).",
    spec="spec/components/schemas/OAuthTokenRequest.yaml#/properties/grant_type",
    seed=SEED,
    mock=True,
)
def other_grant(ctx: Context) -> None:
    client_id, secret = _client(ctx)
    exchange = _token_request(ctx, {"grant_type": "password", "client_id": client_id, "client_secret": secret})
    body = ctx.expect(exchange, 400, what="grant_type=password")
    if not isinstance(body, dict) or body.get("error") not in ("unsupported_grant_type", "invalid_request"):
        raise Fail(f"grant_type=password: the RFC 6749 error is {body!r}")


@rule(
    "AU-API-001",
    family=FAMILY,
    title="Listing requires credentials",
    text="GET .../entitlements without Authorization is 401 UNAUTHENTICATED with WWW-Authenticate; with an "
    "unknown token likewise.",
    spec=f"{LIST_OP}#/get/security; spec/components/responses/Unauthorized.yaml",
    seed="Authentication (Restart and other tenant API operations)",
    mock=True,
)
def list_unauthenticated(ctx: Context) -> None:
    app_id = ctx.config.app_id or "app-conformance"
    tokens: list[str | None] = [None] if ctx.config.is_mock else [None, f"conformance-{ctx.rng.getrandbits(64):x}"]
    for token in tokens:
        what = "no token" if token is None else "unknown token"
        exchange = ctx.api("GET", spec.LIST_ENTITLEMENTS, f"/api/v1/apps/{app_id}/entitlements", token=token)
        ctx.expect(exchange, 401, code="UNAUTHENTICATED", what=what)
        if "www-authenticate" not in {name.lower() for name in exchange.response_headers}:
            raise Fail(f"{what}: the 401 has no WWW-Authenticate header")


@rule(
    "AU-API-002",
    family=FAMILY,
    title="An OAuth access token is accepted as the bearer token",
    text="The tenant API accepts an access token from the token endpoint in Authorization: Bearer (bearerAuth "
    "and oauth travel in the same header).",
    spec="spec/openapi.yaml#/info/description (Tenant API credentials)",
    seed="Authentication (bearerAuth and oauth in a single requirement)",
)
def oauth_on_api(ctx: Context) -> None:
    client_id, secret = _client(ctx)
    if not ctx.config.app_id:
        raise NotApplicable("the configuration names no app (fixtures.app_id)")
    exchange = _token_request(ctx, {"grant_type": "client_credentials"}, (client_id, secret))
    body = ctx.expect(exchange, 200, what="token")
    listing = ctx.api(
        "GET", spec.LIST_ENTITLEMENTS, f"/api/v1/apps/{ctx.config.app_id}/entitlements", token=body["access_token"]
    )
    ctx.expect(listing, 200, what="list with the OAuth access token")
