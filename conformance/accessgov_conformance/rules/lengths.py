"""Length limits, checked the same way wherever the contract states one (`maxLength` of a request's string):
counted in characters (Unicode code points, as JSON Schema counts), so a value at the limit is served and one
character over is refused, with ASCII, two-byte (é), three-byte (€) and astral (😀: four UTF-8 bytes, two UTF-16
code units) characters, and in a JSON body also written as `\\u` escapes (an escaped surrogate pair is the one
character it encodes). A server counting bytes or UTF-16 code units refuses a value the contract allows."""

from __future__ import annotations

import json
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass

from .. import spec
from ..context import Context, Exchange
from ..registry import Variant, variants
from ..verdicts import Fail, NotApplicable
from ._webhook import any_listener
from .restart import COMMENT_LIMIT, restart

FAMILY = "lengths"
ID_LIMIT = 128
# name -> the character a value is made of (ASCII at the limits: RS-BODY-001/002 for the comment)
ALPHABETS = {"ASCII": "a", "two-byte é": "é", "three-byte €": "€", "astral 😀": "\U0001f600"}
NON_ASCII = {"two-byte é": "é", "astral 😀": "\U0001f600"}
ASCII_ONLY = {"ASCII": "a"}


@dataclass(frozen=True)
class Limit:
    """A request string with a maximum length: how to send a value, what the answer at the limit must be (the
    value served: judged on its content) and one over (400)."""

    what: str
    limit: int
    alphabets: dict[str, str]
    send: Callable[[Context, str, bool], Exchange]  # (ctx, value, escaped) -> the answer
    at_limit: Callable[[Context, Exchange, str], None]
    escapes: bool = False  # a JSON body: also sent with \\u escapes
    over_codes: tuple[str, ...] = ("INVALID_ARGUMENT",)


def length_limits(ctx: Context, value: Limit) -> None:
    for name, character in value.alphabets.items():
        # In a JSON body the astral character is also sent as its escaped surrogate pair (one character).
        for escaped in (False, True) if value.escapes and ord(character) > 0xFFFF else (False,):
            form = f"{name}{', as JSON escapes' if escaped else ''}"
            at = character * value.limit
            value.at_limit(ctx, value.send(ctx, at, escaped), f"{value.what} of {value.limit} {form} characters")
            what = f"{value.what} of {value.limit + 1} {form} characters"
            body = ctx.expect(value.send(ctx, at + character, escaped), 400, what=what)
            if body.get("code") not in value.over_codes:
                raise Fail(
                    f"{what}: HTTP 400 as expected but Error.code is {body.get('code')!r}, not {value.over_codes[0]}"
                )


def _comment(ctx: Context, text: str, escaped: bool) -> Exchange:
    if not ctx.config.open_task_ids:
        raise NotApplicable("the configuration names no open task (fixtures.open_task_ids)")
    body = json.dumps({"comment": text}, ensure_ascii=escaped).encode()
    return restart(ctx, ctx.config.open_task_ids[0], body)


def _served(ctx: Context, exchange: Exchange, what: str) -> None:
    if exchange.status == 400:
        raise Fail(f"{what}: refused 400 ({exchange.response_json()!r:.200}), but it is within the limit")
    body = ctx.expect(exchange, 200, what=what)
    task = (body.get("taskView") or {}).get("task") or {}
    if not ctx.config.is_mock and task.get("id") != ctx.config.open_task_ids[0]:
        raise Fail(f"{what}: the 200 is about task {task.get('id')!r}, not the one addressed")


def _unknown(ctx: Context, exchange: Exchange, what: str) -> None:
    """A well-formed id that names nothing: 404 NOT_FOUND (not 400: the id is within the contract)."""
    ctx.expect(exchange, 404, code="NOT_FOUND", what=what)


def _task_path(ctx: Context, value: str, _: bool) -> Exchange:
    return restart(ctx, urllib.parse.quote(value, safe=""))


def _app_path(ctx: Context, value: str, _: bool) -> Exchange:
    path = f"/api/v1/apps/{urllib.parse.quote(value, safe='')}/entitlements"
    return ctx.api("GET", spec.LIST_ENTITLEMENTS, path)


def _listener_path(ctx: Context, value: str, _: bool) -> Exchange:
    return ctx.deliver(any_listener(ctx), path_listener_id=value)


REQUEST = "spec/components/schemas/TaskActionsServiceRestartRequest.yaml"
SECTION = "Limits"

variants(
    FAMILY,
    length_limits,
    (
        Variant(
            "LN-COMMENT-001",
            title="A restart comment of 4096 characters is served, of 4097 refused, whatever the characters",
            text="A restart comment of exactly 4096 characters is accepted (200 about the task) and one of 4097 is "
            "400 INVALID_ARGUMENT, with two-byte and astral characters, the astral ones raw UTF-8 and as JSON "
            "\\u escapes (a surrogate pair is one character); ASCII is RS-BODY-001/002's.",
            spec=f"{REQUEST}#/properties/comment/maxLength",
            requirements="Endpoints > Restart a task (Request body: comment)",
            value=Limit("comment", COMMENT_LIMIT, NON_ASCII, _comment, _served, escapes=True),
        ),
        Variant(
            "LN-PATH-001",
            title="A task_id of 128 characters names no task (404), of 129 is refused (400)",
            text="task_id of exactly 128 characters that names no task is 404 NOT_FOUND, of 129 characters 400 "
            "INVALID_ARGUMENT, with ASCII, two-byte, three-byte and astral characters (percent-encoded UTF-8).",
            spec="spec/components/parameters/TaskId.yaml#/schema/maxLength",
            requirements="Endpoints > Restart a task (task_id)",
            value=Limit("task_id", ID_LIMIT, ALPHABETS, _task_path, _unknown),
        ),
        Variant(
            "LN-PATH-002",
            title="An app_id of 128 characters names no app (404), of 129 is refused (400)",
            text="app_id of exactly 128 characters that names no app is 404 NOT_FOUND, of 129 characters 400 "
            "INVALID_ARGUMENT, with ASCII, two-byte, three-byte and astral characters (percent-encoded UTF-8).",
            spec="spec/components/parameters/AppId.yaml#/schema/maxLength",
            requirements="Endpoints > List and search operations (pagination convention)",
            value=Limit("app_id", ID_LIMIT, ALPHABETS, _app_path, _unknown),
        ),
        Variant(
            "LN-PATH-003",
            title="A listener_id of 128 characters names no listener (404), of 129 is refused (400)",
            text="A correctly formed delivery to a listener_id of exactly 128 characters that names no listener is "
            "404 NOT_FOUND, to one of 129 characters 400 INVALID_ARGUMENT (its pattern allows ASCII only).",
            spec="spec/components/parameters/ListenerId.yaml#/schema/maxLength",
            requirements="Endpoints > Inbound webhook listener",
            value=Limit("listener_id", ID_LIMIT, ASCII_ONLY, _listener_path, _unknown),
        ),
    ),
)
