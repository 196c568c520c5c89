"""The SDK bounded against its server: hostile loopback servers (tests/support/hostile.py) end every call with a
typed error, sync and async, for an API call, the OAuth2 token request and a webhook delivery.

What each server sent before the SDK hung up, and how long the call took, are written to `build/hostile-sdk/`
(measured, not asserted: the machine's load is not the SDK's behaviour); the assertions are that the call ended
with the bound's error long before the server was done.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from accessgov_client import (
    DEFAULT_MAX_PAGES,
    AccessGov,
    ApiError,
    AsyncAccessGov,
    ClientCredentials,
    DeadlineExceededError,
    PageLimitError,
    PagingLoopError,
    ResponseTooLargeError,
    Retry,
    TransportBoundError,
    UndecodableResponseError,
    WebhookSender,
)

from tests.support import hostile

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
MEASUREMENTS = ROOT / "build" / "hostile-sdk"
DEADLINE = 1.0  # the drips would take 83 minutes
ROOMY = 30.0  # where the size cap, not the clock, must end the answer
CAP = 8 * 1024 * 1024
SECRET = "s" * 43
WEBHOOK = "/api/v1/webhooks/incoming/wh_1"


def _call(url: str, **options: Any) -> None:
    with AccessGov(url, token="t", retry=None, **options) as api:
        api.list_app_entitlements(app_id="a")


def _acall(url: str, **options: Any) -> None:
    async def main() -> None:
        async with AsyncAccessGov(url, token="t", retry=None, **options) as api:
            await api.list_app_entitlements(app_id="a")

    asyncio.run(main())


def _token(url: str, **options: Any) -> None:
    with AccessGov(url, credentials=ClientCredentials("c", "secret"), retry=None, **options) as api:
        api.list_app_entitlements(app_id="a")  # the token request comes first, and meets the server first


def _atoken(url: str, **options: Any) -> None:
    async def main() -> None:
        async with AsyncAccessGov(url, credentials=ClientCredentials("c", "secret"), retry=None, **options) as api:
            await api.list_app_entitlements(app_id="a")

    asyncio.run(main())


def _webhook(url: str, **options: Any) -> None:
    WebhookSender(url + WEBHOOK, secret=SECRET, retry=None, **options).send(b"{}")


def _awebhook(url: str, **options: Any) -> None:
    asyncio.run(WebhookSender(url + WEBHOOK, secret=SECRET, retry=None, **options).asend(b"{}"))


ENTRIES: dict[str, Callable[..., None]] = {
    "call": _call,
    "async-call": _acall,
    "token": _token,
    "async-token": _atoken,
    "webhook": _webhook,
    "async-webhook": _awebhook,
}

# behaviour -> (timeout, the error, what its message says)
CASES: dict[str, tuple[float, type[TransportBoundError], str]] = {
    "slow-drip": (DEADLINE, DeadlineExceededError, f"no complete answer within {DEADLINE:g} s (timeout"),
    "slow-body": (DEADLINE, DeadlineExceededError, f"no complete answer within {DEADLINE:g} s (timeout"),
    "chunked-stall": (DEADLINE, DeadlineExceededError, "no complete answer within"),
    "silent": (DEADLINE, DeadlineExceededError, "no complete answer within"),
    "gzip-bomb": (ROOMY, ResponseTooLargeError, f"the gzip answer decompresses to more than {CAP} bytes"),
    "deflate-bomb": (ROOMY, ResponseTooLargeError, f"the deflate answer decompresses to more than {CAP} bytes"),
    "raw-deflate-bomb": (ROOMY, ResponseTooLargeError, f"the deflate answer decompresses to more than {CAP} bytes"),
    "huge-body": (ROOMY, ResponseTooLargeError, f"the answer exceeds {CAP} bytes (max_response_bytes): Content-Length"),
    "chunked-flood": (ROOMY, ResponseTooLargeError, f"the answer exceeds {CAP} bytes (max_response_bytes)"),
    "until-close": (ROOMY, ResponseTooLargeError, f"the answer exceeds {CAP} bytes (max_response_bytes)"),
    "brotli": (ROOMY, UndecodableResponseError, "Content-Encoding 'br', which the SDK did not accept"),
}
# What each server would send if nobody hung up (the floods never end).
WHOLE = {
    "slow-drip": len(hostile.DRIPPED) + 80,
    "slow-body": len(hostile.DRIPPED),
    "huge-body": hostile.HUGE,
}


def record(name: str, **values: object) -> None:
    """Write one measurement to `build/hostile-sdk/<name>.json`."""
    MEASUREMENTS.mkdir(parents=True, exist_ok=True)
    (MEASUREMENTS / f"{name}.json").write_text(json.dumps(values, indent=2, sort_keys=True) + "\n")


@pytest.mark.parametrize("entry", ENTRIES)
@pytest.mark.parametrize("behaviour", CASES)
def test_a_hostile_server_ends_the_call_with_the_bounds_error(behaviour: str, entry: str) -> None:
    timeout, expected, message = CASES[behaviour]
    with hostile.serve(behaviour) as server:
        started = time.monotonic()
        with pytest.raises(TransportBoundError) as raised:
            ENTRIES[entry](server.base_url, timeout=timeout)
        seconds = time.monotonic() - started
        time.sleep(0.05)  # the server notices the hang-up
        sent = server.sent
    error = raised.value
    assert type(error) is expected, repr(error)
    assert message in str(error), str(error)
    assert isinstance(error, httpx.TransportError)
    assert server.requests == 1  # no retry was asked for
    if expected is DeadlineExceededError:
        assert isinstance(error, httpx.TimeoutException)  # retried by a policy as any timeout is
        assert sent < 200, sent  # the head at most and a byte or chunk every 0.5 s for 1 s, not the whole drip
    if behaviour in WHOLE:
        assert sent < WHOLE[behaviour] // 2, sent
    if behaviour in ("chunked-flood", "until-close"):
        assert sent < 4 * CAP, sent  # the cap and what socket buffers hold, never the endless rest
    record(f"{behaviour}-{entry}", error=type(error).__name__, message=str(error), seconds=round(seconds, 2),
           server_sent_bytes=sent)  # fmt: skip


def test_one_deadline_bounds_the_call_its_retries_included() -> None:
    """A server that drips past `timeout=` gets one attempt: the call's time is spent, so it is not retried."""
    with hostile.serve("slow-body") as server, pytest.raises(DeadlineExceededError):
        api = AccessGov(server.base_url, token="t", timeout=DEADLINE, retry=Retry(total=2, backoff_factor=0))
        api.list_app_entitlements(app_id="a")
    assert server.requests == 1


def _in_turn(*answers: bytes) -> hostile.Behaviour:
    """Each request gets the next of `answers` (the last one again once they run out)."""
    sent: list[int] = []

    def act(sock: hostile.Counted) -> None:
        sock.sendall(answers[min(len(sent), len(answers) - 1)])
        sent.append(1)

    return act


def _unavailable(retry_after: int) -> bytes:
    body = json.dumps({"code": "UNAVAILABLE", "message": "later"}).encode()
    head = ["HTTP/1.1 503 Service Unavailable", "Content-Type: application/json", f"Content-Length: {len(body)}"]
    return "\r\n".join([*head, f"Retry-After: {retry_after}", "", ""]).encode() + body


@pytest.mark.parametrize("sync", [True, False], ids=["sync", "async"])
def test_a_retry_wait_past_the_deadline_is_not_started(sync: bool) -> None:
    """A 503 asking for 30 s, with 1 s of the call left: no wait, no second attempt; the 503's typed error at once."""
    with hostile.serve(_in_turn(_unavailable(30))) as server:
        options: dict[str, Any] = {"token": "t", "timeout": DEADLINE, "retry": Retry(total=3, backoff_factor=0)}
        started = time.monotonic()
        with pytest.raises(ApiError) as raised:
            if sync:
                AccessGov(server.base_url, **options).list_app_entitlements(app_id="a")
            else:

                async def main() -> None:
                    async with AsyncAccessGov(server.base_url, **options) as api:
                        await api.list_app_entitlements(app_id="a")

                asyncio.run(main())
        seconds = time.monotonic() - started
    assert raised.value.status == 503
    assert server.requests == 1
    record(f"retry-after-past-the-deadline-{'sync' if sync else 'async'}", seconds=round(seconds, 2))


@pytest.mark.parametrize("sync", [True, False], ids=["sync", "async"])
def test_a_retry_within_the_deadline_still_answers(sync: bool) -> None:
    page = json.dumps({"list": [], "nextPageToken": ""}).encode()
    ok = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(page) + page
    with hostile.serve(_in_turn(_unavailable(0), ok)) as server:
        options: dict[str, Any] = {"token": "t", "timeout": 10.0, "retry": Retry(total=3, backoff_factor=0)}
        if sync:
            result = AccessGov(server.base_url, **options).list_app_entitlements(app_id="a")
        else:

            async def main() -> Any:
                async with AsyncAccessGov(server.base_url, **options) as api:
                    return await api.list_app_entitlements(app_id="a")

            result = asyncio.run(main())
    assert result.next_page_token == ""
    assert server.requests == 2


def test_an_answer_over_the_cap_is_not_retried() -> None:
    with hostile.serve("chunked-flood") as server, pytest.raises(ResponseTooLargeError):
        AccessGov(server.base_url, token="t", retry=Retry(total=3, backoff_factor=0)).list_app_entitlements(app_id="a")
    assert server.requests == 1


def _answer(body: bytes, *headers: str) -> hostile.Behaviour:
    head = ["HTTP/1.1 200 OK", "Content-Type: application/json", f"Content-Length: {len(body)}", *headers, "", ""]
    return lambda sock: sock.sendall("\r\n".join(head).encode() + body)


def _page(size: int) -> bytes:
    """A page of the contract exactly `size` bytes long (padded in its token)."""
    empty = json.dumps({"list": [], "nextPageToken": ""}).encode()
    return json.dumps({"list": [], "nextPageToken": "x" * (size - len(empty))}).encode()


def _raw_deflate(data: bytes) -> bytes:
    compressor = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    return compressor.compress(data) + compressor.flush()


CODINGS: dict[str, Callable[[bytes], bytes]] = {
    "identity": lambda data: data,
    "gzip": gzip.compress,
    "deflate": zlib.compress,
    "raw-deflate": _raw_deflate,
}


@pytest.mark.parametrize("coding", CODINGS)
def test_the_cap_holds_at_its_boundary_received_and_decoded(coding: str) -> None:
    cap = 1000
    for size, fits in ((cap, True), (cap + 1, False)):
        body = CODINGS[coding](_page(size))
        header = () if coding == "identity" else (f"Content-Encoding: {coding.removeprefix('raw-')}",)
        with hostile.serve(_answer(body, *header)) as server:
            api = AccessGov(server.base_url, token="t", retry=None, max_response_bytes=cap)
            if fits:
                assert api.list_app_entitlements(app_id="a").next_page_token.startswith("x")
            else:
                with pytest.raises(ResponseTooLargeError, match=f"more than {cap} bytes|exceeds {cap} bytes"):
                    api.list_app_entitlements(app_id="a")


def test_two_stacked_codings_decode_more_or_a_broken_body_are_refused() -> None:
    page = _page(200)
    twice = gzip.compress(gzip.compress(page))
    with hostile.serve(_answer(twice, "Content-Encoding: gzip, gzip")) as server:
        assert AccessGov(server.base_url, token="t").list_app_entitlements(app_id="a").list_ == []
    thrice = gzip.compress(twice)
    stacked = hostile.serve(_answer(thrice, "Content-Encoding: gzip, gzip, gzip"))
    with stacked as server, pytest.raises(UndecodableResponseError, match="3 content codings"):
        AccessGov(server.base_url, token="t", retry=None).list_app_entitlements(app_id="a")
    broken = hostile.serve(_answer(b"\x1f\x8b not gzip at all", "Content-Encoding: gzip"))
    with broken as server, pytest.raises(UndecodableResponseError, match="the gzip body does not decode"):
        AccessGov(server.base_url, token="t", retry=None).list_app_entitlements(app_id="a")


def test_the_default_page_bound_ends_an_endless_walk_sync_and_async() -> None:
    with hostile.serve("endless-pages") as server:
        walk = AccessGov(server.base_url, token="t").paginate("list_app_entitlements", app_id="a")
        started = time.monotonic()
        with pytest.raises(PageLimitError, match=f"max_pages={DEFAULT_MAX_PAGES}") as raised:
            for _ in walk:
                pass
        record("endless-pages-call", pages=server.requests, seconds=round(time.monotonic() - started, 2))
    assert server.requests == DEFAULT_MAX_PAGES == 1000
    assert isinstance(raised.value, PagingLoopError)  # both guards say: this walk would not end by itself

    async def walk_async(url: str) -> int:
        async with AsyncAccessGov(url, token="t", max_pages=7) as api:
            return len([item async for item in api.paginate("list_app_entitlements", app_id="a")])

    with hostile.serve("endless-pages") as server, pytest.raises(PageLimitError, match="max_pages=7"):
        asyncio.run(walk_async(server.base_url))
    assert server.requests == 7


def test_max_pages_none_lifts_the_clients_bound_for_one_walk() -> None:
    pages = iter(range(5, 0, -1))

    def countdown(sock: hostile.Counted) -> None:
        left = next(pages)
        body = json.dumps({"list": [{"appEntitlement": {"id": f"e{left}"}}], "nextPageToken": f"t{left - 1}"})
        _answer(body.replace('"t0"', '""').encode())(sock)

    with hostile.serve(countdown) as server:
        api = AccessGov(server.base_url, token="t", max_pages=3)
        ids = [item.app_entitlement.id for item in api.paginate("list_app_entitlements", app_id="a", max_pages=None)]
    assert ids == ["e5", "e4", "e3", "e2", "e1"]


@pytest.mark.parametrize("entry", ENTRIES)
def test_a_cross_origin_redirect_is_not_followed_and_carries_no_credentials(entry: str) -> None:
    with hostile.serve("html") as elsewhere, hostile.serve(hostile.redirect_to(elsewhere.base_url + "/x")) as server:
        with pytest.raises(ApiError, match="HTTP 307") as raised:
            ENTRIES[entry](server.base_url)
        assert server.requests == 1
    assert elsewhere.requests == 0  # neither the bearer token, the client secret nor a signed delivery went there
    assert raised.value.status == 307


TOKEN_ANSWERS: dict[str, bytes] = {
    "html": b"<!doctype html><h1>Welcome</h1>",
    "array": b"[]",
    "empty-object": b"{}",
    "access-token-a-number": b'{"access_token": 5, "token_type": "Bearer"}',
    "access-token-empty": b'{"access_token": "", "token_type": "Bearer"}',
    "access-token-with-a-newline": b'{"access_token": "a\\r\\nX-Injected: 1", "token_type": "Bearer"}',
    "token-type-mac": b'{"access_token": "abc", "token_type": "mac"}',
    "token-type-a-list": b'{"access_token": "abc", "token_type": ["Bearer"]}',
    "expires-in-text": b'{"access_token": "abc", "token_type": "Bearer", "expires_in": "soon"}',
    "expires-in-nan": b'{"access_token": "abc", "token_type": "Bearer", "expires_in": NaN}',
    "expires-in-true": b'{"access_token": "abc", "token_type": "Bearer", "expires_in": true}',
}


@pytest.mark.parametrize("entry", ["token", "async-token"])
@pytest.mark.parametrize("answer", TOKEN_ANSWERS)
def test_a_token_endpoint_answering_no_token_is_a_typed_error(entry: str, answer: str) -> None:
    behaviour = _answer(TOKEN_ANSWERS[answer])
    with hostile.serve(behaviour) as server, pytest.raises(UndecodableResponseError, match="get_token: HTTP 200"):
        ENTRIES[entry](server.base_url)
    assert server.requests == 1  # the token request only: no call went out without a token
