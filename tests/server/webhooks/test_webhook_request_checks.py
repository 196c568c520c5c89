"""Shape checks of an inbound webhook: timestamp window, event id version, content type, strict JSON, body size."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest
from starlette.requests import ClientDisconnect

from accessgov.errors import ApiError, InvalidRequest, PayloadTooLarge
from accessgov.http import body as bodies
from accessgov.webhooks import protocol
from accessgov.webhooks import request_checks as checks
from accessgov.webhooks.errors import SourceNotAllowedError, WebhookAuthError, WebhookRequestError

NOW = 1_767_225_600


def test_limits() -> None:
    assert protocol.MAX_BODY_BYTES == 65_536
    assert protocol.TIMESTAMP_WINDOW_SECONDS == 300
    assert protocol.MAX_JWT_LIFETIME_SECONDS == 600


@pytest.mark.parametrize(
    ("error_class", "status"),
    [(WebhookRequestError, 400), (WebhookAuthError, 401), (SourceNotAllowedError, 403)],
)
def test_error_classes_carry_code_message_field_and_status(error_class: type[ApiError], status: int) -> None:
    error = error_class("INVALID_ARGUMENT", "what went wrong", "Some-Header")
    assert (error.code, error.message, error.field, error.status) == (
        "INVALID_ARGUMENT",
        "what went wrong",
        "Some-Header",
        status,
    )
    assert str(error) == "what went wrong"
    assert error_class("INVALID_ARGUMENT", "y").field is None
    assert isinstance(error, ApiError)


# --- Webhook-Timestamp ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("offset", [-300, -299, -1, 0, 1, 299, 300])
def test_timestamp_within_five_minutes_either_way(offset: int) -> None:
    assert checks.parse_timestamp(str(NOW + offset), NOW) == NOW + offset


@pytest.mark.parametrize("offset", [-301, 301, -3600, 3600, -NOW])
def test_timestamp_outside_the_window(offset: int) -> None:
    with pytest.raises(WebhookRequestError) as excinfo:
        checks.parse_timestamp(str(NOW + offset), NOW)
    assert (excinfo.value.code, excinfo.value.field) == ("TIMESTAMP_OUT_OF_WINDOW", "Webhook-Timestamp")


def test_custom_window() -> None:
    checks.parse_timestamp(str(NOW + 60), NOW, window_seconds=60)
    with pytest.raises(WebhookRequestError):
        checks.parse_timestamp(str(NOW + 61), NOW, window_seconds=60)


def test_fractional_server_time() -> None:
    checks.parse_timestamp(str(NOW - 300), NOW + 0.99)
    with pytest.raises(WebhookRequestError):
        checks.parse_timestamp(str(NOW - 301), NOW + 0.99)


@pytest.mark.parametrize(
    "value",
    [
        "+1767225600",
        "-1767225600",
        "1767225600.0",
        "1767225600.5",
        "1.7672256e9",
        " 1767225600",
        "1767225600 ",
        "1767225600\n",
        "1_767_225_600",
        "0x694f1f00",
        "١٧٦٧٢٢٥٦٠٠",  # Arabic-Indic digits: int() would accept them
        "1767225600abc",
        "abc",
        "9" * 40,
    ],
)
def test_timestamp_must_be_plain_digits(value: str) -> None:
    with pytest.raises(WebhookRequestError) as excinfo:
        checks.parse_timestamp(value, NOW)
    assert excinfo.value.code == "INVALID_TIMESTAMP"


@pytest.mark.parametrize("value", [None, ""])
def test_missing_timestamp(value: str | None) -> None:
    with pytest.raises(WebhookRequestError) as excinfo:
        checks.parse_timestamp(value, NOW)
    assert (excinfo.value.code, excinfo.value.field) == ("MISSING_HEADER", "Webhook-Timestamp")


# --- Webhook-Event-Id -------------------------------------------------------------------------------------------


def _with_version(version: int) -> uuid.UUID:
    """A random RFC 4122 UUID with the given version nibble (the stdlib has no uuid7 in 3.11)."""
    value = uuid.uuid4().int & ~(0xF << 76) | (version << 76)
    return uuid.UUID(int=value)


@pytest.mark.parametrize(
    "value",
    [
        uuid.uuid1(),
        uuid.uuid3(uuid.NAMESPACE_URL, "https://accessgov.example"),
        uuid.uuid5(uuid.NAMESPACE_URL, "https://accessgov.example"),
        _with_version(6),
        _with_version(7),
        _with_version(8),
    ],
    ids=["v1", "v3", "v5", "v6", "v7", "v8"],
)
def test_other_uuid_versions_are_rejected(value: uuid.UUID) -> None:
    assert value.version != 4
    with pytest.raises(WebhookRequestError) as excinfo:
        checks.parse_event_id(str(value))
    assert (excinfo.value.code, excinfo.value.field) == ("INVALID_EVENT_ID", "Webhook-Event-Id")


def test_uuid4_is_accepted_lower_and_upper_case() -> None:
    value = uuid.uuid4()
    assert checks.parse_event_id(str(value)) == value
    assert checks.parse_event_id(str(value).upper()) == value


@pytest.mark.parametrize(
    "text",
    [
        str(uuid.uuid4()),
        str(uuid.uuid4()).upper(),
        "{" + str(uuid.uuid4()) + "}",
        uuid.uuid4().hex,
        str(uuid.uuid1()),
        "",
        None,
    ],
    ids=["v4", "v4-upper", "braces", "hex", "v1", "empty", "missing"],
)
def test_check_event_id_gives_parse_event_ids_verdict(text: str | None) -> None:
    try:
        checks.parse_event_id(text)
    except WebhookRequestError as error:
        with pytest.raises(WebhookRequestError) as excinfo:
            checks.check_event_id(text)
        assert (excinfo.value.code, str(excinfo.value)) == (error.code, str(error))
    else:
        checks.check_event_id(text)


@pytest.mark.parametrize(
    "value",
    [
        "00000000-0000-0000-0000-000000000000",  # nil
        "ffffffff-ffff-ffff-ffff-ffffffffffff",  # max
        "7f1d2c3b-4a5e-4f60-ca7b-9c0d1e2f3a4b",  # version nibble 4 but Microsoft variant
        "7f1d2c3b-4a5e-4f60-0a7b-9c0d1e2f3a4b",  # version nibble 4 but NCS variant
        "7f1d2c3b4a5e4f608a7b9c0d1e2f3a4b",  # no hyphens
        "{7f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b}",
        "urn:uuid:7f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b",
        " 7f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b",
        "7f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b\n",
        "7f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4",
        "7f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4bb",
        "7f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4g",
        "7f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4٤",
    ],
)
def test_malformed_event_ids(value: str) -> None:
    with pytest.raises(WebhookRequestError) as excinfo:
        checks.parse_event_id(value)
    assert excinfo.value.code == "INVALID_EVENT_ID"


@pytest.mark.parametrize("value", [None, ""])
def test_missing_event_id(value: str | None) -> None:
    with pytest.raises(WebhookRequestError) as excinfo:
        checks.parse_event_id(value)
    assert (excinfo.value.code, excinfo.value.field) == ("MISSING_HEADER", "Webhook-Event-Id")


# --- JSON body --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "value"),
    [
        (b'{"a":1}', {"a": 1}),
        (b"[]", []),
        (b'"text"', "text"),
        (b"42", 42),
        (b"null", None),
        ('{"name":"Zoë"}'.encode(), {"name": "Zoë"}),
        (b' \n{"a": [1.5, true]} ', {"a": [1.5, True]}),
    ],
)
def test_json_values_parse(body: bytes, value: object) -> None:
    assert bodies.parse_json_body(body) == value


@pytest.mark.parametrize(
    "body",
    [
        b"",
        b"   ",
        b"{",
        b"{'a': 1}",
        b'{"a": 1,}',
        b"NaN",
        b'{"a": NaN}',
        b"Infinity",
        b"[-Infinity]",
        b'{"a":1} {"b":2}',
        b'"\xff"',  # invalid UTF-8
        '{"name":"Zoë"}'.encode("latin-1"),
        '{"a":1}'.encode("utf-16"),  # json.loads(bytes) would sniff UTF-16; the body must be UTF-8
        b"\xef\xbb\xbf{}",  # UTF-8 BOM
        b"[" * 65_536,  # nested past the parser's recursion limit: a 400, not a crash
        b'{"amount": 1e400}',  # valid grammar, but no double holds it (and PostgreSQL would refuse to store it)
        b"[-1e999]",
    ],
    ids=lambda body: repr(body[:20]),
)
def test_invalid_json_rejected(body: bytes) -> None:
    with pytest.raises(InvalidRequest) as excinfo:
        bodies.parse_json_body(body)
    assert excinfo.value.code == "INVALID_JSON"


# --- body size --------------------------------------------------------------------------------------------------


class Stream:
    """An ASGI receive channel sending a body in fixed-size `http.request` messages, counting those received."""

    def __init__(self, total: int | None, chunk: int = 4096, *, disconnect_after: int | None = None) -> None:
        self.total, self.chunk, self.pulled, self.sent = total, chunk, 0, 0
        self.disconnect_after = disconnect_after

    async def receive(self) -> dict[str, Any]:
        if self.disconnect_after is not None and self.pulled == self.disconnect_after:
            return {"type": "http.disconnect"}
        self.pulled += 1
        size = self.chunk if self.total is None else min(self.chunk, self.total - self.sent)
        self.sent += size
        more = self.total is None or self.sent < self.total
        return {"type": "http.request", "body": b"a" * size, "more_body": more}


def read(stream: Stream, limit: int = protocol.MAX_BODY_BYTES) -> bytes:
    return asyncio.run(bodies.read_limited_body(stream.receive, limit))


def test_exactly_64_kib_is_read() -> None:
    assert read(Stream(64 * 1024)) == b"a" * 65_536


def test_one_byte_more_is_rejected() -> None:
    with pytest.raises(PayloadTooLarge) as excinfo:
        read(Stream(64 * 1024 + 1))
    assert excinfo.value.code == "PAYLOAD_TOO_LARGE" and excinfo.value.status == 413


def test_reading_stops_at_the_first_chunk_past_the_limit() -> None:
    stream = Stream(None)  # endless
    with pytest.raises(PayloadTooLarge):
        read(stream)
    assert stream.pulled == 17  # 16 chunks of 4 KiB fill 64 KiB; the 17th crosses it and nothing more is pulled


def test_one_huge_chunk_is_rejected_without_reading_on() -> None:
    stream = Stream(None, chunk=1_000_000)
    with pytest.raises(PayloadTooLarge):
        read(stream)
    assert stream.pulled == 1


def test_empty_and_small_bodies() -> None:
    assert read(Stream(0)) == b""
    assert read(Stream(10, chunk=3), limit=10) == b"a" * 10
    with pytest.raises(PayloadTooLarge):
        read(Stream(11, chunk=3), limit=10)


def test_a_client_gone_mid_body_is_a_disconnect() -> None:
    with pytest.raises(ClientDisconnect):
        read(Stream(10_000, chunk=100, disconnect_after=3))
