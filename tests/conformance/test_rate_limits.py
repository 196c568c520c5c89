"""Kind to the implementer: a 429 is waited out (as its Retry-After says, within `max_retry_wait`) and the request
sent again before a check says no evidence, in the schema part too; three runs in a row against the reference
server with its default failed-authentication limits give the same verdicts."""

from __future__ import annotations

import contextlib
import email.utils
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import httpx
import jwt
import limits
import pytest
from accessgov_conformance import spec
from accessgov_conformance.config import DEFAULT_MAX_RETRY_WAIT, Config, parse
from accessgov_conformance.context import Context, RunState, retry_after
from accessgov_conformance.rules import webhook_jwt
from accessgov_conformance.verdicts import NoEvidence
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ed25519

from accessgov.config import Settings
from tests.support.server_process import accessgov_serve

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "conformance" / "conformance.example.toml"
NOW = 1_700_000_000.0


KEY = (
    ed25519.Ed25519PrivateKey.generate()
    .private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    .decode()
)


def config(max_retry_wait: float = 60) -> Config:
    return parse(
        {
            "target": {"base_url": "http://limited.test", "max_retry_wait": max_retry_wait},
            "auth": {"token": "t"},
            "listeners": [
                {"id": "wh", "method": "hmac", "secret": "s3cret"},
                {"id": "wh_jwt", "method": "jwt", "private_key": KEY, "kid": "k"},
            ],
        }
    )


def context(answers: list[httpx.Response], budget: float = 60) -> tuple[Context, list[float], list[httpx.Request]]:
    """A context whose target gives `answers` in turn; the waits are recorded, not slept."""
    sent: list[httpx.Request] = []
    waits: list[float] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return answers[min(len(sent), len(answers)) - 1]

    client = httpx.Client(transport=httpx.MockTransport(handler))
    state = RunState(config(budget), 1, client)
    state.retry_budget.sleep = waits.append
    clock: Callable[[], float] = lambda: NOW + sum(waits)  # noqa: E731
    return Context(state.config, client, "T-1", 1, 0, {}, clock=clock, run=state), waits, sent


def limited(retry_after: str | None) -> httpx.Response:
    headers = {"Retry-After": retry_after} if retry_after is not None else {}
    return httpx.Response(429, headers=headers, json={"code": "TOO_MANY_FAILED_ATTEMPTS", "message": "later"})


OK = httpx.Response(200, json={"ok": True})


def test_retry_after_in_seconds_or_as_an_http_date() -> None:
    assert retry_after("7", NOW) == 7
    assert retry_after(email.utils.formatdate(NOW + 12, usegmt=True), NOW) == 12
    assert retry_after(email.utils.formatdate(NOW - 5, usegmt=True), NOW) == 0
    assert retry_after("soon", NOW) is None and retry_after(None, NOW) is None


@pytest.mark.parametrize(
    ("header", "wait"), [("3", 3.0), (email.utils.formatdate(NOW + 9, usegmt=True), 9.0), (None, 1.0)]
)
def test_a_429_is_waited_out_and_the_request_sent_again(header: str | None, wait: float) -> None:
    ctx, waits, sent = context([limited(header), OK])
    exchange = ctx.api("GET", spec.LIST_ENTITLEMENTS, "/api/v1/apps/a/entitlements")
    assert (exchange.status, exchange.retried, waits, len(sent)) == (200, 1, [wait], 2)
    assert ctx.exchanges == [exchange]  # the check judges the answer it finally got


def test_without_retry_after_the_backoff_is_short_and_bounded() -> None:
    ctx, waits, sent = context([limited(None)])
    exchange = ctx.api("GET", spec.LIST_ENTITLEMENTS, "/api/v1/apps/a/entitlements")
    assert exchange.status == 429 and waits == [1.0, 2.0, 4.0, 8.0, 8.0] and len(sent) == 6


def test_a_wait_over_the_budget_is_not_taken_and_the_check_says_why() -> None:
    ctx, waits, sent = context([limited("90")], budget=60)
    exchange = ctx.api("GET", spec.LIST_ENTITLEMENTS, "/api/v1/apps/a/entitlements")
    assert waits == [] and len(sent) == 1
    with pytest.raises(NoEvidence, match=r"answered 429 instead of serving the check .*Retry-After: 90"):
        ctx.expect(exchange, 200)


def test_a_webhook_is_built_afresh_after_the_wait() -> None:
    """Its timestamp (and credential) are of the moment it is sent again, its event id the same."""
    ctx, _, sent = context([limited("30"), OK])
    ctx.deliver(ctx.config.listeners[0], timestamp_offset=-298)
    first, second = sent
    assert int(second.headers["webhook-timestamp"]) - int(first.headers["webhook-timestamp"]) == 30
    assert second.headers["webhook-event-id"] == first.headers["webhook-event-id"]
    assert second.headers["webhook-signature"] != first.headers["webhook-signature"]


def test_a_jwt_s_time_claims_keep_their_distance_from_the_clock_after_a_wait() -> None:
    """A token made again after a 429 (30 s waited): its iat 7 s ahead is 7 s ahead of the new moment, so an
    attack on the leeway is still one (a token made once would have aged into an accepted one)."""
    ctx, _, sent = context([limited("30"), OK])
    webhook_jwt.send(ctx, webhook_jwt.Attack(claims={"iat": webhook_jwt.At(7)}))
    first, second = (jwt.decode(r.headers["authorization"][7:], options={"verify_signature": False}) for r in sent)
    assert second["iat"] - first["iat"] == 30
    assert second["iat"] - int(second["exp"]) == 7 - 300


# The reference server's failed-authentication limit with its default count but a window of WINDOW seconds: the kit
# meets the same 429s as against `make run` and waits them out in seconds, not minutes.
WINDOW = 3
VERDICT = re.compile(r"^\[ *\d+/\d+\] (\S+) +(pass|FAIL|n/a|NO EVIDENCE) ")


def statuses(log: str) -> list[int]:
    """The statuses of the server's JSON access log lines, in order."""
    found = []
    for line in log.splitlines():
        if line.startswith("{") and '"status"' in line:
            with contextlib.suppress(ValueError):
                found.append(int(json.loads(line)["status"]))
    return found


@pytest.mark.slow
def test_three_runs_in_a_row_against_the_reference_server_give_the_same_verdicts(tmp_path: Path) -> None:
    """`accessgov serve --demo` (what `make run` starts) with its default failed-authentication limit per address
    (30), over a WINDOW-second window instead of a minute: every rule of the example configuration and the schema
    part (kept small), three times in a row. The kit causes more failures than the limit on purpose, so each run
    meets 429s, waits them out (saying so) and passes with the same verdict lines. Against the default minute, the
    waits a run needs fit the kit's default budget."""
    default = limits.parse(Settings.model_fields["auth_failure_limit"].default)  # 30 a minute
    count = default.amount
    env = {**os.environ, "ACCESSGOV_AUTH_FAILURE_LIMIT": f"{count}/{WINDOW} seconds"}
    env.pop("ACCESSGOV_AUTH_FAILURE_LIMIT_PER_CREDENTIAL", None)
    runs: list[list[tuple[str, str]]] = []
    with accessgov_serve(tmp_path, env=env) as served:
        example = EXAMPLE.read_text(encoding="utf-8")
        kit_config = tmp_path / "kit.toml"
        kit_config.write_text(example.replace('"http://127.0.0.1:8080"', f'"{served.base_url}"', 1), encoding="utf-8")
        seen = 0
        for run in (1, 2, 3):
            argv = [
                "run", "--config", str(kit_config), "--report-dir", str(tmp_path / f"r{run}"),
                "--max-examples", "2", "--phases", "examples,coverage",
                "--credential-age", "1",  # what is asked of the lifetime rules here is the same verdict, not a wait
            ]  # fmt: skip
            done = subprocess.run(
                [sys.executable, "-m", "accessgov_conformance", *argv],
                env=env,
                capture_output=True,
                text=True,
                check=False,
            )
            lines = done.stderr.splitlines()
            failed = [line for line in lines if "FAIL" in line or "NO EVIDENCE" in line]
            assert done.returncode == 0, (run, failed or done.stderr[-3000:])
            runs.append([match.groups() for line in lines if (match := VERDICT.match(line))])
            assert any(" waiting " in line and "429" in line for line in lines), f"run {run} showed no wait"
            answered = statuses(served.output())[seen:]
            seen += len(answered)
            assert 429 in answered, f"run {run} never met the limit: {sorted(set(answered))}"
            # Against the default window each wait is up to a window long; a run's failures (its 401s, at most)
            # need one wait per `count` beyond the first `count`.
            waits = max(0, -(-answered.count(401) // count) - 1)
            assert waits * default.get_expiry() <= DEFAULT_MAX_RETRY_WAIT, (run, answered.count(401))
    assert runs[0] == runs[1] == runs[2]
    assert len(runs[0]) > 100 and {verdict for _, verdict in runs[0]} == {"pass"}
