"""Before any rule: does the target answer, and does it speak the contract? One request, one clear message.

Nothing listening, an address that does not resolve, a TLS failure, no complete answer within `--timeout`, a
redirect, or an answer that is not JSON stops the run there (exit 2), instead of every rule reporting the same
thing. A JSON answer of any status goes on to the rules: an implementation with bugs gets its whole report.
"""

from __future__ import annotations

import httpx

from . import spec
from .context import JSON, Context, Exchange
from .transport import describe

PROBE_APP = "conformance-preflight"


def problem(ctx: Context) -> str | None:
    """Why the target cannot be checked, or None. The probe lists one entitlement of the configured app with the
    configured token (an unknown app and no token are fine: 404 and 401 are the contract's answers too)."""
    app_id = ctx.config.app_id or PROBE_APP
    path = spec.LIST_ENTITLEMENTS.replace("{app_id}", app_id)
    headers = {"Authorization": f"Bearer {ctx.config.token}"} if ctx.config.token else {}
    try:
        exchange = ctx.request(
            "GET", path, operation=("GET", spec.LIST_ENTITLEMENTS), headers=headers, params={"page_size": 1}
        )
    except httpx.HTTPError as error:
        return describe(error)
    return _not_the_contract(exchange)


def _not_the_contract(exchange: Exchange) -> str | None:
    said = f"GET {exchange.url.split('?')[0]} answered HTTP {exchange.status}"
    if 300 <= exchange.status < 400:
        location = exchange.response_headers.get("location", "no Location")
        return (
            f"{said}, a redirect to {location}: the kit follows no redirects; give the base URL the API is "
            "served at (--base-url or [target] base_url)"
        )
    media_type = exchange.response_headers.get("content-type", "").split(";")[0].strip().lower()
    head = exchange.response_body[:80].decode("utf-8", "replace")
    if media_type != JSON:
        return f"{said} with Content-Type {media_type or 'none'!r}, not {JSON}: this does not speak the contract"
    if exchange.response_json() is None:
        return f"{said} with a body that is not JSON ({head!r}...): this does not speak the contract"
    return None
