"""Run the contract suite (schemathesis) against an implementation of the API, or against the reference server.

    python -m scripts.contract [--base-url URL] [--spec PATH] [--max-examples N] [--seed N] [--phases ...]
                               [--report-dir DIR] [--webhook-auth hmac|jwt] [--selftest]

Without `--base-url` (or `BASE_URL`) the reference server is started on a free loopback port with a fresh SQLite
database and the demo tenant, and stopped afterwards. Credentials and target objects come from the `CONTRACT_*`
environment variables documented in `tests/contract/hooks.py`. Prints a summary with the number of 2xx responses per
operation and exits non-zero when schemathesis reports any failure. `--selftest` runs the same suite against
deliberately broken variants of the reference server (`tests/contract/broken.py`) and fails unless each is caught.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import http.server
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SPEC = ROOT / "generated" / "openapi.json"
HOOKS = os.environ.get("CONTRACT_HOOKS_MODULE", "tests.contract.hooks")
ALL_PHASES = "examples,coverage,fuzzing,stateful"


@dataclass
class RunResult:
    exit_code: int
    output: str
    twoxx: dict[str, int]
    statuses: dict[str, collections.Counter]
    junit_failures: list[str]
    seconds: float


def schemathesis_command(spec: str, base_url: str, args: argparse.Namespace, report_dir: Path) -> list[str]:
    return [
        str(Path(sys.executable).parent / "schemathesis"),
        "run",
        spec,
        "--url",
        base_url,
        "--checks",
        "all",
        "--seed",
        str(args.seed),
        "--max-examples",
        str(args.max_examples),
        "--phases",
        args.phases,
        "--workers",
        "1",
        "--generation-database",
        "none",
        "--report",
        "junit",
        "--report-dir",
        str(report_dir),
        "--no-color",
    ]


def run_suite(
    base_url: str, args: argparse.Namespace, report_dir: Path, env: dict[str, str] | None = None
) -> RunResult:
    """Run schemathesis once; collect its output, the status counts of `after_call` and the JUnit failures."""
    report_dir.mkdir(parents=True, exist_ok=True)
    stats = report_dir / "statuses.txt"
    stats.unlink(missing_ok=True)
    for old in report_dir.glob("junit*.xml"):
        old.unlink()
    full_env = {**os.environ, **(env or {}), "SCHEMATHESIS_HOOKS": HOOKS, "CONTRACT_STATS_FILE": str(stats)}
    full_env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), full_env.get("PYTHONPATH", "")]))
    started = time.monotonic()
    proc = subprocess.run(
        schemathesis_command(str(args.spec), base_url, args, report_dir),
        env=full_env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    seconds = time.monotonic() - started
    statuses: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    if stats.exists():
        for line in stats.read_text(encoding="utf-8").splitlines():
            operation, _, status = line.rpartition(" ")
            statuses[operation][int(status)] += 1
    twoxx = {op: sum(n for code, n in counts.items() if 200 <= code < 300) for op, counts in statuses.items()}
    return RunResult(proc.returncode, proc.stdout + proc.stderr, twoxx, statuses, junit_failures(report_dir), seconds)


def junit_failures(report_dir: Path) -> list[str]:
    found = []
    for path in report_dir.glob("*.xml"):
        for case in ET.parse(path).getroot().iter("testcase"):
            for child in case:
                if child.tag in ("failure", "error"):
                    found.append(f"{case.get('name')}: {(child.get('message') or child.text or '').strip()[:300]}")
    return found


def print_summary(result: RunResult) -> None:
    print("\n=== contract suite summary ===")
    for operation in sorted(result.statuses):
        counts = result.statuses[operation]
        detail = ", ".join(f"{code}: {n}" for code, n in sorted(counts.items()))
        print(f"{operation}: {result.twoxx.get(operation, 0)} x 2xx of {sum(counts.values())} ({detail})")
    print(
        f"schemathesis exit code {result.exit_code}, {len(result.junit_failures)} failing test(s) in JUnit, "
        f"{result.seconds:.1f}s"
    )
    for failure in result.junit_failures:
        print(f"  FAILED {failure}")


# --- the reference server ---------------------------------------------------------------------------------------


def _jwt_listener(sessions: Any, jwks_url: str) -> str:
    from accessgov.demo.seed import DEMO_STEPS
    from accessgov.storage import listeners

    with sessions.begin() as session:
        listener = listeners.create_listener(
            session,
            listener_id="wh_contract_jwt",
            auth_method="JWT",
            jwks_url=jwks_url,
            automation_name="Contract suite (JWT)",
            automation_steps=DEMO_STEPS,
        )
        return listener.id


@contextlib.contextmanager
def jwks_server(document: dict[str, Any]) -> Iterator[str]:
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
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/jwks.json"
    finally:
        server.shutdown()
        server.server_close()


@contextlib.contextmanager
def reference_server(
    wrap: Callable[[Any], Any] | None = None, webhook_auth: str = "hmac"
) -> Iterator[tuple[str, dict[str, str]]]:
    """A seeded reference server (optionally wrapped in ASGI middleware) on a free loopback port.

    Yields its base URL and the `CONTRACT_*` environment the hooks need for it.
    """
    from accessgov.app import create_app
    from accessgov.config import ServerConfig
    from accessgov.demo.seed import seed_demo
    from accessgov.storage.engine import create_engine, migrate, session_factory
    from tests.harness import serve

    with tempfile.TemporaryDirectory(prefix="contract-") as tmp, contextlib.ExitStack() as stack:
        # Schemathesis' negative cases are hundreds of failed authentications from one address within a minute:
        # limits that high keep the limiter on the request path (counting) without ever refusing the suite.
        config = ServerConfig(
            database_url=f"sqlite:///{Path(tmp) / 'accessgov.db'}",
            auth_failure_limit="100000/minute",
            auth_failure_limit_per_credential="100000/minute",
        )
        engine = create_engine(config.database_url)
        migrate(engine)
        sessions = session_factory(engine)
        with sessions.begin() as session:
            seed_demo(session)
        env: dict[str, str] = {}
        if webhook_auth == "jwt":
            from cryptography.hazmat.primitives import serialization
            from cryptography.hazmat.primitives.asymmetric import ed25519

            from accessgov.webhooks.signing import jwks_document, public_jwk

            pem = ed25519.Ed25519PrivateKey.generate().private_bytes(
                serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
            )
            key_path = Path(tmp) / "contract-jwt.pem"
            key_path.write_bytes(pem)
            jwks_url = stack.enter_context(jwks_server(jwks_document([public_jwk(pem, kid="contract")])))
            env.update(
                CONTRACT_WEBHOOK_AUTH="jwt",
                CONTRACT_JWT_PRIVATE_KEY=str(key_path),
                CONTRACT_JWT_KID="contract",
                CONTRACT_TENANT_BASE_URL=config.tenant_base_url,
                CONTRACT_LISTENER_ID=_jwt_listener(sessions, jwks_url),
            )
        app = create_app(config)
        base_url = stack.enter_context(serve(wrap(app) if wrap else app))
        try:
            yield base_url, env
        finally:
            stack.close()
            engine.dispose()


# --- selftest -----------------------------------------------------------------------------------------------------


def selftest(args: argparse.Namespace) -> int:
    """Run the suite against each broken variant; every variant must make it fail with the expected check."""
    from tests.contract import broken

    failed = []
    for variant in broken.VARIANTS:
        with reference_server(variant.wrap) as (base_url, env):
            variant_args = argparse.Namespace(**{**vars(args), **variant.run_options})
            result = run_suite(base_url, variant_args, Path(args.report_dir) / f"selftest-{variant.name}", env)
        caught = result.exit_code != 0 and variant.expected_check in result.output
        print(
            f"{variant.name}: exit {result.exit_code}, {variant.expected_check!r} "
            f"{'reported' if variant.expected_check in result.output else 'NOT reported'} "
            f"({result.seconds:.1f}s) -> {'caught' if caught else 'MISSED'}"
        )
        if not caught:
            failed.append(variant.name)
            print(result.output[-3000:])
    print("selftest: " + ("all broken variants caught" if not failed else f"missed: {', '.join(failed)}"))
    return 1 if failed else 0


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base-url", default=os.environ.get("BASE_URL") or None)
    parser.add_argument("--spec", default=os.environ.get("SPEC") or str(DEFAULT_SPEC))
    parser.add_argument("--max-examples", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--phases", default=ALL_PHASES)
    parser.add_argument("--report-dir", default=str(ROOT / "build" / "contract"))
    parser.add_argument(
        "--webhook-auth", choices=("hmac", "jwt"), default=os.environ.get("CONTRACT_WEBHOOK_AUTH", "hmac")
    )
    parser.add_argument("--selftest", action="store_true", help="prove the suite fails on broken servers")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.selftest:
        return selftest(args)
    report_dir = Path(args.report_dir)
    if args.base_url:
        print(f"contract suite against {args.base_url}")
        result = run_suite(args.base_url, args, report_dir)
    else:
        with reference_server(webhook_auth=args.webhook_auth) as (base_url, env):
            print(f"contract suite against the reference server at {base_url}")
            result = run_suite(base_url, args, report_dir, env)
    print(result.output)
    print_summary(result)
    return 0 if result.exit_code == 0 and not result.junit_failures else 1


if __name__ == "__main__":
    sys.exit(main())
