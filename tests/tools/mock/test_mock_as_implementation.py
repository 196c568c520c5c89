"""The mock answers as the contract requires where a conformance check can tell (issue 29, item 4): an empty
`client_secret` is refused, every schema-valid `page_size` is accepted (the server clamps it), and every
response carries `X-Request-Id` (the client's valid one echoed)."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from generated.stub_server import create_app
from tests.support import loopback
from tests.support.harness import serve

pytestmark = pytest.mark.slow

BEARER = {"Authorization": "Bearer anything"}
ENTITLEMENTS = "/api/v1/apps/app-github/entitlements"


@pytest.fixture(scope="module")
def mock() -> Iterator[httpx.Client]:
    with serve(create_app()) as base_url, loopback.client(base_url=base_url, timeout=10) as client:
        yield client


@pytest.mark.parametrize("size", ["5", "-3", "0", "+150", "9" * 25, "-" + "9" * 5000])
def test_every_integer_page_size_is_accepted(mock: httpx.Client, size: str) -> None:
    response = mock.get(ENTITLEMENTS, params={"page_size": size}, headers=BEARER)
    assert response.status_code == 200, response.text
    assert isinstance(response.json()["list"], list)


@pytest.mark.parametrize("size", ["1.5", "1e3", " 10", "ten"])
def test_a_page_size_that_is_not_an_integer_is_400(mock: httpx.Client, size: str) -> None:
    response = mock.get(ENTITLEMENTS, params={"page_size": size}, headers=BEARER)
    assert response.status_code == 400
    assert response.json()["code"] == "INVALID_PAGE_SIZE"


def test_an_empty_client_secret_is_refused(mock: httpx.Client) -> None:
    form = {"grant_type": "client_credentials", "client_id": "demo-client", "client_secret": ""}
    response = mock.post("/auth/v1/token", data=form)
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_request"
    assert "access_token" not in response.json()


def test_client_credentials_in_the_body_get_a_token(mock: httpx.Client) -> None:
    form = {"grant_type": "client_credentials", "client_id": "demo-client", "client_secret": "s3cret"}
    response = mock.post("/auth/v1/token", data=form)
    assert response.status_code == 200
    assert response.json()["token_type"] == "Bearer"


@pytest.mark.parametrize(
    ("path", "headers"),
    [(ENTITLEMENTS, BEARER), (ENTITLEMENTS, {}), ("/no/such/route", {}), ("/api/v1/webhooks/incoming/wh_1", {})],
)
def test_every_response_echoes_a_valid_x_request_id(mock: httpx.Client, path: str, headers: dict[str, str]) -> None:
    method = "POST" if "webhooks" in path else "GET"
    response = mock.request(method, path, headers={**headers, "X-Request-Id": "client.req:42-a_b"})
    assert response.headers["x-request-id"] == "client.req:42-a_b"


@pytest.mark.parametrize("sent", ["", "has space", "x" * 129, "semi;colon"])
def test_an_invalid_x_request_id_is_replaced_by_a_generated_one(mock: httpx.Client, sent: str) -> None:
    response = mock.get(ENTITLEMENTS, headers={**BEARER, "X-Request-Id": sent})
    assert response.status_code == 200
    assert response.headers["x-request-id"] != sent
    assert len(response.headers["x-request-id"]) == 32
    assert int(response.headers["x-request-id"], 16) >= 0
