"""No client input gets a 5xx: every operation of the contract, fed arbitrary JSON bodies, header values and
query values, answers 2xx or 4xx, and every 4xx body is the contract's Error (RFC 6749's on the token endpoint).
Signed deliveries with arbitrary JSON are accepted and their runs finish without stopping the runner. The JSON
texts Python's parsers disagree on (`json_texts`: lone surrogates, numbers no double holds, nesting near the
limits, duplicate keys) and extra header lines are sent as text, on SQLite and PostgreSQL."""

from __future__ import annotations

import base64
import json
import math
import struct
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from sqlalchemy.orm import Session, sessionmaker

from accessgov.app import create_app
from accessgov.config import Settings
from accessgov.demo import tenant as demo
from accessgov.demo.seed import DEMO_ADMIN_TOKEN, DEMO_HMAC_LISTENER_ID, DEMO_HMAC_SECRET, seed_demo
from accessgov.http.engine import load_bundle
from accessgov.paging import PageTokenCodec
from accessgov.paging.limits import TOKEN_VERSION
from accessgov.storage import page_keys
from accessgov.storage.backends import create_engine
from accessgov.storage.engine import migrate, session_factory
from accessgov.storage.schema import AutomationRun
from accessgov.webhooks.signing import hmac_headers
from tests.support import loopback
from tests.support.harness import NO_FAILURE_LIMITS, serve
from tests.support.json_texts import header_sets, json_texts, restart_texts
from tests.support.postgres import BACKENDS, fresh_schema

pytestmark = pytest.mark.slow  # a server on SQLite and on PostgreSQL

BUNDLE = load_bundle()
ERROR = Draft202012Validator({"$ref": "#/components/schemas/Error", "components": BUNDLE["components"]})
OAUTH_ERROR = Draft202012Validator({"$ref": "#/components/schemas/OAuthError", "components": BUNDLE["components"]})
ADMIN = {"Authorization": f"Bearer {DEMO_ADMIN_TOKEN}"}
JSON_ADMIN = {**ADMIN, "Content-Type": "application/json"}
TASK_ID = demo.build().tasks[0]["id"]
APP = "app-github"
COLLECTION = f"apps/{APP}/entitlements"
FINAL = ("SUCCEEDED", "FAILED", "SKIPPED")
RUN_WITHIN = 30.0

SETTINGS = settings(
    max_examples=50,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=2**63 - 2, max_value=2**80)
    | st.integers(min_value=-(2**80), max_value=-(2**63) + 2)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
)
json_values = st.recursive(
    scalars,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=24,
)
restart_bodies = json_values | st.fixed_dictionaries(
    {}, optional={"comment": json_values, "expandMask": json_values, "policyStepId": json_values}
)
# Printable latin-1: what an HTTP/1.1 header value can carry.
header_text = st.text(
    st.characters(codec="latin-1", min_codepoint=0x20, exclude_characters=[chr(c) for c in range(0x7F, 0xA0)]),
    max_size=80,
).map(str.strip)
content_types = (
    st.sampled_from(
        ["application/json", "application/json; charset=utf-8", "text/plain", "application/x-www-form-urlencoded", ""]
    )
    | header_text
)
numbers_as_text = st.integers(min_value=-(10**30), max_value=10**30).map(str)
page_sizes = st.text(max_size=20) | numbers_as_text | st.just("9" * 5000) | st.just("-" + "1" * 300)
odd_cursors = st.sampled_from([[1], ["a", 2], [[1]], [], [None], [1.5], {"a": 1}, "x", [2**70], ["a", "b", "c"]])


def dump(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False).encode()


def check(response: httpx.Response, error: Draft202012Validator = ERROR) -> None:
    assert response.status_code < 500, f"{response.status_code}: {response.text[:500]}"
    if response.status_code >= 400:
        errors = sorted(error.iter_errors(response.json()), key=str)
        assert not errors, f"{response.status_code} body {response.text[:300]} is not the contract's: {errors[0]}"


def forged_token(secret: bytes, cursor: Any, issued_at: float) -> str:
    """A page token signed with the server's key over any JSON as the cursor (the codec only signs valid ones)."""
    codec = PageTokenCodec(secret)
    signed = struct.pack(">BQ", TOKEN_VERSION, int(issued_at)) + json.dumps(cursor).encode()  # \u escapes
    raw = signed + codec._mac(COLLECTION, signed)
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


@dataclass
class Served:
    base_url: str
    sessions: sessionmaker[Session]


def _serve(url: str) -> Iterator[Served]:
    engine = create_engine(url)
    try:
        migrate(engine)
        sessions = session_factory(engine)
        with sessions.begin() as session:
            seed_demo(session)
        with serve(create_app(Settings.load(database_url=url, **NO_FAILURE_LIMITS))) as base_url:
            yield Served(base_url, sessions)
    finally:
        engine.dispose()


@pytest.fixture(scope="session", params=BACKENDS)
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """One seeded reference server per database backend for the whole session (SQLite file; fresh PostgreSQL
    schema, failing rather than skipping under CI=true when PostgreSQL is absent)."""
    if request.param == "sqlite":
        data: Path = tmp_path_factory.mktemp("property-db")
        yield from _serve(f"sqlite:///{data / 'accessgov.db'}")
        return
    with fresh_schema(request.getfixturevalue("postgres_admin"), prefix="p") as url:
        yield from _serve(url)


@pytest.fixture(scope="session")
def page_secret(server: Served) -> bytes:
    with server.sessions() as session:
        return page_keys.load_or_create(session).current


@pytest.fixture(scope="session")
def client(server: Served) -> httpx.Client:
    with loopback.client(base_url=server.base_url, timeout=30) as client:
        yield client  # type: ignore[misc]


@SETTINGS
@given(body=restart_bodies, content_type=content_types)
@example(body={"comment": 2**64}, content_type="application/json")
@example(body={"comment": "x" * 3, "expandMask": {"paths": ["*" * 100]}}, content_type="application/json")
def test_restart_never_5xx(client: httpx.Client, body: Any, content_type: str) -> None:
    headers = {**ADMIN, "Content-Type": content_type.encode("latin-1")}
    check(client.post(f"/api/v1/tasks/{TASK_ID}/action/restart", content=dump(body), headers=headers))


@SETTINGS
@given(raw=st.binary(max_size=64) | st.just(b"[" * 100_000) | st.just(b'{"a": 1e400}'), task=st.text(max_size=30))
def test_restart_raw_bodies_and_task_ids_never_5xx(client: httpx.Client, raw: bytes, task: str) -> None:
    path = f"/api/v1/tasks/{quote(task or 'x', safe='')}/action/restart"
    check(client.post(path, content=raw, headers={**ADMIN, "Content-Type": "application/json"}))


@SETTINGS
@given(page_size=page_sizes | st.none(), page_token=st.text(max_size=200) | st.none())
@example(page_size="9" * 5000, page_token=None)
@example(page_size="0", page_token="")
def test_list_entitlements_never_5xx(client: httpx.Client, page_size: str | None, page_token: str | None) -> None:
    params = {"page_size": page_size, "page_token": page_token}
    params = {name: value for name, value in params.items() if value is not None}
    check(client.get(f"/api/v1/apps/{APP}/entitlements", params=params, headers=ADMIN))


@SETTINGS
@given(cursor=odd_cursors | json_values, age=st.sampled_from([0, 60, 10**6, -(10**6)]))
@example(cursor=[[1]], age=0)
@example(cursor=["a", 2], age=0)
@example(cursor=["\ud800", "x"], age=0)
@example(cursor=["a", "\udfff"], age=0)
def test_signed_page_tokens_with_odd_cursors_never_5xx(
    client: httpx.Client, page_secret: bytes, cursor: Any, age: int
) -> None:
    if isinstance(cursor, float) and not math.isfinite(cursor):
        return
    token = forged_token(page_secret, cursor, max(0, time.time() - age))
    check(client.get(f"/api/v1/apps/{APP}/entitlements", params={"page_token": token}, headers=ADMIN))


@SETTINGS
@given(
    body=json_values,
    timestamp=header_text | st.integers().map(str) | st.none(),
    event_id=header_text | st.none(),
    signature=header_text | st.none(),
    authorization=header_text | st.none(),
    content_type=content_types,
    listener=st.sampled_from([DEMO_HMAC_LISTENER_ID, "wh_demo_disabled", "wh_missing"]),
)
def test_webhook_receive_never_5xx(client: httpx.Client, body: Any, listener: str, **fields: str | None) -> None:
    names = {
        "timestamp": "Webhook-Timestamp",
        "event_id": "Webhook-Event-Id",
        "signature": "Webhook-Signature",
        "authorization": "Authorization",
        "content_type": "Content-Type",
    }
    headers = {names[key]: value.encode("latin-1") for key, value in fields.items() if value is not None}
    check(client.post(f"/api/v1/webhooks/incoming/{listener}", content=dump(body), headers=headers))


@SETTINGS
@given(
    form=st.dictionaries(
        st.sampled_from(["grant_type", "client_id", "client_secret", "scope"]) | st.text(max_size=10),
        st.text(max_size=40),
        max_size=5,
    )
    | st.text(max_size=100),
    authorization=header_text | st.none(),
    content_type=content_types,
)
@example(form={"grant_type": "client_credentials"}, authorization="Basic !!", content_type="")
def test_token_endpoint_never_5xx(
    client: httpx.Client, form: dict[str, str] | str, authorization: str | None, content_type: str
) -> None:
    content = form.encode() if isinstance(form, str) else httpx.QueryParams(form).__str__().encode()
    headers = {"Content-Type": content_type.encode("latin-1")}
    if authorization is not None:
        headers["Authorization"] = authorization.encode("latin-1")
    check(client.post("/auth/v1/token", content=content, headers=headers), OAUTH_ERROR)


@SETTINGS
@given(body=json_values)
@example(body={"amount": 2**64, "nested": [[[[[1]]]]]})
@example(body=[1e308, -1e308, "\u0000\ud7ff\U0010ffff"])
def test_signed_deliveries_are_accepted_and_their_runs_finish(client: httpx.Client, server: Served, body: Any) -> None:
    raw = dump(body)
    response = client.post(
        f"/api/v1/webhooks/incoming/{DEMO_HMAC_LISTENER_ID}", content=raw, headers=hmac_headers(DEMO_HMAC_SECRET, raw)
    )
    assert response.status_code in (200, 409), f"{response.status_code}: {response.text[:500]}"
    if response.status_code == 409:
        return
    run_id = response.json()["automationRun"]["id"]
    deadline = time.monotonic() + RUN_WITHIN
    while True:
        with server.sessions() as session:
            run = session.get(AutomationRun, run_id)
            status = run.status if run else None
        if status in FINAL:
            return
        assert time.monotonic() < deadline, f"run {run_id} still {status} after {RUN_WITHIN} s"
        time.sleep(0.02)


@SETTINGS
@given(authorization=header_text, restart=st.booleans())
@example(authorization="Bearer " + "a" * 5000, restart=False)
@example(authorization="Basic ÿÿÿ", restart=True)
def test_any_authorization_never_5xx(client: httpx.Client, authorization: str, restart: bool) -> None:
    headers = {"Authorization": authorization.encode("latin-1"), "Content-Type": "application/json"}
    if restart:
        check(client.post(f"/api/v1/tasks/{TASK_ID}/action/restart", content=b"{}", headers=headers))
    else:
        check(client.get(f"/api/v1/apps/{APP}/entitlements", headers=headers))


NEW_SETTINGS = settings(SETTINGS, max_examples=30)


@NEW_SETTINGS
@given(text=restart_texts)
@example(text='{"comment": "\\ud800"}')
@example(text='{"comment": "ok", "comment": "\\udfff"}')
@example(text='{"comment": "' + "[" * 10 + '", "expandMask": ' + "[" * 5000 + "]" * 5000 + "}")
def test_restart_json_texts_never_5xx(client: httpx.Client, text: str) -> None:
    check(client.post(f"/api/v1/tasks/{TASK_ID}/action/restart", content=text.encode(), headers=JSON_ADMIN))


@NEW_SETTINGS
@given(text=json_texts)
@example(text='{"orderId": "\\ud800"}')
@example(text="[1e400, -0, 1e-400, " + "9" * 100 + "]")
@example(text="[" * 254 + "]" * 254)
@example(text='{"a": 1, "a": "\\ude00"}')
def test_signed_webhook_json_texts_never_5xx(client: httpx.Client, text: str) -> None:
    raw = text.encode()
    response = client.post(
        f"/api/v1/webhooks/incoming/{DEMO_HMAC_LISTENER_ID}", content=raw, headers=hmac_headers(DEMO_HMAC_SECRET, raw)
    )
    check(response)
    assert response.status_code in (200, 400, 409), response.text[:300]
    if _lone_surrogate(text):  # valid JSON text, but not Unicode text: refused whole, nothing stored
        assert response.status_code == 400 and response.json()["code"] == "INVALID_JSON", response.text[:300]


def _lone_surrogate(text: str) -> bool:
    """Whether json reads `text` to a value holding a surrogate code point (no UTF-8 encoding exists for it)."""
    try:
        json.dumps(json.loads(text), ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return True
    except (ValueError, RecursionError):
        return False
    return False


@NEW_SETTINGS
@given(extra=header_sets)
@example(extra=[("x-forwarded-for", "::1, 10.0.0.1, not-an-address"), ("accept", "text/html")])
@example(extra=[("x-request-id", "x" * 60), ("prefer", "seed=--1")])
def test_header_sets_never_5xx(client: httpx.Client, extra: list[tuple[str, str]]) -> None:
    raw = [(name.encode(), value.encode("latin-1")) for name, value in extra]
    check(client.get(f"/api/v1/apps/{APP}/entitlements", headers=[*_raw(ADMIN), *raw]))
    check(client.post(f"/api/v1/tasks/{TASK_ID}/action/restart", content=b"{}", headers=[*_raw(JSON_ADMIN), *raw]))


def _raw(headers: dict[str, str]) -> list[tuple[bytes, bytes]]:
    return [(name.encode(), value.encode()) for name, value in headers.items()]
