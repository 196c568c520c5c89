"""Buffered request/response exchange over ASGI: what a mutant needs to rewrite one request or one response.

A mutant is a `Handler`: it gets the whole request and a `forward` that runs it through the reference app,
and returns the response to send. Bodies are small (the webhook limit is 64 KB), so buffering both is fine.
"""

from __future__ import annotations

import json
import re
import urllib.parse
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import Any

# ASGI's types as Starlette spells them, so a Starlette app is an `ASGIApp` here too.
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["ASGIApp", "Message", "Receive", "Scope", "Send"]

WEBHOOK = re.compile(r"^/api/v1/webhooks/incoming/(?P<listener_id>[^/]+)$")
RESTART = re.compile(r"^/api/v1/tasks/(?P<task_id>[^/]+)/action/restart$")
LIST = re.compile(r"^/api/v1/apps/(?P<app_id>[^/]+)/entitlements$")
TOKEN = re.compile(r"^/auth/v1/token$")
ROUTES = {"webhook": ("POST", WEBHOOK), "restart": ("POST", RESTART), "list": ("GET", LIST), "token": ("POST", TOKEN)}


@dataclass(frozen=True)
class Request:
    """One buffered HTTP request: its ASGI scope and its whole body."""

    scope: Scope
    body: bytes

    @property
    def path(self) -> str:
        return str(self.scope["path"])

    def header(self, name: str) -> str | None:
        wanted = name.lower().encode("latin-1")
        for key, value in self.scope["headers"]:
            if key.lower() == wanted:
                return bytes(value).decode("latin-1")
        return None

    def with_header(self, name: str, value: str | None) -> Request:
        """A copy with `name` replaced (or removed when `value` is None)."""
        wanted = name.lower().encode("latin-1")
        headers = [(k, v) for k, v in self.scope["headers"] if k.lower() != wanted]
        if value is not None:
            headers.append((wanted, value.encode("latin-1")))
        return replace(self, scope={**self.scope, "headers": headers})

    def query(self) -> dict[str, str]:
        return dict(urllib.parse.parse_qsl(self.scope.get("query_string", b"").decode("latin-1"), True))

    def with_query(self, params: dict[str, str]) -> Request:
        return replace(self, scope={**self.scope, "query_string": urllib.parse.urlencode(params).encode("latin-1")})

    def with_path(self, path: str) -> Request:
        return replace(self, scope={**self.scope, "path": path, "raw_path": path.encode("latin-1")})

    def with_body(self, body: bytes) -> Request:
        request = replace(self, body=body)
        return request.with_header("content-length", str(len(body))) if self.header("content-length") else request

    def json(self) -> Any:
        """The body as JSON, or None when it is not JSON."""
        try:
            return json.loads(self.body)
        except ValueError:
            return None


@dataclass
class Response:
    """One buffered HTTP response."""

    status: int
    headers: list[tuple[bytes, bytes]] = field(default_factory=list)
    body: bytes = b""

    @classmethod
    def of_json(cls, status: int, document: Any, headers: dict[str, str] | None = None) -> Response:
        extra = [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]
        return cls(status, [(b"content-type", b"application/json"), *extra], json.dumps(document).encode())

    @classmethod
    def error(cls, status: int, code: str, message: str, **headers: str) -> Response:
        """An `Error` body as the contract shapes it (`code`, `message`)."""
        return cls.of_json(
            status, {"code": code, "message": message}, {k.replace("_", "-"): v for k, v in headers.items()}
        )

    def json(self) -> Any:
        try:
            return json.loads(self.body)
        except ValueError:
            return None

    def code(self) -> str | None:
        """The `Error.code` of an error body, if any."""
        document = self.json()
        return document.get("code") if isinstance(document, dict) else None

    def with_json(self, document: Any) -> Response:
        """The same status and headers with another JSON body."""
        return Response(self.status, list(self.headers), json.dumps(document).encode())

    def with_body(self, body: bytes, content_type: str | None = None) -> Response:
        headers = [(k, v) for k, v in self.headers if content_type is None or k.lower() != b"content-type"]
        if content_type is not None:
            headers.append((b"content-type", content_type.encode()))
        return Response(self.status, headers, body)

    async def send(self, send: Send) -> None:
        headers = [(k, v) for k, v in self.headers if k.lower() != b"content-length"]
        headers.append((b"content-length", str(len(self.body)).encode()))
        await send({"type": "http.response.start", "status": self.status, "headers": headers})
        await send({"type": "http.response.body", "body": self.body})


Forward = Callable[[Request], Awaitable[Response]]
Handler = Callable[[Request, Forward], Awaitable[Response]]


async def read_body(receive: Receive) -> bytes:
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return b"".join(chunks)
        chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            return b"".join(chunks)


def forwarder(app: ASGIApp) -> Forward:
    """Run a request through `app` and buffer its response."""

    async def forward(request: Request) -> Response:
        sent = False

        async def receive() -> Message:
            nonlocal sent
            if sent:
                return {"type": "http.disconnect"}
            sent = True
            return {"type": "http.request", "body": request.body, "more_body": False}

        response = Response(500)
        chunks: list[bytes] = []

        async def capture(message: Message) -> None:
            if message["type"] == "http.response.start":
                response.status = message["status"]
                response.headers = list(message.get("headers", []))
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))

        await app(request.scope, receive, capture)
        response.body = b"".join(chunks)
        return response

    return forward


def intercept(app: ASGIApp, handlers: dict[str, Handler]) -> ASGIApp:
    """`app` with the operations named in `handlers` (keys of `ROUTES`, or `*` for every HTTP request) handled by
    them; everything else passes through untouched."""
    forward = forwarder(app)

    async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            handler = handlers.get("*")
            for name, (method, pattern) in ROUTES.items():
                if name in handlers and scope["method"] == method and pattern.match(scope["path"]):
                    handler = handlers[name]
            if handler is not None:
                request = Request(scope, await read_body(receive))
                response = await handler(request, forward)
                await response.send(send)
                return
        await app(scope, receive, send)

    return wrapped


def path_param(request: Request, route: str, name: str) -> str:
    match = ROUTES[route][1].match(request.path)
    return urllib.parse.unquote(match.group(name)) if match else ""
