"""The validation proxy (`accessgov proxy`, here in front of the mock) never answers client input with a 5xx of its
own: the JSON texts Python's parsers disagree on, bodies near and over the contract's limit, `Prefer` values and
extra header lines all pass through its checks to the upstream's answer, or get its own 413 `Error`."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import httpx
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from accessgov.proxy import create_proxy
from accessgov.proxy.contract import CONTRACT_MAX_BODY
from generated.stub_server import create_app as create_mock
from tests.server.test_no_5xx import SETTINGS as NO_5XX_SETTINGS
from tests.server.test_no_5xx import check
from tests.support import loopback
from tests.support.harness import serve
from tests.support.json_texts import header_sets, json_texts, prefer_headers, restart_texts
from tests.tools.mock.test_mock_no_5xx import ENTITLEMENTS, RESTART, TOKEN, WEBHOOK

pytestmark = pytest.mark.slow

SETTINGS = settings(NO_5XX_SETTINGS, max_examples=40)


@pytest.fixture(scope="module")
def proxy() -> Iterator[httpx.Client]:
    with (
        serve(create_mock(seed=3)) as upstream,
        serve(create_proxy(upstream, report_token="")) as base_url,
        loopback.client(base_url=base_url, timeout=60) as client,
    ):
        yield client


@SETTINGS
@given(text=json_texts, padding=st.sampled_from([0, CONTRACT_MAX_BODY - 64, CONTRACT_MAX_BODY, 3 * CONTRACT_MAX_BODY]))
@example(text="[" * CONTRACT_MAX_BODY, padding=0)
@example(text='{"a": "\\ud800"}', padding=0)
def test_webhook_texts_never_5xx(proxy: httpx.Client, text: str, padding: int) -> None:
    headers = {
        "Content-Type": "application/json",
        "Webhook-Timestamp": "1767225600",
        "Webhook-Event-Id": str(uuid.uuid4()),
        "Webhook-Signature": "c2lnbmF0dXJl",
    }
    body = text.encode() + b" " * padding  # trailing whitespace: the same JSON text, a larger body
    response = proxy.post(WEBHOOK, content=body, headers=headers)
    check(response)
    if len(body) > CONTRACT_MAX_BODY:
        assert response.status_code == 413, response.text[:300]


@SETTINGS
@given(text=restart_texts, prefer=prefer_headers | st.none())
def test_restart_texts_never_5xx(proxy: httpx.Client, text: str, prefer: str | None) -> None:
    headers = {**TOKEN, "Content-Type": "application/json"}
    if prefer is not None:
        headers["Prefer"] = prefer.encode("utf-8")  # type: ignore[assignment]
    check(proxy.post(RESTART, content=text.encode(), headers=headers))


@SETTINGS
@given(extra=header_sets, prefer=prefer_headers | st.none())
def test_header_sets_never_5xx(proxy: httpx.Client, extra: list[tuple[str, str]], prefer: str | None) -> None:
    headers = [(b"authorization", b"Bearer anything")]
    headers += [(name.encode(), value.encode("latin-1")) for name, value in extra]
    if prefer is not None:
        headers.append((b"prefer", prefer.encode("utf-8")))
    check(proxy.get(ENTITLEMENTS, headers=headers))
