"""The self-test's target: ONE reference server (fresh SQLite, demo tenant plus the listeners the kit's webhook
rules need), serving every mutant and control on a port of its own.

One uvicorn server listens on one socket per mutant; a router picks the mutant's middleware by the local port
the request came in on, so each mutant has an ordinary base URL and shares the app, its database and its
threads with the others. Mutants only rewrite requests and responses (they never write to the database
themselves), and everything the kit creates is fresh per run (event ids, restart actions), so no state leaks
between them.
"""

from __future__ import annotations

import contextlib
import ipaddress
import socket
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jwt
import uvicorn
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ed25519

from accessgov.config import DEFAULTS, Settings
from accessgov.demo import seed as demo_seed
from accessgov.demo import tenant as demo
from accessgov.demo.jwks import jwks_server
from accessgov.webhooks.hmac_signature import compute_signature
from accessgov.webhooks.protocol import body_hash
from accessgov.webhooks.signing import jwks_document, public_jwk
from tests.conformance.selftest.asgi import ASGIApp, Receive, Request, Scope, Send, path_param

SECOND_LISTENER_ID = "wh_selftest_second"
JWT_LISTENER_ID = "wh_selftest_jwt"
CIDR_LISTENER_ID = "wh_selftest_cidr"
# TEST-NET-1 (RFC 5737): never a loopback client, so the kit's requests to this listener must be refused 403.
CIDR_ALLOWED = ("192.0.2.0/24",)
LOOPBACK_LISTENER_ID = "wh_selftest_loopback"  # restricted to ranges that hold the kit: must be accepted
LOOPBACK_ALLOWED = ("127.0.0.0/8", "::1/128")
# Listeners whose events are accepted but whose run is skipped: trigger disabled, automation unpublished.
DISABLED_LISTENER_ID = "wh_selftest_disabled"
UNPUBLISHED_LISTENER_ID = "wh_selftest_unpublished"
# The paging rules walk a whole collection: one of 230 entitlements (more than a clamped page of 100, ten pages
# of the default 25) keeps each kit run short; the demo's 2,500-entitlement app would take ten times longer.
# Seconds the kit keeps an early credential before its lifetime rules use it again (`[target] credential_age`; 6 by
# default): a lifetime mutant's credentials end after half of it, and each whole-kit run need not wait 6 s.
CREDENTIAL_AGE = 2.0
PAGING_APP_ID = "app-selftest"
PAGING_APP_ENTITLEMENTS = 230
JWT_KID = "selftest"


@dataclass
class Fixtures:
    """The target's credentials and objects: what the kit's config names, and what a mutant needs to re-sign a
    request it decided to let through."""

    tenant_base_url: str
    jwt_private_pem: bytes
    jwks_url: str = ""
    hmac_secrets: dict[str, str] = field(default_factory=dict)
    jwt_listeners: tuple[str, ...] = (JWT_LISTENER_ID,)
    allowed_cidrs: dict[str, tuple[str, ...]] = field(default_factory=dict)
    open_task_ids: list[str] = field(default_factory=list)
    closed_task_ids: list[str] = field(default_factory=list)
    deleted_task_ids: list[str] = field(default_factory=list)

    def endpoint_url(self, request: Request) -> str:
        """The JWT `aud` the server expects: the listener's URL under the tenant base URL."""
        return self.tenant_base_url + request.path

    def resign(self, request: Request, *, claims: Mapping[str, Any] | None = None) -> Request:
        """`request` with the listener's authentication computed afresh over its headers and body, as a
        correct sender would have signed it (a JWT keeps the given `claims`, else gets correct ones)."""
        listener_id = path_param(request, "webhook", "listener_id")
        timestamp = request.header("webhook-timestamp") or ""
        event_id = request.header("webhook-event-id") or ""
        if listener_id in self.jwt_listeners:
            now = int(time.time())
            token_claims = dict(claims) if claims is not None else self.jwt_claims(request, now)
            key = serialization.load_pem_private_key(self.jwt_private_pem, password=None)
            token = jwt.encode(token_claims, key, algorithm="EdDSA", headers={"kid": JWT_KID})  # type: ignore[arg-type]
            return request.with_header("authorization", f"Bearer {token}").with_header("webhook-signature", None)
        secret = self.hmac_secrets.get(listener_id, demo_seed.DEMO_HMAC_SECRET)
        signature = compute_signature(secret, timestamp, event_id, request.body)
        return request.with_header("webhook-signature", signature).with_header("authorization", None)

    def jwt_claims(self, request: Request, now: int) -> dict[str, Any]:
        return {
            "sub": self.tenant_base_url,
            "aud": self.endpoint_url(request),
            "iat": now,
            "exp": now + 300,
            "jti": request.header("webhook-event-id") or "",
            "htm": "POST",
            "htb_s256": body_hash(request.body),
        }

    def allowed_address(self, listener_id: str) -> str | None:
        """An address inside the listener's allowed ranges (None: it has none)."""
        cidrs = self.allowed_cidrs.get(listener_id)
        return str(next(ipaddress.ip_network(cidrs[0]).hosts())) if cidrs else None


def _demo_tasks() -> tuple[list[str], list[str], list[str]]:
    """The demo's open, closed and deleted task ids."""
    tasks = demo.build().tasks
    opened = [t["id"] for t in tasks if t["state"] == "TASK_STATE_OPEN" and not t.get("deletedAt")]
    closed = [t["id"] for t in tasks if t["state"] == "TASK_STATE_CLOSED" and not t.get("deletedAt")]
    return opened, closed, [t["id"] for t in tasks if t.get("deletedAt")]


def task_groups() -> list[list[str]]:
    """Open tasks of the demo in groups of one of each kind (grant, revoke, certify, offboarding, action, finding);
    the first group is the first open task of each kind, which the restart mutants know."""
    by_kind: dict[str, list[str]] = {}
    for task in demo.build().tasks:
        if task["state"] == "TASK_STATE_OPEN" and not task.get("deletedAt"):
            by_kind.setdefault(next(iter(task["type"])), []).append(task["id"])
    return [list(group) for group in zip(*(by_kind[kind] for kind in demo.TASK_KINDS), strict=False)]


def kit_config(fixtures: Fixtures, group: int = 0) -> str:
    """The kit's TOML configuration for this target (the base URL is given per run with --base-url); `group`: which
    of `task_groups()` it names as open tasks (0: the first open task of each kind, what the restart mutants
    know; another group for the whole-kit runs, whose 150 restarts each would otherwise all land on the same
    tasks and grow their workflow history run after run)."""
    pem = fixtures.jwt_private_pem.decode()
    hmac_listeners = [  # (id, the kit's source allowed, CIDR-restricted)
        (demo_seed.DEMO_HMAC_LISTENER_ID, True, False),
        (SECOND_LISTENER_ID, True, False),
        (CIDR_LISTENER_ID, False, True),
        (LOOPBACK_LISTENER_ID, True, True),
    ]
    lines = [
        "[target]",
        f'tenant_base_url = "{fixtures.tenant_base_url}"',
        f"credential_age = {CREDENTIAL_AGE}",
        "",
        "[auth]",
        f'token = "{demo_seed.DEMO_ADMIN_TOKEN}"',
        f'oauth_client_id = "{demo_seed.DEMO_OAUTH_CLIENT_ID}"',
        f'oauth_client_secret = "{demo_seed.DEMO_OAUTH_CLIENT_SECRET}"',
        f'restricted_token = "{demo_seed.DEMO_VIEWER_TOKEN}"',
        "",
    ]
    for role, token, restart, permissions in (
        ("admin", demo_seed.DEMO_ADMIN_TOKEN, True, "{ read = true, edit = true, delete = true }"),
        ("operator", demo_seed.DEMO_OPERATOR_TOKEN, True, "{ read = true, edit = true, delete = false }"),
        ("viewer", demo_seed.DEMO_VIEWER_TOKEN, False, ""),
    ):
        lines += ["[[auth.callers]]", f'role = "{role}"', f'token = "{token}"', f"restart = {str(restart).lower()}"]
        lines += [f"permissions = {permissions}", ""] if permissions else [""]
    for listener_id, allowed, restricted in hmac_listeners:
        lines += [
            "[[listeners]]",
            f'id = "{listener_id}"',
            'method = "hmac"',
            f'secret = "{fixtures.hmac_secrets[listener_id]}"',
            f"source_allowed = {str(allowed).lower()}",
            f"cidr_restricted = {str(restricted).lower()}",
            f"allowed_cidrs = [{', '.join(f'{c!r}' for c in fixtures.allowed_cidrs.get(listener_id, ()))}]",
            "",
        ]
    for listener_id, flag in (
        (DISABLED_LISTENER_ID, "trigger_enabled"),
        (UNPUBLISHED_LISTENER_ID, "automation_published"),
    ):
        lines += ["[[listeners]]", f'id = "{listener_id}"', 'method = "hmac"']
        lines += [f'secret = "{fixtures.hmac_secrets[listener_id]}"', f"{flag} = false", ""]
    lines += ["[[listeners]]", f'id = "{JWT_LISTENER_ID}"', 'method = "jwt"', f'kid = "{JWT_KID}"']
    lines += [f'private_key = """{pem}"""', ""]
    groups = task_groups()
    tasks = fixtures.open_task_ids[:6] if group == 0 else groups[group % len(groups)]
    opened = ", ".join(f'"{task_id}"' for task_id in tasks)
    lines += [
        "[fixtures]",
        f"open_task_ids = [{opened}]",
        f'closed_task_id = "{fixtures.closed_task_ids[0]}"',
        f'deleted_task_id = "{fixtures.deleted_task_ids[0]}"',
        f'app_id = "{PAGING_APP_ID}"',
        'other_app_id = "app-okta"',
        f"min_entitlements = {PAGING_APP_ENTITLEMENTS}",
        f"expected_entitlements = {PAGING_APP_ENTITLEMENTS}",
    ]
    return "\n".join(lines) + "\n"


def _seed(database_url: str, fixtures: Fixtures) -> None:
    from accessgov.storage import directory, entitlements, listeners
    from accessgov.storage.backends import create_engine
    from accessgov.storage.engine import migrate, session_factory

    engine = create_engine(database_url)
    migrate(engine)
    sessions = session_factory(engine)
    steps = demo_seed.DEMO_STEPS
    with sessions.begin() as session:
        demo_seed.seed_demo(session)
        listeners.create_listener(
            session,
            listener_id=SECOND_LISTENER_ID,
            auth_method="HMAC",
            hmac_secret=fixtures.hmac_secrets[SECOND_LISTENER_ID],
            automation_name="Self-test second listener",
            automation_steps=steps,
        )
        listeners.create_listener(
            session,
            listener_id=JWT_LISTENER_ID,
            auth_method="JWT",
            jwks_url=fixtures.jwks_url,
            automation_name="Self-test JWT listener",
            automation_steps=steps,
        )
        listeners.create_listener(
            session,
            listener_id=CIDR_LISTENER_ID,
            auth_method="HMAC",
            hmac_secret=fixtures.hmac_secrets[CIDR_LISTENER_ID],
            allowed_cidrs=CIDR_ALLOWED,
            automation_name="Self-test CIDR listener",
            automation_steps=steps,
        )
        listeners.create_listener(
            session,
            listener_id=LOOPBACK_LISTENER_ID,
            auth_method="HMAC",
            hmac_secret=fixtures.hmac_secrets[LOOPBACK_LISTENER_ID],
            allowed_cidrs=LOOPBACK_ALLOWED,
            automation_name="Self-test loopback-only listener",
            automation_steps=steps,
        )
        for listener_id, published, enabled in (
            (DISABLED_LISTENER_ID, True, False),
            (UNPUBLISHED_LISTENER_ID, False, True),
        ):
            listeners.create_listener(
                session,
                listener_id=listener_id,
                auth_method="HMAC",
                hmac_secret=fixtures.hmac_secrets[listener_id],
                automation_name=f"Self-test listener {listener_id}",
                automation_steps=steps,
                published=published,
                enabled=enabled,
            )
        directory.put_documents(session, "app", [{"id": PAGING_APP_ID, "displayName": "Self-test paging app"}])
        entries = (demo.entitlement(PAGING_APP_ID, n) for n in range(1, PAGING_APP_ENTITLEMENTS + 1))
        entitlements.insert_entitlements(session, PAGING_APP_ID, entries)
    engine.dispose()


def port_router(routes: dict[int, ASGIApp], default: ASGIApp) -> ASGIApp:
    """Dispatch each connection to the app of the local port it arrived on (lifespan goes to `default`)."""

    async def router(scope: Scope, receive: Receive, send: Send) -> None:
        server = scope.get("server")
        app = routes.get(server[1], default) if server else default
        await app(scope, receive, send)

    return router


def _bound_socket() -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    return sock


@contextlib.contextmanager
def serve_variants(wrappers: Mapping[str, Any]) -> Iterator[tuple[dict[str, str], Fixtures]]:
    """Serve the reference app once, each of `wrappers` (name -> `build(app, fixtures) -> app`) on its own port.

    Yields (name -> base URL, fixtures).
    """
    from accessgov.app import create_app

    opened, closed, deleted = _demo_tasks()
    key = ed25519.Ed25519PrivateKey.generate()
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    fixtures = Fixtures(
        tenant_base_url=DEFAULTS.tenant_base_url,
        jwt_private_pem=pem,
        hmac_secrets={
            demo_seed.DEMO_HMAC_LISTENER_ID: demo_seed.DEMO_HMAC_SECRET,
            SECOND_LISTENER_ID: f"selftest-second-{uuid.uuid4().hex}",
            CIDR_LISTENER_ID: demo_seed.DEMO_HMAC_SECRET,
            LOOPBACK_LISTENER_ID: f"selftest-loopback-{uuid.uuid4().hex}",
            DISABLED_LISTENER_ID: f"selftest-disabled-{uuid.uuid4().hex}",
            UNPUBLISHED_LISTENER_ID: f"selftest-unpublished-{uuid.uuid4().hex}",
        },
        allowed_cidrs={CIDR_LISTENER_ID: CIDR_ALLOWED, LOOPBACK_LISTENER_ID: LOOPBACK_ALLOWED},
        open_task_ids=opened,
        closed_task_ids=closed,
        deleted_task_ids=deleted,
    )
    with tempfile.TemporaryDirectory(prefix="selftest-") as tmp, contextlib.ExitStack() as stack:
        fixtures.jwks_url = stack.enter_context(jwks_server(jwks_document([public_jwk(pem, kid=JWT_KID)])))
        database_url = f"sqlite:///{Path(tmp) / 'accessgov.db'}"
        _seed(database_url, fixtures)
        config = Settings.load(
            database_url=database_url,
            auth_failure_limit="off",
            auth_failure_limit_per_credential="off",
            access_log="off",
            gil_switch_interval=0.005,
            # A throwaway database: no fdatasync per commit (a commit survives a crash of the process, not a power
            # loss), which on a loaded disk would hold every webhook and restart for milliseconds.
            sqlite_synchronous="NORMAL",
        )
        app = create_app(config)
        sockets = {name: _bound_socket() for name in wrappers}
        routes = {sock.getsockname()[1]: wrappers[name](app, fixtures) for name, sock in sockets.items()}
        server = uvicorn.Server(
            uvicorn.Config(
                port_router(routes, app),
                log_level="warning",
                access_log=False,
                lifespan="on",
                proxy_headers=False,
                timeout_graceful_shutdown=2,
            )
        )
        thread = threading.Thread(target=server.run, kwargs={"sockets": list(sockets.values())}, daemon=True)
        thread.start()
        deadline = time.monotonic() + 30
        while not server.started:
            if time.monotonic() > deadline or not thread.is_alive():
                raise RuntimeError("the self-test server did not start")
            time.sleep(0.01)
        try:
            yield {name: f"http://127.0.0.1:{sock.getsockname()[1]}" for name, sock in sockets.items()}, fixtures
        finally:
            server.should_exit = True
            thread.join(15)
            for sock in sockets.values():
                sock.close()
