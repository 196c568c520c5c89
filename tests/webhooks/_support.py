"""Shared helpers of the webhook suite: real keys, a JWKS served on loopback, hand-made JWTs, clocks."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import socket
import threading
import time
from collections import Counter
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa

from accessgov.webhooks import signing

TENANT = "https://example.accessgov.example"


def pem(private_key: Any) -> bytes:
    return private_key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )


def public_pem(private_key: Any) -> bytes:
    return private_key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )


@dataclass(frozen=True)
class Keys:
    """One key of each accepted type, plus an RSA key that is not in the JWKS."""

    rsa: bytes
    ec: bytes
    ed: bytes
    other_rsa: bytes
    rsa_public: bytes

    def jwks(self) -> dict[str, Any]:
        return signing.jwks_document(
            [
                signing.public_jwk(self.rsa, kid="rsa-1"),
                signing.public_jwk(self.ec, kid="ec-1"),
                signing.public_jwk(self.ed, kid="ed-1"),
            ]
        )


def make_keys() -> Keys:
    rsa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return Keys(
        rsa=pem(rsa_key),
        ec=pem(ec.generate_private_key(ec.SECP256R1())),
        ed=pem(ed25519.Ed25519PrivateKey.generate()),
        other_rsa=pem(rsa.generate_private_key(public_exponent=65537, key_size=2048)),
        rsa_public=public_pem(rsa_key),
    )


class JwksServer:
    """Serves `document` at /jwks.json (garbage at /not-json, a 500 elsewhere), counting requests."""

    def __init__(self, document: dict[str, Any] | None = None) -> None:
        self.document: dict[str, Any] = document or {"keys": []}
        self.hits: Counter[str] = Counter()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                outer.hits[self.path] += 1
                if self.path == "/jwks.json":
                    status, body = 200, json.dumps(outer.document).encode()
                elif self.path == "/not-json":
                    status, body = 200, b"<html>not a JWKS</html>"
                else:
                    status, body = 500, b"{}"
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)

    def __enter__(self) -> JwksServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/jwks.json"

    @property
    def fetches(self) -> int:
        return self.hits["/jwks.json"]


def closed_port_url() -> str:
    """A loopback URL nothing listens on (the port was bound, then released)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    return f"http://127.0.0.1:{port}/jwks.json"


class ServerClock:
    """Wall time, unless frozen at a given Unix time (the server's `clock` override)."""

    def __init__(self) -> None:
        self.frozen: float | None = None

    def __call__(self) -> float:
        return time.time() if self.frozen is None else self.frozen


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def body_hash(body: bytes) -> str:
    return b64url(hashlib.sha256(body).digest())


def claims_for(
    *, url: str, event_id: str, body: bytes, now: float | None = None, lifetime: int = 300, **overrides: Any
) -> dict[str, Any]:
    """Valid claims for a delivery; an override of None removes the claim."""
    now = int(time.time() if now is None else now)
    claims: dict[str, Any] = {
        "sub": TENANT,
        "aud": url,
        "iat": now,
        "exp": now + lifetime,
        "jti": event_id,
        "htm": "POST",
        "htb_s256": body_hash(body),
    }
    for name, value in overrides.items():
        if value is None:
            claims.pop(name, None)
        else:
            claims[name] = value
    return claims


def unsigned_token(header: dict[str, Any], claims: dict[str, Any], signature: bytes = b"") -> str:
    signing_input = b64url(json.dumps(header).encode()) + "." + b64url(json.dumps(claims).encode())
    return signing_input + "." + b64url(signature)


def hs256_token(secret: bytes, header: dict[str, Any], claims: dict[str, Any]) -> str:
    """An HS256 token made by hand (PyJWT refuses PEM text as an HMAC key, an attacker does not)."""
    signing_input = b64url(json.dumps(header).encode()) + "." + b64url(json.dumps(claims).encode())
    signature = hmac.new(secret, signing_input.encode(), hashlib.sha256).digest()
    return signing_input + "." + b64url(signature)
