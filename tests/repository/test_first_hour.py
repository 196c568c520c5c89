"""A new user's first hour with the Make targets (issue 47): `make help` shows the values its variables have, a report
target's stdout is the report alone (or `OUT=file`), Ctrl-C stops `make run` and `make mock` quietly, the mock says
where it listens, and its install never runs pip over the server a running `make run` uses."""

from __future__ import annotations

import os
import pty
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.support import loopback
from tests.support.server_process import free_port

pytestmark = pytest.mark.slow  # make, and for Ctrl-C the server and the mock as processes

ROOT = Path(__file__).resolve().parents[2]


def make(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["make", "--no-print-directory", *args],
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_make_help_shows_the_values_of_its_variables() -> None:
    shown = make("help")
    assert shown.returncode == 0, shown.stderr
    assert "$(" not in shown.stdout, [line for line in shown.stdout.splitlines() if "$(" in line]
    assert re.search(r"^  run +Start the reference server on 127\.0\.0\.1:8080 ", shown.stdout, re.M), shown.stdout
    assert re.search(r"^  mock +.* on 127\.0\.0\.1:4010 ", shown.stdout, re.M)
    moved = make("help", "PORT=9123", "HOST=0.0.0.0")
    assert re.search(r"^  run +Start the reference server on 0\.0\.0\.0:9123 ", moved.stdout, re.M), moved.stdout


def test_the_readme_says_how_to_change_the_port() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "make run PORT=" in readme and "MOCK_PORT=" in readme


def test_a_report_is_all_of_stdout_or_its_out_file(tmp_path: Path) -> None:
    printed = make("diff", "FORMAT=markdown", "BASE=HEAD")
    assert printed.returncode == 0, printed.stderr
    assert printed.stdout.startswith("## "), printed.stdout[:200]  # make's echo of the command is not line 1
    out = tmp_path / "pr.md"
    written = make("diff", "FORMAT=markdown", "BASE=HEAD", f"OUT={out}")
    assert written.returncode == 0, written.stderr
    assert written.stdout == "" and out.read_text(encoding="utf-8") == printed.stdout
    checked = make("release-check", "BASE=HEAD")
    assert not checked.stdout.startswith(str(ROOT / ".venv")), checked.stdout[:200]


def test_a_first_run_installs_on_stderr(tmp_path: Path) -> None:
    """On a checkout without its venv, everything `make diff` would print before the report (the venv's creation,
    pip, uv) goes to stderr."""
    planned = make("-n", "diff", f"VENV={tmp_path / 'venv'}")
    assert planned.returncode == 0, planned.stderr
    talking = [line for line in planned.stdout.splitlines() if re.match(r"\s*(echo|\S+/pip|\S+/uv pip) ", line)]
    assert any("pip install" in line for line in talking), planned.stdout
    assert all(line.rstrip().endswith(">&2") for line in talking), talking


def test_the_mocks_install_leaves_the_servers_alone(tmp_path: Path) -> None:
    """A venv where `make run` installed the server (its runtime stamp): `make mock` installs the tools' mock extra
    and nothing else; an install reinstalls every editable package it is given, so `-e .` would replace the running
    server's installation."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", venv], check=True, timeout=120)
    (venv / "bin" / "uv").touch()  # what installed the server, before its stamp
    (venv / ".runtime-installed").touch()
    planned = make("-n", "mock", f"VENV={venv}")
    assert planned.returncode == 0, planned.stderr
    pip = [line for line in planned.stdout.splitlines() if "pip install" in line]
    assert pip and all("-e './tools[mock]'" in line for line in pip), pip
    assert not re.search(r"-e '?\.(\[dev\])?'?(\s|$)", "\n".join(pip)), pip  # the server's project
    assert make("-n", "run", f"VENV={venv}").stdout.count("pip install") == 0  # its stamp is fresh


def ctrl_c(command: list[str], url: str, env: dict[str, str]) -> tuple[str, int]:
    """Run `command` on a terminal (a pty, its own process group, as a shell runs it), wait until `url` answers,
    press Ctrl-C (SIGINT to the group) and return everything it printed and make's status."""
    controller, terminal = pty.openpty()
    process = subprocess.Popen(
        command, cwd=ROOT, env={**os.environ, **env}, stdin=terminal, stdout=terminal, stderr=terminal,
        start_new_session=True,
    )  # fmt: skip
    os.close(terminal)
    output = b""

    def drain(seconds: float) -> bool:
        nonlocal output
        if select.select([controller], [], [], seconds)[0]:
            try:
                data = os.read(controller, 65536)
            except OSError:  # the terminal closed: everyone exited
                return False
            output += data
            return bool(data)
        return process.poll() is None

    try:
        deadline = time.monotonic() + 120
        while True:
            drain(0.1)
            assert process.poll() is None, output.decode(errors="replace")
            try:
                loopback.get(url, timeout=2)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, output.decode(errors="replace")
        os.killpg(process.pid, signal.SIGINT)
        deadline = time.monotonic() + 60
        while drain(0.2) and time.monotonic() < deadline:
            pass
        status = process.wait(30)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(10)
        os.close(controller)
    return output.decode(errors="replace"), status


def test_ctrl_c_stops_make_run_quietly(tmp_path: Path) -> None:
    port = free_port()
    env = {"DATABASE_URL": f"sqlite:///{tmp_path / 'accessgov.db'}"}
    printed, status = ctrl_c(["make", "run", f"PORT={port}"], f"http://127.0.0.1:{port}/healthz", env)
    assert "Traceback" not in printed and "KeyboardInterrupt" not in printed, printed
    assert "make: ***" not in printed, printed  # Ctrl-C is not a failure of the target
    assert "Finished server process" in printed, printed  # it shut down, then stopped
    assert status in (-signal.SIGINT, 0), status  # make stops as Ctrl-C stops it


def test_ctrl_c_stops_make_mock_quietly_and_the_mock_says_where_it_listens() -> None:
    port = free_port()
    printed, status = ctrl_c(["make", "mock", f"MOCK_PORT={port}"], f"http://127.0.0.1:{port}/", {})
    assert f"mock: serving the contract on http://127.0.0.1:{port} " in printed, printed
    assert "Traceback" not in printed and "KeyboardInterrupt" not in printed and "make: ***" not in printed, printed
    assert status in (-signal.SIGINT, 0), status


def test_a_ctrl_c_ends_serve_and_the_mock_with_130(tmp_path: Path) -> None:
    """The commands themselves (what `make run` and `make mock` call): exit status 130, no traceback on stderr."""
    port = free_port()
    for command, url in (
        ([sys.executable, "-m", "accessgov.cli", "serve", "--port", str(port)], f"http://127.0.0.1:{port}/healthz"),
        (
            [str(Path(sys.executable).parent / "accessgov-tools"), "mock", "--port", str(port)],
            f"http://127.0.0.1:{port}/",
        ),
    ):
        env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path / 'accessgov.db'}"}
        process = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        try:
            deadline = time.monotonic() + 120
            while True:
                assert process.poll() is None, process.communicate()
                try:
                    loopback.get(url, timeout=2)
                    break
                except httpx.TransportError:
                    assert time.monotonic() < deadline
                    time.sleep(0.1)
            process.send_signal(signal.SIGINT)
            _stdout, stderr = process.communicate(timeout=60)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait(10)
        assert process.returncode == 130, (command, process.returncode, stderr[-2000:])
        assert "Traceback" not in stderr, stderr
