"""Probes of the spec-text mutants (tests/conformance/selftest/mutants/spec_text.py): one request (or a few) each on
which the mutant answers differently from the unchanged reference server. Probes that wait out a mutant's
lifetime answer with a string, so the controls' check of every status probe does not wait for each of them."""

from __future__ import annotations

import json
import time
import urllib.parse
import uuid
from typing import Any

import httpx

from tests.conformance.selftest.mutants.spec_text import LATE
from tests.conformance.selftest.probes.probing import ADMIN, RESTART, Probe, Target
from tests.conformance.selftest.target import JWT_LISTENER_ID

JSON = {"Content-Type": "application/json"}
CLIENT = ("demo-client", "demo-client-secret")
OPERATOR = {"Authorization": "Bearer demo-operator-token"}


def _raw_restart(
    t: Target, body: bytes, task: str | None = None, headers: dict[str, str] | None = None
) -> httpx.Response:
    task = task or t.fx.open_task_ids[0]
    return t.client.post(
        RESTART.format(urllib.parse.quote(task, safe="")), content=body, headers={**ADMIN, **JSON, **(headers or {})}
    )


def _comment(text: str, escaped: bool = False) -> bytes:
    return json.dumps({"comment": text}, ensure_ascii=escaped).encode()


def _task(response: httpx.Response) -> dict[str, Any]:
    task: dict[str, Any] = (response.json().get("taskView") or {}).get("task") or {}
    return task


def _token(t: Target, **form: str) -> httpx.Response:
    return t.client.post("/auth/v1/token", data={"grant_type": "client_credentials", **form}, auth=CLIENT)


def _later(t: Target, probe: Any) -> str:
    """`probe()`'s status after the mutant's lifetime has run out."""
    time.sleep(LATE + 0.5)
    return f"status {probe()}"


def _event_replayed_late(t: Target) -> str:
    event_id = str(uuid.uuid4())
    assert t.webhook(event_id=event_id).status_code == 200
    return _later(t, lambda: t.webhook(event_id=event_id).status_code)


def _page_token_late(t: Target) -> str:
    token = t.page(page_size=10).json()["nextPageToken"]
    return _later(t, lambda: t.page(page_size=10, page_token=token).status_code)


def _access_token_late(t: Target) -> str:
    token = _token(t).json()["access_token"]
    return _later(t, lambda: t.page(headers={"Authorization": f"Bearer {token}"}).status_code)


def _older_token(t: Target) -> int:
    older = _token(t).json()["access_token"]
    _token(t)
    return t.page(headers={"Authorization": f"Bearer {older}"}).status_code


def _scoped_restart(t: Target) -> int:
    token = _token(t, scope="viewer").json()["access_token"]
    return t.restart(headers={"Authorization": f"Bearer {token}"}).status_code


def _run_ids(t: Target) -> bool:
    first, second = (t.webhook().json()["automationRun"]["id"] for _ in range(2))
    return first == second


def _second_size(t: Target, **query: Any) -> int:
    token = t.page(page_size=10).json()["nextPageToken"]
    return len(t.page(page_token=token, **query).json()["list"])


def _first_ids(t: Target) -> list[str]:
    return [item["appEntitlement"]["id"] for item in t.page(page_size=10).json()["list"]]


def _star_fields(t: Target) -> Any:
    view = t.restart(body={"expandMask": {"paths": ["*"]}}).json()["taskView"]
    return view.get("userPath"), view.get("appPath")


def _jwt(t: Target, claims: dict[str, Any], skew: int = 0) -> int:
    now = int(time.time())
    return t.webhook(JWT_LISTENER_ID, claims={"exp": now + 605, **claims}, skew=skew).status_code


def _quoted(response: httpx.Response, value: str) -> bool:
    return value in response.text


def _task_of_kind(t: Target, kind: str) -> dict[str, Any]:
    for task_id in t.fx.open_task_ids:
        task = _task(t.restart(task_id))
        if kind in (task.get("type") or {}):
            return task
    raise AssertionError(f"no open {kind} task")


def _comment_added_by_capital(t: Target) -> int:
    """How much a restart with a member named `Comment` raises commentCount (a restart without one first)."""
    before = _task(t.restart())["commentCount"]
    return int(_task(t.restart(body={"Comment": "x"}))["commentCount"]) - int(before)


def _operator_after_admin(t: Target) -> Any:
    """The operator's objectPermissions.delete on a task the admin restarted just before."""
    task = t.fx.open_task_ids[3]
    t.restart(task)
    return t.restart(task, headers=OPERATOR).json()["taskView"]["objectPermissions"]["delete"]


def _unknown_listener(t: Target, listener_id: str) -> httpx.Response:
    headers = {**JSON, "Webhook-Timestamp": str(int(time.time())), "Webhook-Event-Id": str(uuid.uuid4())}
    headers["Webhook-Signature"] = "A" * 43
    return t.client.post(f"/api/v1/webhooks/incoming/{listener_id}", content=b"{}", headers=headers)


def _policy_keys(t: Target) -> list[str]:
    return sorted(((_task(t.restart()).get("policy") or {}).get("policy") or {}).get("policySteps") or {})


PROBES: dict[str, Probe] = {
    "text-webhook-lone-surrogate-accepted": lambda t: t.webhook(body=b'{"a":"\\ud800"}').status_code,
    "text-webhook-huge-number-accepted": lambda t: t.webhook(body=b'{"a":1e400}').status_code,
    "text-run-id-reused": _run_ids,
    "text-run-id-per-listener": _run_ids,
    "text-event-ids-forgotten": _event_replayed_late,
    "text-listener-id-129-looked-up": lambda t: _unknown_listener(t, "w" * 129).status_code,
    "text-jwt-exp-from-iat": lambda t: _jwt(t, {"iat": int(time.time()) - 300}),
    "text-jwt-exp-from-timestamp": lambda t: _jwt(t, {}, skew=-250),
    "text-comment-in-bytes": lambda t: _raw_restart(t, _comment("é" * 4096)).status_code,
    "text-comment-in-utf16": lambda t: _raw_restart(t, _comment("\U0001f600" * 4096)).status_code,
    "text-comment-in-escapes": lambda t: _raw_restart(t, _comment("é" * 4096, escaped=True)).status_code,
    "text-comment-multibyte-over": lambda t: _raw_restart(t, _comment("é" * 4097)).status_code,
    "text-task-id-in-bytes": lambda t: t.restart(urllib.parse.quote("é" * 128)).status_code,
    "text-task-id-129-looked-up": lambda t: t.restart("t" * 129).status_code,
    "text-numeric-id-renumbered": lambda t: _task(t.restart())["numericId"] == _task(t.restart())["numericId"],
    "text-created-at-reset": lambda t: _task(t.restart())["createdAt"] == _task(t.restart())["createdAt"],
    "text-generation-bumped": lambda t: (
        _task(t.restart())["policyGenerationId"] == _task(t.restart())["policyGenerationId"]
    ),
    "text-star-without-user": lambda t: _star_fields(t)[0],
    "text-star-swapped": _star_fields,
    "text-restart-lone-surrogate-accepted": lambda t: _raw_restart(t, b'{"comment":"\\ud800"}').status_code,
    "text-restart-huge-number-accepted": lambda t: _raw_restart(t, b'{"comment":"c","n":1e400}').status_code,
    "text-surrogate-pair-refused": lambda t: _raw_restart(t, b'{"comment":"\\ud83d\\ude00"}').status_code,
    "text-ticket-from-request": lambda t: (
        t.restart(body={"ticketActionId": "probe-ticket"}).json()["ticketActionId"] == "probe-ticket"
    ),
    "text-member-names-folded": _comment_added_by_capital,
    "text-later-page-not-clamped": lambda t: _second_size(t, page_size=150),
    "text-later-size-from-token": lambda t: _second_size(t, page_size=37),
    "text-later-default-from-token": lambda t: _second_size(t),
    "text-app-id-in-bytes": lambda t: t.page(urllib.parse.quote("é" * 128)).status_code,
    "text-order-depends-on-size": _first_ids,
    "text-expanded-per-item": lambda t: len(t.page(page_size=10).json().get("expanded") or []),
    "text-app-path-past-the-end": lambda t: t.page(page_size=10).json()["list"][0].get("appPath"),
    "text-page-tokens-expire": _page_token_late,
    "text-token-type-lower-case": lambda t: _token(t).json()["token_type"],
    "text-expires-in-fraction": lambda t: type(_token(t).json()["expires_in"]).__name__,
    "text-cache-control-extended": lambda t: _token(t).headers.get("cache-control"),
    "text-token-lives-milliseconds": _access_token_late,
    "text-newer-token-revokes-older": _older_token,
    "text-scope-honoured": _scoped_restart,
    "text-scope-refused": lambda t: _token(t, scope="viewer").status_code,
    "text-actions-of-a-viewer": lambda t: "TASK_ACTION_TYPE_RESTART" in _task(t.restart(headers=OPERATOR))["actions"],
    "text-permissions-of-admin": lambda t: t.restart(headers=OPERATOR).json()["taskView"]["objectPermissions"][
        "delete"
    ],
    "text-first-caller-cached": _operator_after_admin,
    "text-page-size-quoted-whole": lambda t: _quoted(t.page(page_size="q" * 100), "q" * 100),
    "text-page-token-quoted-whole": lambda t: _quoted(t.page(page_token="z" * 100), "z" * 100),
    "text-unknown-id-quoted-whole": lambda t: _quoted(t.page("y" * 100), "y" * 100),
    "text-expand-path-quoted-whole": lambda t: _quoted(
        t.restart(body={"expandMask": {"paths": ["x" * 100]}}), "x" * 100
    ),
    "text-event-id-quoted-whole": lambda t: _quoted(t.webhook(event_id="e" * 100), "e" * 100),
    "text-listener-id-quoted-whole": lambda t: _quoted(_unknown_listener(t, "l" * 100), "l" * 100),
    "text-comment-quoted-whole": lambda t: _quoted(_raw_restart(t, _comment("c" * 5000)), "c" * 5000),
    "text-request-id-not-hex": lambda t: len(t.page().headers["x-request-id"]),
    "text-request-id-repeated": lambda t: t.page().headers["x-request-id"] == t.page().headers["x-request-id"],
    "text-route-html": lambda t: t.client.get("/api/v1/no-such-route", headers=ADMIN).headers.get("content-type"),
    "text-route-400": lambda t: t.client.get("/api/v1/no-such-route", headers=ADMIN).status_code,
    "text-method-404": lambda t: t.client.get(RESTART.format(t.fx.open_task_ids[0]), headers=ADMIN).status_code,
    "text-get-restart-served": lambda t: t.client.get(RESTART.format(t.fx.open_task_ids[0]), headers=ADMIN).status_code,
    "text-created-ids-early": lambda t: _task_of_kind(t, "action")["type"]["action"].get("createdAppEntitlementIds"),
    "text-grant-duration-seconds": lambda t: _task_of_kind(t, "grant")["type"]["grant"].get("grantDuration"),
    "text-step-key-named": _policy_keys,
    "text-count-overflow": lambda t: _task(t.restart())["commentCount"] >= 2**31,
    "text-next-token-long": lambda t: len(t.page(page_size=10).json()["nextPageToken"]) > 1024,
    "text-extra-not-boolean": lambda t: t.restart().json()["taskView"]["objectPermissions"]["extra"],
    "text-run-status-number": lambda t: type(t.webhook().json()["automationRun"]["status"]).__name__,
}
