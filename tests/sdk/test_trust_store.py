"""The SDK verifies TLS against the trust store the environment names (`SSL_CERT_FILE`), loaded once per store and
shared by its clients: a client made after the variable changed trusts the new store, not the one loaded before."""

from __future__ import annotations

import json
import ssl
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest
from accessgov_client import AccessGov
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from tests.support.keys import certificate, private_pem

pytestmark = pytest.mark.slow

PAGE = {"list": [{"appEntitlement": {"id": "ent-1", "appId": "app-1"}}], "nextPageToken": ""}


def _authority(directory: Path, name: str) -> tuple[Path, x509.Name, ec.EllipticCurvePrivateKey]:
    key = ec.generate_private_key(ec.SECP256R1())
    authority = certificate(name, key, ca=True)
    path = directory / f"{name}.pem"
    path.write_bytes(authority.public_bytes(serialization.Encoding.PEM))
    return path, authority.subject, key


class _Page(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = json.dumps(PAGE).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def tls(tmp_path: Path) -> Iterator[tuple[str, Path, Path]]:
    """A loopback HTTPS server whose certificate one authority signed; its URL, that CA's file and another CA's."""
    trusted, issuer, issuer_key = _authority(tmp_path, "trusted")
    other, _, _ = _authority(tmp_path, "other")
    key = ec.generate_private_key(ec.SECP256R1())
    served = certificate("127.0.0.1", key, issuer=(issuer, issuer_key), ip="127.0.0.1")
    (tmp_path / "server.pem").write_bytes(served.public_bytes(serialization.Encoding.PEM) + private_pem(key))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(tmp_path / "server.pem")
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Page)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield f"https://127.0.0.1:{server.server_address[1]}", trusted, other
    server.shutdown()
    server.server_close()


def test_a_changed_ssl_cert_file_is_the_store_the_next_client_trusts(
    tls: tuple[str, Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, trusted, other = tls
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    monkeypatch.setenv("SSL_CERT_FILE", str(trusted))
    with AccessGov(url, token="t", retry=False) as first, AccessGov(url, token="t", retry=False) as second:
        assert first.list_app_entitlements(app_id="app-1").list_[0].app_entitlement.id == "ent-1"
        assert second.list_app_entitlements(app_id="app-1").list_[0].app_entitlement.id == "ent-1"
    monkeypatch.setenv("SSL_CERT_FILE", str(other))
    with AccessGov(url, token="t", retry=False) as third, pytest.raises(httpx.ConnectError, match="CERTIFICATE_VERIFY"):
        third.list_app_entitlements(app_id="app-1")
    monkeypatch.setenv("SSL_CERT_FILE", str(trusted))
    with AccessGov(url, token="t", retry=False) as fourth:
        assert fourth.list_app_entitlements(app_id="app-1").list_[0].app_entitlement.id == "ent-1"
