"""The HMAC method: `{timestamp}.{event_id}.{body}` under HMAC-SHA256 keyed with the secret text, base64url."""

from __future__ import annotations

import base64
import hashlib
import hmac
from collections.abc import Callable
from pathlib import Path

import pytest

from accessgov.webhooks import hmac_signature
from accessgov.webhooks.errors import WebhookAuthError
from tests.server.webhooks.webhook_vectors import HMAC_TEST_VECTOR

SECRET = "x8Jq3bqfQ2Vq0cVxv0hQm8n4lG7yXb0R6jvS3k1mZ2o"  # a fixed, valid 43-character secret
TIMESTAMP = "1767225600"
EVENT_ID = "0f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a"
# Chosen so that the signature contains both "-" and "_": the standard base64 alphabet then differs.
BODY = b'{"user":"alice","action":"access.requested","n":7}'


def independent_signature(key: bytes, timestamp: str, event_id: str, body: bytes) -> str:
    """The signature computed from the requirements alone, not from the library."""
    digest = hmac.new(key, timestamp.encode() + b"." + event_id.encode() + b"." + body, hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).decode().rstrip("=")


def test_generated_secret_is_256_random_bits_as_base64url_without_padding() -> None:
    secrets_ = {hmac_signature.generate_secret() for _ in range(20)}
    assert len(secrets_) == 20
    for secret in secrets_:
        assert len(secret) == 43 and "=" not in secret
        assert set(secret) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        assert len(base64.urlsafe_b64decode(secret + "=")) == 32


def test_signature_input_is_timestamp_event_id_and_exact_body_joined_by_periods() -> None:
    body = b'{"a": "x.y"}\n'
    assert hmac_signature.signature_input(TIMESTAMP, EVENT_ID, body) == f"{TIMESTAMP}.{EVENT_ID}.".encode() + body


def test_valid_signature_passes() -> None:
    signature = hmac_signature.compute_signature(SECRET, TIMESTAMP, EVENT_ID, BODY)
    assert signature == independent_signature(SECRET.encode(), TIMESTAMP, EVENT_ID, BODY)
    assert len(signature) == 43 and "=" not in signature
    hmac_signature.verify_signature(SECRET, TIMESTAMP, EVENT_ID, BODY, signature)


@pytest.mark.parametrize(
    ("secret", "timestamp", "event_id", "body"),
    [
        (SECRET, TIMESTAMP, EVENT_ID, BODY + b"\n"),
        (SECRET, TIMESTAMP, EVENT_ID, BODY.replace(b"alice", b"mallory")),
        (SECRET, TIMESTAMP, EVENT_ID, b""),
        (SECRET, "1767225601", EVENT_ID, BODY),
        (SECRET, TIMESTAMP, "0f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1b", BODY),
        (SECRET, TIMESTAMP, EVENT_ID.upper(), BODY),  # the header text is signed, not the parsed UUID
        (SECRET[:-1] + "p", TIMESTAMP, EVENT_ID, BODY),
        (hmac_signature.generate_secret(), TIMESTAMP, EVENT_ID, BODY),
    ],
    ids=["body-appended", "body-changed", "body-empty", "timestamp", "event-id", "event-id-case", "secret", "other"],
)
def test_any_change_is_rejected(secret: str, timestamp: str, event_id: str, body: bytes) -> None:
    signature = hmac_signature.compute_signature(SECRET, TIMESTAMP, EVENT_ID, BODY)
    with pytest.raises(WebhookAuthError) as excinfo:
        hmac_signature.verify_signature(secret, timestamp, event_id, body, signature)
    assert (excinfo.value.code, excinfo.value.field, excinfo.value.status) == (
        "SIGNATURE_MISMATCH",
        "Webhook-Signature",
        401,
    )


@pytest.mark.parametrize("signature", [None, ""])
def test_missing_signature(signature: str | None) -> None:
    with pytest.raises(WebhookAuthError) as excinfo:
        hmac_signature.verify_signature(SECRET, TIMESTAMP, EVENT_ID, BODY, signature)
    assert (excinfo.value.code, excinfo.value.field) == ("MISSING_AUTHENTICATION", "Webhook-Signature")


def test_key_is_the_secret_text_not_its_base64_decoding() -> None:
    decoded_key = base64.urlsafe_b64decode(SECRET + "=")
    as_text = independent_signature(SECRET.encode("utf-8"), TIMESTAMP, EVENT_ID, BODY)
    as_decoded = independent_signature(decoded_key, TIMESTAMP, EVENT_ID, BODY)
    assert as_text != as_decoded
    assert hmac_signature.compute_signature(SECRET, TIMESTAMP, EVENT_ID, BODY) == as_text
    hmac_signature.verify_signature(SECRET, TIMESTAMP, EVENT_ID, BODY, as_text)
    with pytest.raises(WebhookAuthError) as excinfo:
        hmac_signature.verify_signature(SECRET, TIMESTAMP, EVENT_ID, BODY, as_decoded)
    assert excinfo.value.code == "SIGNATURE_MISMATCH"


Mangle = Callable[[str], str]


def _raw(signature: str) -> bytes:
    return base64.urlsafe_b64decode(signature + "=")


@pytest.mark.parametrize(
    "mangle",
    [
        lambda s: s + "=",
        lambda s: s + "==",
        lambda s: base64.b64encode(_raw(s)).decode(),  # standard alphabet with padding
        lambda s: base64.b64encode(_raw(s)).decode().rstrip("="),  # standard alphabet, no padding
        lambda s: _raw(s).hex(),
        lambda s: "sha256=" + s,
        lambda s: "v1," + s,
        lambda s: s.swapcase(),
        lambda s: s[:-1],
        lambda s: s + "A",
        lambda s: " " + s,
        lambda s: s + "\u00e9",  # non-ASCII must be a clean mismatch, not a TypeError
    ],
    ids=["pad1", "pad2", "std-padded", "std", "hex", "prefix", "versioned", "case", "short", "long", "space", "utf8"],
)
def test_only_exact_unpadded_base64url_is_accepted(mangle: Mangle) -> None:
    signature = hmac_signature.compute_signature(SECRET, TIMESTAMP, EVENT_ID, BODY)
    assert "-" in signature and "_" in signature
    mangled = mangle(signature)
    assert mangled != signature
    with pytest.raises(WebhookAuthError) as excinfo:
        hmac_signature.verify_signature(SECRET, TIMESTAMP, EVENT_ID, BODY, mangled)
    assert excinfo.value.code == "SIGNATURE_MISMATCH"


def test_verification_compares_in_constant_time(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[object, object]] = []
    real = hmac.compare_digest

    def spy(a: bytes, b: bytes) -> bool:
        calls.append((a, b))
        return real(a, b)

    monkeypatch.setattr(hmac_signature.hmac, "compare_digest", spy)
    signature = hmac_signature.compute_signature(SECRET, TIMESTAMP, EVENT_ID, BODY)
    hmac_signature.verify_signature(SECRET, TIMESTAMP, EVENT_ID, BODY, signature)
    assert len(calls) == 1


# --- the published test vector ----------------------------------------------------------------------------------


def test_test_vector_inputs_are_well_formed() -> None:
    import uuid

    secret = HMAC_TEST_VECTOR["secret"]
    assert len(secret) == 43 and len(base64.urlsafe_b64decode(secret + "=")) == 32
    assert uuid.UUID(HMAC_TEST_VECTOR["event_id"]).version == 4
    assert HMAC_TEST_VECTOR["timestamp"].isdigit()
    assert isinstance(HMAC_TEST_VECTOR["body"], bytes)


def test_test_vector_is_the_one_the_spec_publishes() -> None:
    import yaml

    path = Path(__file__).resolve().parents[3] / "spec" / "paths" / "api_v1_webhooks_incoming_{listener_id}.yaml"
    published = yaml.safe_load(path.read_text(encoding="utf-8"))["post"]["x-hmac-test-vector"]
    v = HMAC_TEST_VECTOR
    assert published == {
        "secret": v["secret"], "timestamp": v["timestamp"], "eventId": v["event_id"], "body": v["body"].decode(),
        "signature": v["signature"],
    }  # fmt: skip


def test_test_vector_matches_the_library() -> None:
    v = HMAC_TEST_VECTOR
    assert hmac_signature.compute_signature(v["secret"], v["timestamp"], v["event_id"], v["body"]) == v["signature"]
    hmac_signature.verify_signature(v["secret"], v["timestamp"], v["event_id"], v["body"], v["signature"])


def test_test_vector_recomputed_with_the_standard_library_only() -> None:
    v = HMAC_TEST_VECTOR
    message = v["timestamp"].encode() + b"." + v["event_id"].encode() + b"." + v["body"]
    digest = hmac.new(v["secret"].encode("utf-8"), message, hashlib.sha256).digest()
    assert base64.urlsafe_b64encode(digest).rstrip(b"=").decode() == v["signature"]
    # The literal values, so an accidental edit of the constants is caught too.
    assert v["signature"] == "BUi0R7VR8TVjVukL5JugnjgzEc-dNdpd6wjt5h3IhDI"
    assert message == b'1767225600.7f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b.{"orderId":"A-1001","amount":42}'
