"""Shared fixtures of the webhook verification/signing tests: real keys, a loopback JWKS server, a fake clock."""

from __future__ import annotations

import base64
import hashlib
import json
import socket
import threading
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa

TENANT_BASE_URL = "https://tenant.accessgov.example"
ENDPOINT_URL = "https://tenant.accessgov.example/api/v1/webhooks/incoming/lst_123"
# A fixed "now" far from the wall clock: proves the verifier uses the injected time, not time.time().
NOW = 1_767_225_600
BODY = b'{"orderId":"A-1001","amount":42}'


def private_pem(key: Any) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )


def public_pem(key: Any) -> bytes:
    return key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def sha256_b64url(body: bytes) -> str:
    return b64url(hashlib.sha256(body).digest())


@dataclass(frozen=True)
class Keys:
    """Private keys, one per accepted algorithm plus a second RSA key that is never published.

    Tests sign with the key objects: loading an RSA PEM runs cryptography's consistency check (~50 ms).
    """

    rsa_key: rsa.RSAPrivateKey
    ec_key: ec.EllipticCurvePrivateKey
    ed_key: ed25519.Ed25519PrivateKey
    rogue_key: rsa.RSAPrivateKey
    rsa: bytes
    ec: bytes
    ed: bytes
    rogue_rsa: bytes


@pytest.fixture(scope="session")
def keys() -> Keys:
    rsa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    ec_key = ec.generate_private_key(ec.SECP256R1())
    ed_key = ed25519.Ed25519PrivateKey.generate()
    rogue_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return Keys(
        rsa_key=rsa_key,
        ec_key=ec_key,
        ed_key=ed_key,
        rogue_key=rogue_key,
        rsa=private_pem(rsa_key),
        ec=private_pem(ec_key),
        ed=private_pem(ed_key),
        rogue_rsa=private_pem(rogue_key),
    )


@dataclass
class JwksServer:
    """A real HTTP server on 127.0.0.1 serving a mutable JWKS document and counting GETs per path.

    /jwks.json -> `document` with `status`; /not-json -> HTML; /no-keys -> `{}`; anything else -> 404.
    """

    httpd: ThreadingHTTPServer
    document: dict[str, Any] = field(default_factory=lambda: {"keys": []})
    status: int = 200
    hits: Counter[str] = field(default_factory=Counter)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    @property
    def url(self) -> str:
        return self.base + "/jwks.json"

    @property
    def fetches(self) -> int:
        return self.hits["/jwks.json"]

    def reset(self, document: dict[str, Any] | None = None) -> None:
        self.document = document if document is not None else {"keys": []}
        self.status = 200
        self.hits.clear()


def _start_jwks_server() -> JwksServer:
    server: JwksServer

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # the name http.server dispatches to
            server.hits[self.path] += 1
            path = self.path.split("?")[0]  # the query only tells caches apart
            if path == "/jwks.json":
                status, body = server.status, json.dumps(server.document).encode()
            elif path == "/not-json":
                status, body = 200, b"<html>this is not a JWKS</html>"
            elif path == "/no-keys":
                status, body = 200, b'{"keys": "nope"}'
            else:
                status, body = 404, b"{}"
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    server = JwksServer(httpd)
    # A short poll interval keeps shutdown() fast at the end of the session.
    threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    return server


@pytest.fixture(scope="session")
def _jwks_server_session() -> Iterator[JwksServer]:
    server = _start_jwks_server()
    yield server
    server.httpd.shutdown()
    server.httpd.server_close()


@pytest.fixture
def jwks_server(_jwks_server_session: JwksServer) -> JwksServer:
    """The session's JWKS server, emptied and with its request counters reset."""
    _jwks_server_session.reset()
    return _jwks_server_session


@pytest.fixture(scope="session")
def http_client() -> Iterator[httpx.Client]:
    """One client for the session: building an httpx.Client (its TLS context) costs ~0.1 s each time."""
    with httpx.Client(follow_redirects=False) as client:
        yield client


@pytest.fixture
def closed_port_url() -> str:
    """A loopback URL nothing listens on: the port was bound, then released."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/jwks.json"


class FakeClock:
    """A monotonic clock for JwksCache that only moves when told to."""

    def __init__(self, start: float = 10_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def event_id() -> str:
    return str(uuid.uuid4())
