"""HTTP Basic client authentication at the token endpoint (RFC 6749 section 2.3.1), with third-party OAuth client
libraries as the peers: authlib (`client_secret_basic`, its default) against the running reference server."""

from __future__ import annotations

import asyncio
import base64

import pytest
from authlib.integrations.httpx_client import AsyncOAuth2Client, OAuth2Client, OAuthError

from accessgov.demo.seed import DEMO_OAUTH_CLIENT_ID, DEMO_OAUTH_CLIENT_SECRET
from tests.server.conftest import Server
from tests.support import loopback


def token_url(server: Server) -> str:
    return f"{server.base_url}/auth/v1/token"


def basic(client_id: str, secret: str) -> str:
    return "Basic " + base64.b64encode(f"{client_id}:{secret}".encode()).decode()


def test_authlib_basic_client_gets_a_token_and_calls_the_api(server: Server) -> None:
    with OAuth2Client(
        DEMO_OAUTH_CLIENT_ID, DEMO_OAUTH_CLIENT_SECRET, token_endpoint_auth_method="client_secret_basic"
    ) as client:
        token = client.fetch_token(token_url(server), grant_type="client_credentials")
        assert token["token_type"] == "Bearer" and token["expires_in"] > 0
        listing = client.get(f"{server.base_url}/api/v1/apps/app-okta/entitlements")
    assert listing.status_code == 200 and listing.json()["list"]


def test_authlib_async_basic_client(server: Server) -> None:
    async def main() -> int:
        async with AsyncOAuth2Client(DEMO_OAUTH_CLIENT_ID, DEMO_OAUTH_CLIENT_SECRET) as client:  # Basic by default
            await client.fetch_token(token_url(server), grant_type="client_credentials")
            response = await client.get(f"{server.base_url}/api/v1/apps/app-okta/entitlements")
            return response.status_code

    assert asyncio.run(main()) == 200


def test_authlib_with_a_wrong_secret_is_refused(server: Server) -> None:
    with OAuth2Client(DEMO_OAUTH_CLIENT_ID, "wrong") as client, pytest.raises(OAuthError) as raised:
        client.fetch_token(token_url(server), grant_type="client_credentials")
    assert raised.value.error == "invalid_client"


def test_basic_credentials_are_form_url_decoded(server: Server) -> None:
    # RFC 6749 section 2.3.1: id and secret are application/x-www-form-urlencoded before base64; decoding a
    # plain value changes nothing, and an encoded one (here "demo%2Dclient") decodes to the real id.
    response = loopback.post(
        token_url(server),
        data={"grant_type": "client_credentials"},
        headers={"Authorization": basic("demo%2Dclient", DEMO_OAUTH_CLIENT_SECRET)},
    )
    assert response.status_code == 200, response.text


@pytest.mark.parametrize(
    ("form", "authorization", "status", "error"),
    [
        (  # two methods at once
            {"client_id": DEMO_OAUTH_CLIENT_ID, "client_secret": DEMO_OAUTH_CLIENT_SECRET},
            basic(DEMO_OAUTH_CLIENT_ID, DEMO_OAUTH_CLIENT_SECRET),
            400,
            "invalid_request",
        ),
        ({"client_id": "someone-else"}, basic(DEMO_OAUTH_CLIENT_ID, DEMO_OAUTH_CLIENT_SECRET), 400, "invalid_request"),
        ({}, "Basic not-base64!", 400, "invalid_request"),
        ({}, "Basic " + base64.b64encode(b"no-colon").decode(), 400, "invalid_request"),
        ({}, basic(DEMO_OAUTH_CLIENT_ID, "wrong"), 401, "invalid_client"),
        ({}, basic("", ""), 401, "invalid_client"),
    ],
    ids=["both-methods", "other-body-client-id", "bad-base64", "no-colon", "wrong-secret", "empty"],
)
def test_refused_basic_requests(
    server: Server, form: dict[str, str], authorization: str, status: int, error: str
) -> None:
    response = loopback.post(
        token_url(server), data={"grant_type": "client_credentials", **form}, headers={"Authorization": authorization}
    )
    assert response.status_code == status, response.text
    assert response.json()["error"] == error
    if status == 401:
        assert response.headers["www-authenticate"].startswith("Basic")


def test_basic_with_the_same_client_id_in_the_body_is_accepted(server: Server) -> None:
    response = loopback.post(
        token_url(server),
        data={"grant_type": "client_credentials", "client_id": DEMO_OAUTH_CLIENT_ID},
        headers={"Authorization": basic(DEMO_OAUTH_CLIENT_ID, DEMO_OAUTH_CLIENT_SECRET)},
    )
    assert response.status_code == 200
