"""`make conformance`: the conformance kit (`conformance/`) against the reference server, or against BASE_URL.

    python -m tests.conformance.run_reference [--base-url URL] [--config FILE] [--report-dir DIR] [kit options ...]

Without `--base-url` the reference server is started here: a fresh SQLite database with the demo tenant, plus a
JWT listener (an Ed25519 key whose JWKS is served on loopback) and two CIDR-restricted listeners (one whose
ranges exclude loopback, one whose ranges include it), so that every rule family applies; failed-authentication
limits are raised so Schemathesis' negative cases do not lock the kit out. The server's access log goes to
`<report dir>/server.log`, never into the report. The kit gets `conformance/conformance.example.toml` with those
listeners added (`<report dir>/conformance.toml`). Every other option is the kit's (`accessgov-conformance run`),
Schemathesis' options included.
"""

from __future__ import annotations

import argparse
import contextlib
import http.server
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE_CONFIG = ROOT / "conformance" / "conformance.example.toml"
JWT_LISTENER = "wh_contract_jwt"
JWT_KID = "contract"
OUTSIDE_LISTENER = "wh_contract_cidr_outside"
INSIDE_LISTENER = "wh_contract_cidr_inside"
# Listeners whose events are accepted with a skipped run (WH-RUN-001/002): (id, published, trigger enabled).
SKIPPING_LISTENERS = (("wh_contract_disabled", True, False), ("wh_contract_unpublished", False, True))
HIGH_LIMIT = "100000/minute"
STARTUP_SECONDS = 60


@contextlib.contextmanager
def jwks_server(document: dict[str, Any]) -> Iterator[str]:
    """Serve `document` as a JWKS on a free loopback port; yields its URL."""
    body = json.dumps(document).encode()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/jwks.json"
    finally:
        server.shutdown()
        server.server_close()


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def prepare_database(url: str, jwks_url: str) -> None:
    """Migrate, load the demo tenant and add the kit's extra listeners."""
    from accessgov.demo.seed import DEMO_HMAC_SECRET, DEMO_STEPS, seed_demo
    from accessgov.storage import listeners
    from accessgov.storage.engine import create_engine, migrate, session_factory

    engine = create_engine(url)
    try:
        migrate(engine)
        sessions = session_factory(engine)
        with sessions.begin() as session:
            seed_demo(session)
            common: dict[str, Any] = {"automation_name": "Conformance kit", "automation_steps": DEMO_STEPS}
            listeners.create_listener(session, listener_id=JWT_LISTENER, auth_method="JWT", jwks_url=jwks_url, **common)
            for listener_id, cidrs in (
                (OUTSIDE_LISTENER, ["192.0.2.0/24"]),
                (INSIDE_LISTENER, ["127.0.0.0/8", "::1/128"]),
            ):
                listeners.create_listener(
                    session,
                    listener_id=listener_id,
                    auth_method="HMAC",
                    hmac_secret=DEMO_HMAC_SECRET,
                    allowed_cidrs=cidrs,
                    **common,
                )
            for listener_id, published, enabled in SKIPPING_LISTENERS:
                listeners.create_listener(
                    session,
                    listener_id=listener_id,
                    auth_method="HMAC",
                    hmac_secret=DEMO_HMAC_SECRET,
                    published=published,
                    enabled=enabled,
                    **common,
                )
    finally:
        engine.dispose()


def kit_config(key_path: Path, target: Path) -> Path:
    """The example configuration plus the listeners `prepare_database` added."""
    from accessgov.demo.seed import DEMO_HMAC_SECRET

    extra = f"""
# Added by tests/conformance/run_reference.py for the reference server it started.
[[listeners]]
id = "{JWT_LISTENER}"
method = "jwt"
private_key_file = "{key_path.name}"
kid = "{JWT_KID}"

[[listeners]]
id = "{OUTSIDE_LISTENER}"
method = "hmac"
secret = "{DEMO_HMAC_SECRET}"
source_allowed = false
allowed_cidrs = ["192.0.2.0/24"]

[[listeners]]
id = "{INSIDE_LISTENER}"
method = "hmac"
secret = "{DEMO_HMAC_SECRET}"
cidr_restricted = true
allowed_cidrs = ["127.0.0.0/8", "::1/128"]
"""
    for listener_id, published, _ in SKIPPING_LISTENERS:
        flag = "trigger_enabled = false" if published else "automation_published = false"
        extra += f'\n[[listeners]]\nid = "{listener_id}"\nmethod = "hmac"\nsecret = "{DEMO_HMAC_SECRET}"\n{flag}\n'
    target.write_text(EXAMPLE_CONFIG.read_text(encoding="utf-8") + extra, encoding="utf-8")
    return target


@contextlib.contextmanager
def reference_server(report_dir: Path) -> Iterator[tuple[str, Path]]:
    """`accessgov serve --demo` on a fresh database with the kit's listeners; yields (base URL, kit config)."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ed25519

    from accessgov.webhooks.signing import jwks_document, public_jwk

    report_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="contract-") as tmp, contextlib.ExitStack() as stack:
        pem = ed25519.Ed25519PrivateKey.generate().private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
        key_path = report_dir / "contract-jwt.pem"
        key_path.write_bytes(pem)
        jwks_url = stack.enter_context(jwks_server(jwks_document([public_jwk(pem, kid=JWT_KID)])))
        database_url = f"sqlite:///{Path(tmp) / 'accessgov.db'}"
        # One key file for the listener secrets sealed here and the server that opens them; the caller's setting
        # comes back afterwards (a test process would otherwise point later servers at a deleted directory).
        stack.callback(_restore_env, "ACCESSGOV_SECRET_KEY_FILE", os.environ.get("ACCESSGOV_SECRET_KEY_FILE"))
        os.environ["ACCESSGOV_SECRET_KEY_FILE"] = str(Path(tmp) / "secret.keys")
        prepare_database(database_url, jwks_url)
        port = _free_port()
        env = {
            **os.environ,
            "DATABASE_URL": database_url,
            "ACCESSGOV_AUTH_FAILURE_LIMIT": HIGH_LIMIT,
            "ACCESSGOV_AUTH_FAILURE_LIMIT_PER_CREDENTIAL": HIGH_LIMIT,
        }
        log = stack.enter_context((report_dir / "server.log").open("wb"))
        command = [sys.executable, "-m", "accessgov.cli", "serve", "--demo", "--port", str(port)]
        process = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT)
        try:
            base_url = f"http://127.0.0.1:{port}"
            _wait_ready(base_url, process)
            yield base_url, kit_config(key_path, report_dir / "conformance.toml")
        finally:
            process.terminate()
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _restore_env(name: str, value: str | None) -> None:
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = value


def _wait_ready(base_url: str, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the reference server exited with {process.returncode} (see server.log)")
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"{base_url}/healthz", timeout=2).status_code == 200:
                return
        time.sleep(0.2)
    raise RuntimeError(f"the reference server did not answer /healthz within {STARTUP_SECONDS} s")


def run_kit(base_url: str, config: Path, report_dir: Path, options: list[str]) -> int:
    """The kit's CLI in a child process, as an implementer runs it (the kit never imports `accessgov`); the venv
    has it installed (`make setup`)."""
    command = [
        sys.executable, "-m", "accessgov_conformance", "run", "--base-url", base_url, "--config", str(config),
        "--report-dir", str(report_dir), *options,
    ]  # fmt: skip
    return subprocess.run(command, check=False).returncode


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base-url", default=os.environ.get("BASE_URL") or None)
    parser.add_argument("--config", type=Path, help="kit configuration (default: the example, for the demo tenant)")
    parser.add_argument("--report-dir", type=Path, default=ROOT / "build" / "contract")
    args, options = parser.parse_known_args(argv)
    if args.base_url:
        print(f"conformance kit against {args.base_url}", file=sys.stderr)
        return run_kit(args.base_url, args.config or EXAMPLE_CONFIG, args.report_dir, options)
    with reference_server(args.report_dir) as (base_url, config):
        print(f"conformance kit against the reference server at {base_url} (its log: server.log)", file=sys.stderr)
        return run_kit(base_url, args.config or config, args.report_dir, options)


if __name__ == "__main__":
    sys.exit(main())
