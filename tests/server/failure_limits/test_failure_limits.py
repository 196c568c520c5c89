"""Failed-authentication limits over real HTTP. Every credential is verified first: one that verifies is never
refused, whoever else failed. A failure counts for its source address (IPv6 grouped by /64) and its credential; an
address past its limit gets 429 with `Retry-After` and the `Error` body for its failures; a credential past its
limit is only reported (a warning). Client addresses are told apart through a trusted proxy's X-Forwarded-For."""

from __future__ import annotations

import contextlib
import secrets
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric import ec
from sqlalchemy.orm import Session, sessionmaker

from accessgov.demo.seed import (
    DEMO_ADMIN_TOKEN,
    DEMO_HMAC_LISTENER_ID,
    DEMO_HMAC_SECRET,
    DEMO_OAUTH_CLIENT_ID,
    DEMO_OAUTH_CLIENT_SECRET,
)
from accessgov.storage import listeners
from accessgov.webhooks.signing import hmac_headers, jwt_headers
from tests.support import loopback
from tests.support.harness import seeded_server
from tests.support.jwks import closed_port_url
from tests.support.keys import private_pem as pem
from tests.support.silent_tcp import SilentServer
from tests.support.tokens import TENANT

ENTITLEMENTS = "/api/v1/apps/app-github/entitlements"
WEBHOOK = f"/api/v1/webhooks/incoming/{DEMO_HMAC_LISTENER_ID}"
BODY = b'{"orderId":"A-1"}'


def address() -> str:
    """A fresh documentation-range client address in a /64 of its own, so no two tests share a counter."""
    return f"2001:db8:{secrets.token_hex(2)}:{secrets.token_hex(2)}::1"


JWT_DOWN = "wh_jwks_down"


@contextlib.contextmanager
def limited_server(data_dir: Path, window: str) -> Iterator[tuple[httpx.Client, sessionmaker[Session]]]:
    """A server allowing 3 failures per address and 5 per credential in a moving `window`; addresses told apart by
    X-Forwarded-For from loopback."""
    config = {
        "auth_failure_limit": f"3/{window}",
        "auth_failure_limit_per_credential": f"5/{window}",
        "trusted_proxies": ("127.0.0.0/8",),
    }
    with seeded_server(data_dir, **config) as (base_url, _, sessions), loopback.client(base_url=base_url) as client:
        yield client, sessions


@pytest.fixture(scope="module")
def limited(tmp_path_factory: pytest.TempPathFactory) -> Iterator[httpx.Client]:
    """A server allowing 3 failures per address and 5 per credential in a 2-second moving window (plus a JWT
    listener whose JWKS nobody serves)."""
    with limited_server(tmp_path_factory.mktemp("limited"), "2 seconds") as (client, sessions):
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


def test_bearer_guessing_is_limited_without_locking_out_the_valid_token(limited: httpx.Client) -> None:
    source, bystander = address(), address()
    for _ in range(3):
        assert get_page(limited, source, "guessed-token").status_code == 401
    retry_after = assert_429(get_page(limited, source, "guessed-token"))
    assert_429(get_page(limited, source, "another-guess"))
    # The valid token verifies first: never refused, from the guessing address or any other.
    assert get_page(limited, source, DEMO_ADMIN_TOKEN).status_code == 200
    assert get_page(limited, bystander, DEMO_ADMIN_TOKEN).status_code == 200
    assert get_page(limited, bystander, "guessed-token").status_code == 401  # another address has its own count
    time.sleep(retry_after)
    assert get_page(limited, source, "guessed-token").status_code == 401


def test_an_ipv6_64_counts_as_one_client(limited: httpx.Client) -> None:
    """Addresses rotating inside one /64 share a counter; the next /64 does not."""
    prefix = f"2001:db8:{secrets.token_hex(2)}:{secrets.token_hex(2)}"
    for host in range(3):
        assert get_page(limited, f"{prefix}::{host + 1:x}", "guessed-token").status_code == 401
    assert_429(get_page(limited, f"{prefix}:ffff:ffff:ffff:ffff", "guessed-token"))
    assert get_page(limited, address(), "guessed-token").status_code == 401


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


def test_failures_for_an_oauth_client_from_many_addresses_never_refuse_its_right_secret(
    limited: httpx.Client, caplog: pytest.LogCaptureFixture
) -> None:
    """A distributed guesser: wrong secrets for one client from many addresses, past the per-credential limit. The
    client with its right secret still gets its token; the credential under attack is reported once."""
    caplog.set_level("WARNING", logger="accessgov.failure_limits")
    for _ in range(8):
        response = token(limited, address(), "wrong")
        assert response.status_code == 401 and response.json()["error"] == "invalid_client"
        assert token(limited, address(), DEMO_OAUTH_CLIENT_SECRET).status_code == 200
    alerts = [r for r in caplog.records if "oauth-client:" + DEMO_OAUTH_CLIENT_ID in r.getMessage()]
    assert len(alerts) == 1, [r.getMessage() for r in caplog.records]


def deliver(client: httpx.Client, source: str, secret: str, signature: str | None = None) -> httpx.Response:
    headers = hmac_headers(secret, BODY)
    if signature is not None:
        headers["Webhook-Signature"] = signature
    return client.post(WEBHOOK, content=BODY, headers={**headers, "X-Forwarded-For": source})


def test_webhook_bad_signatures_lead_to_429_for_the_failing_address_only(limited: httpx.Client) -> None:
    source = address()
    for _ in range(3):
        assert deliver(limited, source, "not-the-secret").json()["code"] == "SIGNATURE_MISMATCH"
    retry_after = assert_429(deliver(limited, source, "not-the-secret"))
    assert deliver(limited, source, DEMO_HMAC_SECRET).status_code == 200  # a right signature always verifies
    time.sleep(retry_after)
    assert deliver(limited, source, "not-the-secret").json()["code"] == "SIGNATURE_MISMATCH"


@pytest.fixture(scope="module")
def hammered(tmp_path_factory: pytest.TempPathFactory) -> Iterator[httpx.Client]:
    """Limits with a minute's window, so the attack below is past them however slowly the machine runs it."""
    with limited_server(tmp_path_factory.mktemp("hammered"), "minute") as (client, _sessions):
        yield client


def test_attackers_hammering_a_listener_do_not_lock_out_its_sender(hammered: httpx.Client) -> None:
    """Two attackers send bad signatures to the listener from two addresses, past both limits, interleaved with the
    real sender's deliveries (from a third address, and from an attacker's own): every signed delivery is accepted."""
    attackers, sender = (address(), address()), address()
    accepted = []
    for round_ in range(8):
        for attacker in attackers:
            refused = deliver(hammered, attacker, "not-the-secret")
            assert refused.status_code == (401 if round_ < 3 else 429), refused.text
        accepted.append(deliver(hammered, sender, DEMO_HMAC_SECRET).status_code)
        accepted.append(deliver(hammered, attackers[round_ % 2], DEMO_HMAC_SECRET).status_code)
    assert accepted == [200] * 16


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


@pytest.mark.slow
def test_an_unreachable_limiter_store_fails_open(tmp_path: Path) -> None:
    closed = httpx.URL(f"redis://127.0.0.1:{_closed_port()}/0")
    config = {"auth_failure_limit": "1/minute", "redis_url": str(closed)}
    with seeded_server(tmp_path, **config) as (base_url, _config, _sessions), loopback.client(base_url=base_url) as c:
        for _ in range(3):
            assert c.get(ENTITLEMENTS, headers={"Authorization": "Bearer guessed"}).status_code == 401
        assert c.get(ENTITLEMENTS, headers={"Authorization": f"Bearer {DEMO_ADMIN_TOKEN}"}).status_code == 200


def _closed_port() -> int:
    from tests.support.server_process import free_port

    return free_port()


@pytest.mark.slow
@pytest.mark.parametrize(("mode", "failure_status"), [("open", 401), ("closed", 429)])
def test_a_hung_limiter_backend_is_given_up_on_and_reported_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, mode: str, failure_status: int
) -> None:
    """Redis accepts the connection and never answers: a failed authentication waits for it at most the backend
    timeout, once per retry period (no new connection meanwhile), and is answered as configured (fail open: 401;
    closed: 429); the valid token never waits on it; the log says so once."""
    caplog.set_level("WARNING", logger="accessgov.failure_limits")
    hung = SilentServer()
    config = {
        "auth_failure_limit": "1/minute",
        "redis_url": f"redis://127.0.0.1:{hung.port}/0",
        "limiter_failure_mode": mode,
    }
    try:
        with seeded_server(tmp_path, **config) as (base_url, _, _), loopback.client(base_url=base_url, timeout=30) as c:
            for _ in range(6):
                guessed = c.get(ENTITLEMENTS, headers={"Authorization": "Bearer guessed"})
                assert guessed.status_code == failure_status, guessed.text
                valid = c.get(ENTITLEMENTS, headers={"Authorization": f"Bearer {DEMO_ADMIN_TOKEN}"})
                assert valid.status_code == 200
    finally:
        hung.close()
    assert 1 <= len(hung.connections) <= 2  # the first failure's (address and credential, concurrently), no more
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING" and "limiter" in r.getMessage()]
    assert len(warnings) == 1, warnings
