"""A 2xx answer whose body the SDK cannot read as the operation's result ends the call with
`UndecodableResponseError` (sync and async, a call and a walk): never a raw `ValueError`, `KeyError`, `TypeError`
or `RecursionError` of the generated parsing. What the contract allows the SDK to meet (unknown members, unknown
enumeration values) is kept."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from accessgov_client import AccessGov, ApiError, AsyncAccessGov, UndecodableResponseError
from accessgov_client.models import TaskActionsServiceRestartRequest

from tests.support import hostile

PAGE = {"list": [{"appEntitlement": {"id": "e1", "appId": "a"}}], "nextPageToken": ""}
JSON = "application/json"

# name -> (body, content type, what the message says)
UNREADABLE: dict[str, tuple[bytes, str, str]] = {
    "html": (b"<!doctype html><h1>Welcome</h1>", "text/html; charset=utf-8", "not the JSON the operation returns"),
    "json-labelled-html": (json.dumps(PAGE).encode(), "text/html", "'text/html', not the JSON"),
    "json-labelled-text": (json.dumps(PAGE).encode(), "text/plain", "'text/plain', not the JSON"),
    "empty": (b"", JSON, "JSONDecodeError"),
    "whitespace": (b"  \r\n", JSON, "JSONDecodeError"),
    "truncated": (b'{"list": [{"appEntitlement": {"id"', JSON, "JSONDecodeError"),
    "invalid-utf8": (b'{"list": [], "nextPageToken": "\xff\xfe"}', JSON, "not UTF-8"),
    "utf-16": (json.dumps(PAGE).encode("utf-16"), JSON, "not UTF-8"),
    "top-level-array": (b"[1, 2, 3]", JSON, "not the JSON"),
    "empty-array": (b"[]", JSON, "not the JSON"),
    "string": (b'"hello"', JSON, "not the JSON"),
    "null": (b"null", JSON, "not the JSON"),
    "number": (b"12", JSON, "not the JSON"),
    "list-not-an-array": (b'{"list": "nope", "nextPageToken": ""}', JSON, "not the JSON"),
    "items-not-objects": (b'{"list": [1, "x", null], "nextPageToken": ""}', JSON, "not the JSON"),
    "nested-100k-deep": (b"[" * 100_000 + b"]" * 100_000, JSON, "nested deeper than the SDK reads"),
    "deep-member": (b'{"list": ' + b"[" * 50_000 + b"]" * 50_000 + b"}", JSON, "nested deeper"),
    "5000-digit-number": (b'{"list": [], "nextPageToken": "", "total": ' + b"9" * 5000 + b"}", JSON, "not the JSON"),
}


def _answer(body: bytes, content_type: str, status: int = 200) -> hostile.Behaviour:
    head = [f"HTTP/1.1 {status} X", f"Content-Type: {content_type}", f"Content-Length: {len(body)}", "", ""]
    return lambda sock: sock.sendall("\r\n".join(head).encode() + body)


def _call(url: str) -> Any:
    with AccessGov(url, token="t", retry=None) as api:
        return api.list_app_entitlements(app_id="a")


def _walk(url: str) -> Any:
    with AccessGov(url, token="t", retry=None) as api:
        return list(api.paginate("list_app_entitlements", app_id="a"))


def _async_call(url: str) -> Any:
    async def main() -> Any:
        async with AsyncAccessGov(url, token="t", retry=None) as api:
            return await api.list_app_entitlements(app_id="a")

    return asyncio.run(main())


def _async_walk(url: str) -> Any:
    async def main() -> Any:
        async with AsyncAccessGov(url, token="t", retry=None) as api:
            return [item async for item in api.paginate("list_app_entitlements", app_id="a")]

    return asyncio.run(main())


def _restart(url: str) -> Any:
    with AccessGov(url, token="t", retry=None) as api:
        return api.restart_task("1", body=TaskActionsServiceRestartRequest())


ENTRIES = {"call": _call, "walk": _walk, "async-call": _async_call, "async-walk": _async_walk}


@pytest.mark.parametrize("entry", ENTRIES)
@pytest.mark.parametrize("case", UNREADABLE)
def test_an_unreadable_2xx_body_is_an_undecodable_response_error(case: str, entry: str) -> None:
    body, content_type, message = UNREADABLE[case]
    with hostile.serve(_answer(body, content_type)) as server, pytest.raises(UndecodableResponseError) as raised:
        ENTRIES[entry](server.base_url)
    assert message in str(raised.value), str(raised.value)
    assert "list_app_entitlements: HTTP 200" in str(raised.value)
    assert server.requests == 1  # never retried: the same server would send the same body
    assert len(str(raised.value)) < 600  # the body's text is quoted, not pasted whole


def test_a_restart_answered_with_an_array_is_refused_and_a_page_token_of_the_wrong_type_too() -> None:
    with hostile.serve(_answer(b"[]", JSON)) as server, pytest.raises(UndecodableResponseError, match="an array"):
        _restart(server.base_url)
    token = json.dumps({"list": [], "nextPageToken": 5}).encode()
    with hostile.serve(_answer(token, JSON)) as server, pytest.raises(UndecodableResponseError, match="token"):
        _walk(server.base_url)


def test_unknown_enum_values_and_members_are_kept_and_json_types_with_parameters_accepted() -> None:
    task = {
        "id": "t1",
        "numericId": "9223372036854775807",
        "state": "TASK_STATE_FROM_THE_FUTURE",
        "processing": "TASK_PROCESSING_TYPE_NEW",
        "origin": "TASK_ORIGIN_NEW",
        "actions": ["TASK_ACTION_TYPE_NEW"],
        "newMember": {"nested": [1, 2]},
    }
    body = json.dumps({"taskView": {"task": task}, "ticketActionId": "a", "expanded": []}).encode()
    with hostile.serve(_answer(body, "application/json; charset=utf-8")) as server:
        result = _restart(server.base_url).task_view.task
    assert (result.state, result.processing, result.origin) == (
        "TASK_STATE_FROM_THE_FUTURE",
        "TASK_PROCESSING_TYPE_NEW",
        "TASK_ORIGIN_NEW",
    )
    assert result.actions == ["TASK_ACTION_TYPE_NEW"]
    assert result.numeric_id == "9223372036854775807"
    assert result.additional_properties["newMember"] == {"nested": [1, 2]}
    page = b"\xef\xbb\xbf" + json.dumps(PAGE).encode()  # a UTF-8 byte order mark, which JSON readers may skip
    for content_type in ("application/problem+json", "APPLICATION/JSON", ""):
        with hostile.serve(_answer(page, content_type)) as server:
            assert _call(server.base_url).list_[0].app_entitlement.id == "e1"


def _lenient(url: str) -> AccessGov:
    return AccessGov(url, token="t", retry=None, raise_errors=False)


@pytest.mark.parametrize("status", [400, 404, 429, 503, 418])
def test_an_error_status_with_an_unreadable_body_is_still_its_typed_error(status: int) -> None:
    for body, content_type in ((b"<html>busy</html>", "text/html"), (b"[]", JSON), (b'{"code": 5', JSON)):
        with hostile.serve(_answer(body, content_type, status)) as server, pytest.raises(ApiError) as raised:
            _call(server.base_url)
        assert raised.value.status == status and raised.value.code == ""
        with hostile.serve(_answer(body, content_type, status)) as server, _lenient(server.base_url) as api:
            assert api.list_app_entitlements(app_id="a") is None  # no Error body to hand back


def test_server_text_cannot_add_lines_or_escapes_to_an_error_message() -> None:
    body = json.dumps({"code": "X\n\x1b[31mFAKE", "message": "ok\r\nINFO all good \u202e"}).encode()
    with hostile.serve(_answer(body, JSON, 400)) as server, pytest.raises(ApiError) as raised:
        _call(server.base_url)
    text = str(raised.value)
    assert "\n" not in text and "\x1b" not in text and "\u202e" not in text, text
    assert raised.value.code == "X\n\x1b[31mFAKE"  # the attribute keeps the text as sent
    html = _answer(b"<html>\r\nbusy\x1b[0m", "text/html", 503)
    with hostile.serve(html) as server, pytest.raises(ApiError) as raised:
        _call(server.base_url)
    assert "\r" not in str(raised.value) and "\\r\\nbusy" in str(raised.value)
