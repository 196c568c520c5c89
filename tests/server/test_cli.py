"""The operator's CLI: help on every subcommand, defaults shown, non-zero exits with a message for unknown
listener ids, listener ids that never look like options, URLs under the configured base URL, and the key
commands (rotate, list, prune) on a real database and key file."""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
import subprocess
import sys
from datetime import timedelta
from pathlib import Path
from unittest import mock

import pytest

from accessgov.cli import main, parse_duration, parser
from accessgov.storage import ids
from tests.server.keys.forkserver import ForkServer

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def environment(tmp_path: Path, **env: str) -> dict[str, str]:
    """The environment of a command on `tmp_path`'s database and key file (`env` over it)."""
    environment = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{tmp_path / 'accessgov.db'}",
        "ACCESSGOV_SECRET_KEY_FILE": str(tmp_path / "secret.keys"),
        **env,
    }
    for name in ("ACCESSGOV_PUBLIC_BASE_URL", "ACCESSGOV_SECRET_KEY"):
        if name not in env:
            environment.pop(name, None)
    return environment


def run(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """`accessgov *args` as a process of its own."""
    return subprocess.run(
        [sys.executable, "-m", "accessgov.cli", *args], env=environment(tmp_path, **env), capture_output=True,
        text=True, timeout=60, cwd=ROOT,
    )  # fmt: skip


def run_here(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """`accessgov *args` in this process, as the `accessgov` script runs it (`main` on the environment it reads,
    its status the exit status): no ~1 CPU-s of importing the server first, where the test is about the command and
    not the process (`run` holds the process's own exit and output)."""
    out, err = io.StringIO(), io.StringIO()
    patched = mock.patch.dict(os.environ, environment(tmp_path, **env), clear=True)
    with patched, contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(list(args))
    return subprocess.CompletedProcess(["accessgov", *args], status, out.getvalue(), err.getvalue())


def test_webhook_send_help_explains_every_option(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        parser().parse_args(["webhook", "--help"])
    assert exited.value.code == 0
    text = capsys.readouterr().out
    for option in ("--data", "--hmac-secret", "--jwt-key", "--kid", "--tenant-base-url", "--audience"):
        assert re.search(rf"{option}\b[^\n]*\n?\s+\S", text), option
    assert "Webhook-Event-Id" in text  # the description says what it sends


def test_every_subcommand_has_help_and_shows_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    commands = [
        ["serve"], ["migrate"], ["seed-demo"], ["purge"], ["listeners", "create"], ["listeners", "list"],
        ["listeners", "enable"], ["listeners", "rotate"], ["keys", "rotate"], ["keys", "prune"], ["keys", "list"],
        ["page-keys", "rotate"], ["runs"], ["worker"], ["proxy"], ["webhook"], ["tokens"],
    ]  # fmt: skip
    for command in commands:
        with pytest.raises(SystemExit):
            parser().parse_args([*command, "--help"])
        assert "usage: accessgov " + " ".join(command) in capsys.readouterr().out
    with pytest.raises(SystemExit):
        parser().parse_args(["listeners", "rotate", "--help"])
    assert "(default: 24h)" in capsys.readouterr().out


def test_durations() -> None:
    assert parse_duration("24h") == timedelta(hours=24)
    assert parse_duration("30m") == timedelta(minutes=30)
    assert parse_duration("3600s") == parse_duration("3600") == timedelta(hours=1)
    assert parse_duration("0") == timedelta(0)
    assert parse_duration("1.5h") == timedelta(minutes=90)
    for bad in ("", "-1h", "1w", "1.5.0h", "h", "99999999999h"):
        with pytest.raises(argparse.ArgumentTypeError):
            parse_duration(bad)


def test_listener_ids_never_start_with_a_dash() -> None:
    generated = [ids.listener_id() for _ in range(20_000)]
    assert all(re.fullmatch(r"wh_[A-Za-z0-9_-]{22}", value) for value in generated)
    assert len(set(generated)) == len(generated)


def test_create_prints_the_url_under_the_configured_base_url(tmp_path: Path) -> None:
    tenant = run_here(tmp_path, "listeners", "create", ACCESSGOV_TENANT_BASE_URL="https://acme.accessgov.example")
    assert tenant.returncode == 0, tenant.stderr
    assert re.search(r"^url: https://acme\.accessgov\.example/api/v1/webhooks/incoming/wh_\S+$", tenant.stdout, re.M)
    public = run_here(tmp_path, "listeners", "create", ACCESSGOV_PUBLIC_BASE_URL="https://hooks.example.net")
    assert re.search(r"^url: https://hooks\.example\.net/api/v1/webhooks/incoming/wh_\S+$", public.stdout, re.M)


@pytest.mark.parametrize("action", ["enable", "disable", "publish", "unpublish", "rotate"])
def test_unknown_listener_exits_non_zero_with_a_message(tmp_path: Path, action: str) -> None:
    result = run_here(tmp_path, "listeners", action, "wh_missing")
    assert result.returncode == 1
    assert result.stderr.strip() == "no listener 'wh_missing'" and result.stdout == ""


def test_keys_rotate_list_and_prune(tmp_path: Path) -> None:
    # Each command a process of its own, forked from one that imported the CLI once (~0.15 instead of ~1 CPU-s).
    scratch = tmp_path / "commands"
    scratch.mkdir()
    commands = ForkServer(environment(tmp_path), ROOT, scratch)

    def forked(*args: str) -> subprocess.CompletedProcess[str]:
        process = commands.start(list(args))
        stdout, stderr = process.communicate(timeout=60)
        assert process.returncode is not None
        return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)

    try:
        created = forked("listeners", "create")
        listener_id = re.search(r"listener (\S+)", created.stdout).group(1)  # type: ignore[union-attr]
        first = json.loads((tmp_path / "secret.keys").read_text())["primary"]
        assert (tmp_path / "secret.keys").stat().st_mode & 0o777 == 0o600
        rotated = forked("keys", "rotate")
        assert rotated.returncode == 0, rotated.stderr
        assert "re-sealed 1 value(s)" in rotated.stdout  # the listener's secret (no server made page keys yet)
        second = json.loads((tmp_path / "secret.keys").read_text())["primary"]
        listed = forked("keys", "list").stdout
        assert f"{second}\tprimary, in use" in listed and f"{first}\tunused" in listed
        assert f"removed 1 unused key(s): {first}" in forked("keys", "prune").stdout
        assert list(json.loads((tmp_path / "secret.keys").read_text())["keys"]) == [second]
        assert forked("listeners", "rotate", listener_id, "--grace", "0").returncode == 0
    finally:
        commands.close()


@pytest.mark.slow
def test_serve_on_a_port_in_use_says_so_before_anything_else(tmp_path: Path) -> None:
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = run(tmp_path, "serve", "--demo", "--port", str(port))
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"127.0.0.1:{port} is already in use" in done.stderr and f"PORT={port + 1}" in done.stderr, done.stderr
    assert done.stdout == "" and "Traceback" not in done.stderr, done.stdout + done.stderr
