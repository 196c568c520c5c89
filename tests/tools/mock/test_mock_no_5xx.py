"""The mock (`make mock`, generated/stub_server) never answers client input with a 5xx: every `Prefer` value, the
JSON texts Python's parsers disagree on and any extra header lines get a documented status, and every error body
is the contract's `Error` (422 `MOCK_INVALID_PREFER` for a preference the mock cannot use)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import httpx
import pytest
from hypothesis import example, given, settings

from generated.stub_server import create_app
from generated.stub_server.mock import MockError, parse_prefer
from tests.server.test_no_5xx import ERROR, check
from tests.server.test_no_5xx import SETTINGS as NO_5XX_SETTINGS
from tests.support import loopback
from tests.support.harness import serve
from tests.support.json_texts import header_sets, json_texts, prefer_headers, restart_texts

pytestmark = pytest.mark.slow

# The mock keeps no state: any id and any bearer token serve (the proxy's tests reach the mock through it too).
ENTITLEMENTS = "/api/v1/apps/app-github/entitlements"
RESTART = "/api/v1/tasks/task-1/action/restart"
WEBHOOK = "/api/v1/webhooks/incoming/wh_1"
TOKEN = {"Authorization": "Bearer anything"}
SETTINGS = settings(NO_5XX_SETTINGS, max_examples=30)
ISSUE_PREFERS = ["dynamic=true, seed=--1", "dynamic=true, seed=" + "9" * 5000, "seed=²", "seed=\u0661", "seed=+1"]


@pytest.fixture(scope="module")
def mock() -> Iterator[httpx.Client]:
    with serve(create_app(seed=7)) as base_url, loopback.client(base_url=base_url, timeout=30) as client:
        yield client


def checked(response: httpx.Response) -> httpx.Response:
    check(response)
    if response.status_code == 422:
        assert response.json()["code"] == "MOCK_INVALID_PREFER", response.text[:300]
    return response


@pytest.mark.parametrize("prefer", ISSUE_PREFERS)
def test_unusable_seeds_are_422(prefer: str) -> None:
    with pytest.raises(MockError) as raised:
        parse_prefer(prefer)
    assert raised.value.status == 422 and raised.value.body["code"] == "MOCK_INVALID_PREFER"


@pytest.mark.parametrize("prefer", ISSUE_PREFERS)
def test_unusable_seeds_are_422_over_http(mock: httpx.Client, prefer: str) -> None:
    response = mock.get(ENTITLEMENTS, headers={**TOKEN, "Prefer": prefer.encode("utf-8")})
    assert response.status_code == 422, response.text[:300]
    assert not list(ERROR.iter_errors(response.json()))
    assert len(response.content) < 1024  # the 5,000-digit seed is not echoed


@pytest.mark.parametrize("seed", ["0", "-1", "42", "999999999999999999", "-999999999999999999"])
def test_usable_seeds_answer_a_dynamic_body(mock: httpx.Client, seed: str) -> None:
    response = mock.get(ENTITLEMENTS, headers={**TOKEN, "Prefer": f"dynamic=true, seed={seed}"})
    assert response.status_code == 200, response.text[:300]


@SETTINGS
@given(prefer=prefer_headers)
@example(prefer="code=" + "4" * 5000)
@example(prefer="example=" + "x" * 5000)
def test_any_prefer_never_5xx(mock: httpx.Client, prefer: str) -> None:
    value = prefer.encode("utf-8")  # what a client of any language may put on the wire
    checked(mock.get(ENTITLEMENTS, headers={**TOKEN, "Prefer": value}))
    restart = {**TOKEN, "Prefer": value, "Content-Type": "application/json"}
    checked(mock.post(RESTART, content=b"{}", headers=restart))


@SETTINGS
@given(text=restart_texts)
def test_restart_json_texts_never_5xx(mock: httpx.Client, text: str) -> None:
    checked(mock.post(RESTART, content=text.encode(), headers={**TOKEN, "Content-Type": "application/json"}))


@SETTINGS
@given(text=json_texts)
def test_webhook_json_texts_never_5xx(mock: httpx.Client, text: str) -> None:
    headers = {
        "Content-Type": "application/json",
        "Webhook-Timestamp": "1767225600",
        "Webhook-Event-Id": str(uuid.uuid4()),
        "Webhook-Signature": "c2lnbmF0dXJl",
    }
    checked(mock.post(WEBHOOK, content=text.encode(), headers=headers))


@SETTINGS
@given(extra=header_sets)
def test_header_sets_never_5xx(mock: httpx.Client, extra: list[tuple[str, str]]) -> None:
    headers = [*TOKEN.items(), *extra]
    checked(mock.get(ENTITLEMENTS, headers=[(name.encode(), value.encode("latin-1")) for name, value in headers]))
