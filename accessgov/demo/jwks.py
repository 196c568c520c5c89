"""The demo's JWT signing key and the JWKS that publishes its public half, served on loopback while `accessgov serve
--demo` runs: the demo JWT listener fetches it like any sender's JWKS.

The key is fixed and public, like the demo HMAC secret: the conformance kit's example configuration signs with it
(`conformance/conformance.example.toml`). Never use it for anything but the demo.
"""

from __future__ import annotations

import contextlib
import hashlib
import http.server
import json
import threading
from collections.abc import Iterator
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ed25519

from accessgov.webhooks.signing import jwks_document, public_jwk

DEMO_JWT_KID = "demo-jwt"
# An Ed25519 key derived from a fixed label, as the demo HMAC secret is.
_KEY = ed25519.Ed25519PrivateKey.from_private_bytes(hashlib.sha256(b"accessgov demo JWT listener").digest())
DEMO_JWT_PRIVATE_KEY_PEM = _KEY.private_bytes(
    serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
)


def demo_jwks() -> dict[str, Any]:
    """The demo JWT listener's JWKS: the public half of the demo key, under its kid."""
    return jwks_document([public_jwk(DEMO_JWT_PRIVATE_KEY_PEM, kid=DEMO_JWT_KID)])


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True


def start(document: dict[str, Any], host: str = "127.0.0.1") -> tuple[str, http.server.ThreadingHTTPServer]:
    """Serve `document` as a JWKS on a free port of `host` in a daemon thread; (its URL, the server)."""
    body = json.dumps(document).encode()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_: Any) -> None:
            pass

    server = _Server((host, 0), Handler)
    threading.Thread(target=server.serve_forever, name="demo-jwks", daemon=True).start()
    return f"http://{host}:{server.server_address[1]}/jwks.json", server


def serve_demo_jwks() -> str:
    """Start serving the demo JWKS for the life of the process; its URL."""
    url, _ = start(demo_jwks())
    return url


@contextlib.contextmanager
def jwks_server(document: dict[str, Any]) -> Iterator[str]:
    """Serve `document` as a JWKS on a free loopback port while the block runs; yields its URL."""
    url, server = start(document)
    try:
        yield url
    finally:
        server.shutdown()
        server.server_close()
