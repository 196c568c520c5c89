"""What a check works with: the configured target, an HTTP client that records every exchange, a seeded RNG,
the helpers that send the contract's requests and hold responses against the contract, and what the run shares
between its checks (`RunState`)."""

from __future__ import annotations

import dataclasses
import email.utils
import json
import os
import random
import time
import urllib.parse
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict, Unpack

import httpx

from . import spec
from .config import Config, Listener, ListenerMethod, env_name
from .signing import hmac_signature, jwt_token
from .verdicts import Fail, NoEvidence, NotApplicable

JSON = "application/json"
TRANSCRIPT_HEAD = 4096  # bytes of each body a finished check's transcript keeps (with the full size)
MAX_GIVEN_PAGE_TOKENS = 10_000  # nextPageTokens kept until the run's first page token is used (a bounded set)
RETRY_ATTEMPTS = 5  # 429s waited out per request at most
BACKOFF = (1.0, 2.0, 4.0, 8.0, 8.0)  # seconds, when a 429 names no Retry-After


@dataclass
class WebhookRecipe:
    """How the kit built a webhook request, so the reproduce line can build it afresh (clock, event id)."""

    secret_env: str | None
    timestamp_offset: int | None
    fresh_event_id: bool
    signed_honestly: bool
    listener_id: str | None = None
    # What the credential was made over when told otherwise (`deliver`'s sign_*/secret), for the reproduce
    # line to find how the signature it shows was made (curl.py).
    sign_timestamp: str | None = None
    sign_event_id: str | None = None
    key: str | None = field(default=None, repr=False)
    now: int | None = None  # the kit's clock the credential was made at (a JWT's iat/exp are offsets from it)


@dataclass
class Exchange:
    """One request the kit sent and the response it got."""

    method: str
    url: str
    request_headers: dict[str, str]
    request_body: bytes
    status: int
    response_headers: dict[str, str]
    response_body: bytes
    operation: tuple[str, str] | None = None
    webhook: WebhookRecipe | None = None
    sent_at: float = 0.0  # the kit's clock when sent: the reproduce line turns literal timestamps into offsets
    response_size: int = -1  # the body's full size; -1: `response_body` is whole
    retried: int = 0  # 429s waited out before this answer

    def response_json(self) -> Any:
        try:
            return json.loads(self.response_body)
        except ValueError:
            return None

    def trimmed(self) -> Exchange:
        """The exchange as a run keeps it once its check is done: the head of the response body and its size."""
        if len(self.response_body) <= TRANSCRIPT_HEAD:
            return self
        size = len(self.response_body) if self.response_size < 0 else self.response_size
        return dataclasses.replace(self, response_body=self.response_body[:TRANSCRIPT_HEAD], response_size=size)


@dataclass
class RetryBudget:
    """What a run may spend waiting out 429s (`[target] max_retry_wait`), shared by its checks (the schema part's
    waits included, `spent`). `on_wait(seconds, why)` is told of each wait before it starts: the progress line
    says that the rule waits, how long and why, so a wait never reads as a hang."""

    seconds_left: float
    sleep: Callable[[float], None] = time.sleep
    waited: float = 0.0
    on_wait: Callable[[float, str], None] | None = None

    def take(self, seconds: float, why: str = "") -> bool:
        """Wait `seconds` if the budget allows it; False (and no wait) when it does not."""
        if seconds > self.seconds_left:
            return False
        self.spent(seconds, why)
        self.sleep(seconds)
        return True

    def spent(self, seconds: float, why: str = "") -> None:
        """Count a wait (taken here, or by the schema part's process) against the budget and report it."""
        self.seconds_left = max(0.0, self.seconds_left - seconds)
        self.waited += seconds
        if self.on_wait is not None:
            self.on_wait(seconds, why)


def waiting_reason(exchange: Exchange, header: str | None) -> str:
    """Why a rule waits: the answer it got, in the words of a progress line."""
    path = exchange.url.split("://", 1)[-1].partition("/")[2].partition("?")[0]
    code = _error_code(exchange) or "no code"
    after = f"Retry-After: {header}" if header is not None else "no Retry-After, backing off"
    return f"{exchange.method} /{path} answered 429 {code} ({after})"


def retry_after(value: str | None, now: float) -> float | None:
    """Seconds to wait from a `Retry-After` value: delay-seconds or an HTTP-date (RFC 9110 10.2.3)."""
    if value is None:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        return None
    return max(0.0, when.timestamp() - now)


class Payload(TypedDict, total=False):
    """What a request may carry besides its method, path and operation."""

    headers: Mapping[str, str] | None
    content: bytes | None
    params: Mapping[str, Any] | None
    data: Mapping[str, str] | None
    auth: tuple[str, str] | None


class SendOptions(Payload, total=False):
    """The one parameter list of `Context.request` (and of `Context._send`, the single attempt it retries)."""

    operation: tuple[str, str] | None  # (method, path template) of the contract's operation; None: not one
    webhook: WebhookRecipe | None


@dataclass
class Context:
    """The state of one check: created fresh by the runner for each rule."""

    config: Config
    client: httpx.Client
    rule_id: str
    seed: int
    salt: int
    token_cache: dict[str, str]
    exchanges: list[Exchange] = field(default_factory=list)
    clock: Callable[[], float] = time.time
    run: RunState | None = None  # the run this check is part of (None: a check made on its own)
    blamed: Exchange | None = None  # the first exchange `expect`/`conforms` failed: the one to reproduce

    def __post_init__(self) -> None:
        self.rng = random.Random(f"{self.seed}:{self.rule_id}")

    # --- generated values --------------------------------------------------------------------------------------

    def event_id(self) -> str:
        """A new UUID v4 from the seeded RNG, mixed with the run's salt: unique per run, since the target keeps
        event ids for 7 days and the next run against it must not meet its own ids again."""
        return str(uuid.UUID(int=self.rng.getrandbits(128) ^ self.salt, version=4))

    def now(self) -> int:
        return int(self.clock())

    # --- plain HTTP --------------------------------------------------------------------------------------------

    def request(self, method: str, path: str, **options: Unpack[SendOptions]) -> Exchange:
        """One request; a 429 is waited out and the request sent again (see `retrying`)."""
        return self.retrying(lambda: self._send(method, path, **options))

    def retrying(self, send: Callable[[], Exchange]) -> Exchange:
        """`send()` again after each 429, waiting as its `Retry-After` says (seconds or an HTTP-date; without one,
        a short backoff) while the run's `max_retry_wait` budget lasts. The answers waited out leave the check's
        exchanges: what the check judges is the answer it finally got."""
        budget = self.run.retry_budget if self.run is not None else None
        for attempt in range(RETRY_ATTEMPTS + 1):
            exchange = send()
            exchange.retried = attempt
            if exchange.status != 429 or budget is None or attempt == RETRY_ATTEMPTS:
                return exchange
            header = exchange.response_headers.get("retry-after")
            asked = retry_after(header, self.clock())
            if not budget.take(BACKOFF[attempt] if asked is None else asked, waiting_reason(exchange, header)):
                return exchange
            self.exchanges.remove(exchange)
        raise AssertionError("unreachable")

    def _send(self, method: str, path: str, **options: Unpack[SendOptions]) -> Exchange:
        sent_at = self.clock()
        response = self.client.request(
            method,
            self.config.base_url + path,
            headers=dict(options.get("headers") or {}),
            content=options.get("content"),
            params=options.get("params"),
            data=options.get("data"),
            auth=options.get("auth"),
        )
        return self.recorded(response, sent_at, operation=options.get("operation"), webhook=options.get("webhook"))

    def recorded(
        self,
        response: httpx.Response,
        sent_at: float,
        *,
        operation: tuple[str, str] | None,
        webhook: WebhookRecipe | None = None,
        request_body: bytes | None = None,
    ) -> Exchange:
        """`response` as an exchange of this check (`request_body`: what was sent, when httpx streamed it)."""
        request = response.request
        exchange = Exchange(
            method=request.method,
            url=str(request.url),
            request_headers={key: value for key, value in request.headers.items() if key.lower() not in _NOISE},
            request_body=request.content if request_body is None else request_body,
            status=response.status_code,
            response_headers=dict(response.headers),
            response_body=response.content,
            operation=operation,
            webhook=webhook,
            sent_at=sent_at,
        )
        self.exchanges.append(exchange)
        return exchange

    def api_token(self) -> str:
        """The configured API token, else an OAuth access token (fetched once per run)."""
        if self.config.token:
            return self.config.token
        if "oauth" not in self.token_cache:
            exchange = self.client_credentials()
            body = exchange.response_json()
            if exchange.status != 200 or not isinstance(body, dict) or not body.get("access_token"):
                raise NoEvidence(f"the configured OAuth client got no access token (HTTP {exchange.status})")
            self.token_cache["oauth"] = body["access_token"]
        return self.token_cache["oauth"]

    def token_request(self, **payload: Unpack[Payload]) -> Exchange:
        """A request to the OAuth token endpoint (`POST /auth/v1/token`) carrying `payload`."""
        return self.request("POST", spec.TOKEN, operation=("POST", spec.TOKEN), **payload)

    def client_credentials(self) -> Exchange:
        """The configured OAuth client's token request (client_credentials, the client in HTTP Basic)."""
        client = (self.config.oauth_client_id or "", self.config.oauth_client_secret or "")
        return self.token_request(data={"grant_type": "client_credentials"}, auth=client)

    def api(
        self,
        method: str,
        template: str,
        path: str,
        *,
        token: str | Callable[[], str] | None = "default",
        body: Any = None,
        params: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> Exchange:
        """A tenant API call with the configured credentials (`token=None`: none, or the given token)."""
        sent = dict(headers or {})
        bearer = self.api_token() if token == "default" else token
        if bearer is not None:
            sent["Authorization"] = f"Bearer {bearer}"
        content = None
        if body is not None:
            content = body if isinstance(body, bytes) else json.dumps(body).encode()
            sent.setdefault("Content-Type", JSON)
        return self.request(method, path, operation=(method, template), headers=sent, content=content, params=params)

    # --- webhooks ----------------------------------------------------------------------------------------------

    def listener(self, method: ListenerMethod = "hmac", *, index: int = 0, source_allowed: bool = True) -> Listener:
        found = self.config.listeners_by(method, source_allowed=source_allowed)
        if len(found) <= index:
            where = "whose CIDR ranges exclude the kit's address" if not source_allowed else "the kit may reach"
            raise NotApplicable(
                f"the configuration names no{' second' if index else ''} {method.upper()} listener {where}"
            )
        return found[index]

    def webhook_url(self, listener_id: str) -> str:
        return f"{self.config.webhook_audience_base}/api/v1/webhooks/incoming/{listener_id}"

    def deliver(
        self,
        listener: Listener,
        body: bytes = b'{"conformance":true}',
        *,
        path_listener_id: str | None = None,
        timestamp_offset: int | None = 0,
        timestamp: str | None = None,
        event_id: str | None = None,
        content_type: str | None = JSON,
        omit: tuple[str, ...] = (),
        sign_body: bytes | None = None,
        sign_timestamp: str | None = None,
        sign_event_id: str | None = None,
        secret: str | None = None,
        claims: Mapping[str, Any] | None = None,
        jwt_headers: Mapping[str, Any] | None = None,
        jwt_options: Mapping[str, Any] | None = None,
        extra_headers: Mapping[str, str] | None = None,
        headers_at: Callable[[int], Mapping[str, str]] | None = None,
    ) -> Exchange:
        """One webhook request to `listener`, signed as a correct sender would unless told otherwise.

        `timestamp_offset` is seconds from now (`timestamp` a literal value instead); `omit` leaves headers out;
        `sign_*`/`secret`/`claims`/`jwt_*` make the credential cover something other than what is sent;
        `headers_at(now)`: headers made for the moment each attempt is sent (a token whose time claims are
        offsets from then: a 429 waited out must not age them).
        """
        fresh = event_id is None
        event_id = event_id or self.event_id()

        def once() -> Exchange:  # built again after a 429: its clock and credential are of the moment sent
            assert event_id is not None
            now = self.now()
            ts_value = timestamp if timestamp is not None else str(now + (timestamp_offset or 0))
            headers: dict[str, str] = {"Webhook-Timestamp": ts_value, "Webhook-Event-Id": event_id}
            if content_type is not None:
                headers["Content-Type"] = content_type
            overrides = (
                sign_body,
                sign_timestamp,
                sign_event_id,
                secret,
                claims,
                jwt_headers,
                jwt_options,
                extra_headers,
                headers_at,
            )
            honest = all(value is None for value in overrides)  # b"" and "" are overrides too
            if listener.method == "hmac":
                headers["Webhook-Signature"] = hmac_signature(
                    secret or listener.secret or "",
                    ts_value if sign_timestamp is None else sign_timestamp,
                    event_id if sign_event_id is None else sign_event_id,
                    body if sign_body is None else sign_body,
                )
            else:
                token = jwt_token(
                    listener.private_key or b"",
                    kid=listener.kid or "",
                    subject=self.config.tenant_base_url,
                    audience=self.webhook_url(path_listener_id or listener.id),
                    event_id=event_id if sign_event_id is None else sign_event_id,
                    body=body if sign_body is None else sign_body,
                    now=now,
                    claims=claims,
                    headers=jwt_headers,
                    **dict(jwt_options or {}),
                )
                headers["Authorization"] = f"Bearer {token}"
            for name in omit:
                headers.pop(name, None)
            headers.update(extra_headers or {})
            headers.update(headers_at(now) if headers_at is not None else {})
            recipe = WebhookRecipe(
                secret_env=env_name(listener.id) if listener.method == "hmac" and honest else None,
                timestamp_offset=timestamp_offset if timestamp is None and "Webhook-Timestamp" not in omit else None,
                fresh_event_id=fresh and "Webhook-Event-Id" not in omit,
                signed_honestly=honest and listener.method == "hmac" and "Webhook-Signature" not in omit,
                listener_id=listener.id,
                sign_timestamp=sign_timestamp,
                sign_event_id=sign_event_id,
                key=secret,
                now=now,
            )
            path = f"/api/v1/webhooks/incoming/{path_listener_id or listener.id}"
            return self._send(
                "POST", path, operation=("POST", spec.WEBHOOK), headers=headers, content=body, webhook=recipe
            )

        return self.retrying(once)

    # --- verdicts ----------------------------------------------------------------------------------------------

    def expect(self, exchange: Exchange, status: int, *, code: str | None = None, what: str = "") -> Any:
        try:
            return self._expect(exchange, status, code=code, what=what)
        except (Fail, NoEvidence):
            self.blamed = self.blamed or exchange
            raise

    def conforms(self, exchange: Exchange, *, what: str = "") -> Any:
        """The parsed body, after checking the status is documented and the body matches its schema."""
        try:
            return self._conforms(exchange, what=what)
        except Fail:
            self.blamed = self.blamed or exchange
            raise

    def _expect(self, exchange: Exchange, status: int, *, code: str | None = None, what: str = "") -> Any:
        """Hold `exchange` to `status` (and the `Error.code` when given) and its body to the documented schema;
        returns the parsed body. A 429/503 the check did not ask for means the target would not serve it (no
        evidence) where the operation documents that status, and is a failure where it does not."""
        label = f"{what}: " if what else ""
        if exchange.status != status:
            documented = _documented(exchange)
            if exchange.status in (429, 503) and status not in (429, 503) and documented is not None:
                waited = f", after waiting out {exchange.retried} 429(s)" if exchange.retried else ""
                after = exchange.response_headers.get("retry-after")
                raise NoEvidence(
                    f"{label}the target answered {exchange.status} instead of serving the check "
                    f"({_error_code(exchange) or 'no code'}{f'; Retry-After: {after}' if after else ''}{waited}; "
                    "a failed-authentication limit or overload? [target] max_retry_wait bounds the waiting)"
                )
            raise Fail(
                f"{label}expected HTTP {status}{f' {code}' if code else ''}, got {exchange.status}"
                f"{f' {_error_code(exchange)}' if _error_code(exchange) else ''}"
                f"{'' if documented is not None else ' (not a documented response of the operation)'}"
            )
        body = self._conforms(exchange, what=what)
        if code is not None:
            actual = body.get("code") if isinstance(body, dict) else None
            if actual != code:
                raise Fail(f"{label}HTTP {status} as expected but Error.code is {actual!r}, not {code!r}")
        return body

    def _conforms(self, exchange: Exchange, *, what: str = "") -> Any:
        label = f"{what}: " if what else ""
        if exchange.operation is None:
            return exchange.response_json()
        method, template = exchange.operation
        schema = spec.response_schema(method, template, exchange.status)
        if schema is None:
            raise Fail(f"{label}HTTP {exchange.status} is not a documented response of {method} {template}")
        if "x-request-id" not in {name.lower() for name in exchange.response_headers}:
            raise Fail(f"{label}the response has no X-Request-Id header (every response carries one)")
        if schema == {}:
            return exchange.response_json()
        media_type = exchange.response_headers.get("content-type", "").split(";")[0].strip().lower()
        if media_type != JSON:
            raise Fail(f"{label}HTTP {exchange.status} has Content-Type {media_type or 'none'!r}, not {JSON}")
        body = exchange.response_json()
        if body is None and exchange.response_body.strip() != b"null":
            raise Fail(f"{label}HTTP {exchange.status} body is not JSON: {exchange.response_body[:200]!r}")
        errors = spec.schema_errors(schema, body)
        if errors:
            raise Fail(f"{label}HTTP {exchange.status} body does not match the spec's schema: {'; '.join(errors)}")
        return body


_NOISE = {"accept", "accept-encoding", "connection", "user-agent", "content-length", "host"}


def _documented(exchange: Exchange) -> object:
    """The schema of the exchange's status for its operation (None: not documented); True when the exchange
    is not one of the contract's operations."""
    if exchange.operation is None:
        return True
    try:
        return spec.response_schema(*exchange.operation, exchange.status)
    except KeyError:
        return True


def _error_code(exchange: Exchange) -> str | None:
    body = exchange.response_json()
    if isinstance(body, dict):
        return str(body.get("code") or body.get("error") or "") or None
    return None


def run_salt() -> int:
    """128 random bits for this run's event ids (see `Context.event_id`)."""
    return int.from_bytes(os.urandom(16), "big")


@dataclass(frozen=True)
class SchemaOptions:
    """What the command line gives the schema part (Schemathesis, `schema_part.run`)."""

    report_dir: Path
    passthrough: list[str]  # the command line's options for Schemathesis itself
    spec: Path
    timeout: float  # seconds per request


@dataclass(frozen=True)
class Issued:
    """Something the target gave out early in the run, for the lifetime rules to use again later: an OAuth
    access token (`value`, its `expires_in`), a page token (`value`, the page it returned: `page`), an accepted
    event id (`value`, on `listener`)."""

    kind: str  # "access-token", "page-token", "event-id"
    value: str
    at: float  # the kit's clock when the target answered
    expires_in: float | None = None
    request: tuple[str, str, tuple[tuple[str, str], ...]] | None = None  # page token: (path, template, params)
    page: tuple[str, ...] = ()
    listener: str = ""


@dataclass
class RunState:
    """What a run shares between its checks: the client, the OAuth token, every exchange so far (trimmed to a
    bounded transcript), the operations that gave evidence, and the per-operation statuses the schema part
    reported."""

    config: Config
    seed: int
    client: httpx.Client
    salt: int = field(default_factory=run_salt)
    token_cache: dict[str, str] = field(default_factory=dict)
    history: list[Exchange] = field(default_factory=list)
    schema_statuses: dict[tuple[str, str], list[int]] | None = None  # None: the schema part did not run
    schema_evidence: dict[tuple[str, str], str | None] | None = None  # as `evidence`, for the schema part
    schema: SchemaOptions | None = None  # None: no schema part in this run (only the command line starts one)
    walks: dict[tuple[str, int], list[list[str]]] = field(default_factory=dict)
    retry_budget: RetryBudget = field(init=False)
    # operation -> None once a 2xx answer conformed (status, content type, schema), else why none did so far
    evidence: dict[tuple[str, str], str | None] = field(default_factory=dict)
    issued: dict[str, Issued] = field(default_factory=dict)  # kind -> the first of the run
    # The nextPageTokens the target gave out before the run's first page token was used (a page token the kit
    # made up, answered 200 by a target that ignores tokens, is none the target issued).
    page_tokens_given: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.retry_budget = RetryBudget(self.config.max_retry_wait)

    def record(self, ctx: Context) -> None:
        """Keep a finished check's exchanges as a bounded transcript, noting which operations they evidence."""
        for exchange in ctx.exchanges:
            operation = exchange.operation
            wanted = operation is not None and self.evidence.get(operation, "") is not None
            if wanted and operation is not None and 200 <= exchange.status < 300:
                try:
                    ctx._conforms(exchange)
                    self.evidence[operation] = None
                except Fail as problem:
                    self.evidence[operation] = f"its 2xx answers do not conform ({problem.reason})"
            self.note_issued(exchange)
            self.history.append(exchange.trimmed())

    def note_issued(self, exchange: Exchange) -> None:
        """Keep the run's first access token, page token and accepted event id (the lifetime rules)."""
        if exchange.status != 200 or exchange.operation is None:
            return
        body = exchange.response_json()
        if not isinstance(body, dict):
            return
        template = exchange.operation[1]
        at = exchange.sent_at
        if template == spec.TOKEN and isinstance(body.get("access_token"), str) and body["access_token"]:
            expires = body.get("expires_in")
            lifetime = float(expires) if isinstance(expires, int | float) and not isinstance(expires, bool) else None
            self.issued.setdefault("access-token", Issued("access-token", body["access_token"], at, lifetime))
        elif template == spec.LIST_ENTITLEMENTS and "page-token" not in self.issued:
            query = urllib.parse.parse_qsl(urllib.parse.urlsplit(exchange.url).query, keep_blank_values=True)
            token = dict(query).get("page_token", "")
            given = body.get("nextPageToken")
            if token not in self.page_tokens_given:  # none, or one the target did not give out
                if isinstance(given, str) and given and len(self.page_tokens_given) < MAX_GIVEN_PAGE_TOKENS:
                    self.page_tokens_given.add(given)
                return
            listed = body.get("list")
            items: list[Any] = listed if isinstance(listed, list) else []
            ids = tuple(str((item.get("appEntitlement") or {}).get("id")) for item in items if isinstance(item, dict))
            path = urllib.parse.urlsplit(exchange.url).path.removeprefix(
                urllib.parse.urlsplit(self.config.base_url).path
            )
            if token and exchange.request_headers.get("authorization"):
                issued = Issued("page-token", token, at, request=(path, template, tuple(query)), page=ids)
                self.issued.setdefault("page-token", issued)
                self.page_tokens_given.clear()
        elif template == spec.WEBHOOK and exchange.webhook is not None and isinstance(body.get("eventId"), str):
            listener = exchange.webhook.listener_id or ""
            self.issued.setdefault("event-id", Issued("event-id", body["eventId"], at, listener=listener))
