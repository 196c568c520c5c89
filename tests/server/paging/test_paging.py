"""The server side of the pagination convention: page sizes, signed page tokens, keyset pages, declarations."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import math
import re
import string
import struct
from typing import Any

import pytest

from accessgov.paging import (
    PageRequest,
    PageSizeError,
    PageTokenCodec,
    PageTokenError,
    PagingError,
    clamp_page_size,
    collection_key,
    page_response,
    parse_page_request,
)
from accessgov.paging import tokens as paging_tokens
from accessgov.paging.limits import TOKEN_VERSION

SECRET = b"s" * 32
COLLECTION = "apps/app-1/entitlements"
ALPHABET = string.ascii_letters + string.digits + "-_"
T0 = 1_770_000_000


class Clock:
    def __init__(self, now: float = T0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def codec(clock: Clock) -> PageTokenCodec:
    return PageTokenCodec(SECRET, clock=clock)


# ------------------------------------------------------------------------------------------- page size


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (9, 10),
        (10, 10),
        (37, 37),
        (100, 100),
        (101, 100),
        (-5, 10),
        (0, 10),
        (10**30, 100),
        (None, 25),
        ("", 25),
        ("9", 10),
        ("50", 50),
        ("+50", 50),
        ("-5", 10),
        ("0050", 50),
        ("0" * 40 + "37", 37),
        ("9" * 5000, 100),
        ("-" + "9" * 5000, 10),
        (50.0, 50),
    ],
)
def test_clamp_page_size(value: Any, expected: int) -> None:
    assert clamp_page_size(value) == expected


NOT_INTEGERS = ["abc", "1.5", "1e3", " 12", "12 ", "12\n", "0x10", "1_000", "-", "+", "--5", "١٢", "½"]


@pytest.mark.parametrize("value", [*NOT_INTEGERS, True, False, 1.5, math.nan, math.inf, [10], {"n": 10}, b"10"])
def test_clamp_page_size_rejects_non_integers(value: Any) -> None:
    with pytest.raises(PageSizeError) as caught:
        clamp_page_size(value)
    assert caught.value.code == "INVALID_PAGE_SIZE"
    assert caught.value.param == "page_size"
    assert isinstance(caught.value, ValueError)
    assert "page_size must be an integer" in str(caught.value)


def test_clamp_page_size_custom_bounds() -> None:
    assert clamp_page_size(None, minimum=1, maximum=5, default=3) == 3
    assert clamp_page_size("0", minimum=1, maximum=5, default=3) == 1
    assert clamp_page_size(7, minimum=1, maximum=5, default=3) == 5
    with pytest.raises(ValueError, match="minimum <= default <= maximum"):
        clamp_page_size(None, minimum=10, maximum=100, default=5)


# ------------------------------------------------------------------------------------------ page token


@pytest.mark.parametrize(
    "cursor",
    [("ent-0000001",), ("a", 5), (0,), (-3, "ü日本", ""), (2**70, "x" * 200), ("a,b", '"]', "\x00")],
)
def test_token_round_trip(codec: PageTokenCodec, cursor: tuple[Any, ...]) -> None:
    token = codec.encode(COLLECTION, cursor)
    assert re.fullmatch(r"[A-Za-z0-9_-]+", token), "base64url without padding"
    assert codec.decode(token, COLLECTION) == cursor


def test_token_is_short(codec: PageTokenCodec) -> None:
    token = codec.encode(COLLECTION, ["ent-" + "0" * 26])  # a 30-character string key
    assert len(token) == 79
    assert len(codec.encode(COLLECTION, ["x" * 30, 123456])) < 120


@pytest.mark.parametrize("key", ["ent-0000042", "ent-00000042", "ent-000000042"])
def test_every_single_character_alteration_is_rejected(codec: PageTokenCodec, key: str) -> None:
    # The three keys give all three lengths modulo 4 of a token, so the last character has 0, 2 or 4 unused
    # bits: changing only those must be rejected too.
    token = codec.encode(COLLECTION, [key, 7])
    altered = 0
    for position in range(len(token)):
        for char in ALPHABET + "=+/. ":
            if char == token[position]:
                continue
            forged = token[:position] + char + token[position + 1 :]
            with pytest.raises(PageTokenError) as caught:
                codec.decode(forged, COLLECTION)
            assert caught.value.code == "INVALID_PAGE_TOKEN"
            altered += 1
    assert altered == len(token) * (len(ALPHABET) + 4)


def test_token_lengths_cover_every_remainder(codec: PageTokenCodec) -> None:
    lengths = {len(codec.encode(COLLECTION, [key, 7])) % 4 for key in ["ent-0000042", "ent-00000042", "ent-000000042"]}
    assert lengths == {0, 2, 3}


def test_every_truncation_and_extension_is_rejected(codec: PageTokenCodec) -> None:
    token = codec.encode(COLLECTION, ["ent-0000042"])
    for length in range(len(token)):
        with pytest.raises(PageTokenError):
            codec.decode(token[:length], COLLECTION)
    for suffix in ["A", "AA", "AAA", "AAAA", "="]:
        with pytest.raises(PageTokenError):
            codec.decode(token + suffix, COLLECTION)


def test_token_of_another_collection_is_rejected(codec: PageTokenCodec) -> None:
    token = codec.encode("apps/app-1/entitlements", ["ent-1"])
    for other in ["apps/app-2/entitlements", "apps/app-1/entitlements ", "apps/app-1", ""]:
        with pytest.raises(PageTokenError, match="another listing") as caught:
            codec.decode(token, other)
        assert caught.value.reason == "signature"
    filtered = collection_key(COLLECTION, {"q": "admin"})
    token = codec.encode(filtered, ["ent-1"])
    assert codec.decode(token, collection_key(COLLECTION, {"q": "admin"})) == ("ent-1",)
    for other in [COLLECTION, collection_key(COLLECTION, {"q": "admins"})]:
        with pytest.raises(PageTokenError):
            codec.decode(token, other)


def test_collection_key() -> None:
    assert collection_key(COLLECTION) == COLLECTION
    assert collection_key(COLLECTION, {}) == COLLECTION
    assert collection_key(COLLECTION, {"a": 1, "b": [1, 2]}) == collection_key(COLLECTION, {"b": [1, 2], "a": 1})
    assert collection_key(COLLECTION, {"a": 1}) != collection_key(COLLECTION, {"a": "1"})
    assert collection_key(COLLECTION, {"a": 1}).startswith(COLLECTION + "#filters=")


def test_token_signed_with_another_secret_is_rejected(codec: PageTokenCodec, clock: Clock) -> None:
    forged = PageTokenCodec(b"t" * 32, clock=clock).encode(COLLECTION, ["ent-1"])
    with pytest.raises(PageTokenError) as caught:
        codec.decode(forged, COLLECTION)
    assert caught.value.reason == "signature"


@pytest.mark.parametrize(
    "garbage",
    ["", "!!!!", "abc=", "a", "AAAA", "A" * 40, "====", " ", "eyJhbGciOiJIUzI1NiJ9", "é" * 10, "x" * 5000, "ab\ncd"],
)
def test_garbage_is_rejected(codec: PageTokenCodec, garbage: str) -> None:
    with pytest.raises(PageTokenError) as caught:
        codec.decode(garbage, COLLECTION)
    assert caught.value.code == "INVALID_PAGE_TOKEN"


@pytest.mark.parametrize("not_a_string", [None, 123, b"AAAA", ["AAAA"]])
def test_non_string_token_is_rejected(codec: PageTokenCodec, not_a_string: Any) -> None:
    with pytest.raises(PageTokenError, match="must be a string"):
        codec.decode(not_a_string, COLLECTION)


def test_expiry_with_injected_clock(clock: Clock) -> None:
    codec = PageTokenCodec(SECRET, max_age_seconds=3600, clock=clock)
    token = codec.encode(COLLECTION, ["ent-1"])
    clock.now = T0 + 3600
    assert codec.decode(token, COLLECTION) == ("ent-1",)
    clock.now = T0 + 3601
    with pytest.raises(PageTokenError, match="expired") as caught:
        codec.decode(token, COLLECTION)
    assert caught.value.reason == "expired"
    forever = PageTokenCodec(SECRET, max_age_seconds=None, clock=clock)
    clock.now = T0 + 10 * 365 * 86400
    assert forever.decode(token, COLLECTION) == ("ent-1",)


def test_default_max_age_is_a_day(codec: PageTokenCodec, clock: Clock) -> None:
    token = codec.encode(COLLECTION, ["ent-1"])
    clock.now = T0 + 86400
    assert codec.decode(token, COLLECTION) == ("ent-1",)
    clock.now = T0 + 86401
    with pytest.raises(PageTokenError, match="expired"):
        codec.decode(token, COLLECTION)


def test_token_from_the_future_is_rejected(clock: Clock) -> None:
    future = PageTokenCodec(SECRET, clock=Clock(T0 + 3600)).encode(COLLECTION, ["ent-1"])
    with pytest.raises(PageTokenError, match="future"):
        PageTokenCodec(SECRET, clock=clock).decode(future, COLLECTION)
    slightly = PageTokenCodec(SECRET, clock=Clock(T0 + 60)).encode(COLLECTION, ["ent-1"])
    assert PageTokenCodec(SECRET, clock=clock).decode(slightly, COLLECTION) == ("ent-1",)


def test_unknown_version_is_rejected(codec: PageTokenCodec, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(paging_tokens, "TOKEN_VERSION", 2)
    newer = codec.encode(COLLECTION, ["ent-1"])  # correctly signed, by a newer server
    monkeypatch.setattr(paging_tokens, "TOKEN_VERSION", 1)
    assert base64.urlsafe_b64decode(newer + "=" * (-len(newer) % 4))[0] == 2
    with pytest.raises(PageTokenError, match="version 2") as caught:
        codec.decode(newer, COLLECTION)
    assert caught.value.reason == "version"
    assert codec.decode(codec.encode(COLLECTION, ["ent-1"]), COLLECTION) == ("ent-1",)


def test_signed_token_without_a_valid_cursor_is_rejected(codec: PageTokenCodec) -> None:
    for body in [b"[]", b"[1.5]", b"[true]", b'{"a":1}', b"[[1]]", b"\xff\xfe"]:
        signed = paging_tokens._HEADER.pack(TOKEN_VERSION, T0) + body
        raw = signed + codec._mac(COLLECTION, signed)
        token = base64.urlsafe_b64encode(raw).rstrip(b"=").decode()
        with pytest.raises(PageTokenError) as caught:
            codec.decode(token, COLLECTION)
        assert caught.value.reason == "cursor"


@pytest.mark.parametrize("cursor", [(), [], "abc", ("a", 1.5), (True,), (None,), ([1],)])
def test_encode_rejects_bad_cursors(codec: PageTokenCodec, cursor: Any) -> None:
    with pytest.raises(ValueError, match="non-empty sequence"):
        codec.encode(COLLECTION, cursor)


@pytest.mark.parametrize("secret", [b"", "text-secret", None])
def test_codec_needs_a_bytes_secret(secret: Any) -> None:
    with pytest.raises(ValueError, match="secret"):
        PageTokenCodec(secret)


# --------------------------------------------------------------------------------------------- request


def test_parse_page_request(codec: PageTokenCodec) -> None:
    assert parse_page_request(None, None, codec=codec, collection=COLLECTION) == PageRequest(25, None)
    assert parse_page_request("", "", codec=codec, collection=COLLECTION) == PageRequest(25, None)
    assert parse_page_request("5", None, codec=codec, collection=COLLECTION) == PageRequest(10, None)
    token = codec.encode(COLLECTION, ["ent-9", 3])
    assert parse_page_request(500, token, codec=codec, collection=COLLECTION) == PageRequest(100, ("ent-9", 3))
    assert parse_page_request(7, None, codec=codec, collection=COLLECTION, minimum=1, default=2) == PageRequest(7)


@pytest.mark.parametrize(("page_size", "page_token", "error"), [
    ("abc", None, PageSizeError),
    (1.5, None, PageSizeError),  # a POST body's JSON number
    (True, None, PageSizeError),
    ("abc", "forged", PageSizeError),  # the size is checked first
    (None, "forged", PageTokenError),
    (10, 12345, PageTokenError),  # a POST body's JSON number as token
])  # fmt: skip
def test_parse_page_request_errors(codec: PageTokenCodec, page_size: Any, page_token: Any, error: type) -> None:
    with pytest.raises(error) as caught:
        parse_page_request(page_size, page_token, codec=codec, collection=COLLECTION)
    assert isinstance(caught.value, PagingError)
    assert caught.value.code == {PageSizeError: "INVALID_PAGE_SIZE", PageTokenError: "INVALID_PAGE_TOKEN"}[error]


def test_page_response(codec: PageTokenCodec) -> None:
    assert page_response([1, 2], None, codec=codec, collection=COLLECTION) == {"list": [1, 2], "nextPageToken": ""}
    body = page_response([{"id": "a"}], ("a",), codec=codec, collection=COLLECTION)
    assert body["list"] == [{"id": "a"}]
    assert codec.decode(body["nextPageToken"], COLLECTION) == ("a",)
    assert page_response([], None, codec=codec, collection=COLLECTION) == {"list": [], "nextPageToken": ""}


# ------------------------------------------------------------------------------------------ keyset SQL


@pytest.mark.parametrize("cursor", [("ent-0025",), ("é", 7), ["a", "b"]])
def test_token_bytes_follow_the_documented_layout(codec: PageTokenCodec, cursor: Any) -> None:
    """version | issued_at | compact JSON cursor | HMAC-SHA256(label | len(collection) | collection | all before)
    truncated to 16 bytes: tokens issued by an earlier release keep verifying, whatever computes the MAC."""
    token = codec.encode(COLLECTION, cursor)
    raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
    signed = struct.pack(">BQ", 1, T0) + json.dumps(list(cursor), separators=(",", ":"), ensure_ascii=False).encode()
    name = COLLECTION.encode()
    message = b"accessgov/page-token\x00" + struct.pack(">I", len(name)) + name + signed
    assert raw == signed + hmac.new(SECRET, message, hashlib.sha256).digest()[:16]
    assert codec.decode(token, COLLECTION) == tuple(cursor)
