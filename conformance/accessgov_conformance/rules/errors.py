"""Conventions every response follows: the request id header."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

from .. import spec
from ..context import Context, Exchange
from ..registry import Variant, rule, variants
from ..verdicts import Fail, NoEvidence, NotApplicable

FAMILY = "errors"

# spec/components/headers/XRequestId.yaml#/schema: what a client may choose and a server may generate.
REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}", re.ASCII)


@rule(
    "ER-REQID-001",
    family=FAMILY,
    title="A valid client X-Request-Id is echoed, an invalid one replaced",
    text="Every response carries X-Request-Id: the client's value when it is 1-128 characters of "
    "[A-Za-z0-9._:-] (one character, 128, each punctuation mark), otherwise one the server generated, of that "
    "same form: an empty value, 129 characters, a space or slash, non-ASCII bytes are ignored, never refused.",
    spec="spec/components/headers/XRequestId.yaml",
    requirements="",
    mock=True,
)
def request_id(ctx: Context) -> None:
    app_id = ctx.config.app_id or "app-conformance"
    path = f"/api/v1/apps/{app_id}/entitlements"
    mark = f"{ctx.rng.getrandbits(48):012x}"

    def sent_with(value: str | bytes, what: str) -> str:
        """The X-Request-Id answered to a listing that sent `value` (the last exchange: the one a Fail shows)."""
        # httpx takes header values as ASCII text or as bytes: bytes carry the non-ASCII case unchanged.
        exchange = ctx.api("GET", spec.LIST_ENTITLEMENTS, path, headers={"X-Request-Id": cast(str, value)})
        ctx.expect(exchange, 200, what=what)  # ignored, never refused: the listing is served either way
        return exchange.response_headers.get("x-request-id", "")

    valid = {
        "every allowed punctuation mark": f"Conformance.{mark}_id:1-Z",
        "one character": "Q",
        "128 characters": f"conformance-{mark}-".ljust(128, "0"),
    }
    for what, mine in valid.items():
        got = sent_with(mine, f"valid X-Request-Id ({what})")
        if got != mine:
            raise Fail(f"sent a valid X-Request-Id ({what}) {mine!r}, got back {got!r}")

    invalid: dict[str, str | bytes] = {
        "a space and a slash": f"has spaces/and slashes {mark}",
        "129 characters": f"conformance-{mark}-".ljust(129, "0"),
        "empty": "",
        "non-ASCII": f"ünïcode-{mark}".encode(),
    }
    for what, bad in invalid.items():
        got = sent_with(bad, f"invalid X-Request-Id ({what})")
        text = bad.decode("utf-8") if isinstance(bad, bytes) else bad
        if not got or got == text or (text and text.startswith(got)):
            raise Fail(
                f"an invalid X-Request-Id ({what}) was answered with {got!r} instead of a generated one"
                f"{' (the value sent, cut short)' if got and text.startswith(got) and got != text else ''}"
            )
        if not REQUEST_ID.fullmatch(got):
            raise Fail(
                f"the X-Request-Id generated for an invalid one ({what}) is {got!r}, which is not 1-128 characters "
                "of [A-Za-z0-9._:-]"
            )


GENERATED_ID = re.compile(r"[0-9a-fA-F]{32}", re.ASCII)


@rule(
    "ER-REQID-002",
    family=FAMILY,
    title="A generated X-Request-Id is 32 hex digits, a new one for each response",
    text="Responses to requests without X-Request-Id (a listing, a restart, a webhook delivery, a token request, "
    "an error) each carry an X-Request-Id of 32 hex digits, and no two of them the same.",
    spec="spec/components/headers/XRequestId.yaml#/description",
    requirements="",
    mock=True,
)
def generated_request_id(ctx: Context) -> None:
    app_id = ctx.config.app_id or "app-conformance"
    path = f"/api/v1/apps/{app_id}/entitlements"
    exchanges = [ctx.api("GET", spec.LIST_ENTITLEMENTS, path) for _ in range(3)]
    exchanges.append(ctx.api("GET", spec.LIST_ENTITLEMENTS, path, params={"page_size": "ten"}))
    exchanges.append(ctx.api("GET", spec.LIST_ENTITLEMENTS, path, token=None))
    seen: dict[str, int] = {}
    for number, exchange in enumerate(exchanges, 1):
        ctx.conforms(exchange, what=f"request {number}")
        value = exchange.response_headers.get("x-request-id", "")
        if not GENERATED_ID.fullmatch(value):
            raise Fail(f"request {number} sent no X-Request-Id and got {value!r}, not one of 32 hex digits")
        if value in seen and not ctx.config.is_mock:
            raise Fail(f"requests {seen[value]} and {number} were both answered with X-Request-Id {value!r}")
        seen[value] = number


QUOTE_LIMIT = 64  # info.description: "Error messages quote at most 64 characters of a value the client sent."
# The least piece of the (random, 62-letter) value sent that counts as quoting it: no text that does not depend on
# the request holds 8 of its characters by chance.
QUOTE_EVIDENCE = 8


@dataclass(frozen=True)
class Quoted:
    """Where a client's value of `length` characters goes (`sends`: each request that carries it, with the
    refusal it gets), every string of the refusal's body held to quoting at most 64 characters of it."""

    sends: tuple[tuple[str, Callable[[Context, str], Exchange], int], ...]
    length: int = 300
    # Whether the refusal is of the value's content (an expand path not allowed, an event id not a UUID, a comment
    # too long: `details` names the member and why): then it must be seen quoting a piece of the value, cut to 64
    # characters. A refusal quoting none of it shows nothing of the limit (a canned example, as a mock answers
    # every such request with): no evidence, never a pass. An unknown id (404) or page token needs no quote: the
    # refusal itself needs the target's state.
    names_value: bool = False


def _longest_quote(text: str, value: str) -> int:
    """The length of the longest piece of `value` that `text` contains."""
    longest = 0
    for start in range(len(value)):
        size = longest + 1
        while start + size <= len(value) and value[start : start + size] in text:
            longest = size
            size += 1
    return longest


def _strings(node: object) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, dict):
        return [text for key, value in node.items() if key != "code" for text in _strings(value)]
    if isinstance(node, list):
        return [text for value in node for text in _strings(value)]
    return []


def quotes_at_most_64(ctx: Context, value: Quoted) -> None:
    alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    for where, send, status in value.sends:
        sent = "".join(ctx.rng.choice(alphabet) for _ in range(value.length))
        exchange = send(ctx, sent)
        what = f"{where} of {value.length} characters"
        ctx.expect(exchange, status, what=what)
        longest = 0
        for text in _strings(exchange.response_json()):
            quoted = _longest_quote(text, sent)
            longest = max(longest, quoted)
            if quoted > QUOTE_LIMIT:
                ctx.blamed = ctx.blamed or exchange
                raise Fail(
                    f"{what}: the {status} quotes {quoted} of its characters (at most {QUOTE_LIMIT}): {text[:120]!r}..."
                )
        if value.names_value and longest < QUOTE_EVIDENCE:
            ctx.blamed = ctx.blamed or exchange
            raise NoEvidence(
                f"{what}: the {status} quotes none of the value sent (no {QUOTE_EVIDENCE} characters of it in its "
                "message or details), so its cut to 64 characters was not seen: an answer that does not depend on "
                "the request (a canned example?)"
            )


def _listing(ctx: Context, **params: str) -> Exchange:
    path = f"/api/v1/apps/{ctx.config.app_id or 'app-conformance'}/entitlements"
    return ctx.api("GET", spec.LIST_ENTITLEMENTS, path, params=params)


def _app(ctx: Context, value: str) -> Exchange:
    return ctx.api("GET", spec.LIST_ENTITLEMENTS, f"/api/v1/apps/{value}/entitlements")


def _task(ctx: Context, value: str, body: object = None) -> Exchange:
    path = f"/api/v1/tasks/{value}/action/restart"
    return ctx.api("POST", spec.RESTART, path, body={} if body is None else body)


def _open_task(ctx: Context) -> str:
    if not ctx.config.open_task_ids:
        raise NotApplicable("the configuration names no open task (fixtures.open_task_ids)")
    return ctx.config.open_task_ids[0]


def _webhook(ctx: Context, **headers: str) -> Exchange:
    listener = next((item for item in ctx.config.listeners if item.source_allowed), None)
    if listener is None:
        raise NotApplicable("the configuration names no listener the kit may reach")
    overrides = {name.replace("_", "-"): value for name, value in headers.items()}
    return ctx.deliver(listener, extra_headers=overrides)


QUOTE_SECTION = "Errors"
QUOTE_SPEC = "spec/openapi.yaml#/info/description (Request heads: error messages quote at most 64 characters)"

variants(
    FAMILY,
    quotes_at_most_64,
    (
        Variant(
            "ER-QUOTE-001",
            title="An invalid page_size is not quoted beyond 64 characters",
            text="The 400 for a page_size of 300 characters quotes at most 64 of them (message, details).",
            spec=QUOTE_SPEC,
            requirements=QUOTE_SECTION,
            value=Quoted((("page_size", lambda ctx, v: _listing(ctx, page_size=v), 400),)),
            mock=True,
        ),
        Variant(
            "ER-QUOTE-002",
            title="An invalid page_token is not quoted beyond 64 characters",
            text="The 400 for a made-up page_token of 300 characters quotes at most 64 of them.",
            spec=QUOTE_SPEC,
            requirements=QUOTE_SECTION,
            value=Quoted((("page_token", lambda ctx, v: _listing(ctx, page_token=v), 400),)),
        ),
        Variant(
            "ER-QUOTE-003",
            title="An unknown app or task id is not quoted beyond 64 characters",
            text="The 404 for an app_id of 100 characters that names no app, and for a task_id of 100 characters "
            "that names no task, quote at most 64 of them.",
            spec=QUOTE_SPEC,
            requirements=QUOTE_SECTION,
            value=Quoted((("an app_id", _app, 404), ("a task_id", _task, 404)), 100),
        ),
        Variant(
            "ER-QUOTE-004",
            title="An unknown expand path is not quoted beyond 64 characters",
            text="The 400 for an expandMask.paths value of 300 characters quotes the path it refuses, at most 64 of "
            "its characters (a 400 that quotes none of it is no evidence).",
            spec=QUOTE_SPEC,
            requirements=QUOTE_SECTION,
            value=Quoted(
                (("an expand path", lambda ctx, v: _task(ctx, _open_task(ctx), {"expandMask": {"paths": [v]}}), 400),),
                names_value=True,
            ),
        ),
        Variant(
            "ER-QUOTE-005",
            title="An invalid webhook header is not quoted beyond 64 characters",
            text="The 400 for a Webhook-Event-Id of 300 characters quotes the id it refuses, at most 64 of its "
            "characters (a 400 that quotes none of it is no evidence).",
            spec=QUOTE_SPEC,
            requirements=QUOTE_SECTION,
            value=Quoted(
                (("a Webhook-Event-Id", lambda ctx, v: _webhook(ctx, **{"Webhook-Event-Id": v}), 400),),
                names_value=True,
            ),
        ),
        Variant(
            "ER-QUOTE-006",
            title="An unknown listener id is not quoted beyond 64 characters",
            text="The 404 for a correctly formed delivery to a listener id of 100 characters that names no listener "
            "quotes at most 64 of them.",
            spec=QUOTE_SPEC,
            requirements=QUOTE_SECTION,
            value=Quoted((("a listener id", lambda ctx, v: _unknown_listener(ctx, v), 404),), 100),
        ),
        Variant(
            "ER-QUOTE-007",
            title="A comment over its limit is not quoted beyond 64 characters",
            text="The 400 for a restart comment of 5000 characters quotes the comment it refuses, at most 64 of its "
            "characters (a 400 that quotes none of it is no evidence).",
            spec=QUOTE_SPEC,
            requirements=QUOTE_SECTION,
            value=Quoted(
                (("a comment", lambda ctx, v: _task(ctx, _open_task(ctx), {"comment": v}), 400),),
                5000,
                names_value=True,
            ),
        ),
    ),
)


def _unknown_listener(ctx: Context, listener_id: str) -> Exchange:
    listener = next((item for item in ctx.config.listeners if item.source_allowed), None)
    if listener is None:
        raise NotApplicable("the configuration names no listener the kit may reach")
    return ctx.deliver(listener, path_listener_id=listener_id)


def _error_answer(ctx: Context, exchange: Exchange, status: int, code: str, what: str) -> None:
    """`status` with the contract's Error body (`code`), as JSON, with X-Request-Id: what the spec's Error table
    says of a request no operation of the contract takes."""
    ctx.blamed = ctx.blamed or exchange
    if exchange.status != status:
        raise Fail(f"{what}: expected HTTP {status} {code}, got {exchange.status}")
    media_type = exchange.response_headers.get("content-type", "").split(";")[0].strip().lower()
    body = exchange.response_json()
    if media_type != "application/json" or not isinstance(body, dict):
        raise Fail(f"{what}: the {status} is {media_type or 'no media type'}, not the JSON Error body")
    problems = spec.schema_errors({"$ref": "#/components/schemas/Error"}, body)
    if problems:
        raise Fail(f"{what}: the {status} body is not an Error: {'; '.join(problems)}")
    if body.get("code") != code:
        raise Fail(f"{what}: HTTP {status} as expected but Error.code is {body.get('code')!r}, not {code}")
    if "x-request-id" not in exchange.response_headers:
        raise Fail(f"{what}: the {status} has no X-Request-Id header (every response carries one)")
    ctx.blamed = None


UNKNOWN_ROUTES = (
    "/api/v1/conformance-no-such-route",
    "/api/v2/tasks/{task}/action/restart",
    "/api/v1/tasks/{task}/action/restart/again",
    "/api/v1/tasks/{task}/action/reopen",
    "/api/v1/apps/{app}/entitlement",
    "/api/v1/webhooks/incoming",
    "/auth/v1/token/refresh",
)


@rule(
    "ER-ROUTE-001",
    family=FAMILY,
    title="A path the contract does not list is 404 NOT_FOUND with the Error body",
    text="Requests to paths no operation has (another version, a longer or shorter path, a near-miss action or "
    "collection name), with the configured token, are answered 404 NOT_FOUND with the Error body as JSON and "
    "X-Request-Id.",
    spec="spec/components/schemas/Error.yaml#/description (NOT_FOUND: no such task, app, listener or route)",
    requirements="",
)
def unknown_route(ctx: Context) -> None:
    task = ctx.config.open_task_ids[0] if ctx.config.open_task_ids else "task-conformance"
    app = ctx.config.app_id or "app-conformance"
    token = ctx.api_token()
    for template in UNKNOWN_ROUTES:
        path = template.format(task=task, app=app)
        method = "GET" if "entitlement" in path else "POST"
        exchange = ctx.request(
            method,
            path,
            headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
            content=b"{}",
        )
        _error_answer(ctx, exchange, 404, "NOT_FOUND", f"{method} {path}")


OTHER_METHODS = (
    ("/api/v1/tasks/{task}/action/restart", ("GET", "PUT", "PATCH", "DELETE")),
    ("/api/v1/apps/{app}/entitlements", ("POST", "PUT", "PATCH", "DELETE")),
    ("/api/v1/webhooks/incoming/{listener}", ("GET", "PUT", "DELETE")),
    ("/auth/v1/token", ("GET", "PUT", "DELETE")),
)


@rule(
    "ER-METHOD-001",
    family=FAMILY,
    title="A method the contract does not list for a path is 405 METHOD_NOT_ALLOWED with the Error body",
    text="GET, PUT, PATCH and DELETE on the restart path, POST, PUT, PATCH and DELETE on the entitlements path, "
    "GET, PUT and DELETE on the webhook and token paths are answered 405 METHOD_NOT_ALLOWED with the Error body as "
    "JSON and X-Request-Id (the path exists, not with this method).",
    spec="spec/components/schemas/Error.yaml#/description (METHOD_NOT_ALLOWED)",
    requirements="",
)
def other_method(ctx: Context) -> None:
    task = ctx.config.open_task_ids[0] if ctx.config.open_task_ids else "task-conformance"
    listener = ctx.config.listeners[0].id if ctx.config.listeners else "wh_conformance"
    token = ctx.api_token()
    for template, methods in OTHER_METHODS:
        path = template.format(task=task, app=ctx.config.app_id or "app-conformance", listener=listener)
        for method in methods:
            content = b"{}" if method in ("PUT", "PATCH", "POST") else None
            headers = {"Authorization": f"Bearer {token}"}
            if content is not None:
                headers["Content-Type"] = "application/json"
            exchange = ctx.request(method, path, headers=headers, content=content)
            _error_answer(ctx, exchange, 405, "METHOD_NOT_ALLOWED", f"{method} {path}")
