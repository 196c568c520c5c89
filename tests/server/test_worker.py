"""`accessgov worker`: queued automation runs executed by a separate process (servers with
ACCESSGOV_RUN_AUTOMATIONS=0), and no run lost or recorded twice when a worker dies mid-batch."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy.orm import Session, sessionmaker

from accessgov.config import Settings
from accessgov.demo.seed import DEMO_HMAC_LISTENER_ID, DEMO_HMAC_SECRET
from accessgov.storage import events
from accessgov.storage.ids import utcnow
from accessgov.storage.schema import AutomationRun
from accessgov.webhooks import signing
from tests.support import deliveries, loopback
from tests.support.harness import seeded_database, serve

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
BODY = b'{"orderId": "A-7"}'


def statuses(sessions: sessionmaker[Session], run_ids: list[str]) -> list[str]:
    with sessions() as session:
        return [run.status for run in (session.get(AutomationRun, run_id) for run_id in run_ids) if run is not None]


@contextlib.contextmanager
def worker(url: str, *args: str) -> Iterator[subprocess.Popen[str]]:
    """`accessgov worker` in its own process, stopped with SIGTERM at the end (it must exit cleanly)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "accessgov.cli", "worker", *args],
        env=dict(os.environ, DATABASE_URL=url),
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        yield process
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=15) == 0
        assert process.stderr is not None
        process.stderr.close()


def wait_until_succeeded(process: subprocess.Popen[str], sessions: sessionmaker[Session], run_ids: list[str]) -> None:
    deadline = time.monotonic() + 30
    while statuses(sessions, run_ids) != ["SUCCEEDED"] * len(run_ids):
        assert process.poll() is None, process.stderr.read() if process.stderr else ""
        assert time.monotonic() < deadline, statuses(sessions, run_ids)
        time.sleep(0.05)


def test_a_separate_worker_runs_what_the_server_queued(tmp_path: Path) -> None:
    from accessgov.app import create_app

    with seeded_database(tmp_path) as (url, sessions):
        run_ids = []
        with serve(create_app(Settings.load(database_url=url, run_automations=False))) as base:
            for _ in range(5):
                headers = signing.hmac_headers(DEMO_HMAC_SECRET, BODY)
                target = f"{base}/api/v1/webhooks/incoming/{DEMO_HMAC_LISTENER_ID}"
                response = loopback.post(target, content=BODY, headers=headers)
                assert response.status_code == 200, response.text
                run_ids.append(response.json()["automationRun"]["id"])
            time.sleep(0.3)
            assert statuses(sessions, run_ids) == ["QUEUED"] * 5  # the server itself runs nothing
        with worker(url, "--batch", "2") as process:
            wait_until_succeeded(process, sessions, run_ids)
        with sessions() as session:
            outputs = [run.outputs for run in map(lambda i: session.get(AutomationRun, i), run_ids) if run]
        assert outputs == [{"received": True, "orderId": "A-7"}] * 5
        listed = subprocess.run(
            [sys.executable, "-m", "accessgov.cli", "runs", "stats"],
            env=dict(os.environ, DATABASE_URL=url),
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert listed.stdout.split() == ["SUCCEEDED", "5"], listed.stdout + listed.stderr


def test_runs_of_a_worker_killed_mid_batch_are_taken_over_once(tmp_path: Path) -> None:
    """The first worker claims the batch and dies before recording anything; after the lease, the next
    worker runs the batch; the dead worker's late result is discarded."""
    with seeded_database(tmp_path) as (url, sessions):
        now = utcnow() - timedelta(seconds=10)  # deliveries and a claim of 10 s ago: its 1 s lease is over
        with sessions.begin() as session:
            for n in range(3):
                deliveries.record_delivery(
                    session, listener_id=DEMO_HMAC_LISTENER_ID, event_id=f"ev-{n}", payload={"orderId": n}, now=now
                )
        with sessions.begin() as session:  # the worker that dies: claims, then is gone
            dead = events.claim_runs(session, now=now, lease=timedelta(seconds=1), limit=10)
        assert len(dead) == 3
        run_ids = [run.id for run in dead]
        with worker(url) as process:
            wait_until_succeeded(process, sessions, run_ids)
        with sessions.begin() as session:
            late = events.RunOutcome(dead[0], "FAILED", "late", {})
            assert events.finish_runs(session, [late], now=utcnow()) == 0
        with sessions() as session:
            runs = [run for run in map(lambda i: session.get(AutomationRun, i), run_ids) if run]
            assert [(run.status, run.attempts) for run in runs] == [("SUCCEEDED", 2)] * 3
            assert [run.outputs["orderId"] for run in runs] == ["0", "1", "2"]
