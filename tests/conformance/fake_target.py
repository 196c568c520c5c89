"""A tiny in-process implementation of the contract for the kit's own tests, with switches that each break one
rule. Served through `httpx.MockTransport`: no sockets, no server package.

`FakeTarget(breaks={"WH-TS-003"})` answers as the contract says except where the named rule is broken; the test
of each rule runs the kit against the fake that breaks it and expects that rule to fail.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
import time
import urllib.parse
import uuid
from dataclasses import dataclass, field
from typing import Any

import httpx
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ed25519

BASE_URL = "http://fake.test"
TENANT = "https://fake.accessgov.example"
ADMIN, OPERATOR, VIEWER, OAUTH_TOKEN = "admin-token", "operator-token", "viewer-token", "oauth-access-token"
ROLES = {ADMIN: "admin", OPERATOR: "operator", VIEWER: "viewer", OAUTH_TOKEN: "admin"}
ACTIONS = ["TASK_ACTION_TYPE_COMMENT", "TASK_ACTION_TYPE_RESTART"]
CLIENT_ID, CLIENT_SECRET = "fake-client", "fake-client-secret"
SECRET = base64.urlsafe_b64encode(hashlib.sha256(b"fake listener").digest()).rstrip(b"=").decode()
JWT_KEY = ed25519.Ed25519PrivateKey.generate()
JWT_PEM = JWT_KEY.private_bytes(
    serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
)
KID = "fake-kid"
APPS = {"app-big": 250, "app-small": 12}
EXPAND = {
    "*", "access_review_id", "user_id", "created_by_user_id", "app_id", "app_user_id", "app_entitlement_ids",
    "step_approver_ids", "approver_ids", "identity_user_id", "insight_ids", "app_user_last_usage",
    "entitlement_scope_bindings", "scope_role_resources", "resource",
}  # fmt: skip
ID_LIMIT = 128
LIFETIME = 0.1  # seconds an issued credential lives where a lifetime switch is on (the tests wait 0.2 s)
UP = "5b1f1e0c-2d3a-4b5c-8d7e-9f0a1b2c3d4e"  # the elevated sequence's key: an opaque UUID
STEPS = [{"approval": {}}, {"provision": {}}]
# An elevated sequence one approval longer: one step on, it reads as the baseline sequence.
ELEVATED = [{"approval": {}}, *STEPS]
REQUEST_ID = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.I)
LISTENERS = {
    "wh_a": {"method": "hmac"},
    "wh_b": {"method": "hmac"},
    "wh_jwt": {"method": "jwt"},
    "wh_outside": {"method": "hmac", "allowed": False},
    "wh_inside": {"method": "hmac", "allowed": True},
    "wh_disabled": {"method": "hmac", "skipped": "trigger disabled"},
    "wh_unpublished": {"method": "hmac", "skipped": "automation unpublished"},
}
INSIDE = "192.0.2.1"  # an address of wh_outside's ranges (the kit's own address is outside them)
INTEGER = re.compile(r"^[+-]?[0-9]+$")
COMMENT_LIMIT = 4096
TASKS = {
    "task-open-1": {"numericId": "101", "state": "TASK_STATE_OPEN", "elevated": True},
    "task-open-2": {"numericId": "102", "state": "TASK_STATE_OPEN"},
    "task-closed": {"numericId": "103", "state": "TASK_STATE_CLOSED"},
    "task-deleted": {"numericId": "104", "state": "TASK_STATE_OPEN", "deleted": True},
}

CONFIG = f"""
[target]
base_url = "{BASE_URL}"
tenant_base_url = "{TENANT}"

[auth]
token = "{ADMIN}"
restricted_token = "{VIEWER}"
oauth_client_id = "{CLIENT_ID}"
oauth_client_secret = "{CLIENT_SECRET}"

[[auth.callers]]
role = "admin"
token = "{ADMIN}"
restart = true
permissions = {{ read = true, edit = true, delete = true }}

[[auth.callers]]
role = "operator"
token = "{OPERATOR}"
restart = true
permissions = {{ read = true, edit = true, delete = false }}

[[auth.callers]]
role = "viewer"
token = "{VIEWER}"
restart = false

[[listeners]]
id = "wh_a"
method = "hmac"
secret = "{SECRET}"

[[listeners]]
id = "wh_b"
method = "hmac"
secret = "{SECRET}"

[[listeners]]
id = "wh_jwt"
method = "jwt"
private_key = '''{JWT_PEM.decode()}'''
kid = "{KID}"

[[listeners]]
id = "wh_outside"
method = "hmac"
secret = "{SECRET}"
source_allowed = false
allowed_cidrs = ["192.0.2.0/24"]

[[listeners]]
id = "wh_inside"
method = "hmac"
secret = "{SECRET}"
cidr_restricted = true
allowed_cidrs = ["127.0.0.0/8"]

[[listeners]]
id = "wh_disabled"
method = "hmac"
secret = "{SECRET}"
trigger_enabled = false

[[listeners]]
id = "wh_unpublished"
method = "hmac"
secret = "{SECRET}"
automation_published = false

[fixtures]
open_task_ids = ["task-open-1", "task-open-2"]
closed_task_id = "task-closed"
deleted_task_id = "task-deleted"
app_id = "app-big"
other_app_id = "app-small"
min_entitlements = 250
expected_entitlements = 250
"""


class Refusal(Exception):
    def __init__(
        self, status: int, code: str, headers: dict[str, str] | None = None, oauth: bool = False, message: str = ""
    ) -> None:
        super().__init__(code)
        self.status, self.code, self.headers, self.oauth = status, code, headers or {}, oauth
        self.message = message or code.lower()


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _finite(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"{text} is beyond a double")
    return value


def _unicode(node: Any) -> None:
    """Raise on a string holding a lone surrogate (a `\\ud800` escape: valid JSON grammar, no character)."""
    if isinstance(node, str):
        node.encode("utf-8")
    elif isinstance(node, dict):
        for key, value in node.items():
            _unicode(key)
            _unicode(value)
    elif isinstance(node, list):
        for value in node:
            _unicode(value)


def strict_json(raw: bytes, *, lenient: bool = False) -> Any:
    """JSON text as the contract reads it: UTF-8, no NaN/Infinity, numbers a double holds, no lone surrogates
    (`lenient`: the grammar only)."""
    if lenient:
        return json.loads(raw)
    document = json.loads(raw.decode("utf-8"), parse_constant=_no_constant, parse_float=_finite, parse_int=int)
    try:
        _unicode(document)
    except UnicodeEncodeError:
        raise ValueError("a lone surrogate") from None
    return document


def _b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


@dataclass
class FakeTarget:
    """The contract, minus the rules named in `breaks`."""

    breaks: set[str] = field(default_factory=set)
    events: set[tuple[str, str]] = field(default_factory=set)
    tickets: int = 0
    listings: int = 0
    comments: dict[str, int] = field(default_factory=dict)
    used_tokens: set[str] = field(default_factory=set)
    ticket_secret: bytes = field(default_factory=lambda: uuid.uuid4().bytes)
    issued: dict[str, float] = field(default_factory=dict)  # access or page token -> when it was issued
    runs: int = 0
    restarts: int = 0
    accepted_at: dict[tuple[str, str], float] = field(default_factory=dict)
    last_view: dict[str, Any] = field(default_factory=dict)  # task -> the objectPermissions answered last

    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self.handle)

    def broken(self, rule_id: str) -> bool:
        return rule_id in self.breaks

    # --- dispatch ----------------------------------------------------------------------------------------------

    def handle(self, request: httpx.Request) -> httpx.Response:
        sent = request.headers.get("x-request-id", "")
        request_id = sent if REQUEST_ID.match(sent) and not self.broken("ER-REQID-001") else uuid.uuid4().hex
        path = request.url.path
        try:
            if path == "/auth/v1/token" and request.method == "POST":
                status, body, headers = self.token(request)
            elif (match := re.fullmatch(r"/api/v1/apps/([^/]+)/entitlements", path)) and request.method == "GET":
                status, body, headers = self.entitlements(request, match.group(1))
            elif (match := re.fullmatch(r"/api/v1/tasks/([^/]+)/action/restart", path)) and request.method == "POST":
                status, body, headers = self.restart(request, match.group(1))
            elif (match := re.fullmatch(r"/api/v1/webhooks/incoming/([^/]+)", path)) and request.method == "POST":
                status, body, headers = self.webhook(request, match.group(1))
            elif self.route_exists(path) and not self.broken("ER-METHOD-001"):
                raise Refusal(405, "METHOD_NOT_ALLOWED", {"Allow": "POST"})
            elif self.broken("ER-ROUTE-001"):
                raise Refusal(400, "INVALID_ARGUMENT")
            else:
                raise Refusal(404, "NOT_FOUND")
        except Refusal as refusal:
            status, headers = refusal.status, refusal.headers
            body = {"error": refusal.code} if refusal.oauth else {"code": refusal.code, "message": refusal.message}
        if self.broken("ER-REQID-002") and not REQUEST_ID.match(sent):
            request_id = "generated-request-id"  # one id for every response, not 32 hex digits
        return httpx.Response(status, json=body, headers={"X-Request-Id": request_id, **headers})

    @staticmethod
    def route_exists(path: str) -> bool:
        patterns = (
            r"/api/v1/tasks/[^/]+/action/restart", r"/api/v1/apps/[^/]+/entitlements",
            r"/api/v1/webhooks/incoming/[^/]+", r"/auth/v1/token",
        )  # fmt: skip
        return any(re.fullmatch(pattern, path) for pattern in patterns)

    def fresh(self, credential: str, rule_id: str) -> bool:
        """Whether `credential` is still valid: forever, unless `rule_id` is broken (then for LIFETIME s)."""
        issued = self.issued.get(credential)
        return not self.broken(rule_id) or issued is None or time.time() - issued < LIFETIME

    def quoted(self, rule_id: str, value: str) -> str:
        """A message naming the value sent: cut to 64 characters, unless `rule_id` is broken."""
        return f"got {value if self.broken(rule_id) else value[:60]!r}"

    # --- OAuth -------------------------------------------------------------------------------------------------

    def body_limit(self, request: httpx.Request) -> None:
        """Bodies over 64 KB are 413 on every operation (ER-SIZE-001)."""
        if len(request.content) > 65536 and not self.broken("ER-SIZE-001"):
            raise Refusal(413, "PAYLOAD_TOO_LARGE")

    def token(self, request: httpx.Request) -> tuple[int, Any, dict[str, str]]:
        self.body_limit(request)
        form = {key: values[0] for key, values in urllib.parse.parse_qs(request.content.decode(), True).items()}
        if request.headers.get("content-type", "").startswith("application/json") and self.broken("AU-OAUTH-007"):
            form = json.loads(request.content)
        if "grant_type" not in form and not self.broken("AU-OAUTH-006"):
            raise Refusal(400, "invalid_request", oauth=True)
        if form.get("grant_type") != "client_credentials" and not self.broken("AU-OAUTH-006"):
            raise Refusal(400, "unsupported_grant_type", oauth=True)
        basic = request.headers.get("authorization", "")
        credentials = None
        if basic.lower().startswith("basic "):
            if "client_secret" in form and not self.broken("AU-OAUTH-005"):
                raise Refusal(400, "invalid_request", oauth=True)
            if self.broken("AU-OAUTH-002"):
                raise Refusal(401, "invalid_client", {"WWW-Authenticate": "Basic"}, oauth=True)
            credentials = tuple(base64.b64decode(basic[6:]).decode().split(":", 1))
        elif "client_secret" in form:
            credentials = (form.get("client_id", ""), form["client_secret"])
        if credentials is None and not self.broken("AU-OAUTH-004"):
            raise Refusal(401, "invalid_client", {"WWW-Authenticate": "Basic"}, oauth=True)
        if credentials is not None and credentials != (CLIENT_ID, CLIENT_SECRET) and not self.broken("AU-OAUTH-003"):
            raise Refusal(401, "invalid_client", {"WWW-Authenticate": "Basic"}, oauth=True)
        if "scope" in form and self.broken("IG-SCOPE-001"):
            raise Refusal(400, "invalid_scope", oauth=True)
        headers = {} if self.broken("AU-OAUTH-001") else {"Cache-Control": "no-store"}
        token = OAUTH_TOKEN
        if self.broken("LT-TOKEN-001"):
            token = f"{OAUTH_TOKEN}-{len(self.issued)}"
            self.issued[token] = time.time()
        if self.broken("AU-OAUTH-008"):
            headers = {"Cache-Control": "no-store, private"}
            return 200, {"access_token": token, "token_type": "bearer", "expires_in": 3600.0}, headers
        return 200, {"access_token": token, "token_type": "Bearer", "expires_in": 3600}, headers

    def caller(self, request: httpx.Request, rule_id: str) -> str:
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        if scheme != "Bearer" and (scheme.lower() != "bearer" or self.broken("AU-API-003")):
            token = ""
        if self.broken("AU-API-004") and "access_token" in request.url.params:
            token = request.url.params["access_token"]
        known = {ADMIN, OPERATOR, VIEWER} | (set() if self.broken("AU-API-002") else {OAUTH_TOKEN})
        if token in self.issued and self.fresh(token, "LT-TOKEN-001"):
            return OAUTH_TOKEN
        if token not in known:
            if self.broken(rule_id):
                return ADMIN
            raise Refusal(401, "UNAUTHENTICATED", {"WWW-Authenticate": 'Bearer realm="api"'})
        return token

    # --- paging ------------------------------------------------------------------------------------------------

    def page_token(self, app_id: str, offset: int, caller: str = "") -> str:
        bound = "" if self.broken("PG-TOKEN-003") else app_id
        bound += caller if self.broken("PG-TOKEN-006") else ""
        mac = hmac.new(self.ticket_secret, f"{bound}:{offset}".encode(), hashlib.sha256).digest()[:12]
        return _b64url(f"{offset}".encode()) + "." + _b64url(mac)

    def offset(self, app_id: str, token: str | None, caller: str = "") -> int:
        if not token:
            return 10 if token == "" and self.broken("PG-TOKEN-002") else 0
        if not self.fresh(token, "LT-PAGE-001"):
            raise Refusal(400, "INVALID_PAGE_TOKEN")
        if token.count(".") == 2:  # a token of one answer (LT-PAGE-001): its lifetime was checked
            token = token.rsplit(".", 1)[0]
        if self.broken("PG-TOKEN-005") and token in self.used_tokens:
            raise Refusal(400, "INVALID_PAGE_TOKEN")
        self.used_tokens.add(token)
        try:
            encoded, _, _mac = token.partition(".")
            offset = int(base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4)))
        except ValueError:
            raise Refusal(400, "INVALID_PAGE_TOKEN", message=self.quoted("ER-QUOTE-002", token)) from None
        if self.broken("PG-TOKEN-004") or hmac.compare_digest(token, self.page_token(app_id, offset, caller)):
            return offset
        raise Refusal(400, "INVALID_PAGE_TOKEN", message=self.quoted("ER-QUOTE-002", token))

    def entitlements(self, request: httpx.Request, app_id: str) -> tuple[int, Any, dict[str, str]]:
        caller = self.caller(request, "AU-API-001")
        limit = len(app_id.encode()) if self.broken("LN-PATH-002") else len(app_id)
        if limit > ID_LIMIT:
            raise Refusal(400, "INVALID_ARGUMENT")
        if app_id not in APPS:
            if not self.broken("PG-404-001"):
                raise Refusal(404, "NOT_FOUND", message=self.quoted("ER-QUOTE-003", app_id))
            return 200, {"list": [], "nextPageToken": ""}, {}
        raw = request.url.params.get("page_size")
        size = 20 if self.broken("PG-SIZE-001") else 25
        if raw is not None and self.broken("PG-SIZE-006") and re.match(r"^(\+|-?0[0-9])", raw):
            raise Refusal(400, "INVALID_PAGE_SIZE")
        if raw is not None and self.broken("PG-SIZE-005"):  # Python's int(): " 10" and "1_0" pass, "ten" is 25
            size = int(raw) if raw.strip().replace("_", "").lstrip("+-").isdigit() else size
        elif raw is not None and not INTEGER.match(raw):
            raise Refusal(400, "INVALID_PAGE_SIZE", message=self.quoted("ER-QUOTE-001", raw))
        elif raw is not None:
            size = int(raw)
        if not self.broken("PG-SIZE-002"):
            size = max(size, 10)
        if not self.broken("PG-SIZE-003"):
            size = min(size, 100)
        if self.broken("PG-SIZE-004") and raw is not None and 10 < size < 100:
            size = (size // 10) * 10
        offset = self.offset(app_id, request.url.params.get("page_token"), caller)
        total = APPS[app_id]
        ids = [f"ent-{n:04d}" for n in range(total)]
        if self.broken("PG-ORDER-001"):
            self.listings += 1  # every other listing in another order
            ids = ids[1:] + ids[:1] if self.listings % 2 else ids
        if self.broken("PG-ORDER-002") and size == 10:
            ids = ids[::-1]  # another order at another page size
        if offset and raw is not None and self.broken("PG-SIZE-003"):
            size = max(int(raw), 10) if INTEGER.match(raw) else size  # later pages: not clamped to 100
        chunk = ids[offset : offset + size]
        step = size - 1 if self.broken("PG-WALK-001") else size
        more = offset + size < total if not self.broken("PG-TOKEN-001") else offset < total
        token = self.page_token(app_id, offset + step, caller) if more else ""
        if token and self.broken("LT-PAGE-001"):
            token += "." + uuid.uuid4().hex[:6]  # one token per answer, each with its own lifetime
            self.issued[token] = time.time()
        items = [
            {
                "appEntitlement": {"id": item, "appId": app_id, "displayName": item, "description": "", "slug": item},
                "appPath": "$.expanded[0]",
            }
            for item in chunk
        ]
        expanded = [{"@type": "app", "id": app_id}]
        if self.broken("PG-EXPAND-001"):
            expanded.append({"@type": "app", "id": app_id})  # the app again
        return 200, {"list": items, "nextPageToken": token, "expanded": expanded}, {}

    # --- restart -----------------------------------------------------------------------------------------------

    def restart(self, request: httpx.Request, task_ref: str) -> tuple[int, Any, dict[str, str]]:
        caller = self.caller(request, "RS-401-001")
        self.body_limit(request)
        counted = len(task_ref.encode()) if self.broken("LN-PATH-001") else len(task_ref)
        if counted > ID_LIMIT:
            raise Refusal(400, "INVALID_ARGUMENT")
        try:
            body = strict_json(request.content or b"{}", lenient=self.broken("RS-JSON-001"))
        except ValueError:
            raise Refusal(400, "INVALID_JSON") from None
        if not self.broken("RS-BODY-001") and not self.well_formed(body, request.content, self.breaks):
            comment = body.get("comment") if isinstance(body, dict) else None
            message = self.quoted("ER-QUOTE-007", comment) if isinstance(comment, str) else "invalid_argument"
            raise Refusal(400, "INVALID_ARGUMENT", message=message)
        if not isinstance(body, dict):
            body = {}
        if set(body) - {"comment", "expandMask", "policyStepId"} and self.broken("RS-BODY-002"):
            raise Refusal(400, "INVALID_ARGUMENT")
        if "policyStepId" in body and self.broken("RS-DEPR-001"):
            raise Refusal(400, "INVALID_ARGUMENT")
        paths = ((body.get("expandMask") or {}).get("paths")) or []
        unknown = [path for path in paths if path not in EXPAND]
        if unknown and not self.broken("RS-EXPAND-002"):
            raise Refusal(400, "INVALID_EXPAND_PATH", message=self.quoted("ER-QUOTE-004", str(unknown[0])))
        by_numeric = {task["numericId"]: task_id for task_id, task in TASKS.items()}
        task_id = task_ref if task_ref in TASKS else None
        if task_id is None and not self.broken("RS-NUM-001") and task_ref.isdigit():
            task_id = by_numeric.get(str(int(task_ref)))  # a number: leading zeros name the same task
        if task_id is None:
            if self.broken("RS-404-001"):
                raise Refusal(400, "INVALID_ARGUMENT")
            raise Refusal(404, "NOT_FOUND", message=self.quoted("ER-QUOTE-003", task_ref))
        if caller == VIEWER and not self.broken("RS-403-001"):
            raise Refusal(403, "PERMISSION_DENIED")
        task = TASKS[task_id]
        if task["state"] == "TASK_STATE_CLOSED" and not self.broken("RS-409-001"):
            raise Refusal(409, "TASK_NOT_RESTARTABLE")
        if task.get("deleted") and not self.broken("RS-409-002"):
            raise Refusal(409, "TASK_NOT_RESTARTABLE")
        self.tickets += 0 if self.broken("RS-TICKET-001") else 1
        first = 1 if self.broken("RS-FLOW-001") else 0
        steps = ELEVATED if task.get("elevated") else STEPS
        current = {"id": f"step-{self.tickets}", "state": "POLICY_STEP_STATE_ACTIVE", **steps[first]}
        comment = body.get("comment") or (body.get("Comment") if self.broken("IG-MEMBERS-001") else None)
        if comment and not self.broken("RS-COMMENT-001"):
            self.comments[task_id] = self.comments.get(task_id, 0) + 1
        role = ROLES.get(caller, "viewer")
        permissions = {"read": True, "edit": role in ("admin", "operator"), "delete": role == "admin", "extra": {}}
        if self.broken("CL-ROLE-001"):
            permissions = {"read": True, "edit": True, "delete": True, "extra": {}}  # the admin's, for everyone
        if self.broken("CL-ROLE-002"):
            permissions = self.last_view.setdefault(task_id, permissions)  # the first caller's, cached
        self.restarts += 1
        view: dict[str, Any] = {
            "task": {
                "id": task_id,
                "numericId": str(int(task["numericId"]) + self.restarts)
                if self.broken("RS-STABLE-001")
                else task["numericId"],
                "state": "TASK_STATE_OPEN",
                "userId": "user-1",
                "actions": ["TASK_ACTION_TYPE_COMMENT"] if self.broken("CL-ROLE-001") else list(ACTIONS),
                "commentCount": self.comments.get(task_id, 0),
                "deletedAt": "2026-01-01T00:00:00Z" if self.broken("TY-TASK-001") else None,
                "policy": {
                    "current": current,
                    "next": steps[first + 1 :],
                    "history": [],
                    "policy": {
                        "id": "policy-1",
                        "policyType": "POLICY_TYPE_GRANT",
                        # the baseline entry is keyed by the lowercased policy type (TY-POLICY-001)
                        "policySteps": {
                            ("grants" if self.broken("TY-POLICY-001") else "grant"): {"steps": STEPS},
                            UP: {"steps": ELEVATED},
                        },
                    },
                },
            }
        }
        view["objectPermissions"] = permissions
        expanded = []
        if paths:
            expanded = [{"@type": "user", "id": "user-1"}, {"@type": "app", "id": "app-big"}]
            if self.broken("TY-EXPANDED-001"):
                expanded[1] = {"type": "app", "id": "app-big"}
            if "*" in paths or "user_id" in paths or "app_user_id" in paths or "identity_user_id" in paths:
                view["userPath"] = "$.expanded[0]"
            star = "*" in paths and not self.broken("RS-EXPAND-003")
            if star or "app_id" in paths or self.broken("RS-EXPAND-001"):
                view["appPath"] = "$.expanded[5]" if self.broken("RS-EXPAND-001") else "$.expanded[1]"
        ticket = "" if self.broken("RS-OK-001") else f"ticket-{self.tickets}"
        if self.broken("IG-MEMBERS-001") and isinstance(body.get("ticketActionId"), str):
            ticket = body["ticketActionId"]
        return 200, {"taskView": view, "expanded": expanded, "ticketActionId": ticket}, {}

    @staticmethod
    def well_formed(body: Any, raw: bytes = b"", breaks: set[str] | None = None) -> bool:
        """The restart body against TaskActionsServiceRestartRequest (types and the comment's length, in characters;
        in UTF-8 bytes where LN-COMMENT-001 is broken)."""
        if not isinstance(body, dict):
            return False
        comment, mask, step = body.get("comment", ""), body.get("expandMask"), body.get("policyStepId", "")
        if not isinstance(comment, str) or not isinstance(step, str):
            return False
        length = len(comment.encode()) if "LN-COMMENT-001" in (breaks or set()) else len(comment)
        if length > COMMENT_LIMIT:
            return False
        if mask is None:
            return True
        if not isinstance(mask, dict):
            return False
        paths = mask.get("paths")
        return paths is None or (isinstance(paths, list) and all(isinstance(p, str) for p in paths))

    # --- webhooks ----------------------------------------------------------------------------------------------

    def webhook(self, request: httpx.Request, listener_id: str) -> tuple[int, Any, dict[str, str]]:
        request.read()  # a chunked body arrives as a stream
        if self.broken("EV-OPS-001"):  # a failed-authentication limit that locks every delivery out
            raise Refusal(429, "TOO_MANY_FAILED_ATTEMPTS", {"Retry-After": "60"})
        counted = len(listener_id)
        if counted > ID_LIMIT and not self.broken("LN-PATH-003"):
            raise Refusal(400, "INVALID_ARGUMENT")
        listener = LISTENERS.get(listener_id)
        if listener is None:
            if not self.broken("WH-404-001"):
                raise Refusal(404, "NOT_FOUND", message=self.quoted("ER-QUOTE-006", listener_id))
            listener = LISTENERS["wh_a"]
        headers = request.headers
        event_id = headers.get("webhook-event-id")
        if self.broken("WH-IDEM-003") and event_id:
            self.events.add((listener_id, event_id))
        if self.broken("WH-ORDER-001"):
            self.authenticate(request, listener, listener_id)
        if self.broken("WH-ORDER-002") and (listener_id, event_id) in self.events:
            raise Refusal(409, "DUPLICATE_EVENT")
        event_id, _body = self.shape(request)
        allowed = listener.get("allowed", True) or self.broken("WH-CIDR-001")
        if listener.get("allowed") is True and self.broken("WH-CIDR-003"):
            allowed = False
        forwarded = headers.get("x-forwarded-for")
        if forwarded and self.broken("WH-CIDR-004") and forwarded == INSIDE:  # trusts the header: let in
            allowed = True
        if forwarded and self.broken("WH-CIDR-005") and listener.get("allowed") is True:  # and locked out
            allowed = False
        if self.broken("WH-CIDR-002"):
            self.authenticate(request, listener, listener_id)
        if not allowed:
            raise Refusal(403, "SOURCE_NOT_ALLOWED")
        event_id = event_id if self.broken("WH-IDEM-005") else event_id.lower()
        if self.broken("WH-IDEM-004"):  # keyed on the event id and the body
            event_id += hashlib.sha256(request.content).hexdigest()
        key = event_id if self.broken("WH-IDEM-002") else (listener_id, event_id)
        if self.broken("WH-ORDER-003") and key in self.events:
            raise Refusal(409, "DUPLICATE_EVENT")
        self.authenticate(request, listener, listener_id)
        accepted_at = self.accepted_at.get(key)  # type: ignore[arg-type]
        forgotten = self.broken("LT-EVENT-001") and accepted_at is not None and time.time() - accepted_at > LIFETIME
        if key in self.events and not self.broken("WH-IDEM-001") and not forgotten:
            raise Refusal(409, "DUPLICATE_EVENT")
        self.events.add(key)  # type: ignore[arg-type]
        self.accepted_at[key] = time.time()  # type: ignore[index]
        named = str(uuid.uuid4()) if self.broken("WH-ACCEPT-001") else headers.get("webhook-event-id", event_id)
        self.runs += 0 if self.broken("WH-RUN-003") else 1
        run_id = f"run-{self.runs}"
        run: dict[str, Any] = {"id": run_id, "status": "AUTOMATION_RUN_STATUS_QUEUED", "reason": None}
        rule = {"wh_disabled": "WH-RUN-001", "wh_unpublished": "WH-RUN-002"}.get(listener_id, "")
        if listener.get("skipped") and not self.broken(rule):
            run = {"id": run_id, "status": "AUTOMATION_RUN_STATUS_SKIPPED", "reason": listener["skipped"]}
        return 200, {"eventId": named, "automationRun": run}, {}

    def shape(self, request: httpx.Request) -> tuple[str, Any]:
        headers = request.headers
        content_type = headers.get("content-type", "")
        media = content_type if self.broken("WH-HDR-004") else content_type.split(";")[0].strip().lower()
        if media != "application/json" and not self.broken("WH-HDR-003"):
            raise Refusal(400, "INVALID_CONTENT_TYPE")
        timestamp = headers.get("webhook-timestamp")
        if timestamp is None:
            if not self.broken("WH-HDR-001"):
                raise Refusal(400, "MISSING_HEADER")
            timestamp = str(int(time.time()))
        event_id = headers.get("webhook-event-id")
        if event_id is None:
            if not self.broken("WH-HDR-002"):
                raise Refusal(400, "MISSING_HEADER")
            event_id = str(uuid.uuid4())
        if timestamp.startswith("0") and self.broken("WH-TS-004"):
            raise Refusal(400, "INVALID_TIMESTAMP")
        if not re.fullmatch("[0-9]{1,12}", timestamp):
            if not self.broken("WH-TS-001"):
                raise Refusal(400, "INVALID_TIMESTAMP")
            timestamp = str(int(float(timestamp))) if timestamp.replace(".", "").isdigit() else str(int(time.time()))
        window = 250 if self.broken("WH-TS-002") else 400 if self.broken("WH-TS-003") else 300
        if abs(int(time.time()) - int(timestamp)) > window - self.broken("WH-TS-005"):
            raise Refusal(400, "TIMESTAMP_OUT_OF_WINDOW")
        if event_id != event_id.lower() and self.broken("WH-EID-003"):  # upper-case hex taken for invalid
            raise Refusal(400, "INVALID_EVENT_ID")
        if not UUID.match(event_id) and not self.broken("WH-EID-001"):
            raise Refusal(400, "INVALID_EVENT_ID", message=self.quoted("ER-QUOTE-005", event_id))
        if UUID.match(event_id) and uuid.UUID(event_id).variant != uuid.RFC_4122 and not self.broken("WH-EID-001"):
            raise Refusal(400, "INVALID_EVENT_ID")
        if UUID.match(event_id) and uuid.UUID(event_id).version != 4 and not self.broken("WH-EID-002"):
            raise Refusal(400, "INVALID_EVENT_ID")
        limit = 64_000 if self.broken("WH-SIZE-001") else 128 * 1024 if self.broken("WH-SIZE-002") else 64 * 1024
        counted = "content-length" in headers or not self.broken("WH-SIZE-003")  # chunked: no Content-Length
        if counted and len(request.content) > limit:
            raise Refusal(413, "PAYLOAD_TOO_LARGE")
        try:
            body = strict_json(request.content)
            if self.broken("WH-JSON-002") and not isinstance(body, dict):  # "JSON" taken to mean an object
                raise ValueError("not an object")
        except (ValueError, RecursionError) as error:
            if isinstance(error, RecursionError) and self.broken("WH-JSON-003"):
                raise Refusal(500, "INTERNAL") from None
            if not self.broken("WH-JSON-001"):
                raise Refusal(400, "INVALID_JSON") from None
            body = None
        return event_id, body

    def authenticate(self, request: httpx.Request, listener: dict[str, Any], listener_id: str) -> None:
        if listener["method"] == "hmac":
            self.check_hmac(request)
        else:
            self.check_jwt(request, listener_id)

    def check_hmac(self, request: httpx.Request) -> None:
        headers = request.headers
        signature = headers.get("webhook-signature")
        if signature and signature.startswith("v1,") and self.broken("WH-HMAC-011"):
            signature = signature[3:]
        if not signature:
            if self.broken("WH-HMAC-002"):
                return
            raise Refusal(401, "MISSING_AUTHENTICATION")
        if self.broken("WH-HMAC-001"):
            return
        timestamp, event_id = headers.get("webhook-timestamp", ""), headers.get("webhook-event-id", "")
        body = request.content
        if self.broken("WH-HMAC-007") and body:  # verifies a re-serialisation, not the bytes received
            body = json.dumps(json.loads(body)).encode()
        # A lenient verifier also accepts an input that leaves one part out: that part is not covered.
        inputs = [(timestamp, event_id, body)]
        if self.broken("WH-HMAC-012"):  # the input rebuilt from the parsed values, not the texts as sent
            inputs = [(str(int(timestamp)) if timestamp.isdigit() else timestamp, event_id.lower(), body)]
        if self.broken("WH-HMAC-003"):
            inputs.append((timestamp, event_id, b""))
        if self.broken("WH-HMAC-004"):
            inputs.append(("", event_id, body))
        if self.broken("WH-HMAC-005"):
            inputs.append((timestamp, "", body))
        keys = [SECRET.encode()]
        if self.broken("WH-HMAC-006"):
            keys.append(base64.urlsafe_b64decode(SECRET + "=" * (-len(SECRET) % 4)))
        algorithm = "sha512" if self.broken("WH-HMAC-009") else "sha256"
        for key in keys:
            for ts, eid, signed in inputs:
                digest = hmac.new(key, f"{ts}.{eid}.".encode() + signed, hashlib.sha256).digest()
                also = [_b64url(hmac.new(key, f"{ts}.{eid}.".encode() + signed, algorithm).digest())]
                if self.broken("WH-HMAC-008"):  # Standard Webhooks' order
                    also.append(_b64url(hmac.new(key, f"{eid}.{ts}.".encode() + signed, hashlib.sha256).digest()))
                if self.broken("WH-HMAC-010"):  # padding tolerated
                    also.append(base64.urlsafe_b64encode(digest).decode())
                for expected in (_b64url(digest), *also):
                    if hmac.compare_digest(expected.encode(), signature.encode()):
                        return
        raise Refusal(401, "SIGNATURE_MISMATCH")

    def check_jwt(self, request: httpx.Request, listener_id: str) -> None:
        """The JWT method as x-jwt-verification says; each WH-JWT-* switch lets its family of tokens through."""
        authorization = request.headers.get("authorization")
        if not authorization:
            if self.broken("WH-JWT-002"):
                return
            raise Refusal(401, "MISSING_AUTHENTICATION")
        scheme, _, token = authorization.partition(" ")
        token = token.strip()
        if self.broken("WH-JWT-FORMS") and (scheme != "Bearer" or f"{scheme}  " in authorization):
            raise Refusal(401, "INVALID_TOKEN")
        if scheme.lower() != "bearer" or not token:
            if self.broken("WH-JWT-FORMAT"):
                return
            raise Refusal(401, "MISSING_AUTHENTICATION")
        if self.broken("WH-JWT-001"):
            raise Refusal(401, "INVALID_TOKEN")
        parts = token.split(".")
        if len(parts) != 3 or not all(re.fullmatch(r"[A-Za-z0-9_-]*", part) for part in parts):
            if self.broken("WH-JWT-FORMAT"):
                return
            raise Refusal(401, "INVALID_TOKEN")
        try:
            header = json.loads(_b64url_decode(parts[0]))
            claims = json.loads(_b64url_decode(parts[1]))
            signature = _b64url_decode(parts[2])
        except ValueError:
            raise Refusal(401, "INVALID_TOKEN") from None
        if not isinstance(header, dict) or not isinstance(claims, dict):
            raise Refusal(401, "INVALID_TOKEN")
        alg = header.get("alg")
        if alg != "EdDSA":
            lenient = {"WH-JWT-005": (None, "none", "NONE", "PS256", "ES512"), "WH-JWT-CONFUSION": ("HS256",)}
            lenient["WH-JWT-ALGKEY"] = ("RS256", "ES256")
            if any(self.broken(rule_id) and alg in algs for rule_id, algs in lenient.items()):
                return
            raise Refusal(401, "INVALID_TOKEN")
        if ("crit" in header or "b64" in header) and not self.broken("WH-JWT-CRIT"):
            raise Refusal(401, "INVALID_TOKEN")
        kid = header.get("kid")
        if kid != KID:
            unknown = isinstance(kid, str) and kid.startswith("conformance-")
            if not self.broken("WH-JWT-003" if unknown else "WH-JWT-KID"):
                raise Refusal(401, "UNKNOWN_KID")
        try:
            JWT_KEY.public_key().verify(signature, f"{parts[0]}.{parts[1]}".encode())
        except InvalidSignature:
            named = any(member in header for member in ("jwk", "jku", "x5u", "x5c"))
            if not self.broken("WH-JWT-HDRKEY" if named else "WH-JWT-004"):
                raise Refusal(401, "INVALID_TOKEN") from None
        self.check_claims(request, listener_id, claims)

    def check_claims(self, request: httpx.Request, listener_id: str, claims: dict[str, Any]) -> None:
        now = time.time()
        url = f"{TENANT}/api/v1/webhooks/incoming/{listener_id}"
        aud = claims.get("aud")
        event_id = request.headers.get("webhook-event-id", "")
        jti = claims.get("jti")
        checks = {
            "WH-JWT-SUB": claims.get("sub") == TENANT,
            "WH-JWT-AUD": aud == url or (isinstance(aud, list) and url in aud),
            "WH-JWT-JTI": isinstance(jti, str) and UUID.fullmatch(jti) is not None and jti.lower() == event_id.lower(),
            "WH-JWT-HTM": claims.get("htm") == "POST",
            "WH-JWT-HTB": claims.get("htb_s256") == _b64url(hashlib.sha256(request.content).digest()),
        }
        for rule_id, right in checks.items():
            if not right and not self.broken(rule_id):
                raise Refusal(401, "INVALID_CLAIM")
        forms = self.broken("WH-JWT-FORMS") and ("iss" in claims or isinstance(aud, list))
        if forms or (self.broken("WH-JWT-JTI") and jti != event_id):
            raise Refusal(401, "INVALID_CLAIM")
        exp = claims.get("exp")
        if not self.broken("WH-JWT-EXP"):
            if not isinstance(exp, int | float) or isinstance(exp, bool) or exp > now + 605:
                raise Refusal(401, "INVALID_CLAIM")
            if exp <= now - 5:
                raise Refusal(401, "TOKEN_EXPIRED")
        if self.broken("WH-JWT-EXP-OK") and (not isinstance(exp, int) or exp > now + 600):
            raise Refusal(401, "INVALID_CLAIM")
        for name in ("nbf", "iat"):
            value = claims.get(name)
            if isinstance(value, int | float) and value > now + 5 and not self.broken("WH-JWT-NBF"):
                raise Refusal(401, "INVALID_CLAIM")
