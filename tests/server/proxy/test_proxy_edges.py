"""The validation proxy's own edges (issue 32, item 4): request bodies capped at the contract's limits (413), the
violations report for loopback clients or the proxy's token only, violations that name what failed but never the
value sent, and a 502 without exception text; every answer of its own is the contract's `Error`."""

from __future__ import annotations

import asyncio
import json
import socket
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from jsonschema import Draft202012Validator

from accessgov.http.engine import load_bundle
from accessgov.proxy import create_proxy
from accessgov.proxy.app import ValidationProxy
from accessgov.proxy.contract import CONTRACT_MAX_BODY
from generated.stub_server import create_app as create_mock
from tests.support import loopback
from tests.support.harness import serve

pytestmark = pytest.mark.slow

BUNDLE = load_bundle()
ERROR = Draft202012Validator({"$ref": "#/components/schemas/Error", "components": BUNDLE["components"]})
TOKEN = {"Authorization": "Bearer anything"}
WEBHOOK = "/api/v1/webhooks/incoming/wh_1"
RESTART = "/api/v1/tasks/task-1/action/restart"
ENTITLEMENTS = "/api/v1/apps/app-github/entitlements"
SECRET = "TOPSECRET-5f2a"


class Counting:
    """An upstream ASGI app that counts the requests reaching it (the mock answers them)."""

    def __init__(self) -> None:
        self.mock = create_mock(seed=1)
        self.requests = 0

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            self.requests += 1
        await self.mock(scope, receive, send)


@pytest.fixture(scope="module")
def upstream() -> Iterator[tuple[str, Counting]]:
    app = Counting()
    with serve(app) as base_url:
        yield base_url, app


@pytest.fixture(scope="module")
def proxy(upstream: tuple[str, Counting]) -> Iterator[tuple[httpx.Client, ValidationProxy]]:
    app = create_proxy(upstream[0], report_token="")
    with serve(app) as base_url, loopback.client(base_url=base_url, timeout=60) as client:
        yield client, app


def expect_error(response: httpx.Response, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text[:300]
    body: dict[str, Any] = response.json()
    assert not list(ERROR.iter_errors(body)), body
    assert body["code"] == code, body
    return body


def webhook_headers() -> dict[str, str]:
    return {
        "Content-Type": "application/json",
        "Webhook-Timestamp": "1767225600",
        "Webhook-Event-Id": str(uuid.uuid4()),
        "Webhook-Signature": "c2lnbmF0dXJl",
    }


@pytest.mark.parametrize("size", [CONTRACT_MAX_BODY + 1, 20 * 1024 * 1024])
def test_a_webhook_body_over_the_contract_limit_is_413_and_not_forwarded(
    proxy: tuple[httpx.Client, ValidationProxy], upstream: tuple[str, Counting], size: int
) -> None:
    client, _app = proxy
    before = upstream[1].requests
    body = b'{"a": "' + b"x" * (size - 9) + b'"}'
    expect_error(client.post(WEBHOOK, content=body, headers=webhook_headers()), 413, "PAYLOAD_TOO_LARGE")
    assert upstream[1].requests == before


def test_a_body_at_the_limit_is_forwarded(
    proxy: tuple[httpx.Client, ValidationProxy], upstream: tuple[str, Counting]
) -> None:
    client, _app = proxy
    before = upstream[1].requests
    body = b'{"a": "' + b"x" * (CONTRACT_MAX_BODY - 9) + b'"}'
    assert len(body) == CONTRACT_MAX_BODY
    response = client.post(WEBHOOK, content=body, headers=webhook_headers())
    assert response.status_code < 500
    assert upstream[1].requests == before + 1


def test_a_streamed_body_without_length_is_cut_at_the_limit(proxy: tuple[httpx.Client, ValidationProxy]) -> None:
    client, _app = proxy

    def chunks() -> Iterator[bytes]:
        for _ in range(40):  # 2.5 MB, chunked
            yield b" " * 65536

    expect_error(client.post(RESTART, content=chunks(), headers=TOKEN), 413, "PAYLOAD_TOO_LARGE")


def test_a_body_nested_past_the_parser_is_checked_without_failing(proxy: tuple[httpx.Client, ValidationProxy]) -> None:
    client, _app = proxy
    body = b"[" * CONTRACT_MAX_BODY
    response = client.post(RESTART, content=body, headers={**TOKEN, "Content-Type": "application/json"})
    assert response.status_code == 400, response.text[:300]


def test_violations_name_what_failed_never_the_value(proxy: tuple[httpx.Client, ValidationProxy]) -> None:
    client, _app = proxy
    client.get(ENTITLEMENTS, params={"page_size": SECRET}, headers=TOKEN)
    client.post(RESTART, json={"comment": [SECRET]}, headers=TOKEN)
    client.post(RESTART, content=SECRET.encode(), headers={**TOKEN, "Content-Type": f"text/{SECRET}"})
    report = client.get("/__proxy/violations").json()
    assert report["invalidRequests"] >= 3, report
    assert SECRET not in json.dumps(report)
    messages = [entry["message"] for entry in report["recent"]]
    assert any("page_size" in message for message in messages), messages
    assert any("/comment" in message for message in messages), messages


def _call(app: ValidationProxy, client: tuple[str, int], headers: list[tuple[bytes, bytes]]) -> tuple[int, Any]:
    """One `GET /__proxy/violations` straight into the ASGI app, from `client`."""
    scope = {"type": "http", "method": "GET", "path": "/__proxy/violations", "headers": headers, "client": client}
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b""}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    asyncio.run(app(scope, receive, send))
    return sent[0]["status"], json.loads(sent[1]["body"])


@pytest.mark.parametrize("peer", ["127.0.0.1", "::1", "::ffff:127.0.0.1"])
def test_the_report_answers_loopback_clients(proxy: tuple[httpx.Client, ValidationProxy], peer: str) -> None:
    assert _call(proxy[1], (peer, 5000), [])[0] == 200


@pytest.mark.parametrize("peer", ["203.0.113.5", "10.0.0.1", "::ffff:198.51.100.1", "2001:db8::1", "not-an-address"])
def test_the_report_refuses_other_clients(proxy: tuple[httpx.Client, ValidationProxy], peer: str) -> None:
    status, body = _call(proxy[1], (peer, 5000), [])
    assert status == 403 and body["code"] == "PERMISSION_DENIED" and not list(ERROR.iter_errors(body))


def test_with_a_token_the_report_needs_it_from_anyone(upstream: tuple[str, Counting]) -> None:
    app = create_proxy(upstream[0], report_token="s3cret-token")
    for peer in ("127.0.0.1", "203.0.113.5"):
        for headers in ([], [(b"authorization", b"Bearer wrong")], [(b"authorization", b"Basic s3cret-token")]):
            status, body = _call(app, (peer, 5000), headers)
            assert status == 401 and body["code"] == "UNAUTHENTICATED" and not list(ERROR.iter_errors(body))
        assert _call(app, (peer, 5000), [(b"authorization", b"Bearer s3cret-token")])[0] == 200


def test_an_unreachable_upstream_is_a_generic_502(caplog: pytest.LogCaptureFixture) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed once the block ends: nothing listens there
    app = create_proxy(f"http://127.0.0.1:{port}", report_token="")
    with serve(app) as base_url:
        response = loopback.get(base_url + ENTITLEMENTS, headers=TOKEN, timeout=30)
    body = expect_error(response, 502, "UPSTREAM_UNREACHABLE")
    assert "Error" not in response.text and "errno" not in response.text.lower()
    assert body["details"] == []
    assert any("unreachable" in record.getMessage() for record in caplog.records)
