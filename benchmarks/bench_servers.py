"""Servers and scratch databases of `make bench`, each torn down on exit, Ctrl-C included.

Every server runs in its own session (process group), so stopping it also stops uvicorn's worker processes;
a scratch PostgreSQL database (`bench_<pid>_<n>`) is dropped with FORCE once its servers are gone.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from benchmarks._bench import wait_until_answers
from benchmarks.bench_deliveries import DEMO_TOKEN, PAGE_PATH, free_port

REPO = Path(__file__).resolve().parent.parent
DEFAULT_POSTGRES_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
TENANT_BASE_URL = "https://bench.accessgov.example"
_scratch_numbers = itertools.count(1)


@dataclass
class Server:
    """A server process on 127.0.0.1 and what it printed at start."""

    base_url: str
    process: subprocess.Popen[bytes]
    log: Path
    env: Mapping[str, str]

    def output(self) -> str:
        return self.log.read_text(errors="replace")


def _stop(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM the process group (uvicorn and its workers), SIGKILL it if it lingers."""
    if process.poll() is not None:
        return
    for sig, wait in ((signal.SIGTERM, 10.0), (signal.SIGKILL, 5.0)):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, sig)
        try:
            process.wait(wait)
            return
        except subprocess.TimeoutExpired:
            continue


def server_env(database_url: str) -> dict[str, str]:
    return {"DATABASE_URL": database_url, "ACCESSGOV_TENANT_BASE_URL": TENANT_BASE_URL, "PYTHONUNBUFFERED": "1"}


@contextlib.contextmanager
def accessgov_server(database_url: str, *, workers: int = 1) -> Iterator[Server]:
    """`accessgov serve --demo [--workers N]` on a free port; the JWT audience base is its own URL."""
    command = [sys.executable, "-m", "accessgov.cli", "serve", "--demo", "--workers", str(workers)]
    port = free_port()  # chosen here: the public base URL (JWT audience) names it
    env = {**server_env(database_url), "ACCESSGOV_PUBLIC_BASE_URL": f"http://127.0.0.1:{port}"}
    headers = {"Authorization": f"Bearer {DEMO_TOKEN}"}
    with _process(command, env, port, PAGE_PATH, headers) as server:
        yield server


@contextlib.contextmanager
def bare_server() -> Iterator[Server]:
    """The baseline app, served as `accessgov serve` serves the reference server (same options and uvicorn setup)."""
    command = [sys.executable, "-m", "benchmarks.bench_bare_app", "--workers", "1"]
    with _process(command, {}, free_port(), "/", {}) as server:
        yield server


@contextlib.contextmanager
def _process(
    command: Sequence[str], env: Mapping[str, str], port: int, ready_path: str, headers: Mapping[str, str]
) -> Iterator[Server]:
    full = [*command, "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning"]
    with tempfile.NamedTemporaryFile("wb", prefix="bench-server-", suffix=".log", delete=False) as log_file:
        log = Path(log_file.name)
        process = subprocess.Popen(
            full, cwd=REPO, env={**os.environ, **env}, stdout=log_file, stderr=subprocess.STDOUT, start_new_session=True
        )
    server = Server(f"http://127.0.0.1:{port}", process, log, env)
    try:
        # Until the page answers 200: the demo seed takes a while on a fresh database.
        wait_until_answers(
            server.base_url + ready_path,
            process,
            name="server",
            headers=headers,
            ok_only=True,
            timeout=180,
            attempt_timeout=2,
            interval=0.2,
            output=lambda: f":\n{server.output()[-3000:]}",
        )
        yield server
    finally:
        _stop(process)
        log.unlink(missing_ok=True)


def hmac_secret(server: Server) -> str:
    """The demo listener's signing secret, as `accessgov serve --demo` prints it."""
    match = re.search(r"--hmac-secret (\S+)", server.output())
    if not match:
        raise RuntimeError("the server did not print the demo HMAC secret:\n" + server.output()[-2000:])
    return match.group(1)


def create_jwt_listener(database_url: str, jwks_url: str, steps: Sequence[str]) -> str:
    """`accessgov listeners create --auth jwt`; returns the new listener's id."""
    command = [sys.executable, "-m", "accessgov.cli", "listeners", "create", "--auth", "jwt", "--jwks-url", jwks_url]
    command += [arg for step in steps for arg in ("--step", step)]
    done = subprocess.run(
        command, cwd=REPO, env={**os.environ, **server_env(database_url)}, capture_output=True, text=True, check=False
    )
    match = re.search(r"^listener (\S+) \(JWT\)", done.stdout, re.M)
    if done.returncode != 0 or not match:
        raise RuntimeError(f"listeners create failed:\n{done.stdout}\n{done.stderr}")
    return match.group(1)


def run_counts(database_url: str) -> dict[str, int]:
    """Automation runs by status, from `accessgov runs stats`."""
    command = [sys.executable, "-m", "accessgov.cli", "runs", "stats"]
    done = subprocess.run(
        command, cwd=REPO, env={**os.environ, **server_env(database_url)}, capture_output=True, text=True, check=True
    )
    return {status: int(count) for status, count in (line.split("\t") for line in done.stdout.splitlines() if line)}


def wait_for_runs(database_url: str, timeout: float = 300.0) -> float:
    """Seconds until no automation run is QUEUED or RUNNING (NaN on timeout).

    A poll is one `accessgov runs stats` (~0.5 s, most of it start-up); the queue emptied somewhere during
    the first poll that finds it empty, so its midpoint is taken (accurate to half a poll).
    """
    started = time.monotonic()
    while True:
        launched = time.monotonic()
        counts = run_counts(database_url)
        if not counts.get("QUEUED") and not counts.get("RUNNING"):
            return (launched + time.monotonic()) / 2 - started
        if launched - started > timeout:
            return float("nan")
        time.sleep(0.2)


@contextlib.contextmanager
def scratch_database(kind: str, postgres_url: str = DEFAULT_POSTGRES_URL) -> Iterator[str]:
    """A SQLite file in a temporary directory, or a fresh PostgreSQL database dropped afterwards."""
    if kind == "sqlite":
        with tempfile.TemporaryDirectory(prefix="bench-") as tmp:
            yield f"sqlite:///{Path(tmp) / 'accessgov.db'}"
        return
    import psycopg
    import sqlalchemy as sa

    url = sa.make_url(postgres_url)
    name = f"bench_{os.getpid()}_{next(_scratch_numbers)}"
    admin = psycopg.conninfo.make_conninfo(
        host=url.host or "127.0.0.1",
        port=url.port or 5432,
        user=url.username or "postgres",
        password=url.password,
        dbname=url.database,
    )
    with psycopg.connect(admin, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    try:
        yield url.set(database=name).render_as_string(hide_password=False)
    finally:
        with psycopg.connect(admin, autocommit=True) as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
