"""`accessgov worker`: queued automation runs executed by a separate process (servers with
ACCESSGOV_RUN_AUTOMATIONS=0), and no run lost or recorded twice when a worker dies mid-batch."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import httpx

from accessgov.config import ServerConfig
from accessgov.demo.seed import DEMO_HMAC_LISTENER_ID, DEMO_HMAC_SECRET, seed_demo
from accessgov.storage import events
from accessgov.storage.engine import create_engine, migrate, session_factory
from accessgov.webhooks import signing
from tests.harness import serve

REPO = Path(__file__).resolve().parents[2]
BODY = b'{"orderId": "A-7"}'


def _statuses(sessions, run_ids: list[str]) -> list[str]:  # type: ignore[no-untyped-def]
    with sessions() as session:
        return [events.get_run(session, run_id).status for run_id in run_ids]  # type: ignore[union-attr]


def test_a_separate_worker_runs_what_the_server_queued(tmp_path: Path) -> None:
    from accessgov.app import create_app

    url = f"sqlite:///{tmp_path / 'worker.db'}"
    engine = create_engine(url)
    migrate(engine)
    sessions = session_factory(engine)
    with sessions.begin() as session:
        seed_demo(session)
    config = ServerConfig(database_url=url, run_automations=False)
    run_ids = []
    with serve(create_app(config)) as base:
        for _ in range(5):
            headers = signing.hmac_headers(DEMO_HMAC_SECRET, BODY)
            response = httpx.post(
                f"{base}/api/v1/webhooks/incoming/{DEMO_HMAC_LISTENER_ID}", content=BODY, headers=headers
            )
            assert response.status_code == 200, response.text
            run_ids.append(response.json()["automationRun"]["id"])
        time.sleep(0.3)
        assert _statuses(sessions, run_ids) == ["QUEUED"] * 5  # the server itself runs nothing

    worker = subprocess.Popen(
        [sys.executable, "-m", "accessgov.cli", "worker", "--batch", "2"],
        env=dict(os.environ, DATABASE_URL=url),
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 30
        while _statuses(sessions, run_ids) != ["SUCCEEDED"] * 5:
            assert worker.poll() is None, worker.stderr.read() if worker.stderr else ""
            assert time.monotonic() < deadline, _statuses(sessions, run_ids)
            time.sleep(0.05)
    finally:
        worker.send_signal(signal.SIGTERM)
        assert worker.wait(timeout=15) == 0  # a clean stop on SIGTERM
    with sessions() as session:
        outputs = [events.get_run(session, run_id).outputs for run_id in run_ids]  # type: ignore[union-attr]
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
    engine.dispose()


def test_runs_of_a_worker_killed_mid_batch_are_taken_over_once(tmp_path: Path) -> None:
    """The first worker claims the batch and is killed before recording anything; after the lease, the next
    worker runs the batch; the dead worker's late result (if it ever came) would be discarded."""
    url = f"sqlite:///{tmp_path / 'takeover.db'}"
    engine = create_engine(url)
    migrate(engine)
    sessions = session_factory(engine)
    with sessions.begin() as session:
        seed_demo(session)
    from accessgov.storage.ids import utcnow

    now = utcnow()
    with sessions.begin() as session:
        for n in range(3):
            events.record_delivery(
                session, listener_id=DEMO_HMAC_LISTENER_ID, event_id=f"ev-{n}", payload={"orderId": n}, now=now
            )
    with sessions.begin() as session:  # the worker that dies: claims, then is gone
        dead = events.claim_runs(session, now=now, lease=timedelta(seconds=1), limit=10)
    assert len(dead) == 3
    time.sleep(1.2)  # the lease runs out
    worker = subprocess.Popen(
        [sys.executable, "-m", "accessgov.cli", "worker"],
        env=dict(os.environ, DATABASE_URL=url),
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        run_ids = [run.id for run in dead]
        deadline = time.monotonic() + 30
        while _statuses(sessions, run_ids) != ["SUCCEEDED"] * 3:
            assert worker.poll() is None, worker.stderr.read() if worker.stderr else ""
            assert time.monotonic() < deadline, _statuses(sessions, run_ids)
            time.sleep(0.05)
    finally:
        worker.send_signal(signal.SIGTERM)
        worker.wait(timeout=15)
    with sessions.begin() as session:
        assert not events.finish_run(session, dead[0], status="FAILED", reason="late", outputs={}, now=utcnow())
    with sessions() as session:
        runs = [events.get_run(session, run_id) for run_id in run_ids]
        assert [(run.status, run.attempts) for run in runs] == [("SUCCEEDED", 2)] * 3  # type: ignore[union-attr]
        assert [run.outputs["orderId"] for run in runs] == ["0", "1", "2"]  # type: ignore[union-attr]
    engine.dispose()
