"""Schemathesis hooks for the contract suite: credentials, webhook signing and path parameters that hit real objects.

Loaded by `schemathesis run` through `SCHEMATHESIS_HOOKS=tests.contract.hooks` (see `scripts/contract.py`) and
imported by the pytest contract tests. Configuration, all from the environment:

- `CONTRACT_API_TOKEN`: bearer token for the tenant API operations (restart, list entitlements);
  default `demo-admin-token`.
- `CONTRACT_OAUTH_CLIENT_ID` / `CONTRACT_OAUTH_CLIENT_SECRET`: when both are set, an access token is fetched from
  `POST /auth/v1/token` (client credentials) and used instead of `CONTRACT_API_TOKEN` (re-fetched every 5 minutes).
- `CONTRACT_WEBHOOK_AUTH`: `hmac` (default) or `jwt`.
- `CONTRACT_HMAC_SECRET`: signing secret of the HMAC listener; default the demo listener's secret.
- `CONTRACT_JWT_PRIVATE_KEY` (PEM file path), `CONTRACT_JWT_KID`, `CONTRACT_TENANT_BASE_URL`: JWT mode. The key
  must be published in the JWKS configured on the listener (`scripts/contract.py --webhook-auth jwt` does that for the
  reference server: it generates an Ed25519 key, serves its JWKS on 127.0.0.1 and creates a JWT listener).
- `CONTRACT_LISTENER_ID`: listener used by positive webhook cases; default `wh_demo_hmac`.
- `CONTRACT_TASK_IDS`: comma-separated IDs of open tasks for positive restart cases; default: open demo tasks.
- `CONTRACT_APP_ID`: app used by positive list cases; default `app-github`.
- `CONTRACT_STATS_FILE`: when set, one line `<METHOD path> <status>` is appended per response (for the summary).

Webhook requests are signed over the exact bytes the requests transport sends: a JSON body is serialized by
`requests` as `json.dumps(body, allow_nan=False).encode("utf-8")` (`json=` keyword), `None` as `b"null"`.
Each request gets a fresh `Webhook-Event-Id` (UUID v4) and the current `Webhook-Timestamp` right before it is sent,
so re-sent cases (shrinking, checks) are not answered 409 as replays. Negative cases keep their generated values:
only components generated in positive mode are replaced.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import threading
import time
import uuid
from typing import Any

import httpx
import schemathesis
from schemathesis import GenerationMode
from schemathesis.core.parameters import ParameterLocation
from schemathesis.core.transport import Response

from accessgov.webhooks.hmac_signature import compute_signature
from accessgov.webhooks.signing import jwt_headers

RESTART_PATH = "/api/v1/tasks/{task_id}/action/restart"
LIST_PATH = "/api/v1/apps/{app_id}/entitlements"
WEBHOOK_PATH = "/api/v1/webhooks/incoming/{listener_id}"
TOKEN_PATH = "/auth/v1/token"
API_PATHS = {RESTART_PATH, LIST_PATH}


def _demo_hmac_secret() -> str:
    from accessgov.demo.seed import DEMO_HMAC_SECRET

    return DEMO_HMAC_SECRET


def _default_task_ids() -> list[str]:
    from accessgov.demo import tenant as demo

    return [task["id"] for task in demo.build().tasks if task["state"] == "TASK_STATE_OPEN"][:20]


def _env(name: str, default: str = "") -> str:
    return os.environ.get(name, "") or default


_task_ids = [item.strip() for item in _env("CONTRACT_TASK_IDS").split(",") if item.strip()] or _default_task_ids()
_task_cycle = itertools.cycle(_task_ids)
_lock = threading.Lock()


def body_bytes(case: schemathesis.Case) -> bytes:
    """The bytes the requests transport sends for this case's JSON body."""
    body = case.body
    if isinstance(body, bytes):
        return body
    if body is None:
        return b"null"
    if type(body).__name__ == "NotSet":
        return b""
    return json.dumps(body, allow_nan=False).encode("utf-8")


EVENT_ID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-4[0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$")
TIMESTAMP = re.compile(r"^[0-9]{1,12}$")
LISTENER_ID = re.compile(r"^[A-Za-z0-9_-]{1,128}$")


def _valid_id(value: Any) -> bool:
    return isinstance(value, str) and 1 <= len(value) <= 128


def generated_in_negative_mode(case: schemathesis.Case, location: ParameterLocation) -> bool:
    """Whether `location` was generated to violate the schema (generation-time label; `case.meta` would revalidate)."""
    meta = case._meta
    if meta is None:
        return False
    info = meta.components.get(location)
    return (info.mode if info is not None else meta.generation.mode) == GenerationMode.NEGATIVE


class _OAuthToken:
    def __init__(self) -> None:
        self.value: str | None = None
        self.expires = 0.0

    def get(self, base_url: str) -> str:
        with _lock:
            if self.value is None or time.monotonic() > self.expires:
                response = httpx.post(
                    base_url.rstrip("/") + TOKEN_PATH,
                    data={
                        "grant_type": "client_credentials",
                        "client_id": _env("CONTRACT_OAUTH_CLIENT_ID"),
                        "client_secret": _env("CONTRACT_OAUTH_CLIENT_SECRET"),
                    },
                    timeout=10,
                )
                response.raise_for_status()
                self.value = response.json()["access_token"]
                self.expires = time.monotonic() + min(300, int(response.json().get("expires_in", 300)) / 2)
            return self.value


_oauth = _OAuthToken()


def api_token(case: schemathesis.Case) -> str:
    if _env("CONTRACT_OAUTH_CLIENT_ID") and _env("CONTRACT_OAUTH_CLIENT_SECRET"):
        return _oauth.get(case.operation.base_url or _env("BASE_URL"))
    return _env("CONTRACT_API_TOKEN", "demo-admin-token")


def webhook_url(case: schemathesis.Case) -> str:
    # The operation's own base_url is unset when the URL comes from `--url`; the schema knows the effective one.
    base = (case.operation.base_url or case.operation.schema.get_base_url() or "").rstrip("/")
    return base + case.formatted_path


def sign_webhook(case: schemathesis.Case, *, fresh: bool) -> None:
    """(Re)write the webhook authentication headers of `case` for its current body.

    `fresh` replaces `Webhook-Event-Id` / `Webhook-Timestamp` with a new UUID v4 and the current time, but only
    where the present value is schema-valid: a value a negative case made invalid, or a header a check removed,
    stays as it is, so the case keeps its meaning and only the parts no schema can express (clock, uniqueness)
    are made real.
    """
    headers = case.headers if case.headers is not None else {}
    if fresh:
        for name, pattern, value in (
            ("Webhook-Event-Id", EVENT_ID, str(uuid.uuid4())),
            ("Webhook-Timestamp", TIMESTAMP, str(int(time.time()))),
        ):
            if isinstance(headers.get(name), str) and pattern.match(headers[name]):
                headers[name] = value
    body = body_bytes(case)
    if _env("CONTRACT_WEBHOOK_AUTH", "hmac").lower() == "jwt":
        with open(_env("CONTRACT_JWT_PRIVATE_KEY"), "rb") as handle:
            pem = handle.read()
        signed = jwt_headers(
            pem,
            kid=_env("CONTRACT_JWT_KID", "contract"),
            url=webhook_url(case),
            tenant_base_url=_env("CONTRACT_TENANT_BASE_URL", "https://example.accessgov.example"),
            body=body,
            event_id=str(headers.get("Webhook-Event-Id", "")) or None,
            timestamp=int(headers["Webhook-Timestamp"])
            if str(headers.get("Webhook-Timestamp", "")).isdigit()
            else None,
        )
        headers["Authorization"] = signed["Authorization"]
        headers.pop("Webhook-Signature", None)
    else:
        headers["Webhook-Signature"] = compute_signature(
            _env("CONTRACT_HMAC_SECRET", _demo_hmac_secret()),
            str(headers.get("Webhook-Timestamp", "")),
            str(headers.get("Webhook-Event-Id", "")),
            body,
        )
    case.headers = headers


@schemathesis.auth(refresh_interval=None)
class ContractAuth:
    """Bearer token for the tenant API, HMAC signature (or JWT) for the webhook, nothing for the token endpoint."""

    def get(self, case: schemathesis.Case, ctx: Any) -> str | None:
        if case.operation.path in API_PATHS:
            return api_token(case)
        if case.operation.path == WEBHOOK_PATH:
            return "webhook"
        return None

    def set(self, case: schemathesis.Case, data: str, ctx: Any) -> None:
        if case.headers is None:
            case.headers = {}
        if case.operation.path in API_PATHS:
            case.headers["Authorization"] = f"Bearer {data}"
        elif case.operation.path == WEBHOOK_PATH:
            sign_webhook(case, fresh=True)


@schemathesis.hook
def map_case(context: Any, case: schemathesis.Case) -> schemathesis.Case:
    """Point cases at real objects so that fuzzing reaches the success paths often.

    Only schema-valid values of positively generated components are replaced (by other schema-valid values), so
    negative cases stay negative. A generated `page_token` is dropped: tokens are opaque and signed, so a random
    string — schema-valid or not — is always a 400 `INVALID_PAGE_TOKEN` (real tokens come from the `NextPage`
    link in the stateful phase, which sets them after generation).
    """
    path = case.operation.path
    params = case.path_parameters
    if params and not generated_in_negative_mode(case, ParameterLocation.PATH):
        if path == RESTART_PATH and _valid_id(params.get("task_id")):
            with _lock:
                params["task_id"] = next(_task_cycle)
        elif path == LIST_PATH and _valid_id(params.get("app_id")):
            params["app_id"] = _env("CONTRACT_APP_ID", "app-github")
        elif path == WEBHOOK_PATH and LISTENER_ID.match(str(params.get("listener_id", ""))):
            params["listener_id"] = _env("CONTRACT_LISTENER_ID", "wh_demo_hmac")
    if (
        path == LIST_PATH
        and case.query
        and isinstance(case.query.get("page_token"), str)
        and not generated_in_negative_mode(case, ParameterLocation.QUERY)
    ):
        case.query.pop("page_token")
    return case


@schemathesis.hook
def before_call(context: Any, case: schemathesis.Case, kwargs: dict[str, Any]) -> None:
    """Re-sign webhook requests right before sending: fresh event ID and timestamp, signature over the final body."""
    if case.operation.path != WEBHOOK_PATH or case.headers is None:
        return
    params = case.path_parameters
    # Explicit examples skip `map_case`: point them at the configured listener here too.
    if (
        params
        and LISTENER_ID.match(str(params.get("listener_id", "")))
        and not generated_in_negative_mode(case, ParameterLocation.PATH)
    ):
        params["listener_id"] = _env("CONTRACT_LISTENER_ID", "wh_demo_hmac")
    if "Webhook-Signature" in case.headers or (
        _env("CONTRACT_WEBHOOK_AUTH", "hmac").lower() == "jwt" and "Authorization" in case.headers
    ):
        sign_webhook(case, fresh=True)


@schemathesis.hook
def after_call(context: Any, case: schemathesis.Case, response: Response) -> None:
    """Append `<METHOD path> <status>` to `CONTRACT_STATS_FILE` (when set) for the per-operation summary."""
    target = _env("CONTRACT_STATS_FILE")
    if not target:
        return
    with _lock, open(target, "a", encoding="utf-8") as handle:
        handle.write(f"{case.operation.method.upper()} {case.operation.path} {response.status_code}\n")
