"""Helpers shared by the webhook rule families."""

from __future__ import annotations

import email.utils
import ipaddress
import time
import uuid
from collections.abc import Callable, Iterator
from typing import cast

from ..config import Listener
from ..context import Context, Exchange
from ..signing import hmac_signature
from ..verdicts import Fail, NoEvidence, NotApplicable

WH = "spec/paths/api_v1_webhooks_incoming_{listener_id}.yaml"
SECTION_ERRORS = "Errors > Inbound webhook responses"
SECTION_HEADERS = "Authentication > Required headers"
SKIPPED = "AUTOMATION_RUN_STATUS_SKIPPED"
# Addresses no listener restricted to loopback or private ranges holds (RFC 5737 / RFC 3849 documentation ranges).
EARLY = 0.25  # seconds: how late after its chosen moment in a second a same-second batch may start
DOCUMENTATION_ADDRESSES = ("192.0.2.77", "198.51.100.77", "203.0.113.77", "2001:db8::77")


def runs(listener: Listener) -> bool:
    """Whether the listener's automation runs (published, trigger enabled) and the kit may reach it."""
    return listener.source_allowed and listener.automation_published and listener.trigger_enabled


def any_listener(ctx: Context) -> Listener:
    """The listener positive deliveries go to: the first HMAC one whose automation runs, else the first JWT one."""
    for method in ("hmac", "jwt"):
        found = [item for item in ctx.config.listeners if item.method == method and runs(item)]
        if found:
            return found[0]
    raise NotApplicable("the configuration names no listener the kit may reach whose automation runs")


def hmac_listener(ctx: Context) -> Listener:
    """The first reachable HMAC listener whose automation runs."""
    found = [item for item in ctx.config.listeners if item.method == "hmac" and runs(item)]
    if not found:
        raise NotApplicable("the configuration names no HMAC listener the kit may reach whose automation runs")
    return found[0]


def accepted(
    ctx: Context, exchange: Exchange, event_id: str | None = None, what: str = "", *, skipped: bool = False
) -> dict[str, object]:
    """A 200 whose body is the spec's `WebhookAcceptedResponse` naming the delivered event; its run is skipped
    exactly when `skipped` (the listener's automation is unpublished or its trigger disabled)."""
    label = f"{what}: " if what else ""
    body = ctx.expect(exchange, 200, what=what)
    if ctx.config.is_mock:  # a mock answers with an example: only an implementation can name what it recorded
        return body if isinstance(body, dict) else {}
    sent = event_id or exchange.request_headers.get("webhook-event-id")
    named = str(body.get("eventId", "")) if isinstance(body, dict) else ""
    if sent and named.lower() != sent.lower():
        raise Fail(f"{label}the 200 names event {named!r}, not the one sent ({sent})")
    run = body.get("automationRun") if isinstance(body, dict) else None
    status = run.get("status") if isinstance(run, dict) else None
    if skipped:
        if status != SKIPPED:
            raise Fail(f"{label}the automation must not run, but automationRun.status is {status!r}, not {SKIPPED}")
        if not isinstance(run, dict) or not isinstance(run.get("reason"), str) or not run["reason"].strip():
            raise Fail(f"{label}a skipped run must say why (automationRun.reason), got {run!r}")
    elif status == SKIPPED:
        raise Fail(f"{label}the listener's automation is published and enabled, but its run was {SKIPPED}")
    return body if isinstance(body, dict) else {}


def uuid_v1(ctx: Context) -> str:
    """A well-formed UUID of version 1 (not 4), from the seeded RNG."""
    return uuid_version(ctx, 1)


def uuid_version(ctx: Context, version: int) -> str:
    """A well-formed RFC 4122-variant UUID of `version`, from the seeded RNG."""
    value = ctx.rng.getrandbits(128) & ~(0xF000 << 64) & ~(0xC000 << 48)  # clear the version and variant bits
    return str(uuid.UUID(int=value | (version << 76) | (0x8000 << 48)))


def signed_headers(
    ctx: Context, listener: Listener, body: bytes, *, timestamp: str | bytes, event_id: str
) -> dict[str, str | bytes]:
    """The headers of a correct HMAC delivery whose header texts are given as they go on the wire."""
    text = timestamp.decode() if isinstance(timestamp, bytes) else timestamp
    signature = hmac_signature(listener.secret or "", text, event_id, body)
    return {
        "Content-Type": "application/json",
        "Webhook-Timestamp": timestamp,
        "Webhook-Event-Id": event_id,
        "Webhook-Signature": signature,
    }


def send_raw(
    ctx: Context, listener: Listener, body: bytes, headers: dict[str, str | bytes], *, chunked: bool = False
) -> Exchange:
    """A webhook request whose headers may carry raw bytes (non-ASCII) and whose body may go chunked
    (`Transfer-Encoding: chunked`, no Content-Length), neither of which `Context.deliver` sends."""
    path = f"/api/v1/webhooks/incoming/{listener.id}"
    operation = ("POST", "/api/v1/webhooks/incoming/{listener_id}")
    if not chunked:  # httpx sends a bytes value as it is
        return ctx.request("POST", path, operation=operation, headers=cast(dict[str, str], headers), content=body)

    def pieces() -> Iterator[bytes]:
        for start in range(0, len(body), 8192):
            yield body[start : start + 8192]

    sent = {name: value.decode() if isinstance(value, bytes) else value for name, value in headers.items()}
    sent_at = ctx.clock()
    response = ctx.client.request("POST", ctx.config.base_url + path, headers=sent, content=pieces())
    return ctx.recorded(response, sent_at, operation=operation, request_body=body)


def in_one_second(
    ctx: Context, sends: list[Callable[[], Exchange]], start: float = 0.05, attempts: int = 3
) -> list[Exchange]:
    """Run `sends` back to back, started `start` to `start` + 0.25 s into a second of the kit's clock (waiting at
    most a second for it) and finished within that second; the target's `Date` header must be within 2 s."""
    for _ in range(attempts):
        fraction = ctx.clock() % 1
        if not start <= fraction < start + EARLY:
            time.sleep((start - fraction) % 1 + 0.01)
        before = int(ctx.clock())
        exchanges = [send() for send in sends]
        if int(ctx.clock()) != before:
            continue
        served = _date(exchanges[-1])
        if served is not None and abs(served - before) > 2:
            raise NoEvidence(f"the target's Date header is {served - before:+d} s from the kit's clock")
        return exchanges
    raise NoEvidence("the requests never fitted in one second of the kit's clock (slow answers)")


def _date(exchange: Exchange) -> int | None:
    value = exchange.response_headers.get("date")
    try:
        return int(email.utils.parsedate_to_datetime(value).timestamp()) if value else None
    except (TypeError, ValueError):
        return None


def inside_outside(listener: Listener) -> tuple[str | None, str | None]:
    """An address inside the listener's configured `allowed_cidrs`, and one outside them (None: unknown)."""
    networks = [ipaddress.ip_network(cidr, strict=False) for cidr in listener.allowed_cidrs]
    if not networks:
        return None, None
    first = networks[0]
    inside = str(next(iter(first.hosts()), first.network_address))
    outside = next(
        (text for text in DOCUMENTATION_ADDRESSES if not any(ipaddress.ip_address(text) in n for n in networks)),
        None,
    )
    return inside, outside
