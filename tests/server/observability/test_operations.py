"""Operational signals of a real `accessgov serve`: X-Request-Id, one JSON log line per request (and no secret
in any), Prometheus counters that move with traffic (summed over workers), `/healthz`, and `/readyz` failing
when the database is down or not migrated."""

from __future__ import annotations

import gc
import json
import re
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine

from accessgov.app import create_app
from accessgov.config import Settings
from accessgov.demo.seed import DEMO_ADMIN_TOKEN, DEMO_HMAC_LISTENER_ID, DEMO_HMAC_SECRET, seed_demo
from accessgov.storage.backends import create_engine
from accessgov.storage.engine import migrate, session_factory
from accessgov.webhooks.signing import hmac_headers
from tests.server._tcp_forwarder import Forwarder
from tests.support import loopback
from tests.support.harness import NO_FAILURE_LIMITS, serve
from tests.support.postgres import fresh_schema, postgres_url
from tests.support.server_process import ADMIN, ENTITLEMENTS, Served, accessgov_serve

# One worker runs the module: its module-scoped server starts once, not once per worker.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("server-operations")]

LIST = "svc.api.app.v1.AppEntitlementsService.List"
WEBHOOK = f"/api/v1/webhooks/incoming/{DEMO_HMAC_LISTENER_ID}"
BODY = b'{"orderId":"A-7"}'


def metric(text: str, name: str, **labels: str) -> float:
    """The value of one sample of the exposition `text` (0 when absent)."""
    wanted = ",".join(f'{key}="{value}"' for key, value in sorted(labels.items()))
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        sample, _, value = line.rpartition(" ")
        sample_name, _, rest = sample.partition("{")
        found = ",".join(sorted(rest.rstrip("}").split(","))) if rest else ""
        if sample_name == name and found == wanted:
            return float(value)
    return 0.0


def scrape(client: httpx.Client) -> str:
    response = client.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    return response.text


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Served, httpx.Client]]:
    with accessgov_serve(tmp_path_factory.mktemp("ops")) as server, loopback.client(base_url=server.base_url) as client:
        yield server, client


def log_lines(server: Served) -> list[dict[str, object]]:
    lines = []
    for line in server.output().splitlines():
        if line.startswith("{"):
            lines.append(json.loads(line))
    return lines


def wait_for_log(server: Served, request_id: str) -> dict[str, object]:
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        for line in log_lines(server):
            if line.get("request_id") == request_id:
                return line
        time.sleep(0.05)
    raise AssertionError(f"no log line for request {request_id}:\n{server.output()[-2000:]}")


def test_request_id_is_echoed_or_generated(served: tuple[Served, httpx.Client]) -> None:
    _, client = served
    assert client.get("/healthz", headers={"X-Request-Id": "lb-7f3a.1:2"}).headers["x-request-id"] == "lb-7f3a.1:2"
    for bad in ("has space", "x" * 129, 'quote"d'):
        generated = client.get("/healthz", headers={"X-Request-Id": bad}).headers["x-request-id"]
        assert re.fullmatch(r"[0-9a-f]{32}", generated), generated
    # Errors carry it too: an unknown route, a missing credential.
    assert client.get("/nowhere").headers["x-request-id"]
    assert client.get(ENTITLEMENTS).status_code == 401
    assert client.get(ENTITLEMENTS, headers={"X-Request-Id": "e1"}).headers["x-request-id"] == "e1"


def test_one_json_line_per_request_and_never_a_secret(served: tuple[Served, httpx.Client]) -> None:
    server, client = served
    request_id = "req-" + uuid.uuid4().hex
    assert client.get(ENTITLEMENTS + "?page_size=10", headers={**ADMIN, "X-Request-Id": request_id}).status_code == 200
    line = wait_for_log(server, request_id)
    assert line["method"] == "GET" and line["route"] == "/api/v1/apps/{app_id}/entitlements"
    assert line["operation"] == LIST and line["status"] == 200 and line["level"] == "info"
    assert isinstance(line["duration_ms"], float) and line["client"] == "127.0.0.1" and line["ts"]

    headers = hmac_headers(DEMO_HMAC_SECRET, BODY)
    hook_id = "hook-" + uuid.uuid4().hex
    assert client.post(WEBHOOK, content=BODY, headers={**headers, "X-Request-Id": hook_id}).status_code == 200
    line = wait_for_log(server, hook_id)
    assert line["listener_id"] == DEMO_HMAC_LISTENER_ID and line["event_id"] == headers["Webhook-Event-Id"]
    bad = {**hmac_headers(DEMO_HMAC_SECRET, BODY), "Webhook-Signature": "A" * 43, "X-Request-Id": hook_id + "b"}
    client.post(WEBHOOK, content=BODY, headers=bad)
    assert wait_for_log(server, hook_id + "b")["error_code"] == "SIGNATURE_MISMATCH"
    # The log (not the --demo banner, which prints the public demo credentials on purpose):
    logged = "\n".join(line for line in server.output().splitlines() if line.startswith("{"))
    for secret in (DEMO_ADMIN_TOKEN, DEMO_HMAC_SECRET, headers["Webhook-Signature"], "orderId"):
        assert secret not in logged
    assert "GET /api/v1" not in server.output()  # uvicorn's own access log is off while ours is on


def settled(client: httpx.Client) -> str:
    """A scrape taken once every queued run has been recorded as finished (runs finish after the response)."""
    deadline = time.monotonic() + 15
    while True:
        text = scrape(client)
        queued = metric(text, "accessgov_automation_runs_total", status="QUEUED")
        done = sum(metric(text, "accessgov_automation_runs_total", status=s) for s in ("SUCCEEDED", "FAILED"))
        if queued == done or time.monotonic() > deadline:
            return text
        time.sleep(0.05)


def test_metrics_move_with_traffic(served: tuple[Served, httpx.Client]) -> None:
    _, client = served
    before = settled(client)
    for _ in range(3):
        assert client.get(ENTITLEMENTS, headers=ADMIN).status_code == 200
    assert client.get(ENTITLEMENTS, headers={"Authorization": "Bearer nope"}).status_code == 401
    headers = hmac_headers(DEMO_HMAC_SECRET, BODY)
    assert client.post(WEBHOOK, content=BODY, headers=headers).status_code == 200
    assert client.post(WEBHOOK, content=BODY, headers=headers).status_code == 409
    bad = {**hmac_headers(DEMO_HMAC_SECRET, BODY), "Webhook-Signature": "A" * 43}
    assert client.post(WEBHOOK, content=BODY, headers=bad).status_code == 401
    after = settled(client)

    def moved(name: str, **labels: str) -> float:
        return metric(after, name, **labels) - metric(before, name, **labels)

    assert moved("accessgov_http_requests_total", operation=LIST, status="200") == 3
    assert moved("accessgov_http_requests_total", operation=LIST, status="401") == 1
    assert moved("accessgov_http_request_duration_seconds_count", operation=LIST) == 4
    assert moved("accessgov_webhook_deliveries_total", outcome="accepted", reason="") == 1
    assert moved("accessgov_webhook_deliveries_total", outcome="duplicate", reason="DUPLICATE_EVENT") == 1
    assert moved("accessgov_webhook_deliveries_total", outcome="rejected", reason="SIGNATURE_MISMATCH") == 1
    assert moved("accessgov_automation_runs_total", status="QUEUED") == 1
    assert moved("accessgov_automation_runs_total", status="SUCCEEDED") == 1
    # SQLite: the accepted delivery was answered after an fdatasync of the WAL, and that sync was timed.
    assert moved("accessgov_sqlite_wal_sync_duration_seconds_count") >= 1
    assert moved("accessgov_sqlite_wal_sync_duration_seconds_sum") > 0


def test_healthz_and_readyz(served: tuple[Served, httpx.Client]) -> None:
    _, client = served
    assert client.get("/healthz").json() == {"status": "ok"}
    assert client.get("/readyz").json() == {"status": "ready", "revision": "0005"}


def test_metrics_are_summed_over_workers(tmp_path: Path) -> None:
    with accessgov_serve(tmp_path, "--workers", "2") as server, loopback.client(base_url=server.base_url) as client:
        healthz = "svc.api.meta.v1.OperationsService.Healthz"
        before = metric(scrape(client), "accessgov_http_requests_total", operation=healthz, status="200")
        for _ in range(20):
            with loopback.client(base_url=server.base_url) as fresh:  # new connections: both workers answer
                assert fresh.get("/healthz").status_code == 200
        totals = {
            metric(scrape(client), "accessgov_http_requests_total", operation=healthz, status="200") for _ in range(4)
        }
        assert totals == {before + 20}  # whichever worker answers the scrape


def test_startup_objects_are_frozen_out_of_garbage_collection(tmp_path: Path) -> None:
    """What the process holds from startup is never walked again by the cyclic collector (a full collection
    over it paused the event loop for ~100 ms under load)."""
    app = create_app(Settings.load(database_url=f"sqlite:///{tmp_path / 'accessgov.db'}", **NO_FAILURE_LIMITS))
    route_table = app.routes  # a list built at startup and kept for the process's life
    assert any(tracked is route_table for tracked in gc.get_objects())
    with serve(app) as base_url:
        assert loopback.get(base_url + "/healthz").status_code == 200
        assert not any(tracked is route_table for tracked in gc.get_objects())  # in the permanent generation
        assert gc.get_freeze_count() > 0


def test_readyz_fails_when_the_database_is_not_migrated(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'accessgov.db'}"
    engine = create_engine(url)
    migrate(engine)
    try:
        with serve(create_app(Settings.load(database_url=url, **NO_FAILURE_LIMITS))) as base_url:
            assert loopback.get(base_url + "/readyz").status_code == 200
            with engine.begin() as connection:
                connection.execute(sa.text("UPDATE alembic_version SET version_num = '0003'"))
            response = loopback.get(base_url + "/readyz")
            assert response.status_code == 503 and response.json()["code"] == "NOT_READY"
            assert "0003" in response.json()["message"]
    finally:
        engine.dispose()


@pytest.mark.postgres
def test_readyz_and_requests_fail_with_503_while_the_database_is_down(postgres_admin: Engine) -> None:
    target = sa.make_url(postgres_url())
    forwarder = Forwarder((target.host or "127.0.0.1", target.port or 5432))
    through_forwarder = target.set(host="127.0.0.1", port=forwarder.port).render_as_string(False)
    restart = "/api/v1/tasks/1001/action/restart"
    try:
        with fresh_schema(postgres_admin, through_forwarder, prefix="t_ready") as url:
            engine = create_engine(url)
            migrate(engine)
            with session_factory(engine).begin() as session:
                seed_demo(session)
            engine.dispose()
            with serve(create_app(Settings.load(database_url=url, **NO_FAILURE_LIMITS))) as base_url:
                assert loopback.get(base_url + "/readyz").status_code == 200
                assert loopback.get(base_url + ENTITLEMENTS, headers=ADMIN).status_code == 200  # the token now cached
                forwarder.stop()  # the database is gone
                response = loopback.get(base_url + "/readyz", timeout=10)
                assert response.status_code == 503 and response.json()["code"] == "NOT_READY"
                assert loopback.get(base_url + "/healthz").status_code == 200  # the process is still up
                # Requests that need it are 503 SERVICE_UNAVAILABLE (retry later), never 500: a page read and a
                # restart on the loop's connections, and an unknown token's look-up on a reader thread.
                for method, path, headers in (
                    ("GET", ENTITLEMENTS, ADMIN),
                    ("POST", restart, ADMIN),
                    ("GET", ENTITLEMENTS, {"Authorization": "Bearer never-seen-before"}),
                ):
                    response = loopback.request(method, base_url + path, headers=headers, json={}, timeout=10)
                    assert response.status_code == 503, (method, path, response.text)
                    assert response.json()["code"] == "SERVICE_UNAVAILABLE"
                forwarder = Forwarder(forwarder.target, forwarder.port)  # and back
                assert loopback.get(base_url + "/readyz", timeout=10).status_code == 200
                assert loopback.get(base_url + ENTITLEMENTS, headers=ADMIN, timeout=10).status_code == 200
                assert loopback.post(base_url + restart, headers=ADMIN, json={}, timeout=10).status_code == 200
    finally:
        forwarder.stop()  # the schema is dropped through a direct connection


@pytest.mark.postgres
def test_serve_warns_when_its_workers_may_open_more_connections_than_postgresql_takes(
    postgres_admin: Engine,
    tmp_path: Path,
) -> None:
    with postgres_admin.connect() as connection:
        allowed = int(connection.exec_driver_sql("SHOW max_connections").scalar_one())
    readers = allowed  # 3 x readers + 2 x writers connections at most: more than the server takes
    with fresh_schema(postgres_admin, prefix="t_budget") as url:
        env = {"DATABASE_URL": url, "ACCESSGOV_DB_READERS": str(readers)}
        with accessgov_serve(tmp_path, env=env) as served:
            assert loopback.get(served.base_url + "/readyz").status_code == 200  # a warning, not a refusal
            needed = 3 * readers + 2 * 2
            assert f"warning: 1 worker(s) may open up to {needed} PostgreSQL connections" in served.output()
            assert f"max_connections {allowed}" in served.output()
        with accessgov_serve(tmp_path, env={"DATABASE_URL": url}) as served:  # the defaults fit
            assert loopback.get(served.base_url + "/readyz").status_code == 200
            assert "warning:" not in served.output()


def test_no_connection_budget_for_sqlite_or_an_unreachable_server() -> None:
    from accessgov.storage.postgres import connection_budget_warning

    assert connection_budget_warning("sqlite:///anywhere.db", readers=999, writers=999, workers=999) is None
    unreachable = "postgresql+psycopg://postgres@127.0.0.1:1/test"  # port 1: refused at once
    assert connection_budget_warning(unreachable, readers=999, writers=999, workers=999) is None
