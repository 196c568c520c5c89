"""OAuth2 client credentials at `POST /auth/v1/token`, and the token used as the `oauth` credential."""

from __future__ import annotations

import httpx
import pytest

from accessgov.demo.seed import DEMO_OAUTH_CLIENT_ID, DEMO_OAUTH_CLIENT_SECRET
from tests.server.conftest import Server
from tests.support import loopback


def token_request(server: Server, **form: str) -> httpx.Response:
    return loopback.post(f"{server.base_url}/auth/v1/token", data=form)


def test_client_credentials_token_authenticates_api_calls(server: Server) -> None:
    response = token_request(
        server, grant_type="client_credentials", client_id=DEMO_OAUTH_CLIENT_ID, client_secret=DEMO_OAUTH_CLIENT_SECRET
    )
    assert response.status_code == 200
    assert response.headers["cache-control"] == "no-store"
    body = response.json()
    assert body["token_type"] == "Bearer" and body["expires_in"] > 0
    listing = loopback.get(
        f"{server.base_url}/api/v1/apps/app-okta/entitlements",
        headers={"Authorization": f"Bearer {body['access_token']}"},
    )
    assert listing.status_code == 200


def test_wrong_secret_is_401_invalid_client(server: Server) -> None:
    response = token_request(
        server, grant_type="client_credentials", client_id=DEMO_OAUTH_CLIENT_ID, client_secret="wrong"
    )
    assert response.status_code == 401
    assert response.json()["error"] == "invalid_client"


@pytest.mark.parametrize(
    ("form", "error"),
    [
        ({"grant_type": "password", "client_id": "a", "client_secret": "b"}, "unsupported_grant_type"),
        ({"client_id": "a", "client_secret": "b"}, "invalid_request"),
        ({"grant_type": "client_credentials", "client_id": "a"}, "invalid_request"),
    ],
)
def test_malformed_token_requests_are_400(server: Server, form: dict[str, str], error: str) -> None:
    response = token_request(server, **form)
    assert response.status_code == 400
    assert response.json()["error"] == error


def test_no_client_authentication_is_401_invalid_client(server: Server) -> None:
    response = token_request(server, grant_type="client_credentials")
    assert response.status_code == 401
    assert response.json()["error"] == "invalid_client"
    assert response.headers["www-authenticate"].startswith("Basic")


def test_token_endpoint_wants_a_form_body(server: Server) -> None:
    response = loopback.post(f"{server.base_url}/auth/v1/token", json={"grant_type": "client_credentials"})
    assert response.status_code == 400
