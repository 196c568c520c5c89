"""The validation proxy in front of the reference server and of the conformance self-test's mutants."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from accessgov.demo.seed import DEMO_HMAC_SECRET
from accessgov.proxy import ValidationProxy, create_proxy
from accessgov.webhooks.hmac_signature import compute_signature
from tests.conformance.selftest import mutants
from tests.conformance.selftest.asgi import ASGIApp, Forward, Request, Response, intercept
from tests.conformance.selftest.run import kit_env
from tests.conformance.selftest.target import Fixtures, kit_config, serve_variants
from tests.support import loopback
from tests.support.harness import serve

pytestmark = pytest.mark.slow

TOKEN = {"Authorization": "Bearer demo-admin-token"}


def _open_task() -> str:
    from accessgov.demo import tenant as demo

    return next(task["id"] for task in demo.build().tasks if task["state"] == "TASK_STATE_OPEN")


def _report(client: httpx.Client) -> dict[str, Any]:
    return client.get("/__proxy/violations").json()


@pytest.fixture
def proxied() -> Iterator[Callable[..., Any]]:
    """`proxied(wrap=None, errors=False)` -> (client of the proxy, the proxy) in front of a seeded server."""
    stack: list[Any] = []

    def start(
        build: Callable[[ASGIApp, Fixtures], ASGIApp] | None = None, errors: bool = False
    ) -> tuple[httpx.Client, ValidationProxy]:
        server = serve_variants({"target": build or (lambda app, _fixtures: app)})
        upstream = server.__enter__()[0]["target"]
        stack.append(server)
        proxy = create_proxy(upstream, errors=errors)
        served = serve(proxy)
        stack.append(served)
        client = loopback.client(base_url=served.__enter__(), timeout=30)
        stack.append(client)
        return client, proxy

    yield start
    for item in reversed(stack):
        item.__exit__(None, None, None)


def _webhook(client: httpx.Client, *, event_id: bool = True) -> httpx.Response:
    body = json.dumps({"event": "proxy-test"}).encode()
    timestamp, event = str(int(time.time())), str(uuid.uuid4())
    headers = {
        "Content-Type": "application/json",
        "Webhook-Timestamp": timestamp,
        "Webhook-Signature": compute_signature(DEMO_HMAC_SECRET, timestamp, event, body),
    }
    if event_id:
        headers["Webhook-Event-Id"] = event
    return client.post("/api/v1/webhooks/incoming/wh_demo_hmac", content=body, headers=headers)


def test_forwards_and_finds_nothing_wrong_with_the_reference_server(proxied: Callable[..., Any]) -> None:
    client, _proxy = proxied()
    listed = client.get("/api/v1/apps/app-github/entitlements", params={"page_size": 10}, headers=TOKEN)
    assert listed.status_code == 200
    assert client.get(listed.url.path, params={"page_token": listed.json()["nextPageToken"]}, headers=TOKEN).is_success
    assert client.get("/api/v1/apps/app-github/entitlements").status_code == 401
    assert (
        client.get("/api/v1/apps/app-github/entitlements", params={"page_size": "x"}, headers=TOKEN).status_code == 400
    )
    assert client.post(f"/api/v1/tasks/{_open_task()}/action/restart", json={}, headers=TOKEN).status_code == 200
    assert _webhook(client).status_code == 200
    token = client.post(
        "/auth/v1/token",
        data={"grant_type": "client_credentials", "client_id": "demo-client", "client_secret": "demo-client-secret"},
    )
    assert token.status_code == 200
    report = _report(client)
    assert report["violations"] == 0, report["recent"]
    assert report["invalidRequests"] == 2  # the 401 and the 400 above: the client's fault, counted apart


def test_an_oversized_body_is_refused_by_the_proxy_with_the_request_id(proxied: Callable[..., Any]) -> None:
    client, _proxy = proxied()
    body = json.dumps({"pad": "x" * 70_000}).encode()
    headers = {"Content-Type": "application/json", "X-Request-Id": "oversized-1"}
    response = client.post("/api/v1/webhooks/incoming/wh_demo_hmac", content=body, headers=headers)
    assert response.status_code == 413
    assert response.json()["code"] == "PAYLOAD_TOO_LARGE"
    assert response.headers["x-request-id"] == "oversized-1"


def _server_error_on_long_comment(app: ASGIApp, _fixtures: Fixtures) -> ASGIApp:
    """A 500 for a restart whose `comment` is longer than 100 characters (the spec allows 4096)."""

    async def handle(request: Request, forward: Forward) -> Response:
        comment = (request.json() or {}).get("comment") if isinstance(request.json(), dict) else None
        if isinstance(comment, str) and len(comment) > 100:
            return Response.error(500, "INTERNAL", "comment column overflow")
        return await forward(request)

    return intercept(app, {"restart": handle})


BROKEN: dict[str, Callable[[ASGIApp, Fixtures], ASGIApp]] = {
    "restart-undocumented-status": mutants.BY_ID["restart-undocumented-status"].build,
    "restart-ticket-wrong-type": mutants.BY_ID["restart-ticket-wrong-type"].build,
    "webhook-missing-event-id-accepted": mutants.BY_ID["webhook-missing-event-id-accepted"].build,
    "server-error-long-comment": _server_error_on_long_comment,
}


@pytest.mark.parametrize(
    ("variant", "kind"),
    [
        ("restart-undocumented-status", "response.status"),
        ("restart-ticket-wrong-type", "response.body"),
        ("webhook-missing-event-id-accepted", "response.accepted_invalid_request"),
        ("server-error-long-comment", "response.status"),
    ],
)
def test_reports_each_broken_server(
    proxied: Callable[..., Any], caplog: pytest.LogCaptureFixture, variant: str, kind: str
) -> None:
    client, _proxy = proxied(BROKEN[variant])
    with caplog.at_level(logging.WARNING, logger="accessgov.proxy"):
        if variant == "webhook-missing-event-id-accepted":
            _webhook(client, event_id=False)
        else:
            comment = "x" * 200 if variant == "server-error-long-comment" else "ok"
            client.post(f"/api/v1/tasks/{_open_task()}/action/restart", json={"comment": comment}, headers=TOKEN)
    report = _report(client)
    assert report["violations"] >= 1
    assert report["byKind"].get(kind, 0) >= 1, report
    lines = [json.loads(record.getMessage()) for record in caplog.records if record.name == "accessgov.proxy"]
    assert any(line["side"] == "response" and line["kind"] == kind for line in lines)


def test_errors_mode_turns_a_violation_into_a_502_report(proxied: Callable[..., Any]) -> None:
    client, _proxy = proxied(BROKEN["restart-ticket-wrong-type"], errors=True)
    response = client.post(f"/api/v1/tasks/{_open_task()}/action/restart", json={}, headers=TOKEN)
    assert response.status_code == 502
    assert response.json()["code"] == "CONTRACT_VIOLATION"
    assert response.json()["violations"][0]["kind"] == "response.body"
    fine = client.get("/api/v1/apps/app-github/entitlements", headers=TOKEN)
    assert fine.status_code == 200


@pytest.mark.slow
def test_the_kit_through_the_proxy_sees_no_violation(tmp_path: Path) -> None:
    """The conformance kit (behavioural rules and Schemathesis) through the proxy: every request it sends and every
    answer the reference server gives passes the proxy's contract checks."""
    config = tmp_path / "kit.toml"
    with (
        serve_variants({"target": lambda app, _fixtures: app}) as (urls, fixtures),
        serve(create_proxy(urls["target"])) as base_url,
        loopback.client(base_url=base_url, timeout=30) as client,
    ):
        config.write_text(kit_config(fixtures), encoding="utf-8")
        command = [sys.executable, "-m", "accessgov_conformance", "run", "--base-url", base_url]
        command += ["--config", str(config), "--seed", "1", "--report-dir", str(tmp_path / "report")]
        result = subprocess.run(
            [*command, "--max-examples", "5"], env=kit_env(), capture_output=True, text=True, timeout=600, check=False
        )
        report = _report(client)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert report["violations"] == 0, report["recent"]
    assert report["invalidRequests"] > 0  # the kit's negative cases passed through and were recognised
