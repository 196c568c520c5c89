"""What the spec says is ignored, sent with values: the token request's `scope` ("Ignored; tokens carry the client's
roles") and the restart members this version does not define ("ignored, so a newer client's request is still
accepted"), among them the response's own members and a defined member's name in other letter case. Each is
answered exactly as the same request without it."""

from __future__ import annotations

from typing import Any

from ..context import Context
from ..registry import rule
from ..verdicts import Fail, NotApplicable
from .auth import issued_only
from .restart import restart, restarted

FAMILY = "ignored"
SCOPES = ("viewer", "admin", "openid profile email", "tasks:read", "x" * 200)


def _task_id(ctx: Context) -> str:
    return ctx.config.open_task_ids[0]


def _restart_status(ctx: Context, token: str) -> int:
    return restart(ctx, _task_id(ctx), token=token).status


@rule(
    "IG-SCOPE-001",
    family=FAMILY,
    title="The token request's scope is ignored",
    text="A client-credentials request with a scope (viewer, admin, openid profile email, tasks:read, 200 "
    "characters) is answered 200, and its token is answered on the tenant API exactly as a token issued without "
    "one (the same status restarting an open task): tokens carry the client's roles, not the scope asked. A near "
    "miss of the token is refused 401 there (a target that takes any credential shows nothing: no evidence).",
    spec="spec/components/schemas/OAuthTokenRequest.yaml#/properties/scope",
    requirements="Authentication",
)
def scope_ignored(ctx: Context) -> None:
    if not (ctx.config.oauth_client_id and ctx.config.oauth_client_secret):
        raise NotApplicable("the configuration names no OAuth client (auth.oauth_client_id / oauth_client_secret)")
    if not ctx.config.open_task_ids:
        raise NotApplicable("the configuration names no open task (fixtures.open_task_ids)")
    plain = ctx.expect(ctx.client_credentials(), 200, what="a token without scope")
    expected = _restart_status(ctx, str(plain["access_token"]))
    # The same status shows the scope changed nothing only where the status depends on the token at all.
    issued_only(
        ctx, str(plain["access_token"]), "a token without scope", lambda near: restart(ctx, _task_id(ctx), token=near)
    )
    client = (ctx.config.oauth_client_id, ctx.config.oauth_client_secret)
    for scope in SCOPES:
        what = f"scope={scope[:40]!r}"
        answer = ctx.token_request(data={"grant_type": "client_credentials", "scope": scope}, auth=client)
        if answer.status == 400:
            raise Fail(f"{what}: refused 400 ({answer.response_json()!r:.160}); the scope is ignored")
        body = ctx.expect(answer, 200, what=what)
        got = _restart_status(ctx, str(body["access_token"]))
        if got != expected:
            raise Fail(
                f"{what}: its token restarting an open task is answered {got}, a token without scope {expected}: "
                "the scope changed what the token may do"
            )


def _comments(result: dict[str, Any]) -> Any:
    return ((result.get("taskView") or {}).get("task") or {}).get("commentCount")


@rule(
    "IG-MEMBERS-001",
    family=FAMILY,
    title="Restart members the request does not define are ignored, whatever their name",
    text="A restart body carrying the response's own members (ticketActionId, taskView, expanded) or a defined "
    "member's name in other letter case (Comment, expandmask) is answered 200 exactly as the request without them: "
    "a new ticketActionId (not the one sent), the task addressed, no comment added, nothing expanded.",
    spec="spec/components/schemas/TaskActionsServiceRestartRequest.yaml#/description",
    requirements="Endpoints > Restart a task (Request body); Versioning (new fields are ignored)",
)
def members_ignored(ctx: Context) -> None:
    if not ctx.config.open_task_ids:
        raise NotApplicable("the configuration names no open task (fixtures.open_task_ids)")
    task_id = ctx.config.open_task_ids[0]
    other = ctx.config.open_task_ids[-1]
    sent_ticket = f"conformance-ticket-{ctx.rng.getrandbits(48):012x}"
    answer = restarted(
        ctx,
        task_id,
        {"ticketActionId": sent_ticket, "taskView": {"task": {"id": other}}, "expanded": [{"@type": "x"}]},
        what="response members in the request",
    )
    if answer.get("ticketActionId") == sent_ticket:
        raise Fail("the ticketActionId sent in the request came back: the member was not ignored")
    if answer.get("expanded"):
        raise Fail("the `expanded` sent in the request came back: the member was not ignored")
    before = _comments(restarted(ctx, task_id, what="a restart without comment"))
    cased = restarted(ctx, task_id, {"Comment": "conformance kit", "expandmask": {"paths": ["*"]}}, what="Comment")
    if isinstance(before, int) and isinstance(_comments(cased), int) and _comments(cased) > before:
        raise Fail("a member named `Comment` added a comment: member names are case-sensitive, it is not `comment`")
    fields = [name for name, value in (cased.get("taskView") or {}).items() if name.endswith("Path") and value]
    if cased.get("expanded") or fields:
        raise Fail(f"a member named `expandmask` expanded objects ({fields}): it is not `expandMask`")
