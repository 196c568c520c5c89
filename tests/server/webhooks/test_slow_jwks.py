"""A JWKS endpoint that drips its response one byte a second holds up only the deliveries that need it: other
requests and HMAC deliveries keep being answered while 45 JWT deliveries wait on it."""

from __future__ import annotations

import socket
import socketserver
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric import ed25519

from accessgov.config import DEFAULT_TENANT_BASE_URL
from accessgov.demo.seed import DEMO_HMAC_LISTENER_ID, DEMO_HMAC_SECRET
from accessgov.storage import listeners
from accessgov.storage.backends import create_engine
from accessgov.storage.engine import session_factory
from accessgov.webhooks import signing
from tests.support import loopback
from tests.support.keys import private_pem as pem
from tests.support.server_process import ADMIN, ENTITLEMENTS, accessgov_serve

pytestmark = pytest.mark.slow

DELIVERIES = 45
ANSWER_WITHIN = 5.0  # generous: these requests need neither the JWKS nor a thread it holds
SLOW_LISTENER = "wh_slow_jwks"


class _Drip(socketserver.BaseRequestHandler):
    """Reads the request, then sends a status line and header bytes one per second, never finishing."""

    server: DripServer

    def handle(self) -> None:
        self.request.settimeout(5)
        try:
            self.request.recv(65536)
            self.request.sendall(b"HTTP/1.1 200 OK\r\n")
            while not self.server.stopped.wait(1):
                self.request.sendall(b"X")
        except OSError:
            pass


class DripServer(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Drip)
        self.stopped = threading.Event()
        self.connections = 0

    def process_request(self, request: socket.socket | tuple[bytes, socket.socket], client_address: object) -> None:
        self.connections += 1
        super().process_request(request, client_address)  # type: ignore[arg-type]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/jwks.json"


@pytest.fixture
def drip() -> Iterator[DripServer]:
    server = DripServer()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.stopped.set()
        server.shutdown()
        server.server_close()
        thread.join(10)


def test_a_dripping_jwks_does_not_hold_up_other_requests(tmp_path: Path, drip: DripServer) -> None:
    key = pem(ed25519.Ed25519PrivateKey.generate())
    with accessgov_serve(tmp_path) as served:
        engine = create_engine(served.database_url)
        try:
            with session_factory(engine).begin() as session:
                listeners.create_listener(
                    session,
                    listener_id=SLOW_LISTENER,
                    auth_method="JWT",
                    jwks_url=drip.url,
                    automation_name="slow",
                    automation_steps=[{"name": "echo", "expression": "ctx.trigger"}],
                )
        finally:
            engine.dispose()
        path = f"/api/v1/webhooks/incoming/{SLOW_LISTENER}"

        def deliver(index: int) -> httpx.Response:
            body = f'{{"n":{index}}}'.encode()
            headers = signing.jwt_headers(
                key, kid="k-1", url=DEFAULT_TENANT_BASE_URL + path, tenant_base_url=DEFAULT_TENANT_BASE_URL, body=body
            )
            return loopback.post(served.base_url + path, content=body, headers=headers, timeout=60)

        with ThreadPoolExecutor(DELIVERIES) as pool:
            pending = [pool.submit(deliver, index) for index in range(DELIVERIES)]
            deadline = time.monotonic() + 30
            while drip.connections == 0:  # the deliveries are waiting on the JWKS
                assert time.monotonic() < deadline, "no JWKS fetch started"
                time.sleep(0.05)
            assert not any(future.done() for future in pending)

            listing = loopback.get(served.base_url + ENTITLEMENTS, headers=ADMIN, timeout=ANSWER_WITHIN)
            assert listing.status_code == 200, listing.text
            body = b'{"orderId":"while-jwks-drips"}'
            hmac = loopback.post(
                served.base_url + f"/api/v1/webhooks/incoming/{DEMO_HMAC_LISTENER_ID}",
                content=body,
                headers=signing.hmac_headers(DEMO_HMAC_SECRET, body),
                timeout=ANSWER_WITHIN,
            )
            assert hmac.status_code == 200, hmac.text

            answers = [future.result(timeout=120) for future in pending]
        # Every JWT delivery is answered (the JWKS deadline, not the drip, decides), with the contract's error.
        assert {answer.json()["code"] for answer in answers} == {"JWKS_UNREACHABLE"}, answers[0].text
        assert all(400 <= answer.status_code < 600 for answer in answers)
