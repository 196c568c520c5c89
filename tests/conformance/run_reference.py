"""`make conformance`: the conformance kit (`conformance/`) against the reference server, or against BASE_URL.

    python -m tests.conformance.run_reference [--base-url URL] [--config FILE] [--report-dir DIR] [kit options ...]

Without `--base-url` the reference server is started here as `make run` starts it (`accessgov serve --demo`: the demo
tenant has every fixture the kit uses, its JWT listener's JWKS served on loopback) on a fresh SQLite database and a
free port, with the failed-authentication limits raised: the kit sends wrong credentials on purpose, and waiting
the default limit out (`make run`) is what it does against a target of its own. The server's access log goes to
`<report dir>/server.log`, never into the report. The kit gets `conformance/conformance.example.toml`, which names
the demo's fixtures. Every other option is the kit's (`accessgov-conformance run`), Schemathesis' options included.
The exit status is the kit's: 0 conforms, 1 a rule failed or showed no evidence, 2 the target could not be checked
(a server that would not start included).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

from tests.support import loopback
from tests.support.server_process import free_port

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE_CONFIG = ROOT / "conformance" / "conformance.example.toml"
HIGH_LIMIT = "100000/minute"
STARTUP_SECONDS = 60


@contextlib.contextmanager
def reference_server(report_dir: Path) -> Iterator[tuple[str, Path]]:
    """`accessgov serve --demo` on a fresh database and a free port; yields (base URL, the kit's configuration)."""
    report_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="contract-") as tmp, contextlib.ExitStack() as stack:
        port = free_port()
        env = {
            **os.environ,
            "DATABASE_URL": f"sqlite:///{Path(tmp) / 'accessgov.db'}",
            "ACCESSGOV_SECRET_KEY_FILE": str(Path(tmp) / "secret.keys"),
            "ACCESSGOV_AUTH_FAILURE_LIMIT": HIGH_LIMIT,
            "ACCESSGOV_AUTH_FAILURE_LIMIT_PER_CREDENTIAL": HIGH_LIMIT,
        }
        env.pop("ACCESSGOV_SUPERVISOR_PID", None)
        log = stack.enter_context((report_dir / "server.log").open("wb"))
        command = [sys.executable, "-m", "accessgov.cli", "serve", "--demo", "--port", str(port)]
        process = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT)
        try:
            base_url = f"http://127.0.0.1:{port}"
            _wait_ready(base_url, process)
            yield base_url, EXAMPLE_CONFIG
        finally:
            process.terminate()
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _wait_ready(base_url: str, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + STARTUP_SECONDS
    # One client for every attempt: `httpx.get` makes a client each time, and its TLS context (~0.1 CPU-s) with it.
    with loopback.client(timeout=2) as client:
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise RuntimeError(f"the reference server exited with {process.returncode} (see server.log)")
            with contextlib.suppress(httpx.HTTPError):
                if client.get(f"{base_url}/healthz").status_code == 200:
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
    try:
        with reference_server(args.report_dir) as (base_url, config):
            print(f"conformance kit against the reference server at {base_url} (its log: server.log)", file=sys.stderr)
            return run_kit(base_url, args.config or config, args.report_dir, options)
    except RuntimeError as error:
        print(f"conformance: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
