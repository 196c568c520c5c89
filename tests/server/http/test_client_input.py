"""Client input the server must answer with a 4xx, never a 5xx (issue 32, item 1): JSON text Python reads but
nothing can store (a lone surrogate escape), on every operation taking JSON; and error bodies that never echo an
unbounded client value."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator

import httpx
import pytest

from accessgov.demo import tenant as demo
from accessgov.demo.seed import DEMO_ADMIN_TOKEN, DEMO_HMAC_LISTENER_ID, DEMO_HMAC_SECRET
from accessgov.errors import MESSAGE_CHARS, QUOTED_CHARS
from accessgov.storage import listeners
from accessgov.webhooks.signing import hmac_headers
from tests.support import loopback
from tests.support.harness import seeded_server

pytestmark = pytest.mark.slow  # a server in a thread, on a fresh database

ADMIN = {"Authorization": f"Bearer {DEMO_ADMIN_TOKEN}", "Content-Type": "application/json"}
TASK_ID = demo.build().tasks[0]["id"]
RESTART = f"/api/v1/tasks/{TASK_ID}/action/restart"
ENTITLEMENTS = "/api/v1/apps/app-github/entitlements"
JWT_LISTENER = "wh_json_text_jwt"
# Valid JSON text (RFC 8259's grammar) whose strings are not Unicode text: nothing can store or encode them.
LONE_SURROGATES = ['"\\ud800"', '"\\udfff"', '"ok\\ud83d"', '"\\ude00\\ud83d"']


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with seeded_server(tmp_path_factory.mktemp("client-input")) as (url, _config, sessions):
        with sessions.begin() as session:
            listeners.create_listener(
                session,
                auth_method="JWT",
                jwks_url="http://127.0.0.1:9/jwks.json",  # never fetched: the body is refused first
                automation_name="json text",
                automation_steps=[],
                listener_id=JWT_LISTENER,
            )
        yield url


@pytest.fixture(scope="module")
def client(base_url: str) -> Iterator[httpx.Client]:
    # No kept connections: a 500 closes its connection, and the next request must not fail for that.
    with loopback.client(base_url=base_url, timeout=30, limits=httpx.Limits(max_keepalive_connections=0)) as client:
        yield client


def expect_invalid_json(response: httpx.Response) -> None:
    assert response.status_code == 400, response.text
    body = response.json()
    assert body["code"] == "INVALID_JSON" and "surrogate" in body["message"], body
    assert body["details"] == [{"location": "body", "reason": body["message"]}]


@pytest.mark.parametrize("text", LONE_SURROGATES)
def test_lone_surrogate_in_a_restart_comment_is_invalid_json(client: httpx.Client, text: str) -> None:
    expect_invalid_json(client.post(RESTART, content=f'{{"comment": {text}}}'.encode(), headers=ADMIN))


@pytest.mark.parametrize("text", LONE_SURROGATES)
def test_lone_surrogate_in_a_signed_hmac_delivery_is_invalid_json(client: httpx.Client, text: str) -> None:
    for body in (f'{{"orderId": {text}}}'.encode(), f'{{{text}: 1, "n": 123456789012345678901}}'.encode()):
        headers = hmac_headers(DEMO_HMAC_SECRET, body)
        expect_invalid_json(
            client.post(f"/api/v1/webhooks/incoming/{DEMO_HMAC_LISTENER_ID}", content=body, headers=headers)
        )


def test_lone_surrogate_in_a_jwt_delivery_is_invalid_json(client: httpx.Client) -> None:
    body = b'{"orderId": "\\ud800"}'
    headers = {
        "Content-Type": "application/json",
        "Webhook-Timestamp": str(int(time.time())),
        "Webhook-Event-Id": str(uuid.uuid4()),
        "Authorization": "Bearer a.b.c",
    }
    expect_invalid_json(client.post(f"/api/v1/webhooks/incoming/{JWT_LISTENER}", content=body, headers=headers))


def test_a_surrogate_pair_is_the_character_it_encodes(client: httpx.Client) -> None:
    body = b'{"orderId": "\\ud83d\\ude00"}'
    response = client.post(
        f"/api/v1/webhooks/incoming/{DEMO_HMAC_LISTENER_ID}", content=body, headers=hmac_headers(DEMO_HMAC_SECRET, body)
    )
    assert response.status_code == 200, response.text
    restart = client.post(RESTART, content=json.dumps({"comment": "\U0001f600"}).encode(), headers=ADMIN)
    assert restart.status_code in (200, 409), restart.text


def test_an_over_long_page_token_is_not_echoed(client: httpx.Client) -> None:
    token = "A" * 40_000
    response = client.get(ENTITLEMENTS, params={"page_token": token}, headers=ADMIN)
    assert response.status_code == 400, response.text[:300]
    body = response.json()
    assert len(response.content) < 2 * MESSAGE_CHARS + 500
    assert "A" * (QUOTED_CHARS + 1) not in response.text
    assert "more characters" in body["message"]
    assert body["details"][0]["name"] == "page_token"


def test_an_over_long_path_value_is_not_echoed(client: httpx.Client) -> None:
    response = client.post(f"/api/v1/tasks/{'t' * 6000}/action/restart", content=b"{}", headers=ADMIN)
    assert response.status_code in (400, 404), response.text[:300]
    assert len(response.content) < 2 * MESSAGE_CHARS + 500
