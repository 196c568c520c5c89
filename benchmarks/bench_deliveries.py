"""What `make bench` sends: signed webhook deliveries (HMAC, JWT RS256), API requests, and the JWKS servers.

Every delivery is distinct (a fresh UUID v4 event id) and signed with the current time, right before the run
that sends it. JWTs are signed here with a loaded key object: `signing.jwt_headers` parses the PEM on every
call (~40 ms for RSA), too slow for thousands of tokens; the claims are the same (a smoke test compares them).
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import jwt
from cryptography.hazmat.primitives.asymmetric import rsa

from accessgov.webhooks import signing
from accessgov.webhooks.protocol import MAX_JWT_LIFETIME_SECONDS, body_hash
from benchmarks.bench_wrk import HttpRequest

DEMO_TOKEN = "demo-admin-token"
DEMO_HMAC_LISTENER = "wh_demo_hmac"
PAGE_PATH = "/api/v1/apps/app-github/entitlements?page_size=25"
BODY = '{"orderId":"A-1001","amount":42,"items":[{"sku":"X-1","qty":2},{"sku":"Y-9","qty":1}]}'
# The demo listener's automation, given to the JWT listeners too so both paths run the same CEL steps.
STEPS = (
    "received=true",
    'orderId=type(ctx.trigger) == map && "orderId" in ctx.trigger ? string(ctx.trigger["orderId"]) : ""',
)
KID = "bench-rs256"


def listener_path(listener_id: str) -> str:
    return f"/api/v1/webhooks/incoming/{listener_id}"


def hmac_deliveries(secret: str, listener_id: str, count: int) -> list[HttpRequest]:
    """`count` distinct HMAC deliveries signed now with the accessgov sender helper."""
    path = listener_path(listener_id)
    body = BODY.encode()
    return [HttpRequest("POST", path, signing.hmac_headers(secret, body), BODY) for _ in range(count)]


@dataclass
class JwtSigner:
    """An RSA key, its JWKS document, and RS256 delivery tokens bound to a listener URL and the body."""

    tenant_base_url: str
    key: rsa.RSAPrivateKey = field(
        default_factory=lambda: rsa.generate_private_key(public_exponent=65537, key_size=2048)
    )

    def jwks(self) -> dict[str, Any]:
        public = json.loads(jwt.get_algorithm_by_name("RS256").to_jwk(self.key.public_key()))
        return signing.jwks_document([{**public, "kid": KID, "use": "sig", "alg": "RS256"}])

    def headers(
        self, audience: str, body: bytes, *, lifetime_seconds: int = MAX_JWT_LIFETIME_SECONDS
    ) -> dict[str, str]:
        """The headers of one delivery (the claims of `signing.jwt_headers`); expires within 10 minutes."""
        now, event_id = int(time.time()), str(uuid.uuid4())
        claims = {
            "sub": self.tenant_base_url,
            "aud": audience,
            "iat": now,
            "exp": now + lifetime_seconds,
            "jti": event_id,
            "htm": "POST",
            "htb_s256": body_hash(body),
        }
        token = jwt.encode(claims, self.key, algorithm="RS256", headers={"kid": KID})
        return {
            "Content-Type": "application/json",
            "Webhook-Timestamp": str(now),
            "Webhook-Event-Id": event_id,
            "Authorization": f"Bearer {token}",
        }

    def deliveries(self, public_base_url: str, listener_id: str, count: int) -> list[HttpRequest]:
        path = listener_path(listener_id)
        body = BODY.encode()
        return [HttpRequest("POST", path, self.headers(public_base_url + path, body), BODY) for _ in range(count)]


def page_request() -> HttpRequest:
    return HttpRequest("GET", PAGE_PATH, {"Authorization": f"Bearer {DEMO_TOKEN}"})


def restart_requests(task_ids: list[str]) -> list[HttpRequest]:
    """One restart per open task (restart is repeatable on an open task); wrk cycles through them."""
    headers = {"Authorization": f"Bearer {DEMO_TOKEN}", "Content-Type": "application/json"}
    body = json.dumps({"comment": "bench"})
    return [HttpRequest("POST", f"/api/v1/tasks/{task_id}/action/restart", headers, body) for task_id in task_ids]


def open_demo_task_ids() -> list[str]:
    """The open, undeleted tasks of the demo tenant (deterministic; the API has no task list to ask)."""
    from accessgov.demo import tenant

    return [
        task["id"]
        for task in tenant.build(42).tasks
        if task.get("state") != "TASK_STATE_CLOSED" and not task.get("deletedAt")
    ]


def restartable_task_ids(base_url: str) -> list[str]:
    """The open demo tasks that the server restarts (200), asked once each over HTTP."""
    with httpx.Client(base_url=base_url, timeout=30) as client:
        return [
            request.path.split("/")[4]
            for request in restart_requests(open_demo_task_ids())
            if client.post(request.path, headers=dict(request.headers), content=request.body).status_code == 200
        ]


class _Quiet(BaseHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass


@contextlib.contextmanager
def jwks_server(document: dict[str, Any]) -> Iterator[str]:
    """Serve `document` on 127.0.0.1 from a thread of this process; yields the JWKS URL."""
    payload = json.dumps(document).encode()

    class Handler(_Quiet):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    with _serving(Handler) as base_url:
        yield base_url + "/jwks.json"


@contextlib.contextmanager
def drip_server(interval_seconds: float = 1.0, lines: int = 120) -> Iterator[str]:
    """A "JWKS" that answers with a status line, then one header line per `interval_seconds` (a slowloris
    sender); yields its URL. Each connection holds a thread of this process until it drips out or closes."""

    class Handler(_Quiet):
        def do_GET(self) -> None:
            self.wfile.write(b"HTTP/1.1 200 OK\r\n")
            self.wfile.flush()
            try:
                for n in range(lines):
                    time.sleep(interval_seconds)
                    self.wfile.write(f"X-Drip-{n}: {n}\r\n".encode())
                    self.wfile.flush()
            except OSError:  # the server gave up on us: that is the point
                return

    with _serving(Handler) as base_url:
        yield base_url + "/jwks.json"


@contextlib.contextmanager
def _serving(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
