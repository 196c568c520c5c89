"""Conventions every response follows: the request id header."""

from __future__ import annotations

from .. import spec
from ..context import Context
from ..registry import Fail, rule

FAMILY = "errors"


@rule(
    "ER-REQID-001",
    family=FAMILY,
    title="A valid client X-Request-Id is echoed, an invalid one replaced",
    text="Every response carries X-Request-Id: the client's value when it is 1-128 characters of "
    "[A-Za-z0-9._:-], otherwise one the server generated.",
    spec="spec/components/headers/XRequestId.yaml",
    seed="(spec only) openapi.yaml#/info/description Request ids",
    mock=True,
)
def request_id(ctx: Context) -> None:
    app_id = ctx.config.app_id or "app-conformance"
    path = f"/api/v1/apps/{app_id}/entitlements"
    mine = f"conformance.{ctx.rng.getrandbits(48):x}:1"
    echoed = ctx.api("GET", spec.LIST_ENTITLEMENTS, path, headers={"X-Request-Id": mine})
    ctx.conforms(echoed, what="valid X-Request-Id")
    if echoed.response_headers.get("x-request-id") != mine:
        raise Fail(f"sent X-Request-Id {mine!r}, got back {echoed.response_headers.get('x-request-id')!r}")
    bad = "has spaces/and slashes"
    replaced = ctx.api("GET", spec.LIST_ENTITLEMENTS, path, headers={"X-Request-Id": bad})
    ctx.conforms(replaced, what="invalid X-Request-Id")
    got = replaced.response_headers.get("x-request-id", "")
    if got == bad or not got:
        raise Fail(f"an invalid X-Request-Id was answered with {got!r} instead of a generated one")
