"""`accessgov`: serve the reference server, manage webhook listeners, send signed webhooks.

Every subcommand has its own `--help`; docs/operations.md ("Listeners, runs and keys from the CLI") lists them.
"""

from __future__ import annotations

import argparse
import json
import secrets
import sys
from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any, Literal, get_args, get_origin

from accessgov import config as config_module
from accessgov.config import (
    Settings,
    SettingsError,
    check_setting,
    env_name,
    is_serve_option,
    setting_field,
    setting_unit,
    shown_default,
)


def _engine(settings: Settings) -> Any:
    from accessgov.storage.backends import create_engine
    from accessgov.storage.engine import migrate

    engine = create_engine(settings.database, synchronous=settings.sqlite_synchronous)
    migrate(engine)
    return engine


def _sessions(settings: Settings) -> Any:
    from accessgov.storage.engine import session_factory

    return session_factory(_engine(settings))


def _listener_url(settings: Settings, listener_id: str, base_url: str | None = None) -> str:
    """The listener's URL under the public base URL (`ACCESSGOV_PUBLIC_BASE_URL`, else the tenant's), or under
    `base_url` when given and no public base URL is configured (the address `serve` listens on)."""
    base = settings.public_base_url or base_url or settings.listener_base_url
    return f"{base}/api/v1/webhooks/incoming/{listener_id}"


def cmd_serve(args: argparse.Namespace, settings: Settings) -> int:
    """Run the server under uvicorn with the edges of `accessgov.http.server` (deadlines, connection cap, draining
    shutdown, workers that die with their supervisor); proxy headers stay off (see `uvicorn_config`)."""
    from accessgov.http.server import bind, serve

    settings = serve_settings(args, settings)
    sock = bind(args.host, args.port)  # before the banner: a port in use is the one message printed
    if args.demo:
        from accessgov.demo.jwks import serve_demo_jwks
        from accessgov.demo.seed import seed_demo

        with _sessions(settings).begin() as session:
            summary = seed_demo(session, jwks_url=serve_demo_jwks())  # the JWT listener's JWKS, on loopback
        local = f"http://{args.host}:{args.port}"
        print(summary.describe(_listener_url(settings, summary.hmac_listener_id, local)), flush=True)
    _warn_of_connection_budget(settings)
    listen: dict[str, Any] = {"host": args.host, "port": args.port, "log_level": args.log_level}
    if settings.workers > 1:
        serve("accessgov.app:worker_app", settings, sock, **listen)  # the factory each worker process calls
    else:
        from accessgov.app import create_app

        serve(create_app(settings), settings, sock, **listen)
    return 0


def _warn_of_connection_budget(settings: Settings) -> None:
    """Say so on stderr when the workers may open more PostgreSQL connections than the server accepts: they open
    them as load arrives, so the shortfall would show only under load, as failed requests."""
    from accessgov.storage.backends import implementation

    warning = implementation(settings.database).connection_budget_warning(
        settings.database, readers=settings.db_readers, writers=settings.db_writers, workers=settings.workers
    )
    if warning:
        print(f"warning: {warning}", file=sys.stderr, flush=True)


def serve_settings(args: argparse.Namespace, settings: Settings) -> Settings:
    """`serve`'s command-line options over `settings` (the `ACCESSGOV_*` variables over the defaults)."""
    chosen = {name: getattr(args, name) for name in SERVE_SETTINGS if getattr(args, name, None) is not None}
    return settings.updated(**chosen)


def cmd_migrate(args: argparse.Namespace, settings: Settings) -> int:
    _sessions(settings)
    print(f"migrated {settings.database}")
    return 0


def cmd_seed_demo(args: argparse.Namespace, settings: Settings) -> int:
    from accessgov.demo.seed import seed_demo

    with _sessions(settings).begin() as session:
        summary = seed_demo(session)
    print(summary.describe(_listener_url(settings, summary.hmac_listener_id)))
    return 0


def cmd_purge(args: argparse.Namespace, settings: Settings) -> int:
    from datetime import UTC, datetime

    from accessgov.storage import credentials, events

    now = datetime.now(UTC)
    with _sessions(settings).begin() as session:
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


def parse_duration(text: str) -> timedelta:
    """`settings.parse_duration` as an argparse type: anything else is a usage error (exit 2)."""
    try:
        return config_module.parse_duration(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _fail(message: str, status: int = 1) -> int:
    print(message, file=sys.stderr)
    return status


def cmd_listeners_create(args: argparse.Namespace, settings: Settings) -> int:
    from accessgov.storage import listeners
    from accessgov.webhooks.cidr import parse_networks
    from accessgov.webhooks.hmac_signature import generate_secret

    if args.auth == "jwt" and not args.jwks_url:
        return _fail("--auth jwt needs --jwks-url")
    try:
        parse_networks(args.allow_cidr)  # fail before storing anything
    except ValueError as error:
        return _fail(f"--allow-cidr: {error}")
    secret = generate_secret() if args.auth == "hmac" else None
    with _sessions(settings).begin() as session:
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
    print(f"url: {_listener_url(settings, listener.id)}")
    if secret:
        print(f"signing secret (shown once): {secret}")
    return 0


def cmd_listeners_list(args: argparse.Namespace, settings: Settings) -> int:
    from accessgov.storage import listeners

    with _sessions(settings)() as session:
        for listener in listeners.list_listeners(session):
            flags = f"published={listener.automation_published} enabled={listener.trigger_enabled}"
            print(f"{listener.id}\t{listener.auth_method}\t{flags}\t{','.join(listener.allowed_cidrs or [])}")
    return 0


def cmd_listeners_toggle(args: argparse.Namespace, settings: Settings) -> int:
    from accessgov.storage import listeners

    with _sessions(settings).begin() as session:
        if args.action in ("enable", "disable"):
            found = listeners.set_enabled(session, args.id, args.action == "enable")
        else:
            found = listeners.set_published(session, args.id, args.action == "publish")
    if found is None:
        return _fail(f"no listener {args.id!r}")
    print(f"{args.action}: {args.id}")
    return 0


def cmd_listeners_rotate(args: argparse.Namespace, settings: Settings) -> int:
    from accessgov.storage import ids, listeners
    from accessgov.webhooks.hmac_signature import generate_secret

    secret = generate_secret()
    now = ids.utcnow()
    try:
        with _sessions(settings).begin() as session:
            found = listeners.rotate_secret(session, args.id, secret, grace=args.grace, now=now)
    except ValueError as error:
        return _fail(str(error))
    if found is None:
        return _fail(f"no listener {args.id!r}")
    print(f"rotate: {args.id}")
    print(f"new signing secret (shown once): {secret}")
    if found.previous_secret_expires_at is not None:
        print(f"previous secret valid until {found.previous_secret_expires_at:%Y-%m-%dT%H:%M:%SZ}")
    else:
        print("previous secret no longer valid")
    return 0


def _keyring(settings: Settings) -> Any:
    """The keyring of the settings' database, by the rule the server follows (`storage.sealing.open_keyring`)."""
    from accessgov.storage.sealing import default_keyring

    return default_keyring(settings)


def cmd_keys_list(args: argparse.Namespace, settings: Settings) -> int:
    from accessgov.storage.sealing import referenced_key_ids

    keyring = _keyring(settings)  # a KeyringError is `main`'s to report, as for every key command
    with _engine(settings).connect() as connection:
        used = referenced_key_ids(connection)
    source = keyring.path or "ACCESSGOV_SECRET_KEY"
    for kid in keyring.key_ids:
        marks = [m for m, on in (("primary", kid == keyring.primary_id), ("in use", kid in used)) if on]
        print(f"{kid}\t{', '.join(marks) or 'unused'}\t{source}")
    for kid in sorted(used - set(keyring.key_ids)):
        print(f"{kid}\tMISSING: referenced by stored values but in no key source")
    return 0


def cmd_keys_doctor(args: argparse.Namespace, settings: Settings) -> int:
    """Which key source this command (and a server with this environment) uses, its keys, and whether every
    sealed value opens with them; exit 1 if not. Reads only: never creates a key file."""
    from accessgov.keys import Keyring, KeyringError
    from accessgov.keys.keyring import key_source
    from accessgov.storage.sealing import check_sealed_values, database_file, sealed_key_ids_at

    beside = database_file(settings)
    path, why = key_source(settings, beside)
    print(f"database: {settings.database}")
    print(f"key source: {path or 'ACCESSGOV_SECRET_KEY'} ({why})")
    try:
        if path is not None and not path.exists():
            sealed = sealed_key_ids_at(settings.database)
            print(f"key file missing; the database holds values under: {', '.join(sorted(sealed)) or 'none'}")
            return 1 if sealed else 0
        keyring = Keyring.from_settings(settings, beside)
    except KeyringError as error:
        return _fail(f"key source unusable: {error}")
    with _engine(settings).connect() as connection:
        values = check_sealed_values(connection, keyring)
    used = {value.key_id for value in values}
    print("keys:")
    for kid in keyring.key_ids:
        state = "primary" if kid == keyring.primary_id else "in use" if kid in used else "unused (prunable)"
        print(f"  {kid}\tcreated {keyring.created.get(kid, 'unknown')}\t{state}")
    bad = [value for value in values if value.problem is not None]
    print(f"{len(values) - len(bad)} sealed value(s) open, {len(bad)} do not")
    for value in bad:
        print(f"  {value.where}: key {value.key_id}: {value.problem}")
    return 1 if bad else 0


def cmd_keys_rotate(args: argparse.Namespace, settings: Settings) -> int:
    """A new primary key, then every value re-sealed under it, under the key file's lock (`sealing.rotate_keys`)."""
    from accessgov.storage.sealing import rotate_keys

    keyring = _keyring(settings)
    engine = _engine(settings)
    primary, count = rotate_keys(engine, keyring, wait=args.wait.total_seconds())
    if keyring.path is not None:
        print(f"new primary key {primary} in {keyring.path}")
    else:
        print(f"ACCESSGOV_SECRET_KEY: re-sealed under its first key, {primary}")
    print(f"re-sealed {count} value(s) under {primary}; `accessgov keys prune` removes unused keys")
    return 0


def cmd_keys_prune(args: argparse.Namespace, settings: Settings) -> int:
    from accessgov.storage.sealing import prune_keys

    unused = prune_keys(_engine(settings), _keyring(settings), wait=args.wait.total_seconds())
    print(f"removed {len(unused)} unused key(s): {', '.join(sorted(unused)) or '-'}")
    return 0


def cmd_page_keys_rotate(args: argparse.Namespace, settings: Settings) -> int:
    from accessgov.storage import ids, page_keys

    if settings.page_token_key:
        return _fail("ACCESSGOV_PAGE_TOKEN_SECRET is set: that key is the operator's; change the variable instead")
    now = ids.utcnow()
    with _sessions(settings).begin() as session:
        keys = page_keys.rotate(session, now, args.grace)
    print(f"new page-token key; {len(keys.previous)} previous key(s) still verify tokens until they expire")
    return 0


def cmd_runs(args: argparse.Namespace, settings: Settings) -> int:
    from accessgov.storage import events

    with _sessions(settings)() as session:
        if args.action == "stats":
            for status, count in sorted(events.count_runs_by_status(session).items()):
                print(f"{status}\t{count}")
            return 0
        for run in events.list_runs(session, listener_id=args.listener, limit=args.limit, status=args.status):
            outputs = json.dumps(run.outputs, sort_keys=True)
            fields = [run.id, f"{run.created_at:%Y-%m-%dT%H:%M:%SZ}", run.listener_id, run.event_id, run.status]
            print("\t".join([*fields, f"attempts={run.attempts}", run.reason or "", outputs]))
    return 0


def cmd_worker(args: argparse.Namespace, settings: Settings) -> int:
    """Run queued automations until SIGINT/SIGTERM (for servers started with ACCESSGOV_RUN_AUTOMATIONS=0)."""
    import asyncio
    import signal

    from accessgov.automation_runner import run_worker
    from accessgov.storage.backends import open_database

    async def main() -> None:
        db = open_database(settings.updated(db_readers=1, db_writers=1))
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        print(f"worker running queued automations from {db.backend}", flush=True)
        try:
            await run_worker(db, stop, cache_seconds=settings.listener_cache_seconds, batch=args.batch)
        finally:
            db.close()

    asyncio.run(main())
    return 0


def _read_data(value: str) -> bytes:
    if value.startswith("@"):
        return Path(value[1:]).read_bytes()
    return value.encode("utf-8")


def cmd_webhook_send(args: argparse.Namespace, settings: Settings) -> int:
    from accessgov.webhooks import signing

    body = _read_data(args.data)
    if args.hmac_secret:
        headers = signing.hmac_headers(args.hmac_secret, body)
    elif args.jwt_key:
        headers = signing.jwt_headers(
            Path(args.jwt_key).read_bytes(),
            kid=args.kid,
            url=args.audience or args.url,
            tenant_base_url=args.tenant_base_url or settings.tenant_base_url,
            body=body,
        )
    else:
        raise SystemExit("give --hmac-secret or --jwt-key")
    response = signing.send(args.url, body, headers)
    print(f"{response.status_code} {response.text}")
    return 0 if response.is_success else 1


def cmd_tokens(args: argparse.Namespace, settings: Settings) -> int:
    from accessgov.storage import credentials

    token = secrets.token_urlsafe(32)
    with _sessions(settings).begin() as session:
        credentials.add_api_token(session, token, args.name, [args.role])
    print(f"API token for {args.name} ({args.role}), shown once: {token}")
    return 0


def cmd_proxy(args: argparse.Namespace, settings: Settings) -> int:
    """The validation proxy in front of `--upstream`, behind the server's HTTP edge (head limits, deadlines, the
    connection cap: `ACCESSGOV_*` as for `serve`): one JSON line per violation on stderr, counts at
    `GET /__proxy/violations`."""
    import logging

    from accessgov.http.server import serve
    from accessgov.proxy import create_proxy

    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(message)s"))
    proxy_log = logging.getLogger("accessgov.proxy")
    proxy_log.addHandler(handler)
    proxy_log.setLevel(logging.WARNING)
    proxy_log.propagate = False
    print(f"validating {args.upstream} against the contract on http://{args.host}:{args.port}", flush=True)
    app = create_proxy(args.upstream, errors=args.errors, settings=settings)
    serve(app, settings.updated(workers=1, access_log="off"), host=args.host, port=args.port, log_level="warning")
    return 0


class _Help(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Defaults shown after every option's help (not the empty ones); descriptions keep their line breaks."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.default in (None, False, [], argparse.SUPPRESS):
            return action.help
        return super()._get_help_string(action)


def _command(sub: Any, name: str, help_text: str, description: str | None = None) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = sub.add_parser(
        name, help=help_text, description=description or help_text, formatter_class=_Help
    )
    return parser


# The settings `serve` has an option for (`--head-timeout` for `head_timeout`), in the order `--help` lists them.
SERVE_SETTINGS = tuple(name for name, info in Settings.model_fields.items() if is_serve_option(info))


def _setting_type(name: str) -> Any:
    """An argparse type reading the option as the settings read its variable (a usage error says what it expects)."""

    def read(text: str) -> Any:
        try:
            return check_setting(name, text)
        except ValueError as error:
            raise argparse.ArgumentTypeError(str(error)) from None

    read.__name__ = name  # argparse names the type in some messages
    return read


def _add_setting(parser: argparse.ArgumentParser, name: str) -> None:
    """`--name` for the setting, its help the setting's text, variable and default; no argparse default, so the
    variable applies when the option is not given."""
    info = setting_field(name)
    choices = get_args(info.annotation) if get_origin(info.annotation) is Literal else None
    unit = setting_unit(name)
    parser.add_argument(
        "--" + name.replace("_", "-"),
        type=_setting_type(name),
        choices=choices,
        metavar=None if choices else str(unit or "VALUE").upper().replace(" ", "_"),
        help=f"{info.description} [{env_name(name)}, {shown_default(name)}]",
    )


def _add_serve(sub: Any) -> None:
    serve = _command(
        sub,
        "serve",
        "run the reference server",
        "Run the reference server under uvicorn. Options without a default shown fall back to their ACCESSGOV_*\n"
        "variable, then to the default named in brackets (docs/operations.md lists every variable).",
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on")
    serve.add_argument("--port", type=int, default=8080, help="port to listen on")
    for name in SERVE_SETTINGS:
        _add_setting(serve, name)
    serve.add_argument("--demo", action="store_true", help="seed the demo tenant first (idempotent)")
    serve.add_argument("--log-level", default="info", help="uvicorn's log level (startup, errors)")
    serve.set_defaults(func=cmd_serve)


def _add_listeners(sub: Any) -> None:
    group = _command(sub, "listeners", "manage inbound webhook listeners").add_subparsers(
        dest="action", required=True, metavar="ACTION"
    )
    create = _command(group, "create", "create a listener; prints its URL (and the HMAC secret, once)")
    create.add_argument("--auth", choices=["hmac", "jwt"], default="hmac", help="how deliveries authenticate")
    create.add_argument("--jwks-url", help="the sender's JWKS (HTTPS URL); required with --auth jwt")
    create.add_argument(
        "--allow-cidr", action="append", default=[], metavar="CIDR", help="allowed source range (repeatable)"
    )
    create.add_argument("--name", default="Incoming webhook automation", help="the automation's name")
    create.add_argument(
        "--step", action="append", default=[], metavar="NAME=CEL", help="automation step over ctx.trigger (repeatable)"
    )
    create.set_defaults(func=cmd_listeners_create)
    _command(group, "list", "list every listener (id, method, flags, CIDRs)").set_defaults(func=cmd_listeners_list)
    for action, text in (
        ("enable", "enable the listener's trigger"),
        ("disable", "disable the trigger (deliveries accepted, runs skipped)"),
        ("publish", "publish the automation"),
        ("unpublish", "unpublish the automation (deliveries accepted, runs skipped)"),
    ):
        toggle = _command(group, action, text)
        toggle.add_argument("id", metavar="ID", help="listener id")
        toggle.set_defaults(func=cmd_listeners_toggle)
    rotate = _command(
        group,
        "rotate",
        "give an HMAC listener a new secret; the old one keeps verifying for the grace period",
    )
    rotate.add_argument("id", metavar="ID", help="listener id")
    rotate.add_argument(
        "--grace",
        type=parse_duration,
        default="24h",
        help="how long the previous secret stays valid (24h, 30m, 3600s; 0: invalid at once)",
    )
    rotate.set_defaults(func=cmd_listeners_rotate)


def _add_keys(sub: Any) -> None:
    group = _command(
        sub,
        "keys",
        "the keyring that seals signing secrets at rest",
        "Keys come from ACCESSGOV_SECRET_KEY (kid:key[,kid:key...], first primary) or the key file:\n"
        "ACCESSGOV_SECRET_KEY_FILE, else secret.keys next to the SQLite database, else (PostgreSQL)\n"
        "$XDG_DATA_HOME/accessgov/secret.keys (~/.local/share/accessgov/secret.keys); created with mode 0600\n"
        "on first use, never beside a database that already holds sealed values. See docs/keys-and-limits.md.",
    ).add_subparsers(dest="action", required=True, metavar="ACTION")
    _command(group, "list", "key ids, which is primary, which are in use").set_defaults(func=cmd_keys_list)
    rotate = _command(
        group,
        "rotate",
        "add a new primary key to the key file and re-seal every stored secret under it (servers keep running)",
    )
    prune = _command(group, "prune", "remove keys no stored secret is sealed under")
    for command, func in ((rotate, cmd_keys_rotate), (prune, cmd_keys_prune)):
        command.add_argument(
            "--wait",
            type=parse_duration,
            default="60s",
            help="how long to wait for another `keys` command holding the key file's lock before refusing",
        )
        command.set_defaults(func=func)
    _command(
        group,
        "doctor",
        "which key file this environment uses, its keys, and whether every sealed value opens (exit 1 if not)",
    ).set_defaults(func=cmd_keys_doctor)
    page = _command(sub, "page-keys", "the key that signs page tokens").add_subparsers(
        dest="action", required=True, metavar="ACTION"
    )
    rotate = _command(page, "rotate", "sign new page tokens with a new key; tokens of the old one stay valid")
    rotate.add_argument(
        "--grace", type=parse_duration, default="24h", help="how long the old key verifies (the tokens' lifetime)"
    )
    rotate.set_defaults(func=cmd_page_keys_rotate)


def parser() -> argparse.ArgumentParser:
    root = argparse.ArgumentParser(prog="accessgov", description=__doc__.splitlines()[0], formatter_class=_Help)
    sub = root.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _add_serve(sub)
    _command(sub, "migrate", "create or upgrade the database schema").set_defaults(func=cmd_migrate)
    _command(sub, "seed-demo", "load the demo tenant (idempotent)").set_defaults(func=cmd_seed_demo)
    _command(sub, "purge", "delete event records older than 7 days and expired tokens").set_defaults(func=cmd_purge)
    _add_listeners(sub)
    _add_keys(sub)

    runs = _command(sub, "runs", "automation runs and their state")
    runs.add_argument("action", choices=["list", "stats"], help="list runs, or count them by status")
    runs.add_argument("--listener", help="only this listener's runs")
    runs.add_argument("--status", choices=["QUEUED", "RUNNING", "SUCCEEDED", "SKIPPED", "FAILED"], help="only these")
    runs.add_argument("--limit", type=int, default=50, help="newest runs listed")
    runs.set_defaults(func=cmd_runs)

    worker = _command(sub, "worker", "run queued automations (with ACCESSGOV_RUN_AUTOMATIONS=0 on servers)")
    worker.add_argument("--batch", type=int, default=32, help="runs claimed per round")
    worker.set_defaults(func=cmd_worker)

    proxy = _command(sub, "proxy", "validation proxy: forward to an implementation, check against the contract")
    proxy.add_argument("--upstream", required=True, help="base URL of the implementation, e.g. http://127.0.0.1:8080")
    proxy.add_argument("--host", default="127.0.0.1", help="address to listen on")
    proxy.add_argument("--port", type=int, default=4011, help="port to listen on")
    proxy.add_argument("--errors", action="store_true", help="answer a violating response with a 502 report")
    proxy.set_defaults(func=cmd_proxy)

    hook = _command(
        sub,
        "webhook",
        "sender side: sign and send a webhook",
        "Sign a delivery as a sender would (HMAC with --hmac-secret, or a JWT with --jwt-key and --kid) and POST\n"
        "it with a fresh Webhook-Event-Id and the current Webhook-Timestamp. Prints the status and the body;\n"
        "exits 1 unless the status is 2xx.",
    )
    hook.add_argument("action", choices=["send"], help="send one delivery")
    hook.add_argument("url", help="the listener's URL, e.g. http://127.0.0.1:8080/api/v1/webhooks/incoming/ID")
    hook.add_argument("--data", required=True, help="the JSON body: JSON text, or @file to read it from a file")
    hook.add_argument("--hmac-secret", help="the listener's signing secret (HMAC method)")
    hook.add_argument("--jwt-key", help="PEM private key file (RSA, EC P-256 or Ed25519) for the JWT method")
    hook.add_argument("--kid", help="key id in the sender's JWKS (the JWT header's kid); with --jwt-key")
    hook.add_argument(
        "--tenant-base-url", help="the JWT sub claim [ACCESSGOV_TENANT_BASE_URL, https://example.accessgov.example]"
    )
    hook.add_argument("--audience", help="the listener's configured URL (JWT aud), when URL is another route to it")
    hook.set_defaults(func=cmd_webhook_send)

    tokens = _command(sub, "tokens", "API tokens")
    tokens.add_argument("action", choices=["create"], help="create a token (shown once)")
    tokens.add_argument("--name", required=True, help="a name to recognise the token by")
    tokens.add_argument("--role", choices=["admin", "operator", "viewer"], default="admin", help="what it may do")
    tokens.set_defaults(func=cmd_tokens)
    return root


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        settings = Settings.load()
    except SettingsError as error:  # a wrong value stops every command before it starts, naming the variable
        return _fail(f"accessgov {args.command}: configuration: {error}", status=2)
    from accessgov.observability import log_text

    log_text.install()  # the warnings of every command (the runner of `worker`, say): escaped JSON lines
    from accessgov.keys import KeyringError

    try:
        return int(args.func(args, settings) or 0)
    except KeyringError as error:  # no usable key (e.g. the key file is not where the rule puts it): say so
        return _fail(f"accessgov {args.command}: {error}")
    except KeyboardInterrupt:  # Ctrl-C: `serve` has shut down (uvicorn raises it again after); no traceback
        return 130


if __name__ == "__main__":
    sys.exit(main())
