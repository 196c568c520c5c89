"""`accessgov serve` as a real process on a free loopback port, and what the tests need to watch it."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx

from tests.support import loopback

ADMIN = {"Authorization": "Bearer demo-admin-token"}
ENTITLEMENTS = "/api/v1/apps/app-github/entitlements"
STARTUP_SECONDS = 60


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Served:
    process: subprocess.Popen[bytes]
    port: int
    database_url: str
    log: Path

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def connect(self) -> socket.socket:
        return socket.create_connection(("127.0.0.1", self.port), timeout=5)

    def output(self) -> str:
        return self.log.read_text(errors="replace")


def database_url(data_dir: Path) -> str:
    return f"sqlite:///{data_dir / 'accessgov.db'}"


@contextlib.contextmanager
def accessgov_serve(data_dir: Path, *options: str, env: dict[str, str] | None = None) -> Iterator[Served]:
    """`accessgov serve --demo` with `options` (and `env` over the environment) until the block exits (then
    SIGTERM, SIGKILL if it lingers)."""
    port = free_port()
    url = database_url(data_dir)
    log = data_dir / f"serve-{port}.log"
    env = {**os.environ, "DATABASE_URL": url, **(env or {})}
    env.pop("ACCESSGOV_SUPERVISOR_PID", None)
    command = [sys.executable, "-m", "accessgov.cli", "serve", "--demo", "--port", str(port), *options]
    with log.open("wb") as sink:
        process = subprocess.Popen(command, env=env, stdout=sink, stderr=subprocess.STDOUT)
    served = Served(process, port, url, log)
    try:
        wait_until_serving(served)
        yield served
    finally:
        stop(process)


def stop(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM (a draining shutdown), SIGKILL if it lingers past 20 s."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)


def wait_until_serving(served: Served) -> None:
    deadline = time.monotonic() + STARTUP_SECONDS
    with loopback.client(timeout=2) as client:  # one client for every attempt
        while time.monotonic() < deadline:
            if served.process.poll() is not None:
                raise AssertionError(f"accessgov serve exited with {served.process.returncode}:\n{served.output()}")
            try:
                if client.get(served.base_url + ENTITLEMENTS, headers=ADMIN).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.1)
    raise AssertionError(f"accessgov serve did not answer within {STARTUP_SECONDS} s:\n{served.output()}")


def read_until_closed(sock: socket.socket, within: float) -> bytes:
    """Everything the server sends until it closes the connection; fails if it stays open `within` seconds."""
    sock.settimeout(within)
    received = b""
    try:
        while chunk := sock.recv(65536):
            received += chunk
    except TimeoutError:
        raise AssertionError(f"the server kept the connection open for {within} s (got {received[:200]!r})") from None
    except ConnectionResetError:
        pass
    return received


def children(pid: int) -> list[int]:
    """Live processes whose parent is `pid` (from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and alive(int(entry.name)) and parent_of(int(entry.name)) == pid:
            found.append(int(entry.name))
    return found


def _stat(pid: int) -> list[str] | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    return text[text.rindex(")") + 2 :].split()  # after "pid (comm) ": state, ppid, ...


def parent_of(pid: int) -> int | None:
    fields = _stat(pid)
    return int(fields[1]) if fields else None


def alive(pid: int) -> bool:
    """Running or sleeping; a zombie waiting for its reaper has exited."""
    fields = _stat(pid)
    return fields is not None and fields[0] not in ("Z", "X")
