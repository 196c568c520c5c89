"""`accessgov keys rotate` while `accessgov serve` takes signed deliveries: none is lost, none answers 500 (the
server meets values sealed under the new key and re-reads the key file at once)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import httpx
import pytest

from accessgov.demo.seed import DEMO_HMAC_LISTENER_ID, DEMO_HMAC_SECRET
from accessgov.webhooks.signing import hmac_headers
from tests.support import loopback
from tests.support.server_process import accessgov_serve

pytestmark = pytest.mark.slow

BODY = b'{"orderId":"A-1"}'
WEBHOOK = f"/api/v1/webhooks/incoming/{DEMO_HMAC_LISTENER_ID}"
# The server reads a listener again this often (ACCESSGOV_LISTENER_CACHE_SECONDS, 2 s by default): it meets a new key
# within it.
CACHE_SECONDS = 0.2
ROTATE_THRICE = f"""
import time
from accessgov.cli import main
for n in range(3):
    time.sleep({CACHE_SECONDS * 2.5} if n else 0)
    assert main(["keys", "rotate"]) == 0
"""


def test_rotation_under_load_loses_no_delivery(tmp_path: Path) -> None:
    env = {
        "ACCESSGOV_SECRET_KEY_FILE": str(tmp_path / "secret.keys"),
        "ACCESSGOV_LISTENER_CACHE_SECONDS": str(CACHE_SECONDS),
    }
    statuses: list[int | str] = []  # a status, or the transport error a lost delivery ended in
    stop = threading.Event()
    with accessgov_serve(tmp_path, env=env) as served:
        cli_env = {**os.environ, **env, "DATABASE_URL": served.database_url}

        def deliver() -> None:
            with loopback.client(base_url=served.base_url, timeout=30) as client:
                while not stop.is_set():
                    try:
                        response = client.post(WEBHOOK, content=BODY, headers=hmac_headers(DEMO_HMAC_SECRET, BODY))
                    except httpx.TransportError as error:
                        statuses.append(type(error).__name__)
                        continue
                    statuses.append(response.status_code)

        senders = [threading.Thread(target=deliver) for _ in range(2)]
        for sender in senders:
            sender.start()
        try:
            # `keys rotate` three times in one process, 2.5 listener cache lifetimes apart: the server meets each new
            # key within its listener cache's lifetime, and the next rotation lands soon after it re-read the key file
            # for the previous one (a server that re-reads on a timer, at most every 5 s, answered 500 until its next
            # re-read).
            rotated = subprocess.run([sys.executable, "-c", ROTATE_THRICE], env=cli_env, capture_output=True, text=True,
                                     timeout=180)  # fmt: skip
            assert rotated.returncode == 0, rotated.stderr
            assert rotated.stdout.count("new primary key") == 3, rotated.stdout
            stop.wait(CACHE_SECONDS * 1.5)  # past the listener cache's lifetime: the server has met the last key
            before = len(statuses)
            while len(statuses) < before + 40:  # and used it
                assert all(sender.is_alive() for sender in senders)
                stop.wait(0.05)
        finally:
            stop.set()
            for sender in senders:
                sender.join(60)
    assert statuses and set(statuses) == {200}, {status: statuses.count(status) for status in set(statuses)}
