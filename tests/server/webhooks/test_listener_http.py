"""The webhook listener end to end over real HTTP: every status of the contract with its `code`, the
processing order, idempotency under concurrency (SQLite and PostgreSQL), restarts, purging, and the CLI."""

from __future__ import annotations

import contextlib
import io
import json
import os
import secrets
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from unittest import mock

import httpx
import jwt
import pytest
import sqlalchemy as sa
import uvicorn
from sqlalchemy.orm import Session, sessionmaker

from accessgov.app import create_app
from accessgov.cli import main
from accessgov.config import Settings
from accessgov.demo.seed import DEMO_DISABLED_LISTENER_ID, DEMO_HMAC_LISTENER_ID, DEMO_HMAC_SECRET, seed_demo
from accessgov.storage import events, listeners
from accessgov.storage.backends import create_engine
from accessgov.storage.engine import migrate, session_factory
from accessgov.storage.schema import AutomationRun
from accessgov.webhooks import signing
from accessgov.webhooks.jwks import JwksCache
from tests.support import deliveries, loopback
from tests.support.clocks import ServerClock
from tests.support.harness import NO_FAILURE_LIMITS, serve
from tests.support.jwks import JwksServer, closed_port_url
from tests.support.keys import Keys, make_keys
from tests.support.postgres import fresh_schema
from tests.support.tokens import TENANT, claims_for, hs256_token, unsigned_token

SECRET = "whsec_" + secrets.token_urlsafe(32)
STEPS = [
    {"name": "byDot", "expression": "ctx.trigger.orderId"},
    {"name": "byIndex", "expression": 'ctx.trigger["amount"] * 2'},
    {"name": "chained", "expression": 'ctx.steps.byDot + "/" + string(ctx.steps.byIndex)'},
]
BODY = b'{"orderId":"A-1001","amount":21}'
PATH = "/api/v1/webhooks/incoming/"
LIMIT = 64 * 1024


def padded_body(size: int) -> bytes:
    """A JSON object of exactly `size` bytes."""
    body = b'{"orderId":"A-1","amount":1,"pad":"' + b"x" * size
    body = body[: size - 2] + b'"}'
    assert len(body) == size
    json.loads(body)
    return body


@dataclass
class Env:
    base_url: str
    db_url: str
    sessions: sessionmaker[Session]
    clock: ServerClock
    keys: Keys
    jwks: JwksServer
    ids: dict[str, str]
    ipv6_url: str | None

    def url(self, name: str, base: str | None = None) -> str:
        return f"{base or self.base_url}{PATH}{self.ids.get(name, name)}"

    def runs(self, name: str) -> list[Any]:
        with self.sessions() as session:
            return events.list_runs(session, listener_id=self.ids.get(name, name), limit=1000)

    def finished_run(self, run_id: str, timeout: float = 20.0) -> Any:
        """The run once the server's runner has finished it (runs leave the request: they finish later)."""
        deadline = time.monotonic() + timeout
        while True:
            with self.sessions() as session:
                run = session.get(AutomationRun, run_id)
            if run is not None and run.status in ("SUCCEEDED", "FAILED", "SKIPPED"):
                return run
            assert time.monotonic() < deadline, f"run {run_id} still {run.status if run else 'missing'}"
            time.sleep(0.02)


def make_listeners(session: Session, jwks_url: str) -> dict[str, str]:
    def add(name: str, **values: Any) -> None:
        values.setdefault("auth_method", "HMAC")
        if values["auth_method"] == "HMAC":
            values.setdefault("hmac_secret", SECRET)
        listeners.create_listener(
            session, listener_id=f"wh_{name}", automation_name=name, automation_steps=STEPS, **values
        )

    add("hmac")
    add("hmac2")
    add("unpublished", published=False)
    add("jwt", auth_method="JWT", jwks_url=jwks_url)
    add("jwt_down", auth_method="JWT", jwks_url=closed_port_url())
    add("cidr10", allowed_cidrs=["10.0.0.0/8"])
    add("cidr127", allowed_cidrs=["127.0.0.0/8"])
    add("cidr6", allowed_cidrs=["::1/128"])
    names = ["hmac", "hmac2", "unpublished", "jwt", "jwt_down", "cidr10", "cidr127", "cidr6"]
    return {name: f"wh_{name}" for name in names} | {
        "demo": DEMO_HMAC_LISTENER_ID,
        "disabled": DEMO_DISABLED_LISTENER_ID,
    }


def ipv6_loopback() -> bool:
    if not socket.has_ipv6:
        return False
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as sock:
            sock.bind(("::1", 0))
        return True
    except OSError:
        return False


def app_for(db_url: str, clock: ServerClock) -> Any:
    return create_app(
        Settings.load(database_url=db_url, **NO_FAILURE_LIMITS), clock=clock, jwks=JwksCache(timeout_seconds=2)
    )


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Env]:
    keys = make_keys()
    db_url = f"sqlite:///{tmp_path_factory.mktemp('webhooks') / 'accessgov.db'}"
    engine = create_engine(db_url)
    migrate(engine)
    sessions = session_factory(engine)
    with JwksServer(keys.jwks()) as jwks_server:
        with sessions.begin() as session:
            seed_demo(session)
            ids = make_listeners(session, jwks_server.url)
        clock = ServerClock()
        with serve(app_for(db_url, clock)) as base_url:
            if ipv6_loopback():
                with serve(app_for(db_url, clock), host="::1") as v6_url:
                    yield Env(base_url, db_url, sessions, clock, keys, jwks_server, ids, v6_url)
            else:
                yield Env(base_url, db_url, sessions, clock, keys, jwks_server, ids, None)
    CLIENT.close()
    engine.dispose()


def hmac_headers(body: bytes = BODY, secret: str = SECRET, **overrides: Any) -> dict[str, str]:
    headers = signing.hmac_headers(
        secret, body, event_id=overrides.pop("event_id", None), timestamp=overrides.pop("timestamp", None)
    )
    for name, value in overrides.items():
        name = name.replace("_", "-").title()
        if value is None:
            headers.pop(name, None)
        else:
            headers[name] = value
    return headers


# One client for the module.
CLIENT = loopback.client(timeout=30)


def post(url: str, body: bytes, headers: dict[str, str]) -> httpx.Response:
    return CLIENT.post(url, content=body, headers=headers)


def expect(response: httpx.Response, status: int, code: str | None = None) -> dict[str, Any]:
    assert response.status_code == status, response.text
    data = response.json()
    if code is not None:
        assert data["code"] == code, data
    if status == 401:
        assert response.headers["www-authenticate"].startswith("Bearer")
    return data


# -- 200 ---------------------------------------------------------------------------------------------------


def test_accepted_runs_the_automation(env: Env) -> None:
    before = len(env.runs("hmac"))
    headers = hmac_headers()
    data = expect(post(env.url("hmac"), BODY, headers), 200)
    assert data["eventId"] == headers["Webhook-Event-Id"]
    assert data["automationRun"]["status"] == "AUTOMATION_RUN_STATUS_QUEUED"  # runs after the response
    assert data["automationRun"]["reason"] is None
    runs = env.runs("hmac")
    assert len(runs) == before + 1
    assert runs[0].id == data["automationRun"]["id"] and runs[0].event_id == headers["Webhook-Event-Id"]
    run = env.finished_run(data["automationRun"]["id"])
    assert run.status == "SUCCEEDED" and run.context == {"orderId": "A-1001", "amount": 21}
    assert run.attempts == 1 and run.finished_at is not None
    assert run.outputs == {"byDot": "A-1001", "byIndex": 42, "chained": "A-1001/42"}


def test_demo_listener_reads_the_order_id(env: Env) -> None:
    data = expect(post(env.url("demo"), BODY, hmac_headers(secret=DEMO_HMAC_SECRET)), 200)
    run = env.finished_run(data["automationRun"]["id"])
    assert run.outputs == {"received": True, "orderId": "A-1001"}


def test_integers_beyond_64_bits_run_as_doubles(env: Env) -> None:
    body = b'{"orderId": 123456789012345678901234567890, "amount": 1}'
    data = expect(post(env.url("demo"), body, hmac_headers(body, secret=DEMO_HMAC_SECRET)), 200)
    run = env.finished_run(data["automationRun"]["id"])
    assert run.status == "SUCCEEDED" and run.outputs["orderId"].startswith("1.2345678901234568e+")


def test_a_number_no_double_holds_is_invalid_json(env: Env) -> None:
    body = b'{"orderId": "A-1", "amount": 1e400}'
    expect(post(env.url("hmac"), body, hmac_headers(body)), 400, "INVALID_JSON")


def test_failing_step_is_recorded_as_failed(env: Env) -> None:
    body = b'{"amount":21}'  # no orderId: ctx.trigger.orderId fails
    data = expect(post(env.url("hmac"), body, hmac_headers(body)), 200)
    run = env.finished_run(data["automationRun"]["id"])
    assert run.status == "FAILED" and (run.reason or "").startswith("step byDot")


@pytest.mark.parametrize(
    ("name", "reason"), [("unpublished", "automation not published"), ("disabled", "trigger disabled")]
)
def test_skipped_runs_are_recorded(env: Env, name: str, reason: str) -> None:
    secret = DEMO_HMAC_SECRET if name == "disabled" else SECRET
    headers = hmac_headers(secret=secret)
    data = expect(post(env.url(name), BODY, headers), 200)
    assert data["automationRun"]["status"] == "AUTOMATION_RUN_STATUS_SKIPPED"
    assert data["automationRun"]["reason"] == reason
    run = next(r for r in env.runs(name) if r.event_id == headers["Webhook-Event-Id"])
    assert (run.status, run.reason, run.outputs) == ("SKIPPED", reason, {})
    # The event id is consumed all the same.
    expect(post(env.url(name), BODY, headers), 409, "DUPLICATE_EVENT")


def test_timestamp_window_edges(env: Env) -> None:
    now = int(time.time())
    env.clock.frozen = now
    try:
        for offset in (-300, 300):
            expect(post(env.url("hmac"), BODY, hmac_headers(timestamp=now + offset)), 200)
        for offset in (-301, 301):
            expect(post(env.url("hmac"), BODY, hmac_headers(timestamp=now + offset)), 400, "TIMESTAMP_OUT_OF_WINDOW")
    finally:
        env.clock.frozen = None


def test_exactly_64_kib_is_accepted(env: Env) -> None:
    body = padded_body(LIMIT)
    expect(post(env.url("hmac"), body, hmac_headers(body)), 200)


def test_json_values_other_than_objects(env: Env) -> None:
    for body in (b"[1,2]", b'"text"', b"null"):
        data = expect(post(env.url("unpublished"), body, hmac_headers(body)), 200)
        assert data["automationRun"]["status"] == "AUTOMATION_RUN_STATUS_SKIPPED"


# -- 400 ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("header", "code"),
    [
        ("Webhook-Timestamp", "MISSING_HEADER"),
        ("Webhook-Event-Id", "MISSING_HEADER"),
        ("Content-Type", "INVALID_CONTENT_TYPE"),
    ],
)
def test_missing_header(env: Env, header: str, code: str) -> None:
    headers = hmac_headers()
    del headers[header]
    data = expect(post(env.url("hmac"), BODY, headers), 400, code)
    assert any(d.get("name") == header for d in data["details"])


@pytest.mark.parametrize(
    "content_type",
    [
        "",
        "text/plain",
        "text/json",
        "application/x-www-form-urlencoded",
        "application/xml",
        "application/jsonx",
        "application/json-seq",
        "application/merge-patch+json",
        "multipart/form-data; boundary=x",
    ],
)
def test_wrong_content_type(env: Env, content_type: str) -> None:
    expect(post(env.url("hmac"), BODY, hmac_headers(content_type=content_type)), 400, "INVALID_CONTENT_TYPE")


@pytest.mark.parametrize(
    "content_type",
    ["application/json", "APPLICATION/JSON", "application/json; charset=utf-8", "Application/Json;charset=UTF-8"],
)
def test_json_content_type_with_charset(env: Env, content_type: str) -> None:
    expect(post(env.url("hmac"), BODY, hmac_headers(content_type=content_type)), 200)


# The real clock runs on while the request travels: a future timestamp gets closer, so it keeps a few seconds' margin
# (a stale one only gets staler). The exact bounds are test_webhook_request_checks', on a fixed clock.
@pytest.mark.parametrize("offset", [-3600, -301, 305, 3600])
def test_stale_or_future_timestamp(env: Env, offset: int) -> None:
    headers = hmac_headers(timestamp=int(time.time()) + offset)
    expect(post(env.url("hmac"), BODY, headers), 400, "TIMESTAMP_OUT_OF_WINDOW")


@pytest.mark.parametrize("value", ["1767225600.5", "-100", "now", "1e9", "0x10"])
def test_timestamp_not_digits(env: Env, value: str) -> None:
    expect(post(env.url("hmac"), BODY, hmac_headers(webhook_timestamp=value)), 400, "INVALID_TIMESTAMP")


@pytest.mark.parametrize(
    "event_id",
    [
        str(uuid.uuid1()),
        str(uuid.uuid3(uuid.NAMESPACE_URL, "x")),
        str(uuid.uuid5(uuid.NAMESPACE_URL, "x")),
        "017f22e2-79b0-7cc3-98c4-dc0c0c07398f",  # v7
        "7f1d2c3b-4a5e-4f60-ca7b-9c0d1e2f3a4b",  # wrong variant
        "not-a-uuid",
    ],
    ids=["v1", "v3", "v5", "v7", "variant", "garbage"],
)
def test_event_id_not_uuid4(env: Env, event_id: str) -> None:
    # Signed with the bad id, so only the id itself is wrong.
    expect(post(env.url("hmac"), BODY, hmac_headers(event_id=event_id)), 400, "INVALID_EVENT_ID")


@pytest.mark.parametrize("body", [b"{", b"", b'{"a": NaN}', b"Infinity", b"{'a':1}", b"\xff"])
def test_invalid_json(env: Env, body: bytes) -> None:
    expect(post(env.url("hmac"), body, hmac_headers(body)), 400, "INVALID_JSON" if body else None)


def test_shape_is_checked_before_the_listener(env: Env) -> None:
    expect(post(env.url("wh_nope"), BODY, hmac_headers(timestamp=1)), 400, "TIMESTAMP_OUT_OF_WINDOW")


# -- 401 ---------------------------------------------------------------------------------------------------


def test_bad_signature(env: Env) -> None:
    expect(post(env.url("hmac"), BODY, hmac_headers(secret="wrong")), 401, "SIGNATURE_MISMATCH")
    headers = hmac_headers()
    expect(post(env.url("hmac"), BODY + b" ", headers), 401, "SIGNATURE_MISMATCH")


def test_missing_signature(env: Env) -> None:
    expect(post(env.url("hmac"), BODY, hmac_headers(webhook_signature=None)), 401, "MISSING_AUTHENTICATION")


def test_jwt_header_on_an_hmac_listener_is_not_enough(env: Env) -> None:
    headers = hmac_headers(webhook_signature=None, authorization="Bearer a.b.c")
    expect(post(env.url("hmac"), BODY, headers), 401, "MISSING_AUTHENTICATION")


def test_failed_authentication_does_not_consume_the_event_id(env: Env) -> None:
    headers = hmac_headers()
    bad = dict(headers, **{"Webhook-Signature": "x" * 43})
    expect(post(env.url("hmac"), BODY, bad), 401, "SIGNATURE_MISMATCH")
    expect(post(env.url("hmac"), BODY, headers), 200)


# -- JWT listener ------------------------------------------------------------------------------------------


def jwt_delivery(
    env: Env, key: bytes, kid: str, *, listener: str = "jwt", alg: str | None = None, **claim_overrides: Any
) -> tuple[dict[str, str], str]:
    event_id = str(uuid.uuid4())
    url = env.url(listener)
    # The audience is the listener's URL under the tenant base URL, not the loopback URL the test calls.
    claims = claims_for(url=env.url(listener, TENANT), event_id=event_id, body=BODY, **claim_overrides)
    private = signing._load_private_key(key)
    token = jwt.encode(claims, private, algorithm=alg or signing.algorithm_for(private), headers={"kid": kid})
    headers = {
        "Content-Type": "application/json",
        "Webhook-Timestamp": str(int(time.time())),
        "Webhook-Event-Id": event_id,
        "Authorization": f"Bearer {token}",
    }
    return headers, url


@pytest.mark.parametrize(("name", "kid"), [("rsa", "rsa-1"), ("ec", "ec-1"), ("ed", "ed-1")])
def test_jwt_accepted(env: Env, name: str, kid: str) -> None:
    headers, url = jwt_delivery(env, getattr(env.keys, name), kid)
    data = expect(post(url, BODY, headers), 200)
    assert data["automationRun"]["status"] == "AUTOMATION_RUN_STATUS_QUEUED"
    expect(post(url, BODY, headers), 409, "DUPLICATE_EVENT")


def test_jwt_from_the_signing_helper(env: Env) -> None:
    url = env.url("jwt")
    public = env.url("jwt", TENANT)  # the listener's URL as configured: the token's audience
    headers = signing.jwt_headers(env.keys.ed, kid="ed-1", url=public, tenant_base_url=TENANT, body=BODY)
    expect(post(url, BODY, headers), 200)


def test_jwt_from_the_sdk_sender(env: Env) -> None:
    # The SDK's own signer (generated/client, no accessgov import) as a real sender: every algorithm, and a
    # repeat of the same event id is the listener's 409.
    from tests.sdk.conftest import CLIENT_DIR

    sys.path.insert(0, str(CLIENT_DIR))
    from accessgov_client import ConflictError, WebhookSender

    for key, kid in ((env.keys.rsa, "rsa-1"), (env.keys.ec, "ec-1"), (env.keys.ed, "ed-1")):
        sender = WebhookSender(
            env.url("jwt"), private_key=key, kid=kid, tenant_base_url=TENANT, audience=env.url("jwt", TENANT)
        )
        event_id = str(uuid.uuid4())
        response = sender.send(json.loads(BODY), event_id=event_id)
        assert response.status_code == 200, response.text
        with pytest.raises(ConflictError) as raised:
            sender.send(json.loads(BODY), event_id=event_id)
        assert raised.value.code == "DUPLICATE_EVENT"


def test_jwks_is_fetched_once(env: Env) -> None:
    for _ in range(3):
        headers, url = jwt_delivery(env, env.keys.rsa, "rsa-1")
        expect(post(url, BODY, headers), 200)
    assert env.jwks.fetches == 1


JWT_FAILURES: list[tuple[str, Callable[[Env], tuple[dict[str, str], str]], str]] = [
    (
        "no-authorization",
        lambda e: (
            {k: v for k, v in jwt_delivery(e, e.keys.rsa, "rsa-1")[0].items() if k != "Authorization"},
            e.url("jwt"),
        ),
        "MISSING_AUTHENTICATION",
    ),
    ("unknown-kid", lambda e: jwt_delivery(e, e.keys.rsa, "rsa-9"), "UNKNOWN_KID"),
    ("other-key-same-kid", lambda e: jwt_delivery(e, e.keys.rogue_rsa, "rsa-1"), "INVALID_TOKEN"),
    ("alg-confusion", lambda e: jwt_delivery(e, e.keys.rsa, "ec-1", alg="RS256"), "INVALID_TOKEN"),
    ("expired", lambda e: jwt_delivery(e, e.keys.rsa, "rsa-1", now=time.time() - 400, lifetime=300), "TOKEN_EXPIRED"),
    ("exp-too-far", lambda e: jwt_delivery(e, e.keys.rsa, "rsa-1", lifetime=3600), "INVALID_CLAIM"),
    ("wrong-sub", lambda e: jwt_delivery(e, e.keys.ec, "ec-1", sub="https://evil.example"), "INVALID_CLAIM"),
    ("wrong-aud", lambda e: jwt_delivery(e, e.keys.ec, "ec-1", aud=e.url("hmac")), "INVALID_CLAIM"),
    ("wrong-htm", lambda e: jwt_delivery(e, e.keys.ec, "ec-1", htm="PUT"), "INVALID_CLAIM"),
    ("wrong-jti", lambda e: jwt_delivery(e, e.keys.ec, "ec-1", jti=str(uuid.uuid4())), "INVALID_CLAIM"),
    ("wrong-htb", lambda e: jwt_delivery(e, e.keys.ec, "ec-1", htb_s256="A" * 43), "INVALID_CLAIM"),
    *[
        (
            f"missing-{claim}",
            (lambda c: lambda e: jwt_delivery(e, e.keys.ed, "ed-1", **{c: None}))(claim),
            "INVALID_CLAIM",
        )
        for claim in ("sub", "aud", "exp", "jti", "htm", "htb_s256")
    ],
    ("jwks-unreachable", lambda e: jwt_delivery(e, e.keys.rsa, "rsa-1", listener="jwt_down"), "JWKS_UNREACHABLE"),
]


@pytest.mark.parametrize(("case", "make", "code"), JWT_FAILURES, ids=[c[0] for c in JWT_FAILURES])
def test_jwt_failures(env: Env, case: str, make: Callable[[Env], tuple[dict[str, str], str]], code: str) -> None:
    headers, url = make(env)
    expect(post(url, BODY, headers), 401, code)


def _forged(env: Env, kind: str) -> dict[str, str]:
    headers, url = jwt_delivery(env, env.keys.rsa, "rsa-1")
    claims = claims_for(url=url, event_id=headers["Webhook-Event-Id"], body=BODY)
    if kind == "none":
        token = unsigned_token({"alg": "none", "kid": "rsa-1"}, claims)
    elif kind == "hs256-public-pem":
        token = hs256_token(env.keys.rsa_public, {"alg": "HS256", "kid": "rsa-1"}, claims)
    else:
        token = "not.a.jwt"
    headers["Authorization"] = f"Bearer {token}"
    return headers


@pytest.mark.parametrize("kind", ["none", "hs256-public-pem", "malformed"])
def test_forged_tokens(env: Env, kind: str) -> None:
    expect(post(env.url("jwt"), BODY, _forged(env, kind)), 401, "INVALID_TOKEN")


def test_jwt_bound_to_another_body(env: Env) -> None:
    headers, url = jwt_delivery(env, env.keys.rsa, "rsa-1")
    expect(post(url, b'{"orderId":"B-2"}', headers), 401, "INVALID_CLAIM")


# -- 403 / 404 ---------------------------------------------------------------------------------------------


def test_source_outside_allowed_range(env: Env) -> None:
    expect(post(env.url("cidr10"), BODY, hmac_headers()), 403, "SOURCE_NOT_ALLOWED")


def test_audience_from_the_host_header_only_when_configured(env: Env) -> None:
    as_received = {"aud": env.url("jwt")}  # what a URL built from the request's Host header would say
    headers, url = jwt_delivery(env, env.keys.ec, "ec-1", **as_received)
    expect(post(url, BODY, headers), 401, "INVALID_CLAIM")
    config = Settings.load(database_url=env.db_url, jwt_audience_from_request=True, **NO_FAILURE_LIMITS)
    with serve(create_app(config, jwks=JwksCache(timeout_seconds=2))) as base:
        headers, _ = jwt_delivery(env, env.keys.ec, "ec-1", aud=env.url("jwt", base))
        expect(post(env.url("jwt", base), BODY, headers), 200)


def test_source_checked_before_authentication(env: Env) -> None:
    expect(post(env.url("cidr10"), BODY, hmac_headers(secret="wrong")), 403, "SOURCE_NOT_ALLOWED")


def test_forwarded_for_is_ignored_without_trusted_proxies(env: Env) -> None:
    with serve(app_for(env.db_url, ServerClock())) as base:
        expect(post(env.url("cidr10", base), BODY, hmac_headers(x_forwarded_for="10.1.2.3")), 403, "SOURCE_NOT_ALLOWED")
        expect(post(env.url("cidr127", base), BODY, hmac_headers(x_forwarded_for="10.1.2.3")), 200)


def test_forwarded_for_is_honoured_from_a_trusted_proxy(env: Env) -> None:
    config = Settings.load(database_url=env.db_url, trusted_proxies=("127.0.0.0/8",), **NO_FAILURE_LIMITS)
    with serve(create_app(config, jwks=JwksCache(timeout_seconds=2))) as base:
        expect(post(env.url("cidr10", base), BODY, hmac_headers(x_forwarded_for="10.1.2.3")), 200)
        # Only the right-most untrusted hop counts: a client cannot prepend its way in.
        spoofed = hmac_headers(x_forwarded_for="10.1.2.3, 198.51.100.7")
        expect(post(env.url("cidr10", base), BODY, spoofed), 403, "SOURCE_NOT_ALLOWED")
        expect(post(env.url("cidr10", base), BODY, hmac_headers()), 403, "SOURCE_NOT_ALLOWED")  # the proxy itself


@pytest.mark.slow
def test_cli_serve_turns_uvicorn_proxy_headers_off(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from accessgov import cli
    from accessgov.config import SUPERVISOR_PID_ENV
    from accessgov.http import server

    configs: list[uvicorn.Config] = []
    monkeypatch.setattr(server.uvicorn.Server, "run", lambda self, *args, **kwargs: configs.append(self.config))
    monkeypatch.setattr(server.Multiprocess, "run", lambda self: configs.append(self.config))
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'cli.db'}")
    monkeypatch.setenv(SUPERVISOR_PID_ENV, "")
    before = dict(os.environ)
    try:
        assert cli.main(["serve", "--port", "0"]) == 0
        assert cli.main(["serve", "--port", "0", "--workers", "2"]) == 0
        assert os.environ["ACCESSGOV_WORKERS"] == "2"  # handed to the workers, which load their settings from it
    finally:  # what `serve` handed its workers must not reach the other tests of this process
        os.environ.clear()
        os.environ.update(before)
    assert [config.proxy_headers for config in configs] == [False, False]
    assert [config.workers for config in configs] == [1, 2]
    assert configs[1].app == "accessgov.app:worker_app" and configs[1].factory  # each worker's factory, by name


def test_source_inside_allowed_range(env: Env) -> None:
    expect(post(env.url("cidr127"), BODY, hmac_headers()), 200)


def test_ipv6_loopback(env: Env) -> None:
    if env.ipv6_url is None:
        pytest.skip("no IPv6 loopback on this machine")
    expect(post(env.url("cidr6", env.ipv6_url), BODY, hmac_headers()), 200)
    expect(post(env.url("cidr127", env.ipv6_url), BODY, hmac_headers()), 403, "SOURCE_NOT_ALLOWED")
    expect(post(env.url("cidr6"), BODY, hmac_headers()), 403, "SOURCE_NOT_ALLOWED")  # over IPv4


def test_unknown_listener(env: Env) -> None:
    expect(post(env.url("wh_does_not_exist"), BODY, hmac_headers()), 404, "NOT_FOUND")


def test_unknown_listener_before_source_and_auth(env: Env) -> None:
    expect(post(env.url("wh_does_not_exist"), BODY, hmac_headers(webhook_signature=None)), 404, "NOT_FOUND")


# -- 409 ---------------------------------------------------------------------------------------------------


def test_replay_is_409_and_does_not_run_again(env: Env) -> None:
    headers = hmac_headers()
    expect(post(env.url("hmac"), BODY, headers), 200)
    count = len(env.runs("hmac"))
    for _ in range(3):
        expect(post(env.url("hmac"), BODY, headers), 409, "DUPLICATE_EVENT")
    assert len(env.runs("hmac")) == count


def test_replay_with_uppercase_event_id_is_a_duplicate(env: Env) -> None:
    headers = hmac_headers()
    expect(post(env.url("hmac"), BODY, headers), 200)
    upper = hmac_headers(event_id=headers["Webhook-Event-Id"].upper())
    expect(post(env.url("hmac"), BODY, upper), 409, "DUPLICATE_EVENT")


def test_replay_with_a_new_timestamp_and_signature_is_still_a_duplicate(env: Env) -> None:
    headers = hmac_headers()
    expect(post(env.url("hmac"), BODY, headers), 200)
    again = hmac_headers(event_id=headers["Webhook-Event-Id"], timestamp=int(time.time()) + 5)
    expect(post(env.url("hmac"), BODY, again), 409, "DUPLICATE_EVENT")


def test_same_event_id_on_another_listener_is_not_a_duplicate(env: Env) -> None:
    headers = hmac_headers()
    expect(post(env.url("hmac"), BODY, headers), 200)
    expect(post(env.url("hmac2"), BODY, headers), 200)
    expect(post(env.url("hmac2"), BODY, headers), 409, "DUPLICATE_EVENT")


def test_replay_with_bad_signature_is_401_not_409(env: Env) -> None:
    headers = hmac_headers()
    expect(post(env.url("hmac"), BODY, headers), 200)
    expect(post(env.url("hmac"), BODY, dict(headers, **{"Webhook-Signature": "A" * 43})), 401, "SIGNATURE_MISMATCH")
    expect(post(env.url("hmac"), BODY, {k: v for k, v in headers.items() if k != "Webhook-Signature"}), 401)


def test_replay_with_stale_timestamp_is_400(env: Env) -> None:
    headers = hmac_headers()
    expect(post(env.url("hmac"), BODY, headers), 200)
    stale = hmac_headers(event_id=headers["Webhook-Event-Id"], timestamp=int(time.time()) - 1000)
    expect(post(env.url("hmac"), BODY, stale), 400, "TIMESTAMP_OUT_OF_WINDOW")


# -- 413 ---------------------------------------------------------------------------------------------------


def test_64_kib_plus_one_is_413(env: Env) -> None:
    body = padded_body(LIMIT + 1)
    headers = hmac_headers(body)
    expect(post(env.url("hmac"), body, headers), 413, "PAYLOAD_TOO_LARGE")
    assert not [r for r in env.runs("hmac") if r.event_id == headers["Webhook-Event-Id"]]


def test_oversized_chunked_body_is_413(env: Env) -> None:
    body = padded_body(LIMIT + 1)
    headers = hmac_headers(body)

    def chunks() -> Iterator[bytes]:
        for start in range(0, len(body), 4096):
            yield body[start : start + 4096]

    response = CLIENT.post(env.url("hmac"), content=chunks(), headers=headers)
    assert "content-length" not in {k.lower() for k in response.request.headers}
    expect(response, 413, "PAYLOAD_TOO_LARGE")


def test_exactly_64_kib_chunked_is_accepted(env: Env) -> None:
    body = padded_body(LIMIT)
    headers = hmac_headers(body)
    response = CLIENT.post(env.url("hmac"), content=iter([body[:30000], body[30000:]]), headers=headers)
    expect(response, 200)


# -- concurrency, restarts, purging ------------------------------------------------------------------------


def parallel_duplicates(url: str, secret: str, count: int = 40) -> list[int]:
    headers = hmac_headers(secret=secret)
    barrier = threading.Barrier(count)
    statuses: list[int] = []
    lock = threading.Lock()
    clients = [loopback.client(timeout=60) for _ in range(count)]

    def worker(client: httpx.Client) -> None:
        barrier.wait(timeout=30)
        status = client.post(url, content=BODY, headers=headers).status_code
        with lock:
            statuses.append(status)

    threads = [threading.Thread(target=worker, args=(client,)) for client in clients]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(90)
    finally:
        for client in clients:
            client.close()
    return sorted(statuses)


def test_parallel_duplicates_sqlite(env: Env) -> None:
    before = len(env.runs("hmac2"))
    statuses = parallel_duplicates(env.url("hmac2"), SECRET)
    assert statuses == [200] + [409] * 39
    assert len(env.runs("hmac2")) == before + 1


def test_duplicate_survives_a_restart(env: Env) -> None:
    headers = hmac_headers()
    with serve(app_for(env.db_url, ServerClock())) as first:
        expect(post(env.url("hmac", first), BODY, headers), 200)
    with serve(app_for(env.db_url, ServerClock())) as second:
        expect(post(env.url("hmac", second), BODY, headers), 409, "DUPLICATE_EVENT")


def test_event_ids_are_accepted_again_after_the_seven_day_purge(env: Env) -> None:
    headers = hmac_headers()
    expect(post(env.url("hmac"), BODY, headers), 200)
    with env.sessions.begin() as session:
        assert events.purge_events(session, now=datetime.now(UTC) + timedelta(days=6)) == 0 or True
    expect(post(env.url("hmac"), BODY, headers), 409, "DUPLICATE_EVENT")  # 6 days: still remembered
    with env.sessions.begin() as session:
        assert events.purge_events(session, now=datetime.now(UTC) + timedelta(days=8)) >= 1
    with env.sessions() as session:
        assert not deliveries.event_seen(session, env.ids["hmac"], headers["Webhook-Event-Id"])
    runs = len(env.runs("hmac"))
    expect(post(env.url("hmac"), BODY, headers), 200)
    assert len(env.runs("hmac")) == runs + 1  # runs are kept by the purge; a new one was added


# -- PostgreSQL --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def pg_env(postgres_admin: sa.Engine) -> Iterator[tuple[str, str]]:
    with fresh_schema(postgres_admin) as db_url:
        engine = create_engine(db_url)
        migrate(engine)
        with session_factory(engine).begin() as session:
            listeners.create_listener(
                session,
                listener_id="wh_pg",
                auth_method="HMAC",
                hmac_secret=SECRET,
                automation_name="pg",
                automation_steps=STEPS,
            )
        app = app_for(db_url, ServerClock())
        with serve(app) as base_url:
            yield base_url, db_url
        app.state.db.engine.dispose()
        engine.dispose()


@pytest.mark.postgres
def test_parallel_duplicates_postgres(pg_env: tuple[str, str]) -> None:
    base_url, db_url = pg_env
    statuses = parallel_duplicates(f"{base_url}{PATH}wh_pg", SECRET)
    assert statuses == [200] + [409] * 39
    assert _pg_runs(db_url) == 1


# -- CLI ---------------------------------------------------------------------------------------------------


def cli(env: Env, *args: str) -> subprocess.CompletedProcess[str]:
    """`accessgov *args` on the module's database and server, run in this process as the `accessgov` script runs it
    (`main`, on the environment it reads): a process of its own spends ~1 CPU-s importing the server before its
    first step (tests/server/test_cli.py runs the CLI as a process)."""
    environment = dict(os.environ, DATABASE_URL=env.db_url, ACCESSGOV_PUBLIC_BASE_URL=env.base_url)
    out, err = io.StringIO(), io.StringIO()
    patched = mock.patch.dict(os.environ, environment, clear=True)
    with patched, contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(list(args))
    return subprocess.CompletedProcess(["accessgov", *args], status, out.getvalue(), err.getvalue())


@pytest.mark.slow
def test_cli_create_send_and_list_runs(env: Env) -> None:
    created = cli(env, "listeners", "create", "--auth", "hmac", "--step", "doubled=ctx.trigger.a * 2")
    assert created.returncode == 0, created.stderr
    lines = dict(line.split(": ", 1) for line in created.stdout.splitlines() if ": " in line)
    url = lines["url"]
    secret = lines["signing secret (shown once)"]
    listener_id = url.rsplit("/", 1)[1]
    assert url == env.url(listener_id)
    sent = cli(env, "webhook", "send", url, f"--hmac-secret={secret}", "--data", '{"a":1}')
    assert sent.returncode == 0, sent.stdout + sent.stderr
    assert sent.stdout.startswith("200 ")
    run_id = json.loads(sent.stdout[4:])["automationRun"]["id"]
    env.finished_run(run_id)
    listed = cli(env, "runs", "list", "--listener", listener_id)
    assert listed.returncode == 0, listed.stderr
    rows = [line.split("\t") for line in listed.stdout.splitlines()]
    assert len(rows) == 1
    run_id_, _created, listener, _event, status, attempts, _reason, outputs = rows[0]
    assert (run_id_, listener, status, attempts) == (run_id, listener_id, "SUCCEEDED", "attempts=1")
    assert json.loads(outputs) == {"doubled": 2}
    wrong = cli(env, "webhook", "send", url, "--hmac-secret", "wrong", "--data", '{"a":1}')
    assert wrong.returncode == 1 and wrong.stdout.startswith("401 ")


@contextlib.contextmanager
def serve_workers(db_url: str, workers: int = 2) -> Iterator[str]:
    """`accessgov serve --workers N` on `db_url`; yields its base URL."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    environment = dict(os.environ, DATABASE_URL=db_url)
    command = [sys.executable, "-m", "accessgov.cli", "serve", "--port", str(port), "--workers", str(workers)]
    process = subprocess.Popen(
        [*command, "--log-level", "warning"], env=environment, cwd=Path(__file__).resolve().parents[3]
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60  # generous: two workers start side by side on a loaded machine
        while True:
            assert process.poll() is None, "accessgov serve exited"
            try:
                CLIENT.get(f"{base}/api/v1/apps/none/entitlements", timeout=1)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, "accessgov serve did not start"
                time.sleep(0.1)
        yield base
    finally:
        process.terminate()
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.mark.postgres
def test_parallel_duplicates_across_worker_processes(pg_env: tuple[str, str]) -> None:
    """`accessgov serve --workers 2` on PostgreSQL: the database, not a process, decides the winner."""
    _, db_url = pg_env
    with serve_workers(db_url) as base:
        before = _pg_runs(db_url)
        statuses = parallel_duplicates(f"{base}{PATH}wh_pg", SECRET)
        assert statuses == [200] + [409] * 39
        assert _pg_runs(db_url) == before + 1


@pytest.mark.slow
def test_worker_processes_share_one_sqlite_file(tmp_path: Path) -> None:
    """`accessgov serve --workers 2` on one SQLite file: each worker's loop writer waits for the other's write lock
    without blocking its loop; duplicates are decided once, distinct deliveries all land."""
    db_url = f"sqlite:///{tmp_path / 'workers.db'}"
    engine = create_engine(db_url)
    migrate(engine)
    with session_factory(engine).begin() as session:
        listeners.create_listener(
            session,
            listener_id="wh_sq",
            auth_method="HMAC",
            hmac_secret=SECRET,
            automation_name="sq",
            automation_steps=STEPS,
        )
    engine.dispose()
    url = f"{PATH}wh_sq"
    with serve_workers(db_url) as base:
        assert parallel_duplicates(base + url, SECRET) == [200] + [409] * 39

        def deliver(_: int) -> int:
            # A connection each, as separate senders open them: the two workers share the accepts.
            headers = {**hmac_headers(), "Connection": "close"}
            return CLIENT.post(base + url, content=BODY, headers=headers, timeout=60).status_code

        with ThreadPoolExecutor(16) as pool:
            assert list(pool.map(deliver, range(120))) == [200] * 120
    engine = create_engine(db_url)
    try:
        with session_factory(engine)() as session:
            assert len(events.list_runs(session, listener_id="wh_sq", limit=1000)) == 121
    finally:
        engine.dispose()


def _pg_runs(db_url: str) -> int:
    engine = create_engine(db_url)
    try:
        with session_factory(engine)() as session:
            return len(events.list_runs(session, listener_id="wh_pg", limit=1000))
    finally:
        engine.dispose()


# -- secret rotation with overlap ----------------------------------------------------------------------------


def _rotated_listener(env: Env, name: str, grace: timedelta) -> tuple[str, str, float]:
    """A fresh HMAC listener (never cached by the server) rotated from SECRET to a new secret."""
    new_secret = "whsec_" + secrets.token_urlsafe(32)
    rotated_at = time.time()
    with env.sessions.begin() as session:
        listeners.create_listener(
            session, listener_id=f"wh_{name}", auth_method="HMAC", hmac_secret=SECRET, automation_name=name,
            automation_steps=STEPS,
        )  # fmt: skip
        now = datetime.fromtimestamp(rotated_at, UTC)
        assert listeners.rotate_secret(session, f"wh_{name}", new_secret, grace=grace, now=now) is not None
    return f"wh_{name}", new_secret, rotated_at


def test_old_secret_verifies_during_the_grace_period_and_fails_after_it(env: Env) -> None:
    listener_id, new_secret, rotated_at = _rotated_listener(env, "rotate_grace", timedelta(hours=1))
    assert expect(post(env.url(listener_id), BODY, hmac_headers(secret=SECRET)), 200)  # old secret, in grace
    assert expect(post(env.url(listener_id), BODY, hmac_headers(secret=new_secret)), 200)
    try:
        env.clock.frozen = rotated_at + 3600 + 1  # just past the grace period
        late = str(int(env.clock.frozen))
        expect(post(env.url(listener_id), BODY, hmac_headers(secret=SECRET, timestamp=late)), 401, "SIGNATURE_MISMATCH")
        expect(post(env.url(listener_id), BODY, hmac_headers(secret=new_secret, timestamp=late)), 200)
    finally:
        env.clock.frozen = None


def test_rotation_without_grace_drops_the_old_secret_at_once(env: Env) -> None:
    listener_id, new_secret, _ = _rotated_listener(env, "rotate_now", timedelta(0))
    expect(post(env.url(listener_id), BODY, hmac_headers(secret=SECRET)), 401, "SIGNATURE_MISMATCH")
    expect(post(env.url(listener_id), BODY, hmac_headers(secret=new_secret)), 200)


@pytest.mark.slow
def test_cli_rotate_with_grace_and_unknown_ids(env: Env) -> None:
    with env.sessions.begin() as session:
        listeners.create_listener(
            session, listener_id="wh_cli_rotate", auth_method="HMAC", hmac_secret=SECRET, automation_name="r",
            automation_steps=STEPS,
        )  # fmt: skip
    rotated = cli(env, "listeners", "rotate", "wh_cli_rotate", "--grace", "30m")
    assert rotated.returncode == 0, rotated.stderr
    new_secret = rotated.stdout.split("(shown once): ")[1].split()[0]
    assert "previous secret valid until" in rotated.stdout
    with env.sessions() as session:
        stored = listeners.get_listener(session, "wh_cli_rotate")
        assert stored is not None and stored.previous_secret_expires_at is not None
        assert listeners.secrets_of(stored) == (new_secret, SECRET)
        remaining = (stored.previous_secret_expires_at - datetime.now(UTC)).total_seconds()
    assert 1700 < remaining <= 1800
    expect(post(env.url("wh_cli_rotate"), BODY, hmac_headers(secret=SECRET)), 200)
    expect(post(env.url("wh_cli_rotate"), BODY, hmac_headers(secret=new_secret)), 200)
    for action in ("enable", "disable", "publish", "unpublish", "rotate"):
        result = cli(env, "listeners", action, "wh_no_such_listener")
        assert result.returncode == 1, (action, result.stdout)
        assert "no listener 'wh_no_such_listener'" in result.stderr and not result.stdout
