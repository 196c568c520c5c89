"""The JWT method: verification against a JWKS served on loopback, the JWKS cache, and every way a token can fail."""

from __future__ import annotations

import asyncio
import base64
import binascii
import functools
import hashlib
import hmac
import json
import uuid
from typing import Any

import httpx
import jwt
import pytest
from hypothesis import given
from hypothesis import strategies as st
from starlette.requests import Request

from accessgov import base64url
from accessgov.api.webhooks import WebhookHandler
from accessgov.http.context import RequestContext
from accessgov.webhooks import jwt_token, signing
from accessgov.webhooks.errors import WebhookAuthError
from accessgov.webhooks.jwks import JwksCache
from accessgov.webhooks.jwt_token import ALLOWED_ALGORITHMS, bearer_token, verify_webhook_jwt
from tests.server.webhooks.webhook_vectors import BODY, ENDPOINT_URL, NOW, TENANT_BASE_URL
from tests.support.clocks import FakeClock
from tests.support.jwks import JwksServer
from tests.support.keys import Keys, public_pem
from tests.support.tokens import b64url, sha256_b64url

KIDS = {"RS256": "rsa-1", "ES256": "ec-1", "EdDSA": "ed-1"}


def pem_for(keys: Keys, alg: str) -> bytes:
    return {"RS256": keys.rsa, "ES256": keys.ec, "EdDSA": keys.ed}[alg]


def key_for(keys: Keys, alg: str) -> Any:
    return {"RS256": keys.rsa_key, "ES256": keys.ec_key, "EdDSA": keys.ed_key}[alg]


@functools.cache
def _public_jwk_json(pem: bytes, kid: str) -> str:
    return json.dumps(signing.public_jwk(pem, kid=kid))


def public_jwk(pem: bytes, *, kid: str) -> dict[str, Any]:
    """`signing.public_jwk`, memoised (loading an RSA private PEM is slow); a fresh copy each call."""
    return json.loads(_public_jwk_json(pem, kid))


def publish(server: JwksServer, keys: Keys) -> None:
    server.document = signing.jwks_document(
        [
            public_jwk(keys.rsa, kid="rsa-1"),
            public_jwk(keys.ec, kid="ec-1"),
            public_jwk(keys.ed, kid="ed-1"),
        ]
    )


def claims(event_id: str, *, body: bytes = BODY, **overrides: Any) -> dict[str, Any]:
    """Valid claims for a delivery at NOW; an override of None removes that claim."""
    result: dict[str, Any] = {
        "sub": TENANT_BASE_URL,
        "aud": ENDPOINT_URL,
        "iat": NOW,
        "exp": NOW + 300,
        "jti": event_id,
        "htm": "POST",
        "htb_s256": sha256_b64url(body),
    }
    for name, value in overrides.items():
        if value is None:
            result.pop(name)
        else:
            result[name] = value
    return result


def sign(key: Any, payload: dict[str, Any], *, alg: str = "RS256", kid: str = "rsa-1") -> str:
    return jwt.encode(payload, key, algorithm=alg, headers={"kid": kid})


def hand_made(header: dict[str, Any], payload: dict[str, Any], signature: bytes = b"") -> str:
    return ".".join([b64url(json.dumps(header).encode()), b64url(json.dumps(payload).encode()), b64url(signature)])


@pytest.fixture
def cache(clock: FakeClock) -> JwksCache:
    # A generous timeout: a loopback fetch under a loaded CI machine took over 1 s; the timeout tests set their own.
    return JwksCache(clock=clock, ttl_seconds=300, refetch_interval_seconds=30, timeout_seconds=10.0)


def get_key(cache: JwksCache, url: str, kid: str) -> Any:
    """The async cache, driven from a sync test (each call on a fresh event loop)."""
    return asyncio.run(cache.get_key(url, kid))


def run_verify(token: str, **arguments: Any) -> dict[str, Any]:
    return asyncio.run(verify_webhook_jwt(token, **arguments))


@pytest.fixture
def published(jwks_server: JwksServer, keys: Keys) -> JwksServer:
    publish(jwks_server, keys)
    return jwks_server


def verify(token: str, cache: JwksCache, server: JwksServer, event_id: str, **kwargs: Any) -> dict[str, Any]:
    arguments: dict[str, Any] = {
        "jwks": cache,
        "jwks_url": server.url,
        "tenant_base_url": TENANT_BASE_URL,
        "endpoint_url": ENDPOINT_URL,
        "event_id": event_id,
        "body": BODY,
        "now": NOW,
    }
    arguments.update(kwargs)
    return run_verify(token, **arguments)


def rejected(token: str, cache: JwksCache, server: JwksServer, event_id: str, **kwargs: Any) -> WebhookAuthError:
    with pytest.raises(WebhookAuthError) as excinfo:
        verify(token, cache, server, event_id, **kwargs)
    assert excinfo.value.status == 401
    return excinfo.value


# --- valid tokens -------------------------------------------------------------------------------------------


def test_only_the_three_asymmetric_algorithms_are_allowed() -> None:
    assert ALLOWED_ALGORITHMS == ("RS256", "ES256", "EdDSA")


@pytest.mark.parametrize("alg", ["RS256", "ES256", "EdDSA"])
def test_valid_token_passes(alg: str, keys: Keys, cache: JwksCache, published: JwksServer, event_id: str) -> None:
    token = sign(key_for(keys, alg), claims(event_id), alg=alg, kid=KIDS[alg])
    verified = verify(token, cache, published, event_id)
    assert verified["jti"] == event_id and verified["aud"] == ENDPOINT_URL


def test_jti_matches_the_event_id_case_insensitively(
    keys: Keys, cache: JwksCache, published: JwksServer, event_id: str
) -> None:
    token = sign(keys.rsa_key, claims(event_id.upper()))
    verify(token, cache, published, event_id)


@pytest.mark.parametrize("alg", ["RS256", "ES256", "EdDSA"])
def test_sender_library_headers_verify(alg: str, keys: Keys, cache: JwksCache, published: JwksServer) -> None:
    headers = signing.jwt_headers(
        pem_for(keys, alg), kid=KIDS[alg], url=ENDPOINT_URL, tenant_base_url=TENANT_BASE_URL, body=BODY, timestamp=NOW
    )
    token = bearer_token(headers["Authorization"])
    assert jwt.get_unverified_header(token)["alg"] == alg
    verify(token, cache, published, headers["Webhook-Event-Id"])


# --- algorithm attacks ------------------------------------------------------------------------------------------


def test_alg_none_is_rejected(cache: JwksCache, published: JwksServer, event_id: str) -> None:
    for alg in ("none", "None", "NONE"):
        token = hand_made({"alg": alg, "typ": "JWT", "kid": "rsa-1"}, claims(event_id))
        assert rejected(token, cache, published, event_id).code == "INVALID_TOKEN"
    assert published.fetches == 0  # rejected before any key lookup


def test_hs256_with_a_shared_secret_is_rejected(cache: JwksCache, published: JwksServer, event_id: str) -> None:
    token = jwt.encode(claims(event_id), "a-shared-secret-of-at-least-32-bytes!!", algorithm="HS256")
    assert rejected(token, cache, published, event_id).code == "INVALID_TOKEN"


@pytest.mark.parametrize("alg", ["HS256", "HS384", "HS512"])
def test_hmac_signed_with_the_rsa_public_key_pem_is_rejected(
    alg: str, keys: Keys, cache: JwksCache, published: JwksServer, event_id: str
) -> None:
    """The classic confusion: an attacker HMACs the token with the (public) RSA PEM and claims kid rsa-1."""
    public = public_pem(keys.rsa_key)
    header = {"alg": alg, "typ": "JWT", "kid": "rsa-1"}
    digest = {"HS256": hashlib.sha256, "HS384": hashlib.sha384, "HS512": hashlib.sha512}[alg]
    unsigned = hand_made(header, claims(event_id)).rsplit(".", 1)[0]
    token = unsigned + "." + b64url(hmac.new(public, unsigned.encode(), digest).digest())
    assert rejected(token, cache, published, event_id).code == "INVALID_TOKEN"


@pytest.mark.parametrize("alg", ["RS384", "RS512", "PS256", "ES384", "ES512", "ES256K", "Ed25519", "foo"])
def test_other_algorithms_are_rejected(alg: str, cache: JwksCache, published: JwksServer, event_id: str) -> None:
    token = hand_made({"alg": alg, "kid": "rsa-1"}, claims(event_id), b"x" * 64)
    assert rejected(token, cache, published, event_id).code == "INVALID_TOKEN"


def test_rs256_header_with_an_ec_kid_is_rejected(
    keys: Keys, cache: JwksCache, published: JwksServer, event_id: str
) -> None:
    # The RSA key signs, but the header names the EC key: the JWK's kty does not fit RS256.
    token = sign(keys.rsa_key, claims(event_id), alg="RS256", kid="ec-1")
    assert rejected(token, cache, published, event_id).code == "INVALID_TOKEN"


def test_es256_header_with_an_rsa_kid_is_rejected(
    keys: Keys, cache: JwksCache, published: JwksServer, event_id: str
) -> None:
    token = sign(keys.ec_key, claims(event_id), alg="ES256", kid="rsa-1")
    assert rejected(token, cache, published, event_id).code == "INVALID_TOKEN"


def test_jwk_alg_member_must_equal_the_header_alg(
    keys: Keys, cache: JwksCache, jwks_server: JwksServer, event_id: str
) -> None:
    # An RSA JWK restricted to PS256 may not verify an RS256 token, even though kty fits.
    jwks_server.document = {"keys": [{**public_jwk(keys.rsa, kid="rsa-1"), "alg": "PS256"}]}
    token = sign(keys.rsa_key, claims(event_id))
    assert rejected(token, cache, jwks_server, event_id).code == "INVALID_TOKEN"


def test_ec_jwk_on_another_curve_is_rejected(cache: JwksCache, jwks_server: JwksServer, event_id: str) -> None:
    """A P-384 key published with alg ES256 does not fit ES256 (which is P-256 only)."""
    from cryptography.hazmat.primitives.asymmetric import ec

    p384 = ec.generate_private_key(ec.SECP384R1())
    jwk = json.loads(jwt.algorithms.ECAlgorithm.to_jwk(p384.public_key()))
    jwks_server.document = {"keys": [{**jwk, "kid": "ec-384", "use": "sig", "alg": "ES256"}]}
    unsigned = hand_made({"alg": "ES256", "kid": "ec-384"}, claims(event_id)).rsplit(".", 1)[0]
    token = unsigned + "." + b64url(b"\x01" * 96)
    assert rejected(token, cache, jwks_server, event_id).code == "INVALID_TOKEN"


def test_encryption_key_is_not_used_for_signatures(
    keys: Keys, cache: JwksCache, jwks_server: JwksServer, event_id: str
) -> None:
    jwks_server.document = {"keys": [{**public_jwk(keys.rsa, kid="rsa-1"), "use": "enc"}]}
    token = sign(keys.rsa_key, claims(event_id))
    assert rejected(token, cache, jwks_server, event_id).code in {"INVALID_TOKEN", "UNKNOWN_KID"}


@pytest.mark.filterwarnings("ignore::jwt.warnings.InsecureKeyLengthWarning")  # signing the test token warns
def test_rsa_key_shorter_than_2048_bits_is_rejected(cache: JwksCache, jwks_server: JwksServer, event_id: str) -> None:
    from cryptography.hazmat.primitives.asymmetric import rsa

    weak = rsa.generate_private_key(public_exponent=65537, key_size=1024)
    jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(weak.public_key()))
    jwks_server.document = {"keys": [{**jwk, "kid": "weak", "use": "sig", "alg": "RS256"}]}
    token = sign(weak, claims(event_id), kid="weak")  # type: ignore[arg-type]
    assert rejected(token, cache, jwks_server, event_id).code == "INVALID_TOKEN"


def test_keys_embedded_in_the_header_are_ignored(
    keys: Keys, cache: JwksCache, published: JwksServer, event_id: str
) -> None:
    # The header's own `jwk` names the attacker's key; only the listener's JWKS counts.
    rogue = public_jwk(keys.rogue_rsa, kid="rsa-1")
    token = jwt.encode(claims(event_id), keys.rogue_key, algorithm="RS256", headers={"kid": "rsa-1", "jwk": rogue})
    assert rejected(token, cache, published, event_id).code == "INVALID_TOKEN"


# --- key lookup and signature -----------------------------------------------------------------------------------


def test_unknown_kid_is_rejected(keys: Keys, cache: JwksCache, published: JwksServer, event_id: str) -> None:
    token = sign(keys.rsa_key, claims(event_id), kid="not-published")
    error = rejected(token, cache, published, event_id)
    assert error.code == "UNKNOWN_KID" and error.field == "kid"


def test_missing_kid_is_rejected(keys: Keys, cache: JwksCache, published: JwksServer, event_id: str) -> None:
    token = jwt.encode(claims(event_id), keys.rsa_key, algorithm="RS256")
    assert rejected(token, cache, published, event_id).code == "UNKNOWN_KID"


def test_signature_by_another_key_with_the_same_kid_is_rejected(
    keys: Keys, cache: JwksCache, published: JwksServer, event_id: str
) -> None:
    token = sign(keys.rogue_key, claims(event_id), kid="rsa-1")
    assert rejected(token, cache, published, event_id).code == "INVALID_TOKEN"


def test_tampered_payload_is_rejected(keys: Keys, cache: JwksCache, published: JwksServer, event_id: str) -> None:
    header, _, signature = sign(keys.ec_key, claims(event_id), alg="ES256", kid="ec-1").split(".")
    forged = b64url(json.dumps(claims(event_id, sub="https://other-tenant.example")).encode())
    assert rejected(f"{header}.{forged}.{signature}", cache, published, event_id).code == "INVALID_TOKEN"


@pytest.mark.parametrize(
    "token",
    ["", "not-a-jwt", "a.b", "a.b.c", "....", "eyJhbGciOiJSUzI1NiJ9.e30", "eyJhbGciOiJSUzI1NiJ9.!!!.sig"],
)
def test_malformed_token_is_rejected(token: str, cache: JwksCache, published: JwksServer, event_id: str) -> None:
    assert rejected(token, cache, published, event_id).code in {"INVALID_TOKEN", "UNKNOWN_KID"}


def test_header_that_is_not_an_object_is_rejected(cache: JwksCache, published: JwksServer, event_id: str) -> None:
    token = b64url(b'["RS256"]') + "." + b64url(b"{}") + "." + b64url(b"sig")
    assert rejected(token, cache, published, event_id).code == "INVALID_TOKEN"


# --- claims -------------------------------------------------------------------------------------------------


def test_expired_token_is_rejected(keys: Keys, cache: JwksCache, published: JwksServer, event_id: str) -> None:
    token = sign(keys.rsa_key, claims(event_id, iat=NOW - 700, exp=NOW - 31))
    assert rejected(token, cache, published, event_id).code == "TOKEN_EXPIRED"


def test_expiry_leeway_is_5_seconds(keys: Keys, cache: JwksCache, published: JwksServer, event_id: str) -> None:
    verify(sign(keys.rsa_key, claims(event_id, exp=NOW - 4)), cache, published, event_id)
    assert (
        rejected(sign(keys.rsa_key, claims(event_id, exp=NOW - 5)), cache, published, event_id).code == "TOKEN_EXPIRED"
    )


def test_expiry_uses_the_injected_time(keys: Keys, cache: JwksCache, published: JwksServer, event_id: str) -> None:
    token = sign(keys.rsa_key, claims(event_id))  # valid around NOW, which is not the wall clock
    verify(token, cache, published, event_id, now=NOW)
    assert rejected(token, cache, published, event_id, now=NOW + 3600).code == "TOKEN_EXPIRED"


def test_exp_more_than_ten_minutes_ahead_is_rejected(
    keys: Keys, cache: JwksCache, published: JwksServer, event_id: str
) -> None:
    verify(sign(keys.rsa_key, claims(event_id, exp=NOW + 600)), cache, published, event_id)
    verify(sign(keys.rsa_key, claims(event_id, exp=NOW + 605)), cache, published, event_id)  # within the leeway
    for exp in (NOW + 606, NOW + 3600, NOW + 10**9):
        error = rejected(sign(keys.rsa_key, claims(event_id, exp=exp)), cache, published, event_id)
        assert (error.code, error.field) == ("INVALID_CLAIM", "exp")


@pytest.mark.parametrize(
    "exp", [str(NOW + 60), "soon", True, [NOW + 60], {"at": NOW + 60}, float("nan"), float("inf"), float("-inf")]
)
def test_exp_must_be_a_finite_number(
    exp: Any, keys: Keys, cache: JwksCache, published: JwksServer, event_id: str
) -> None:
    # NaN matters most: every comparison with it is false, so it would pass both expiry checks.
    token = sign(keys.rsa_key, claims(event_id, exp=exp))
    error = rejected(token, cache, published, event_id)
    assert (error.code, error.field) == ("INVALID_CLAIM", "exp")


def test_not_yet_valid_token_is_rejected(keys: Keys, cache: JwksCache, published: JwksServer, event_id: str) -> None:
    verify(sign(keys.rsa_key, claims(event_id, nbf=NOW + 5)), cache, published, event_id)  # within the leeway
    token = sign(keys.rsa_key, claims(event_id, nbf=NOW + 120))
    error = rejected(token, cache, published, event_id)
    assert (error.code, error.field) == ("INVALID_CLAIM", "nbf")


def test_issued_in_the_future_is_rejected(keys: Keys, cache: JwksCache, published: JwksServer, event_id: str) -> None:
    token = sign(keys.rsa_key, claims(event_id, iat=NOW + 120))
    error = rejected(token, cache, published, event_id)
    assert (error.code, error.field) == ("INVALID_CLAIM", "iat")


@pytest.mark.parametrize("claim", ["sub", "aud", "exp", "jti", "htm", "htb_s256"])
def test_missing_required_claim_is_rejected(
    claim: str, keys: Keys, cache: JwksCache, published: JwksServer, event_id: str
) -> None:
    token = sign(keys.rsa_key, claims(event_id, **{claim: None}))
    error = rejected(token, cache, published, event_id)
    assert (error.code, error.field) == ("INVALID_CLAIM", claim)


@pytest.mark.parametrize(
    ("claim", "value"),
    [
        ("sub", "https://other-tenant.accessgov.example"),
        ("sub", TENANT_BASE_URL + "/"),
        ("aud", "https://tenant.accessgov.example/api/v1/webhooks/incoming/lst_999"),
        ("aud", ["https://elsewhere.example"]),
        ("htm", "GET"),
        ("htm", "post"),
        # Fixed values: xdist's workers must collect the same parameter ids.
        ("jti", "3f2a1b4c-5d6e-4f70-8a9b-0c1d2e3f4a5b"),  # another event's id (v4)
        ("jti", "747bb2ae-e9bd-11f1-a645-02fc00000001"),  # a v1 UUID
        ("jti", 42),
        ("htb_s256", sha256_b64url(BODY + b" ")),
        ("htb_s256", sha256_b64url(BODY) + "="),
        ("htb_s256", "é" * 43),  # non-ASCII must be a clean rejection, not a crash in compare_digest
        ("htb_s256", 12345),
    ],
)
def test_wrong_claim_is_rejected(
    claim: str, value: Any, keys: Keys, cache: JwksCache, published: JwksServer, event_id: str
) -> None:
    token = sign(keys.rsa_key, claims(event_id, **{claim: value}))
    error = rejected(token, cache, published, event_id)
    assert (error.code, error.field) == ("INVALID_CLAIM", claim)


def test_jti_equal_to_a_non_v4_event_id_is_rejected(keys: Keys, cache: JwksCache, published: JwksServer) -> None:
    v1 = str(uuid.uuid1())
    token = sign(keys.rsa_key, claims(v1))
    assert rejected(token, cache, published, v1).field == "jti"


def test_token_is_bound_to_the_received_body(
    keys: Keys, cache: JwksCache, published: JwksServer, event_id: str
) -> None:
    token = sign(keys.rsa_key, claims(event_id))
    error = rejected(token, cache, published, event_id, body=b'{"orderId":"A-1001","amount":4200}')
    assert error.field == "htb_s256"


def test_token_is_bound_to_the_method(keys: Keys, cache: JwksCache, published: JwksServer, event_id: str) -> None:
    token = sign(keys.rsa_key, claims(event_id, htm="GET"))
    verify(token, cache, published, event_id, method="GET")
    assert rejected(token, cache, published, event_id).field == "htm"


# --- bearer header ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("header", ["Bearer abc.def.ghi", "bearer abc.def.ghi", "Bearer  abc.def.ghi "])
def test_bearer_token_is_extracted(header: str) -> None:
    assert bearer_token(header) == "abc.def.ghi"


@pytest.mark.parametrize("header", [None, "", "Bearer", "Bearer ", "Basic dXNlcjpwYXNz", "abc.def.ghi", "Token x"])
def test_missing_or_non_bearer_authorization_is_rejected(header: str | None) -> None:
    with pytest.raises(WebhookAuthError) as excinfo:
        bearer_token(header)
    assert (excinfo.value.code, excinfo.value.field) == ("MISSING_AUTHENTICATION", "Authorization")


# --- JWKS cache -------------------------------------------------------------------------------------------------


def test_jwks_is_cached(keys: Keys, cache: JwksCache, published: JwksServer, event_id: str) -> None:
    verify(sign(keys.rsa_key, claims(event_id)), cache, published, event_id)
    assert published.fetches == 1
    verify(sign(keys.ec_key, claims(event_id), alg="ES256", kid="ec-1"), cache, published, event_id)
    verify(sign(keys.ed_key, claims(event_id), alg="EdDSA", kid="ed-1"), cache, published, event_id)
    assert published.fetches == 1


def test_unknown_kid_refetches_but_at_most_once_per_interval(
    keys: Keys, cache: JwksCache, clock: FakeClock, published: JwksServer, event_id: str
) -> None:
    get_key(cache, published.url, "rsa-1")
    assert published.fetches == 1
    # Right after a fetch, an unknown kid does not trigger another one.
    with pytest.raises(WebhookAuthError, match="kid"):
        get_key(cache, published.url, "rsa-2")
    assert published.fetches == 1
    clock.advance(31)
    with pytest.raises(WebhookAuthError):
        get_key(cache, published.url, "rsa-2")
    assert published.fetches == 2
    # A flood of made-up kids within the interval costs nothing more.
    for n in range(20):
        with pytest.raises(WebhookAuthError) as excinfo:
            get_key(cache, published.url, f"made-up-{n}")
        assert excinfo.value.code == "UNKNOWN_KID"
    assert published.fetches == 2
    # The sender rotates in a new key; it is picked up once the interval has passed.
    published.document["keys"].append(public_jwk(keys.rogue_rsa, kid="rsa-2"))
    with pytest.raises(WebhookAuthError):
        get_key(cache, published.url, "rsa-2")
    clock.advance(30)
    assert get_key(cache, published.url, "rsa-2").key_id == "rsa-2"
    assert published.fetches == 3
    # Known kids never needed a refetch in between.
    get_key(cache, published.url, "rsa-1")
    assert published.fetches == 3


def test_rotated_key_verifies_after_refetch(
    keys: Keys, cache: JwksCache, clock: FakeClock, published: JwksServer, event_id: str
) -> None:
    verify(sign(keys.rsa_key, claims(event_id)), cache, published, event_id)
    published.document["keys"].append(public_jwk(keys.rogue_rsa, kid="rsa-2"))
    clock.advance(30)
    verify(sign(keys.rogue_key, claims(event_id), kid="rsa-2"), cache, published, event_id)
    assert published.fetches == 2


def test_ttl_expiry_refetches(keys: Keys, cache: JwksCache, clock: FakeClock, published: JwksServer) -> None:
    get_key(cache, published.url, "rsa-1")
    clock.advance(299)
    get_key(cache, published.url, "rsa-1")
    assert published.fetches == 1
    clock.advance(1)
    get_key(cache, published.url, "rsa-1")
    assert published.fetches == 2


def test_key_removed_from_the_jwks_stops_working_after_the_ttl(
    keys: Keys, cache: JwksCache, clock: FakeClock, published: JwksServer
) -> None:
    get_key(cache, published.url, "ec-1")
    published.document = {"keys": [k for k in published.document["keys"] if k["kid"] != "ec-1"]}
    clock.advance(301)
    with pytest.raises(WebhookAuthError) as excinfo:
        get_key(cache, published.url, "ec-1")
    assert excinfo.value.code == "UNKNOWN_KID"


def test_failed_refetch_after_ttl_does_not_fall_back_to_stale_keys(
    cache: JwksCache, clock: FakeClock, published: JwksServer
) -> None:
    get_key(cache, published.url, "rsa-1")
    published.status = 503
    clock.advance(301)
    for _ in range(3):  # every request in the retry interval fails the same way, without a fetch each
        with pytest.raises(WebhookAuthError) as excinfo:
            get_key(cache, published.url, "rsa-1")
        assert excinfo.value.code == "JWKS_UNREACHABLE"
    assert published.fetches == 2
    published.status = 200
    clock.advance(30)
    get_key(cache, published.url, "rsa-1")
    assert published.fetches == 3


def test_caches_are_per_url(keys: Keys, cache: JwksCache, published: JwksServer) -> None:
    get_key(cache, published.url, "rsa-1")
    get_key(cache, published.url + "?tenant=2", "rsa-1")
    assert published.hits["/jwks.json"] == 1 and published.hits["/jwks.json?tenant=2"] == 1


def test_concurrent_first_use_fetches_once(published: JwksServer) -> None:
    cache = JwksCache()

    async def many() -> list[str]:
        keys = await asyncio.gather(*(cache.get_key(published.url, "ec-1") for _ in range(8)))
        return [key.key_id for key in keys]

    assert asyncio.run(many()) == ["ec-1"] * 8
    assert published.fetches == 1


def test_a_fetch_has_one_deadline_for_connect_headers_and_body(keys: Keys) -> None:
    """A sender that drips its answer (here: stalls after connecting) is cut off at the overall deadline."""

    async def handler(request: httpx.Request) -> httpx.Response:
        await asyncio.sleep(5)
        return httpx.Response(200, json={"keys": []})

    cache = JwksCache(transport=httpx.MockTransport(handler), timeout_seconds=0.2)
    with pytest.raises(WebhookAuthError) as excinfo:
        get_key(cache, "https://sender.example/jwks.json", "rsa-1")
    assert excinfo.value.code == "JWKS_UNREACHABLE" and "longer than 0.2 s" in excinfo.value.message


def test_any_fetch_failure_is_remembered(clock: FakeClock) -> None:
    calls = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(request.url)
        raise RuntimeError("transport bug")  # not an httpx error: still remembered, still a 401

    cache = JwksCache(transport=httpx.MockTransport(handler), clock=clock)
    for _ in range(3):
        with pytest.raises(WebhookAuthError):
            get_key(cache, "https://sender.example/jwks.json", "rsa-1")
    assert len(calls) == 1


def test_absurdly_nested_jwks_is_unreachable_not_a_crash(clock: FakeClock) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=b'{"keys": ' + b"[" * 50_000 + b"]" * 50_000 + b"}")

    cache = JwksCache(transport=httpx.MockTransport(handler), clock=clock)
    for _ in range(2):
        with pytest.raises(WebhookAuthError) as excinfo:
            get_key(cache, "https://sender.example/jwks.json", "rsa-1")
        assert excinfo.value.code == "JWKS_UNREACHABLE"
    assert cache.fetches == 1  # the failure is remembered: the refetch limiter holds


def test_unreachable_jwks(closed_port_url: str, cache: JwksCache, clock: FakeClock, keys: Keys, event_id: str) -> None:
    token = sign(keys.rsa_key, claims(event_id))
    with pytest.raises(WebhookAuthError) as excinfo:
        run_verify(
            token,
            jwks=cache,
            jwks_url=closed_port_url,
            tenant_base_url=TENANT_BASE_URL,
            endpoint_url=ENDPOINT_URL,
            event_id=event_id,
            body=BODY,
            now=NOW,
        )
    assert excinfo.value.code == "JWKS_UNREACHABLE"


@pytest.mark.parametrize(("path", "status"), [("/not-json", 200), ("/no-keys", 200), ("/missing", 404)])
def test_unusable_jwks_documents(path: str, status: int, cache: JwksCache, jwks_server: JwksServer) -> None:
    with pytest.raises(WebhookAuthError) as excinfo:
        get_key(cache, jwks_server.base + path, "rsa-1")
    assert excinfo.value.code == "JWKS_UNREACHABLE"


@pytest.mark.parametrize("document", [[], {"keys": {}}, {}, "keys", None])
def test_jwks_without_a_keys_array(document: Any, cache: JwksCache, jwks_server: JwksServer) -> None:
    jwks_server.document = document
    with pytest.raises(WebhookAuthError) as excinfo:
        get_key(cache, jwks_server.url, "rsa-1")
    assert excinfo.value.code == "JWKS_UNREACHABLE"


def test_unparseable_keys_are_skipped(keys: Keys, cache: JwksCache, jwks_server: JwksServer) -> None:
    good = public_jwk(keys.ec, kid="ec-1")
    jwks_server.document = {
        "keys": [
            {"kty": "RSA", "kid": "broken", "n": "!!", "e": "AQAB"},
            {"kty": "XYZ", "kid": "strange"},
            {"kid": "no-kty"},
            "not-an-object",
            {**good, "kid": 7},
            good,
        ]
    }
    assert get_key(cache, jwks_server.url, "ec-1").key_id == "ec-1"
    with pytest.raises(WebhookAuthError) as excinfo:
        get_key(cache, jwks_server.url, "broken")
    assert excinfo.value.code == "UNKNOWN_KID"


def test_failed_first_fetch_is_rate_limited(
    cache: JwksCache, clock: FakeClock, jwks_server: JwksServer, keys: Keys
) -> None:
    jwks_server.status = 500
    for _ in range(5):
        with pytest.raises(WebhookAuthError) as excinfo:
            get_key(cache, jwks_server.url, "rsa-1")
        assert excinfo.value.code == "JWKS_UNREACHABLE"
    assert jwks_server.fetches == 1
    publish(jwks_server, keys)
    jwks_server.status = 200
    clock.advance(30)
    get_key(cache, jwks_server.url, "rsa-1")
    assert jwks_server.fetches == 2


def test_injected_client_gets_the_short_timeout(jwks_server: JwksServer, keys: Keys) -> None:
    seen: list[Any] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.extensions.get("timeout"))
        return httpx.Response(200, json=signing.jwks_document([public_jwk(keys.rsa, kid="rsa-1")]))

    cache = JwksCache(transport=httpx.MockTransport(handler), timeout_seconds=1.5)
    get_key(cache, "https://sender.example/jwks.json", "rsa-1")
    assert seen and all(value == 1.5 for value in seen[0].values())


def test_redirects_are_not_followed(jwks_server: JwksServer) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(302, headers={"Location": jwks_server.url})

    cache = JwksCache(transport=httpx.MockTransport(handler))
    with pytest.raises(WebhookAuthError) as excinfo:
        get_key(cache, "https://sender.example/jwks.json", "rsa-1")
    assert excinfo.value.code == "JWKS_UNREACHABLE"
    assert jwks_server.fetches == 0


# --- compact serialization (parsed here, PyJWT's segment rules) --------------------------------------------------


def test_a_padded_signature_segment_is_refused(
    keys: Keys, cache: JwksCache, published: JwksServer, event_id: str
) -> None:
    """RFC 7515 writes segments without `=` (the spec's `x-jwt-verification.format`), though PyJWT reads them;
    padding the header or the payload changes the signing input, so the signature is where it would slip by."""
    header, payload, signature = sign(keys.rsa_key, claims(event_id)).split(".")
    assert len(signature) % 4 == 2  # 256 bytes of RS256 signature: 342 characters, so two `=` make a quantum
    assert verify(f"{header}.{payload}.{signature}", cache, published, event_id)["jti"] == event_id
    assert rejected(f"{header}.{payload}.{signature}==", cache, published, event_id).code == "INVALID_TOKEN"


@pytest.mark.parametrize(
    "mangle",
    [
        lambda segment: segment + "===",  # too much padding
        lambda segment: segment + "=" if len(segment) % 4 else segment + "A",  # padding off a quantum / length % 4 == 1
        lambda segment: segment[:-1] + {"A": "B", "Q": "R", "g": "h", "w": "x"}.get(segment[-1], "B"),  # stray bits
        lambda segment: segment[:5] + "+" + segment[6:],  # the standard alphabet is not base64url
    ],
    ids=["padding", "length", "stray-bits", "alphabet"],
)
def test_non_canonical_signature_segments_are_rejected(
    mangle: Any, keys: Keys, cache: JwksCache, published: JwksServer, event_id: str
) -> None:
    header, payload, signature = sign(keys.rsa_key, claims(event_id)).split(".")
    assert rejected(f"{header}.{payload}.{mangle(signature)}", cache, published, event_id).code == "INVALID_TOKEN"


def test_critical_header_extensions_are_refused(
    keys: Keys, cache: JwksCache, published: JwksServer, event_id: str
) -> None:
    token = jwt.encode(claims(event_id), keys.rsa_key, algorithm="RS256", headers={"kid": "rsa-1", "crit": ["exp"]})
    assert rejected(token, cache, published, event_id).code == "INVALID_TOKEN"


def test_audience_may_be_a_list_holding_the_endpoint(
    keys: Keys, cache: JwksCache, published: JwksServer, event_id: str
) -> None:
    token = sign(keys.rsa_key, claims(event_id, aud=["https://elsewhere.example/", ENDPOINT_URL]))
    assert verify(token, cache, published, event_id)["jti"] == event_id
    token = sign(keys.rsa_key, claims(event_id, aud=[ENDPOINT_URL, 7]))
    assert rejected(token, cache, published, event_id).field == "aud"


def test_a_payload_that_is_not_an_object_is_rejected(
    keys: Keys, cache: JwksCache, published: JwksServer, event_id: str
) -> None:
    header, _, _ = sign(keys.rsa_key, claims(event_id)).split(".")
    signing_input = f"{header}.{b64url(b'[1, 2]')}".encode()
    signature = jwt.get_algorithm_by_name("RS256").sign(signing_input, keys.rsa_key)
    token = f"{signing_input.decode()}.{b64url(signature)}"
    assert rejected(token, cache, published, event_id).code == "INVALID_TOKEN"


@pytest.mark.parametrize("path", ["/api/v1/webhooks/incoming/wh_1", "/api/v1/webhooks/incoming/a?b#c\\d é"])
def test_the_audience_path_is_the_request_urls_path(path: str) -> None:
    """The configured-base audience uses the path exactly as Starlette's `request.url.path` spells it."""
    scope = {"type": "http", "method": "POST", "path": path, "query_string": b"x=1", "headers": [], "scheme": "http"}
    request = Request(scope)
    handler = WebhookHandler(
        None,  # type: ignore[arg-type]  (neither the database nor the listeners are consulted)
        None,  # type: ignore[arg-type]
        tenant_base_url="https://tenant.example",
        audience_base_url="https://tenant.example",
    )
    ctx = RequestContext(request=request, operation_id="op")
    assert handler.endpoint_url(ctx) == "https://tenant.example" + request.url.path


@given(st.binary(max_size=12), st.sampled_from(list(base64url.ALPHABET)))
def test_a_segment_is_canonical_exactly_when_it_encodes_back_to_itself(data: bytes, last: int) -> None:
    """The last character's spare bits decide (`base64url.decode_canonical`): the verdict of decoding, encoding
    again and comparing, for every last character after any data."""
    segment = b64url(data).encode()[:-1] + bytes([last]) if data else bytes([last]) * 2
    try:
        decoded = base64.urlsafe_b64decode(segment + b"=" * (-len(segment) % 4))
        canonical = b64url(decoded).encode() == segment
    except binascii.Error:
        canonical = False
    try:
        jwt_token._segment(segment, "payload")
        accepted = True
    except WebhookAuthError:
        accepted = False
    assert accepted == canonical


# --- spec x-jwt-verification: look-alikes refused, the allowed forms accepted ----------------------------------------


@pytest.mark.parametrize(
    ("claim", "value"),
    [
        ("sub", TENANT_BASE_URL.upper()),
        ("sub", TENANT_BASE_URL[:-1]),
        ("sub", TENANT_BASE_URL + ".evil.example"),
        ("sub", TENANT_BASE_URL.replace("https://", "http://")),
        ("sub", TENANT_BASE_URL + ":443"),
        ("sub", TENANT_BASE_URL + "/api/v1"),
        ("sub", [TENANT_BASE_URL]),
        ("aud", ENDPOINT_URL.upper()),
        ("aud", ENDPOINT_URL[:-1]),
        ("aud", ENDPOINT_URL + "x"),
        ("aud", ENDPOINT_URL + "/"),
        ("aud", ENDPOINT_URL + "?a=1"),
        ("aud", ENDPOINT_URL.replace(".example/", ".example:443/")),
        ("aud", "/" + ENDPOINT_URL.split("/", 3)[3]),
        ("jti", "urn:uuid:3f2a1b4c-5d6e-4f70-8a9b-0c1d2e3f4a5b"),
        ("jti", "3f2a1b4c5d6e4f708a9b0c1d2e3f4a5b"),
        ("jti", ["3f2a1b4c-5d6e-4f70-8a9b-0c1d2e3f4a5b"]),
        ("exp", str(NOW + 300)),
        ("nbf", NOW + 7),
        ("iat", NOW + 7),
    ],
)
def test_look_alike_claims_are_refused(
    claim: str, value: Any, keys: Keys, cache: JwksCache, published: JwksServer
) -> None:
    event_id = "3f2a1b4c-5d6e-4f70-8a9b-0c1d2e3f4a5b"
    token = sign(keys.rsa_key, claims(event_id, **{claim: value}))
    error = rejected(token, cache, published, event_id)
    assert (error.code, error.field) == ("INVALID_CLAIM", claim)


@pytest.mark.parametrize(
    "header",
    [
        {"kid": "RSA-1"},
        {"kid": "rsa-"},
        {"kid": "rsa-1 "},
        {"kid": "../rsa-1"},
        {"kid": "rsa-1' OR '1'='1"},
        {"crit": []},
        {"b64": False, "crit": ["b64"]},
        {"alg": "PS256"},
    ],
)
def test_look_alike_headers_are_refused(
    header: dict[str, Any], keys: Keys, cache: JwksCache, published: JwksServer
) -> None:
    event_id = "3f2a1b4c-5d6e-4f70-8a9b-0c1d2e3f4a5b"
    alg = header.get("alg", "RS256")
    token = jwt.encode(claims(event_id), keys.rsa_key, algorithm=alg, headers={"kid": "rsa-1", **header})
    assert rejected(token, cache, published, event_id).code in ("UNKNOWN_KID", "INVALID_TOKEN")


@pytest.mark.parametrize(
    "overrides",
    [
        {"exp": NOW + 300.5},
        {"exp": NOW + 605},
        {"exp": NOW - 4},
        {"nbf": NOW + 5, "iat": NOW + 5},
        {"iss": "https://sender.example", "extra": {"nested": [1]}},
        {"jti": "3F2A1B4C-5D6E-4F70-8A9B-0C1D2E3F4A5B"},
    ],
)
def test_the_forms_the_contract_allows_are_accepted(
    overrides: dict[str, Any], keys: Keys, cache: JwksCache, published: JwksServer
) -> None:
    event_id = "3f2a1b4c-5d6e-4f70-8a9b-0c1d2e3f4a5b"
    token = sign(keys.rsa_key, claims(event_id, **overrides))
    assert verify(token, cache, published, event_id)["sub"] == TENANT_BASE_URL
