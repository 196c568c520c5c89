"""`accessgov keys rotate` while `accessgov serve` takes signed deliveries: none is lost, none answers 500 (the
server meets values sealed under the new key and re-reads the key file at once)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import httpx

from accessgov.demo.seed import DEMO_HMAC_LISTENER_ID, DEMO_HMAC_SECRET
from accessgov.webhooks.signing import hmac_headers
from tests.server._process import accessgov_serve

BODY = b'{"orderId":"A-1"}'
WEBHOOK = f"/api/v1/webhooks/incoming/{DEMO_HMAC_LISTENER_ID}"


def test_rotation_under_load_loses_no_delivery(tmp_path: Path) -> None:
    env = {"ACCESSGOV_SECRET_KEY_FILE": str(tmp_path / "secret.keys")}
    statuses: list[int] = []
    stop = threading.Event()
    with accessgov_serve(tmp_path, env=env) as served:
        cli_env = {**os.environ, **env, "DATABASE_URL": served.database_url}

        def deliver() -> None:
            with httpx.Client(base_url=served.base_url, timeout=30) as client:
                while not stop.is_set():
                    response = client.post(WEBHOOK, content=BODY, headers=hmac_headers(DEMO_HMAC_SECRET, BODY))
                    statuses.append(response.status_code)

        senders = [threading.Thread(target=deliver) for _ in range(2)]
        for sender in senders:
            sender.start()
        try:
            for _ in range(3):  # three rotations, each re-sealing the listener's secret under a new key
                rotated = subprocess.run(
                    [sys.executable, "-m", "accessgov.cli", "keys", "rotate"], env=cli_env, capture_output=True,
                    text=True, timeout=120,
                )  # fmt: skip
                assert rotated.returncode == 0, rotated.stderr
                before = len(statuses)
                while len(statuses) < before + 20:  # deliveries after this rotation, before the next
                    assert all(sender.is_alive() for sender in senders)
                    stop.wait(0.05)
        finally:
            stop.set()
            for sender in senders:
                sender.join(60)
    assert statuses and set(statuses) == {200}, {status: statuses.count(status) for status in set(statuses)}
