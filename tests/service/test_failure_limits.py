"""Failed-authentication limits over real HTTP: 429 with `Retry-After` and the `Error` body after N failures per
client address or per credential, a `Retry-After` that is honest, success never counted, the limiter failing
open when its store is down. Client addresses are told apart through a trusted proxy's X-Forwarded-For."""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric import ec

from accessgov.demo.seed import (
    DEMO_ADMIN_TOKEN,
    DEMO_HMAC_LISTENER_ID,
    DEMO_HMAC_SECRET,
    DEMO_OAUTH_CLIENT_ID,
    DEMO_OAUTH_CLIENT_SECRET,
)
from accessgov.storage import listeners
from accessgov.webhooks.signing import hmac_headers, jwt_headers
from tests.harness import seeded_server
from tests.support.jwks import closed_port_url
from tests.support.keys import private_pem as pem
from tests.support.tokens import TENANT

ENTITLEMENTS = "/api/v1/apps/app-github/entitlements"
WEBHOOK = f"/api/v1/webhooks/incoming/{DEMO_HMAC_LISTENER_ID}"
BODY = b'{"orderId":"A-1"}'


def address() -> str:
    """A fresh documentation-range client address, so no two tests share a counter."""
    return f"2001:db8::{secrets.token_hex(2)}:{secrets.token_hex(2)}"


JWT_DOWN = "wh_jwks_down"


@pytest.fixture(scope="module")
def limited(tmp_path_factory: pytest.TempPathFactory) -> Iterator[httpx.Client]:
    """A server allowing 3 failures per address and 5 per credential in a 2-second moving window (plus a JWT
    listener whose JWKS nobody serves)."""
    config = {
        "auth_failure_limit": "3/2 seconds",
        "auth_failure_limit_per_credential": "5/2 seconds",
        "trusted_proxies": ("127.0.0.0/8",),
    }
    data_dir = tmp_path_factory.mktemp("limited")
    with seeded_server(data_dir, **config) as (base_url, _, sessions), httpx.Client(base_url=base_url) as client:
        with sessions.begin() as session:
            listeners.create_listener(
                session, listener_id=JWT_DOWN, auth_method="JWT", jwks_url=closed_port_url(), automation_name="j",
                automation_steps=[],
            )  # fmt: skip
        yield client


def get_page(client: httpx.Client, source: str, token: str) -> httpx.Response:
    return client.get(ENTITLEMENTS, headers={"Authorization": f"Bearer {token}", "X-Forwarded-For": source})


def assert_429(response: httpx.Response, window: int = 2) -> int:
    assert response.status_code == 429, response.text
    assert response.json()["code"] == "TOO_MANY_FAILED_ATTEMPTS"
    retry_after = int(response.headers["retry-after"])
    assert 1 <= retry_after <= window
    return retry_after


def test_bearer_failures_lead_to_429_with_a_working_retry_after(limited: httpx.Client) -> None:
    source, bystander = address(), address()
    for _ in range(3):
        assert get_page(limited, source, "guessed-token").status_code == 401
    # Blocked: even the right token is not tried now, so guessing cannot go on at speed.
    retry_after = assert_429(get_page(limited, source, DEMO_ADMIN_TOKEN))
    assert_429(get_page(limited, source, "guessed-token"))
    assert get_page(limited, bystander, DEMO_ADMIN_TOKEN).status_code == 200  # another address is unaffected
    time.sleep(retry_after)
    assert get_page(limited, source, DEMO_ADMIN_TOKEN).status_code == 200


def test_successful_traffic_is_never_limited(limited: httpx.Client) -> None:
    source = address()
    statuses = {get_page(limited, source, DEMO_ADMIN_TOKEN).status_code for _ in range(40)}
    assert statuses == {200}
    assert get_page(limited, source, "guessed-token").status_code == 401  # and its first failure is a 401


def test_missing_credentials_are_not_counted(limited: httpx.Client) -> None:
    source = address()
    for _ in range(6):
        assert limited.get(ENTITLEMENTS, headers={"X-Forwarded-For": source}).status_code == 401
    assert get_page(limited, source, DEMO_ADMIN_TOKEN).status_code == 200


def token(client: httpx.Client, source: str, secret: str) -> httpx.Response:
    form = {"grant_type": "client_credentials", "client_id": DEMO_OAUTH_CLIENT_ID, "client_secret": secret}
    return client.post("/auth/v1/token", data=form, headers={"X-Forwarded-For": source})


def test_token_endpoint_limits_per_client_across_addresses(limited: httpx.Client) -> None:
    """A distributed guesser: 5 wrong secrets for one client from 5 addresses, then the client is blocked for
    everyone until the window moves on (the price of per-credential limits; see the README)."""
    for _ in range(5):
        response = token(limited, address(), "wrong")
        assert response.status_code == 401 and response.json()["error"] == "invalid_client"
    retry_after = assert_429(token(limited, address(), DEMO_OAUTH_CLIENT_SECRET))
    time.sleep(retry_after)
    assert token(limited, address(), DEMO_OAUTH_CLIENT_SECRET).status_code == 200


def deliver(client: httpx.Client, source: str, secret: str, signature: str | None = None) -> httpx.Response:
    headers = hmac_headers(secret, BODY)
    if signature is not None:
        headers["Webhook-Signature"] = signature
    return client.post(WEBHOOK, content=BODY, headers={**headers, "X-Forwarded-For": source})


def test_webhook_bad_signatures_lead_to_429(limited: httpx.Client) -> None:
    source = address()
    for _ in range(3):
        assert deliver(limited, source, "not-the-secret").json()["code"] == "SIGNATURE_MISMATCH"
    retry_after = assert_429(deliver(limited, source, DEMO_HMAC_SECRET))
    time.sleep(retry_after)
    assert deliver(limited, source, DEMO_HMAC_SECRET).status_code == 200


def test_webhook_without_signature_is_not_counted(limited: httpx.Client) -> None:
    source = address()
    for _ in range(5):
        headers = {**hmac_headers(DEMO_HMAC_SECRET, BODY), "X-Forwarded-For": source}
        del headers["Webhook-Signature"]
        assert limited.post(WEBHOOK, content=BODY, headers=headers).json()["code"] == "MISSING_AUTHENTICATION"
    assert deliver(limited, source, DEMO_HMAC_SECRET).status_code == 200


def test_an_unreachable_jwks_is_not_counted(limited: httpx.Client) -> None:
    """The sender's JWKS being down is the server's trouble, not a guess: no 429, however many 401s."""
    source = address()
    key = pem(ec.generate_private_key(ec.SECP256R1()))
    url = f"{TENANT}/api/v1/webhooks/incoming/{JWT_DOWN}"
    for _ in range(6):
        headers = jwt_headers(key, kid="k1", url=url, tenant_base_url=TENANT, body=BODY)
        response = limited.post(
            f"/api/v1/webhooks/incoming/{JWT_DOWN}", content=BODY, headers={**headers, "X-Forwarded-For": source}
        )
        assert response.status_code == 401 and response.json()["code"] == "JWKS_UNREACHABLE", response.text
    assert deliver(limited, source, DEMO_HMAC_SECRET).status_code == 200


def test_an_unreachable_limiter_store_fails_open(tmp_path: Path) -> None:
    closed = httpx.URL(f"redis://127.0.0.1:{_closed_port()}/0")
    config = {"auth_failure_limit": "1/minute", "redis_url": str(closed)}
    with seeded_server(tmp_path, **config) as (base_url, _config, _sessions), httpx.Client(base_url=base_url) as c:
        for _ in range(3):
            assert c.get(ENTITLEMENTS, headers={"Authorization": "Bearer guessed"}).status_code == 401
        assert c.get(ENTITLEMENTS, headers={"Authorization": f"Bearer {DEMO_ADMIN_TOKEN}"}).status_code == 200


def _closed_port() -> int:
    from tests.server._process import free_port

    return free_port()
