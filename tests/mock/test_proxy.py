"""The validation proxy in front of the reference server and of the contract self-test's broken servers."""

from __future__ import annotations

import argparse
import json
import logging
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
from scripts import contract
from tests.contract import broken
from tests.harness import serve

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

    def start(wrap: Callable[[Any], Any] | None = None, errors: bool = False) -> tuple[httpx.Client, ValidationProxy]:
        server = contract.reference_server(wrap)
        upstream, _env = server.__enter__()
        stack.append(server)
        proxy = create_proxy(upstream, errors=errors)
        served = serve(proxy)
        stack.append(served)
        client = httpx.Client(base_url=served.__enter__(), timeout=30)
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


@pytest.mark.parametrize(
    ("variant", "kind"),
    [
        ("undocumented-status", "response.status"),
        ("wrong-field-type", "response.body"),
        ("missing-event-id-accepted", "response.accepted_invalid_request"),
        ("server-error-long-comment", "response.status"),
    ],
)
def test_reports_each_broken_server(
    proxied: Callable[..., Any], caplog: pytest.LogCaptureFixture, variant: str, kind: str
) -> None:
    wrap = next(v.wrap for v in broken.VARIANTS if v.name == variant)
    client, _proxy = proxied(wrap)
    with caplog.at_level(logging.WARNING, logger="accessgov.proxy"):
        if variant == "missing-event-id-accepted":
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
    client, _proxy = proxied(broken.wrong_type_ticket_action_id, errors=True)
    response = client.post(f"/api/v1/tasks/{_open_task()}/action/restart", json={}, headers=TOKEN)
    assert response.status_code == 502
    assert response.json()["code"] == "CONTRACT_VIOLATION"
    assert response.json()["violations"][0]["kind"] == "response.body"
    fine = client.get("/api/v1/apps/app-github/entitlements", headers=TOKEN)
    assert fine.status_code == 200


def test_contract_suite_through_the_proxy_sees_no_violation(proxied: Callable[..., Any], tmp_path: Path) -> None:
    client, _proxy = proxied()
    args = argparse.Namespace(
        spec=str(contract.DEFAULT_SPEC), seed=1, max_examples=5, phases="examples,coverage,fuzzing,stateful"
    )
    result = contract.run_suite(str(client.base_url).rstrip("/"), args, tmp_path)
    assert result.exit_code == 0, result.output[-3000:]
    assert sum(sum(counts.values()) for counts in result.statuses.values()) > 50
    report = _report(client)
    assert report["violations"] == 0, report["recent"]
    assert report["invalidRequests"] > 0  # the suite's negative cases passed through and were recognised
