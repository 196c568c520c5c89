"""Lifetimes, checked later than the moment of issue: what the target gave out early in the run (its first OAuth
access token, page token, accepted event id) is used again once the run is older, after newer ones were given
out, and must still do what the contract says "until it expires" (`expires_in`), "until it expires" (a page
token) and "within 7 days" (an event id's replay). The family runs after the others; run on its own, a rule
makes what it needs and waits until it is `[target] credential_age` seconds old (6 by default)."""

from __future__ import annotations

import time
import urllib.parse
from collections.abc import Callable

from .. import spec
from ..context import Context, Issued
from ..registry import rule
from ..verdicts import Fail, NoEvidence, NotApplicable
from ._webhook import accepted, any_listener
from .auth import issued_only

FAMILY = "lifetimes"
MARGIN = 2.0  # seconds kept from an access token's stated end (the clocks of kit and target)


def _aged(ctx: Context, kind: str, make: Callable[[Context], None]) -> Issued:
    """The run's first `kind`, made now by `make(ctx)` when the run has none, at least the run's
    `[target] credential_age` seconds old."""
    state = ctx.run
    found = state.issued.get(kind) if state is not None else None
    if found is None:
        make(ctx)
        if state is not None:
            for exchange in ctx.exchanges:
                state.note_issued(exchange)
            found = state.issued.get(kind)
        if found is None:
            raise NoEvidence(f"the target gave out no {kind} to use again")
    age = ctx.clock() - found.at
    if state is not None and age < ctx.config.credential_age:
        time.sleep(ctx.config.credential_age - age)
    return found


def _issue_tokens(ctx: Context) -> None:
    ctx.expect(ctx.client_credentials(), 200, what="an access token to use again later")


@rule(
    "LT-TOKEN-001",
    family=FAMILY,
    title="An access token works until it expires, also after newer ones were issued",
    text="The run's first OAuth access token, used again at least credential_age seconds (6 by default) after it "
    "was issued (at the end of a whole run), after the same client was given newer tokens, and while its "
    "expires_in (seconds) has not run out, is still accepted (200); so is a token issued now beside it. Its near "
    "miss (last character changed) is refused 401 (a target that takes any credential shows no lifetime: no "
    "evidence).",
    spec="spec/paths/auth_v1_token.yaml#/post/description",
    requirements="Authentication (the access token is used until it expires)",
)
def access_token_lifetime(ctx: Context) -> None:
    if not (ctx.config.oauth_client_id and ctx.config.oauth_client_secret):
        raise NotApplicable("the configuration names no OAuth client (auth.oauth_client_id / oauth_client_secret)")
    if not ctx.config.app_id:
        raise NotApplicable("the configuration names no app (fixtures.app_id)")
    first = _aged(ctx, "access-token", _issue_tokens)
    newer = ctx.expect(ctx.client_credentials(), 200, what="a newer access token for the same client")
    age = ctx.clock() - first.at
    if first.expires_in is not None and age > first.expires_in - MARGIN:
        raise NotApplicable(
            f"the run's first access token is {age:.0f} s old, past its expires_in {first.expires_in:g}"
        )
    path = f"/api/v1/apps/{ctx.config.app_id}/entitlements"
    for what, token in (
        (f"the first access token, {age:.0f} s old", first.value),
        ("the newer one", newer["access_token"]),
    ):
        exchange = ctx.api("GET", spec.LIST_ENTITLEMENTS, path, token=str(token), params={"page_size": 10})
        if exchange.status == 401:
            raise Fail(
                f"{what} was refused 401 ({exchange.response_json()!r:.160}) although its expires_in "
                f"({first.expires_in}) has not run out"
            )
        ctx.expect(exchange, 200, what=what)
    # The old token still working shows its lifetime only where the API refuses what it did not issue.
    issued_only(ctx, first.value, f"the first access token, {age:.0f} s old")


def _first_pages(ctx: Context) -> None:
    app_id = ctx.config.app_id
    path = f"/api/v1/apps/{app_id}/entitlements"
    first = ctx.expect(ctx.api("GET", spec.LIST_ENTITLEMENTS, path, params={"page_size": 10}), 200, what="page 1")
    token = first.get("nextPageToken") if isinstance(first, dict) else None
    if not token:
        raise NoEvidence("the first page of the app has no nextPageToken to use again")
    params = {"page_size": 10, "page_token": token}
    ctx.expect(ctx.api("GET", spec.LIST_ENTITLEMENTS, path, params=params), 200, what="page 2")


@rule(
    "LT-PAGE-001",
    family=FAMILY,
    title="A page token returns the same page later in the run",
    text="The run's first page token, sent again at least credential_age seconds (6 by default) later (at the end "
    "of a whole run, after other walks of the collection), returns the same page it returned then, a page other "
    "than the first (a token that returns the first page keeps no position: no evidence).",
    spec="spec/components/schemas/PageToken.yaml#/description",
    requirements="Endpoints > List and search operations (pagination convention) page_token",
)
def page_token_lifetime(ctx: Context) -> None:
    if not ctx.config.app_id or ctx.config.min_entitlements < 11:
        raise NotApplicable("needs an app of more than 10 entitlements (fixtures.app_id, fixtures.min_entitlements)")
    first = _aged(ctx, "page-token", _first_pages)
    assert first.request is not None
    path, template, params = first.request
    age = ctx.clock() - first.at
    exchange = ctx.api("GET", template, urllib.parse.unquote(path), params=dict(params))
    body = ctx.expect(exchange, 200, what=f"the run's first page token, {age:.0f} s old")
    items = body.get("list") or []
    ids = tuple(str((item.get("appEntitlement") or {}).get("id")) for item in items if isinstance(item, dict))
    if ids != first.page:
        raise Fail(
            f"the page token returned {len(ids)} other items {age:.0f} s later (first {ids[:2]}, then {first.page[:2]})"
        )
    # The same page again shows a kept position only if it is a later page than the first one: a target that
    # ignores page tokens (a mock's example) returns the first page for every token.
    fresh = dict(params)
    fresh.pop("page_token", None)
    start = ctx.expect(ctx.api("GET", template, urllib.parse.unquote(path), params=fresh), 200, what="the first page")
    firsts = tuple(str((item.get("appEntitlement") or {}).get("id")) for item in start.get("list") or [])
    if not ids or ids == firsts:
        raise NoEvidence(
            f"the run's first page token returns {'no items' if not ids else 'the first page itself'}: it shows no "
            "position kept, so the same page later shows no lifetime"
        )


def _accepted_event(ctx: Context) -> None:
    accepted(ctx, ctx.deliver(any_listener(ctx)), what="an event to replay later")


@rule(
    "LT-EVENT-001",
    family=FAMILY,
    title="An event id stays taken: its replay later in the run is still 409",
    text="The run's first accepted event id, delivered again to the same listener at least credential_age seconds "
    "(6 by default) later (at the end of a whole run), with a fresh timestamp and credential, is 409 "
    "DUPLICATE_EVENT: replays are refused for 7 days.",
    spec="spec/components/parameters/WebhookEventId.yaml#/description",
    requirements="Events (Idempotency)",
)
def event_id_lifetime(ctx: Context) -> None:
    first = _aged(ctx, "event-id", _accepted_event)
    listener = next((item for item in ctx.config.listeners if item.id == first.listener), None)
    if listener is None:
        raise NotApplicable(f"the run's first event went to listener {first.listener!r}, which the kit cannot sign for")
    age = ctx.clock() - first.at
    exchange = ctx.deliver(listener, event_id=first.value)
    ctx.expect(exchange, 409, code="DUPLICATE_EVENT", what=f"the run's first event id again, {age:.0f} s later")
