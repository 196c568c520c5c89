"""`accessgov`: serve the reference server, manage webhook listeners, send signed webhooks.

accessgov serve [--host H] [--port P] [--workers N] [--demo] [--head-timeout S] [--limit-concurrency N] ...
accessgov migrate | seed-demo
accessgov listeners create --auth hmac|jwt [--jwks-url URL] [--allow-cidr CIDR ...] [--name N] [--step NAME=CEL ...]
accessgov listeners list | disable ID | enable ID | publish ID | unpublish ID | rotate ID
accessgov runs list [--listener ID] [--status QUEUED|RUNNING|SUCCEEDED|SKIPPED|FAILED]
accessgov worker [--batch N]
accessgov webhook send URL (--hmac-secret S | --jwt-key PEM --kid K [--tenant-base-url U]) --data @file.json|JSON
accessgov tokens create --name N --role admin|operator|viewer
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from accessgov.config import ServerConfig


def _sessions(config: ServerConfig) -> Any:
    from accessgov.storage.engine import create_engine, migrate, session_factory

    engine = create_engine(config.database_url)
    migrate(engine)
    return session_factory(engine)


def _listener_url(config: ServerConfig, listener_id: str, host: str = "127.0.0.1", port: int = 8080) -> str:
    base = config.public_base_url or f"http://{host}:{port}"
    return f"{base}/api/v1/webhooks/incoming/{listener_id}"


def cmd_serve(args: argparse.Namespace, config: ServerConfig) -> int:
    """Run the server under uvicorn with the edges of `accessgov.http.server` (deadlines, connection cap, draining
    shutdown, workers that die with their supervisor); proxy headers stay off (see `uvicorn_config`)."""
    from accessgov.http.server import serve

    if args.demo:
        from accessgov.demo.seed import seed_demo

        with _sessions(config).begin() as session:
            summary = seed_demo(session)
        print(summary.describe(_listener_url(config, summary.hmac_listener_id, args.host, args.port)), flush=True)
    options = serve_options(args)
    if options.workers > 1:
        serve(None, options)
    else:
        from accessgov.app import create_app

        serve(create_app(config), options)
    return 0


def serve_options(args: argparse.Namespace, env: Mapping[str, str] = os.environ) -> Any:
    """Command-line options over `ACCESSGOV_*` variables over defaults."""
    from dataclasses import replace

    from accessgov.http.server import ServeOptions

    chosen = {name: value for name, value in vars(args).items() if value is not None and name in SERVE_FIELDS}
    return replace(ServeOptions.from_env(env), **chosen)


SERVE_FIELDS = (
    "host",
    "port",
    "workers",
    "http",
    "head_timeout",
    "body_timeout",
    "keep_alive",
    "limit_concurrency",
    "backlog",
    "graceful_shutdown",
    "log_level",
)


def cmd_migrate(args: argparse.Namespace, config: ServerConfig) -> int:
    _sessions(config)
    print(f"migrated {config.database_url}")
    return 0


def cmd_seed_demo(args: argparse.Namespace, config: ServerConfig) -> int:
    from accessgov.demo.seed import seed_demo

    with _sessions(config).begin() as session:
        summary = seed_demo(session)
    print(summary.describe(_listener_url(config, summary.hmac_listener_id)))
    return 0


def cmd_purge(args: argparse.Namespace, config: ServerConfig) -> int:
    from datetime import UTC, datetime

    from accessgov.storage import credentials, events

    now = datetime.now(UTC)
    with _sessions(config).begin() as session:
        purged = events.purge_events(session, now=now)
        tokens = credentials.purge_expired_tokens(session, now)
    print(f"purged {purged} event record(s) older than 7 days and {tokens} expired access token(s)")
    return 0


def _parse_steps(values: Sequence[str]) -> list[dict[str, str]]:
    steps = []
    for value in values:
        name, sep, expression = value.partition("=")
        if not sep or not name or not expression:
            raise SystemExit(f"--step takes NAME=CEL_EXPRESSION, got {value!r}")
        steps.append({"name": name, "expression": expression})
    return steps


def cmd_listeners(args: argparse.Namespace, config: ServerConfig) -> int:
    from accessgov.storage import listeners
    from accessgov.webhooks.cidr import parse_networks
    from accessgov.webhooks.hmac_signature import generate_secret

    sessions = _sessions(config)
    with sessions.begin() as session:
        if args.action == "create":
            if args.auth == "jwt" and not args.jwks_url:
                raise SystemExit("--auth jwt needs --jwks-url")
            parse_networks(args.allow_cidr)  # fail before storing anything
            secret = generate_secret() if args.auth == "hmac" else None
            listener = listeners.create_listener(
                session,
                auth_method=args.auth.upper(),
                hmac_secret=secret,
                jwks_url=args.jwks_url,
                allowed_cidrs=args.allow_cidr,
                automation_name=args.name,
                automation_steps=_parse_steps(args.step),
            )
            print(f"listener {listener.id} ({listener.auth_method})")
            print(f"url: {_listener_url(config, listener.id)}")
            if secret:
                print(f"signing secret (shown once): {secret}")
        elif args.action == "list":
            for listener in listeners.list_listeners(session):
                flags = f"published={listener.automation_published} enabled={listener.trigger_enabled}"
                print(f"{listener.id}\t{listener.auth_method}\t{flags}\t{','.join(listener.allowed_cidrs or [])}")
        else:
            if not args.id:
                raise SystemExit(f"listeners {args.action} needs a listener ID")
            if args.action in ("enable", "disable"):
                listeners.set_enabled(session, args.id, args.action == "enable")
            elif args.action in ("publish", "unpublish"):
                listeners.set_published(session, args.id, args.action == "publish")
            elif args.action == "rotate":
                secret = generate_secret()
                listeners.rotate_secret(session, args.id, secret)
                print(f"new signing secret (shown once): {secret}")
            print(f"{args.action}: {args.id}")
    return 0


def cmd_runs(args: argparse.Namespace, config: ServerConfig) -> int:
    from accessgov.storage import events

    with _sessions(config)() as session:
        if args.action == "stats":
            for status, count in sorted(events.count_runs_by_status(session).items()):
                print(f"{status}\t{count}")
            return 0
        for run in events.list_runs(session, listener_id=args.listener, limit=args.limit, status=args.status):
            outputs = json.dumps(run.outputs, sort_keys=True)
            fields = [run.id, f"{run.created_at:%Y-%m-%dT%H:%M:%SZ}", run.listener_id, run.event_id, run.status]
            print("\t".join([*fields, f"attempts={run.attempts}", run.reason or "", outputs]))
    return 0


def cmd_worker(args: argparse.Namespace, config: ServerConfig) -> int:
    """Run queued automations until SIGINT/SIGTERM (for servers started with ACCESSGOV_RUN_AUTOMATIONS=0)."""
    import asyncio
    import signal

    from accessgov.runner import run_worker
    from accessgov.storage.database import Database

    async def main() -> None:
        db = Database(config.database_url, readers=1, writers=1)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        print(f"worker running queued automations from {db.backend}", flush=True)
        try:
            await run_worker(db, stop, batch=args.batch)
        finally:
            db.close()

    asyncio.run(main())
    return 0


def _read_data(value: str) -> bytes:
    if value.startswith("@"):
        return Path(value[1:]).read_bytes()
    return value.encode("utf-8")


def cmd_webhook_send(args: argparse.Namespace, config: ServerConfig) -> int:
    from accessgov.webhooks import signing

    body = _read_data(args.data)
    if args.hmac_secret:
        headers = signing.hmac_headers(args.hmac_secret, body)
    elif args.jwt_key:
        headers = signing.jwt_headers(
            Path(args.jwt_key).read_bytes(),
            kid=args.kid,
            url=args.audience or args.url,
            tenant_base_url=args.tenant_base_url or config.tenant_base_url,
            body=body,
        )
    else:
        raise SystemExit("give --hmac-secret or --jwt-key")
    response = signing.send(args.url, body, headers)
    print(f"{response.status_code} {response.text}")
    return 0 if response.is_success else 1


def cmd_tokens(args: argparse.Namespace, config: ServerConfig) -> int:
    from accessgov.storage import credentials

    token = secrets.token_urlsafe(32)
    with _sessions(config).begin() as session:
        credentials.add_api_token(session, token, args.name, [args.role])
    print(f"API token for {args.name} ({args.role}), shown once: {token}")
    return 0


def parser() -> argparse.ArgumentParser:
    root = argparse.ArgumentParser(prog="accessgov", description=__doc__.splitlines()[0])
    sub = root.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="run the reference server")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8080)
    serve.add_argument("--workers", type=int, help="worker processes under uvicorn's supervisor [ACCESSGOV_WORKERS, 1]")
    serve.add_argument("--http", choices=["httptools", "h11"], help="HTTP/1.1 parser [ACCESSGOV_HTTP, httptools]")
    serve.add_argument("--head-timeout", type=float, help="seconds for a request head [ACCESSGOV_HEAD_TIMEOUT, 10]")
    serve.add_argument(
        "--body-timeout", type=float, help="seconds between request body chunks [ACCESSGOV_BODY_TIMEOUT, 10]"
    )
    serve.add_argument("--keep-alive", type=int, help="idle keep-alive seconds [ACCESSGOV_KEEP_ALIVE, 5]")
    serve.add_argument(
        "--limit-concurrency",
        type=int,
        help="connections/requests per worker before 503; 0: no cap [ACCESSGOV_LIMIT_CONCURRENCY, 1000]",
    )
    serve.add_argument("--backlog", type=int, help="listen(2) backlog [ACCESSGOV_BACKLOG, 2048]")
    serve.add_argument(
        "--graceful-shutdown",
        type=int,
        help="seconds in-flight requests get to finish after SIGTERM [ACCESSGOV_GRACEFUL_SHUTDOWN, 10]",
    )
    serve.add_argument("--demo", action="store_true", help="seed the demo tenant first (idempotent)")
    serve.add_argument("--log-level", default="info")
    serve.set_defaults(func=cmd_serve)

    sub.add_parser("migrate", help="create or upgrade the database schema").set_defaults(func=cmd_migrate)
    sub.add_parser("seed-demo", help="load the demo tenant (idempotent)").set_defaults(func=cmd_seed_demo)
    sub.add_parser("purge", help="delete event records older than 7 days and expired tokens").set_defaults(
        func=cmd_purge
    )

    lst = sub.add_parser("listeners", help="manage inbound webhook listeners")
    lst.add_argument("action", choices=["create", "list", "enable", "disable", "publish", "unpublish", "rotate"])
    lst.add_argument("id", nargs="?")
    lst.add_argument("--auth", choices=["hmac", "jwt"], default="hmac")
    lst.add_argument("--jwks-url")
    lst.add_argument("--allow-cidr", action="append", default=[])
    lst.add_argument("--name", default="Incoming webhook automation")
    lst.add_argument("--step", action="append", default=[], help="NAME=CEL expression over ctx.trigger")
    lst.set_defaults(func=cmd_listeners)

    runs = sub.add_parser("runs", help="automation runs and their state")
    runs.add_argument("action", choices=["list", "stats"])
    runs.add_argument("--listener")
    runs.add_argument("--status", choices=["QUEUED", "RUNNING", "SUCCEEDED", "SKIPPED", "FAILED"])
    runs.add_argument("--limit", type=int, default=50)
    runs.set_defaults(func=cmd_runs)

    worker = sub.add_parser("worker", help="run queued automations (with ACCESSGOV_RUN_AUTOMATIONS=0 on servers)")
    worker.add_argument("--batch", type=int, default=32, help="runs claimed per round")
    worker.set_defaults(func=cmd_worker)

    hook = sub.add_parser("webhook", help="sender side: sign and send a webhook")
    hook.add_argument("action", choices=["send"])
    hook.add_argument("url")
    hook.add_argument("--data", required=True, help="JSON text, or @file")
    hook.add_argument("--hmac-secret")
    hook.add_argument("--jwt-key", help="PEM private key file (RSA, EC P-256 or Ed25519)")
    hook.add_argument("--kid")
    hook.add_argument("--tenant-base-url")
    hook.add_argument("--audience", help="the listener's configured URL (JWT aud), when URL is another route to it")
    hook.set_defaults(func=cmd_webhook_send)

    tokens = sub.add_parser("tokens", help="API tokens")
    tokens.add_argument("action", choices=["create"])
    tokens.add_argument("--name", required=True)
    tokens.add_argument("--role", choices=["admin", "operator", "viewer"], default="admin")
    tokens.set_defaults(func=cmd_tokens)
    return root


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    config = ServerConfig.from_env(os.environ)
    return int(args.func(args, config) or 0)


if __name__ == "__main__":
    sys.exit(main())
