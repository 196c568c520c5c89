"""Deliberately broken variants of the reference server, to prove the contract suite catches contract violations.

Each variant wraps `create_app(...)` in a small ASGI middleware; `scripts/contract.py --selftest` and
`tests/contract/test_selftest.py` run the suite against each and expect it to fail with `expected_check`
(a phrase schemathesis prints for that check).
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

RESTART = re.compile(r"^/api/v1/tasks/[^/]+/action/restart$")
WEBHOOK = re.compile(r"^/api/v1/webhooks/incoming/[^/]+$")


async def _json(send: Send, status: int, body: Any) -> None:
    data = json.dumps(body).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": data})


async def _read_body(receive: Receive) -> bytes:
    chunks = []
    while True:
        message = await receive()
        chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            return b"".join(chunks)


def _replay(body: bytes) -> Receive:
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if sent:
            return {"type": "http.disconnect"}
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return receive


def _is(scope: Scope, method: str, pattern: re.Pattern[str]) -> bool:
    return scope["type"] == "http" and scope["method"] == method and bool(pattern.match(scope["path"]))


def teapot_on_restart(app: ASGIApp) -> ASGIApp:
    """(a) An undocumented status code: 418 for every restart."""

    async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
        if _is(scope, "POST", RESTART):
            await _json(send, 418, {"code": "TEAPOT", "message": "I'm a teapot"})
            return
        await app(scope, receive, send)

    return wrapped


def wrong_type_ticket_action_id(app: ASGIApp) -> ASGIApp:
    """(b) A field of the wrong type: `ticketActionId: 123` in a successful restart response."""

    async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
        if not _is(scope, "POST", RESTART):
            await app(scope, receive, send)
            return
        start: Message = {}
        chunks: list[bytes] = []

        async def capture(message: Message) -> None:
            if message["type"] == "http.response.start":
                start.update(message)
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))

        await app(scope, receive, capture)
        body = b"".join(chunks)
        if start.get("status") == 200:
            document = json.loads(body)
            document["ticketActionId"] = 123
            await _json(send, 200, document)
            return
        await send(start)
        await send({"type": "http.response.body", "body": body})

    return wrapped


def webhook_without_event_id_accepted(app: ASGIApp) -> ASGIApp:
    """(c) A webhook request without `Webhook-Event-Id` is accepted with 200 instead of 400 `MISSING_HEADER`."""

    async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
        if _is(scope, "POST", WEBHOOK) and not any(name.lower() == b"webhook-event-id" for name, _ in scope["headers"]):
            await _read_body(receive)
            run = {"id": f"run-{uuid.uuid4().hex}", "status": "AUTOMATION_RUN_STATUS_SUCCEEDED", "reason": None}
            await _json(send, 200, {"eventId": str(uuid.uuid4()), "automationRun": run})
            return
        await app(scope, receive, send)

    return wrapped


def server_error_on_long_comment(app: ASGIApp, limit: int = 100) -> ASGIApp:
    """(d) A 500 for a restart whose `comment` is longer than `limit` characters (the spec allows 4096)."""

    async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
        if not _is(scope, "POST", RESTART):
            await app(scope, receive, send)
            return
        body = await _read_body(receive)
        try:
            comment = json.loads(body).get("comment")
        except (ValueError, AttributeError):
            comment = None
        if isinstance(comment, str) and len(comment) > limit:
            await _json(send, 500, {"code": "INTERNAL", "message": "comment column overflow"})
            return
        await app(scope, _replay(body), send)

    return wrapped


@dataclass(frozen=True)
class Variant:
    name: str
    wrap: Callable[[ASGIApp], ASGIApp]
    expected_check: str
    run_options: dict[str, Any] = field(default_factory=dict)


VARIANTS = [
    Variant("undocumented-status", teapot_on_restart, "Undocumented status code"),
    Variant("wrong-field-type", wrong_type_ticket_action_id, "Response violates schema"),
    Variant("missing-event-id-accepted", webhook_without_event_id_accepted, "Missing required header accepted"),
    Variant("server-error-long-comment", server_error_on_long_comment, "Server error"),
]
