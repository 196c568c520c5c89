"""Schemathesis hooks of the schema part: credentials from the kit's configuration, webhook deliveries signed
over the exact bytes sent, path parameters pointed at the configured fixtures, and a status log per operation.

Loaded by `schemathesis run` through `SCHEMATHESIS_HOOKS=accessgov_conformance.schema_hooks`; the configuration
file comes from `ACCESSGOV_CONFORMANCE_CONFIG` (base URL `ACCESSGOV_CONFORMANCE_BASE_URL`), the status log goes
to `ACCESSGOV_CONFORMANCE_STATUSES`. Only components generated in positive mode are touched, so negative cases
keep their meaning; each delivery gets a fresh event id and the current timestamp right before it is sent (a
re-sent case must not be answered 409 as a replay).
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
from schemathesis.transport.requests import RequestsTransport

from . import spec
from .config import Config, load
from .context import BACKOFF, RETRY_ATTEMPTS, retry_after
from .signing import hmac_signature, jwt_token

API_PATHS = {spec.RESTART, spec.LIST_ENTITLEMENTS}
EVENT_ID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-4[0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$")
TIMESTAMP = re.compile(r"^[0-9]{1,12}$")
LISTENER_ID = re.compile(r"^[A-Za-z0-9_-]{1,128}$")

_lock = threading.Lock()
_config: Config = load(
    os.environ["ACCESSGOV_CONFORMANCE_CONFIG"], base_url=os.environ.get("ACCESSGOV_CONFORMANCE_BASE_URL")
)
_tasks = itertools.cycle(_config.open_task_ids or ("task-conformance",))
_listener = next((item for item in _config.listeners if item.source_allowed), None)
_token: dict[str, str] = {}
# What the run left of `max_retry_wait` when the schema part started; the waits taken are logged, one line each
# (`<seconds> <why>`), for the kit to count against the run's budget and show on its progress line.
_budget = [float(os.environ.get("ACCESSGOV_CONFORMANCE_MAX_RETRY_WAIT", "0"))]
_WAITS = os.environ.get("ACCESSGOV_CONFORMANCE_WAITS")
_send = RequestsTransport.send


def _waiting_send(self: RequestsTransport, case: schemathesis.Case[Any], **kwargs: Any) -> Response:
    """Every request Schemathesis sends (its checks' probes included), a 429 waited out as the behavioural rules
    wait it out (`Retry-After`, else a short backoff, within what is left of the run's `max_retry_wait`) and sent
    again: the failed-authentication limit of the target is the target's right, and a check must judge the answer
    to the request, not the limiter's (`ignored_auth` expects 401/403 for its invalid credentials)."""
    response = _send(self, case, **kwargs)
    for attempt in range(RETRY_ATTEMPTS):
        if response.status_code != 429:
            break
        header = next(iter(response.headers.get("retry-after") or []), None)
        asked = retry_after(header, time.time())
        wait = BACKOFF[attempt] if asked is None else asked
        with _lock:
            if wait > _budget[0]:
                break
            _budget[0] -= wait
            if _WAITS:
                after = f"Retry-After: {header}" if header is not None else "no Retry-After, backing off"
                why = f"{case.operation.method.upper()} {case.operation.path} answered 429 ({after})"
                with open(_WAITS, "a", encoding="utf-8") as log:
                    log.write(f"{wait:g} {why}\n")
        time.sleep(wait)
        response = _send(self, case, **kwargs)
    return response


RequestsTransport.send = _waiting_send  # type: ignore[method-assign]


def _api_token() -> str:
    if _config.token:
        return _config.token
    with _lock:
        if "value" not in _token:
            response = httpx.post(
                _config.base_url + spec.TOKEN,
                data={"grant_type": "client_credentials"},
                auth=(_config.oauth_client_id or "", _config.oauth_client_secret or ""),
                timeout=30,
            )
            response.raise_for_status()
            _token["value"] = response.json()["access_token"]
        return _token["value"]


def _negative(case: schemathesis.Case[Any], location: ParameterLocation) -> bool:
    """Whether `location` was generated to violate the schema (the generation-time label)."""
    meta = case._meta
    if meta is None:
        return False
    info = meta.components.get(location)
    return (info.mode if info is not None else meta.generation.mode) == GenerationMode.NEGATIVE


def body_bytes(case: schemathesis.Case[Any]) -> bytes:
    """The bytes the requests transport sends for the case's JSON body (`json=` keyword)."""
    body = case.body
    if isinstance(body, bytes):
        return body
    if body is None:
        return b"null"
    if type(body).__name__ == "NotSet":
        return b""
    return json.dumps(body, allow_nan=False).encode("utf-8")


def sign(case: schemathesis.Case[Any]) -> None:
    """(Re)write the credential of a webhook case for its final body, with a fresh event id and timestamp where
    the present values are schema-valid (a negative case's invalid value, or a header a check removed, stays)."""
    if _listener is None:
        return
    headers = case.headers if case.headers is not None else {}
    for name, pattern, value in (
        ("Webhook-Event-Id", EVENT_ID, str(uuid.uuid4())),
        ("Webhook-Timestamp", TIMESTAMP, str(int(time.time()))),
    ):
        if isinstance(headers.get(name), str) and pattern.match(headers[name]):
            headers[name] = value
    body = body_bytes(case)
    event_id = str(headers.get("Webhook-Event-Id", ""))
    timestamp = str(headers.get("Webhook-Timestamp", ""))
    if _listener.method == "hmac":
        headers["Webhook-Signature"] = hmac_signature(_listener.secret or "", timestamp, event_id, body)
    else:
        listener_id = (case.path_parameters or {}).get("listener_id", _listener.id)
        token = jwt_token(
            _listener.private_key or b"",
            kid=_listener.kid or "",
            subject=_config.tenant_base_url,
            audience=f"{_config.webhook_audience_base}/api/v1/webhooks/incoming/{listener_id}",
            event_id=event_id,
            body=body,
            now=int(time.time()),
        )
        headers["Authorization"] = f"Bearer {token}"
    case.headers = headers


@schemathesis.auth(refresh_interval=None)
class KitAuth:
    """Bearer token for the tenant API, the listener's credential for the webhook, nothing for the token endpoint."""

    def get(self, case: schemathesis.Case[Any], ctx: Any) -> str | None:
        if case.operation.path in API_PATHS:
            return _api_token()
        return "webhook" if case.operation.path == spec.WEBHOOK else None

    def set(self, case: schemathesis.Case[Any], data: str, ctx: Any) -> None:
        if case.headers is None:
            case.headers = {}
        if case.operation.path in API_PATHS:
            case.headers["Authorization"] = f"Bearer {data}"
        elif case.operation.path == spec.WEBHOOK:
            sign(case)


@schemathesis.hook
def map_case(context: Any, case: schemathesis.Case[Any]) -> schemathesis.Case[Any]:
    """Point positive cases at the configured fixtures so fuzzing reaches the success paths; drop a generated
    `page_token` (tokens are opaque and signed: a random one is always 400; real ones come from `NextPage`)."""
    path = case.operation.path
    params = case.path_parameters
    if params and not _negative(case, ParameterLocation.PATH):
        if path == spec.RESTART and isinstance(params.get("task_id"), str) and params["task_id"]:
            with _lock:
                params["task_id"] = next(_tasks)
        elif path == spec.LIST_ENTITLEMENTS and _config.app_id and isinstance(params.get("app_id"), str):
            params["app_id"] = _config.app_id
        elif path == spec.WEBHOOK and _listener and LISTENER_ID.match(str(params.get("listener_id", ""))):
            params["listener_id"] = _listener.id
    if (
        path == spec.LIST_ENTITLEMENTS
        and case.query
        and isinstance(case.query.get("page_token"), str)
        and not _negative(case, ParameterLocation.QUERY)
    ):
        case.query.pop("page_token")
    return case


@schemathesis.hook
def before_call(context: Any, case: schemathesis.Case[Any], kwargs: dict[str, Any]) -> None:
    """Re-sign webhook cases right before sending (explicit examples skip `map_case`: point them here too)."""
    if case.operation.path != spec.WEBHOOK or case.headers is None or _listener is None:
        return
    params = case.path_parameters
    if params and LISTENER_ID.match(str(params.get("listener_id", ""))) and not _negative(case, ParameterLocation.PATH):
        params["listener_id"] = _listener.id
    own, other = ("Webhook-Signature", "Authorization")[:: 1 if _listener.method == "hmac" else -1]
    if other in case.headers:
        # A case about the other scheme (Schemathesis' invalid-auth checks): the listener's own credential
        # would authenticate it regardless, so it goes without one.
        case.headers.pop(own, None)
    elif own in case.headers:
        sign(case)


def evidence_problem(method: str, path: str, response: Response) -> str:
    """Why a 2xx answer is no evidence that the operation works ("" when it is): an undocumented status, another
    content type than the contract's, or a body that is not JSON or breaks the documented schema."""
    schema = spec.response_schema(method, path, response.status_code)
    if schema is None:
        return f"HTTP {response.status_code} is not documented"
    if schema == {}:
        return ""
    content_type = (response.headers.get("content-type") or [""])[0]
    media_type = content_type.split(";")[0].strip().lower()
    if media_type != "application/json":
        return f"Content-Type {media_type or 'none'}"
    if getattr(response, "content_size", len(response.content)) > len(response.content):
        return "the body was cut short"
    try:
        body = json.loads(response.content)
    except ValueError:
        return "the body is not JSON"
    errors = spec.schema_errors(schema, body)
    return f"the body breaks the schema: {errors[0]}" if errors else ""


@schemathesis.hook
def after_call(context: Any, case: schemathesis.Case[Any], response: Response) -> None:
    """One line `<METHOD> <path> <status> [why a 2xx is no evidence]` per response, for the run's evidence."""
    target = os.environ.get("ACCESSGOV_CONFORMANCE_STATUSES")
    if not target:
        return
    method = case.operation.method.upper()
    problem = evidence_problem(method, case.operation.path, response) if 200 <= response.status_code < 300 else ""
    line = " ".join(filter(None, [method, case.operation.path, str(response.status_code), problem.replace("\n", " ")]))
    with _lock, open(target, "a", encoding="utf-8") as handle:
        handle.write(line + "\n")
