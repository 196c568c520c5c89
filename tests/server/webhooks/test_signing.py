"""The sender side: HMAC and JWT headers that listeners accept, JWKS entries, and `send` posting the signed bytes."""

from __future__ import annotations

import asyncio
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec, ed448

from accessgov.http.body import parse_json_body
from accessgov.webhooks import request_checks, signing
from accessgov.webhooks.hmac_signature import generate_secret, verify_signature
from accessgov.webhooks.jwks import JwksCache
from accessgov.webhooks.jwt_token import bearer_token, verify_webhook_jwt
from tests.server.webhooks.webhook_vectors import BODY, ENDPOINT_URL, HMAC_TEST_VECTOR, NOW, TENANT_BASE_URL
from tests.support.jwks import JwksServer
from tests.support.keys import Keys, private_pem, public_pem

KEY_CASES = [("rsa", "RS256", "RSA"), ("ec", "ES256", "EC"), ("ed", "EdDSA", "OKP")]


# --- HMAC -------------------------------------------------------------------------------------------------------


def test_hmac_headers_defaults() -> None:
    secret = generate_secret()
    before = int(time.time())
    headers = signing.hmac_headers(secret, BODY)
    after = int(time.time())
    assert set(headers) == {"Content-Type", "Webhook-Timestamp", "Webhook-Event-Id", "Webhook-Signature"}
    assert headers["Content-Type"] == "application/json"
    assert before <= int(headers["Webhook-Timestamp"]) <= after
    assert request_checks.parse_event_id(headers["Webhook-Event-Id"]).version == 4
    request_checks.parse_timestamp(headers["Webhook-Timestamp"], time.time())
    verify_signature(
        secret, headers["Webhook-Timestamp"], headers["Webhook-Event-Id"], BODY, headers["Webhook-Signature"]
    )


def test_hmac_headers_fresh_event_id_each_time() -> None:
    ids = {signing.hmac_headers("s", BODY)["Webhook-Event-Id"] for _ in range(5)}
    assert len(ids) == 5


def test_hmac_headers_reproduce_the_test_vector() -> None:
    v = HMAC_TEST_VECTOR
    headers = signing.hmac_headers(v["secret"], v["body"], event_id=v["event_id"], timestamp=int(v["timestamp"]))
    assert headers["Webhook-Timestamp"] == v["timestamp"]
    assert headers["Webhook-Event-Id"] == v["event_id"]
    assert headers["Webhook-Signature"] == v["signature"]


# --- JWT --------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "alg", "kty"), KEY_CASES)
def test_jwt_headers_infer_the_algorithm_and_bind_the_request(name: str, alg: str, kty: str, keys: Keys) -> None:
    event_id = str(uuid.uuid4())
    headers = signing.jwt_headers(
        getattr(keys, name),
        kid=f"{name}-1",
        url=ENDPOINT_URL,
        tenant_base_url=TENANT_BASE_URL,
        body=BODY,
        event_id=event_id,
        timestamp=NOW,
    )
    assert headers["Content-Type"] == "application/json"
    assert (headers["Webhook-Event-Id"], headers["Webhook-Timestamp"]) == (event_id, str(NOW))
    token = bearer_token(headers["Authorization"])
    assert jwt.get_unverified_header(token) == {"alg": alg, "kid": f"{name}-1", "typ": "JWT"}
    payload = jwt.decode(token, options={"verify_signature": False})
    assert payload == {
        "sub": TENANT_BASE_URL,
        "aud": ENDPOINT_URL,
        "iat": NOW,
        "exp": NOW + 300,
        "jti": event_id,
        "htm": "POST",
        "htb_s256": signing.body_hash(BODY),
    }


@pytest.mark.parametrize(("name", "alg", "kty"), KEY_CASES)
def test_jwt_headers_verify_against_the_published_jwks(
    name: str, alg: str, kty: str, keys: Keys, jwks_server: JwksServer, http_client: httpx.Client
) -> None:
    pem = getattr(keys, name)
    jwks_server.document = signing.jwks_document([signing.public_jwk(pem, kid="k1")])
    headers = signing.jwt_headers(
        pem.decode(), kid="k1", url=ENDPOINT_URL, tenant_base_url=TENANT_BASE_URL, body=BODY, lifetime_seconds=600
    )
    claims = asyncio.run(
        verify_webhook_jwt(
            bearer_token(headers["Authorization"]),
            jwks=JwksCache(),
            jwks_url=jwks_server.url,
            tenant_base_url=TENANT_BASE_URL,
            endpoint_url=ENDPOINT_URL,
            event_id=headers["Webhook-Event-Id"],
            body=BODY,
        )
    )
    assert claims["exp"] - claims["iat"] == 600


@pytest.mark.parametrize("lifetime", [0, -1, 601, 3600])
def test_jwt_lifetime_must_fit_the_ten_minute_limit(lifetime: int, keys: Keys) -> None:
    with pytest.raises(ValueError, match="lifetime_seconds"):
        signing.jwt_headers(
            keys.ec, kid="k", url=ENDPOINT_URL, tenant_base_url=TENANT_BASE_URL, body=BODY, lifetime_seconds=lifetime
        )


@pytest.mark.parametrize(("name", "alg"), [("rsa", "ES256"), ("ec", "RS256"), ("ed", "ES256"), ("ec", "HS256")])
def test_explicit_alg_must_fit_the_key(name: str, alg: str, keys: Keys) -> None:
    with pytest.raises(ValueError, match="does not fit"):
        signing.jwt_headers(
            getattr(keys, name), kid="k", url=ENDPOINT_URL, tenant_base_url=TENANT_BASE_URL, body=BODY, alg=alg
        )
    with pytest.raises(ValueError, match="does not fit"):
        signing.public_jwk(getattr(keys, name), kid="k", alg=alg)


def test_explicit_alg_that_fits_is_used(keys: Keys) -> None:
    headers = signing.jwt_headers(
        keys.ec, kid="k", url=ENDPOINT_URL, tenant_base_url=TENANT_BASE_URL, body=BODY, alg="ES256"
    )
    assert jwt.get_unverified_header(bearer_token(headers["Authorization"]))["alg"] == "ES256"


@pytest.mark.parametrize(
    "key",
    [
        ec.generate_private_key(ec.SECP384R1()),
        ec.generate_private_key(ec.SECP256K1()),
        ed448.Ed448PrivateKey.generate(),
    ],
    ids=["P-384", "secp256k1", "Ed448"],
)
def test_unsupported_key_types(key: Any) -> None:
    with pytest.raises(ValueError, match="only RSA, EC P-256 and Ed25519"):
        signing.jwt_headers(private_pem(key), kid="k", url=ENDPOINT_URL, tenant_base_url=TENANT_BASE_URL, body=BODY)


# --- JWKS entries -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "alg", "kty"), KEY_CASES)
def test_public_jwk_members(name: str, alg: str, kty: str, keys: Keys) -> None:
    jwk = signing.public_jwk(getattr(keys, name), kid="key-2026")
    assert (jwk["kty"], jwk["use"], jwk["kid"], jwk["alg"]) == (kty, "sig", "key-2026", alg)
    assert not {"d", "p", "q", "dp", "dq", "qi", "k"} & set(jwk)  # public part only
    parsed = jwt.PyJWK(jwk)
    assert (parsed.algorithm_name, parsed.key_id) == (alg, "key-2026")


@pytest.mark.parametrize(("name", "alg", "kty"), KEY_CASES)
def test_public_jwk_from_a_public_pem_equals_the_private_one(name: str, alg: str, kty: str, keys: Keys) -> None:
    key = getattr(keys, f"{name}_key")
    assert signing.public_jwk(public_pem(key), kid="k") == signing.public_jwk(getattr(keys, name), kid="k")


def test_jwks_document_copies_its_entries() -> None:
    entry = {"kty": "OKP", "kid": "a"}
    document = signing.jwks_document([entry])
    assert document == {"keys": [{"kty": "OKP", "kid": "a"}]}
    document["keys"][0]["kid"] = "b"
    assert entry["kid"] == "a"


# --- send -------------------------------------------------------------------------------------------------------


@dataclass
class Received:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Listener:
    url: str
    received: list[Received] = field(default_factory=list)


@pytest.fixture
def listener() -> Iterator[Listener]:
    """A loopback HTTP server recording each POST byte for byte."""
    state = Listener(url="")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # the name http.server dispatches to
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            state.received.append(Received(self.command, self.path, dict(self.headers.items()), body))
            answer = b'{"ok":true}'
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    state.url = f"http://127.0.0.1:{httpd.server_address[1]}/api/v1/webhooks/incoming/lst_1"
    yield state
    httpd.shutdown()
    httpd.server_close()


def test_send_posts_the_exact_signed_bytes(listener: Listener) -> None:
    secret = generate_secret()
    body = b'{ "b": 2,\n  "a": "\xc3\xa9" }'  # not canonical JSON, non-ASCII: must arrive unchanged
    headers = signing.hmac_headers(secret, body)
    response = signing.send(listener.url, body, headers, timeout=5.0)
    assert response.status_code == 200 and response.json() == {"ok": True}
    [received] = listener.received
    assert (received.method, received.path, received.body) == ("POST", "/api/v1/webhooks/incoming/lst_1", body)
    got = {name.lower(): value for name, value in received.headers.items()}
    assert got["content-type"] == "application/json"
    # The receiving side verifies what actually arrived.
    parse_json_body(received.body)
    verify_signature(secret, got["webhook-timestamp"], got["webhook-event-id"], received.body, got["webhook-signature"])


def test_send_jwt_round_trip(
    listener: Listener, keys: Keys, jwks_server: JwksServer, http_client: httpx.Client
) -> None:
    jwks_server.document = signing.jwks_document([signing.public_jwk(keys.ed, kid="ed-1")])
    headers = signing.jwt_headers(keys.ed, kid="ed-1", url=listener.url, tenant_base_url=TENANT_BASE_URL, body=BODY)
    signing.send(listener.url, BODY, headers)
    [received] = listener.received
    got = {name.lower(): value for name, value in received.headers.items()}
    asyncio.run(
        verify_webhook_jwt(
            bearer_token(got["authorization"]),
            jwks=JwksCache(),
            jwks_url=jwks_server.url,
            tenant_base_url=TENANT_BASE_URL,
            endpoint_url=listener.url,
            event_id=got["webhook-event-id"],
            body=received.body,
        )
    )
