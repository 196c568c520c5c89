"""`accessgov keys rotate` and `keys prune` under concurrency and crashes: no sequence of overlapping commands, each
killed (SIGKILL) at any step, leaves a sealed value that no key on disk opens (`keys doctor` says every value
opens), on SQLite and PostgreSQL. A command that finds the key file locked waits, or refuses with a clear message.
"""

from __future__ import annotations

import contextlib
import fcntl
import io
import json
import os
import re
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from unittest import mock

import pytest
from sqlalchemy.engine import Engine

from accessgov.cli import main
from accessgov.keys.keyring import lock_path
from tests.server.keys.forkserver import KILL_STEPS, Command, ForkServer
from tests.support.postgres import fresh_schema

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[3]

ROTATE_STEPS = tuple(step for step in KILL_STEPS if step != "prune-looked")  # every step a rotation passes
PRUNE_STEPS = ("locked", "prune-looked", "before-rename", "before-directory-fsync", "before-unlock")
# The steps whose outcome the database decides: a rotation's re-sealing transaction (before it, within it, before
# and after its commit) and prune's look at the keys in use. The others are the key file's own (its lock, the
# rename, the directory's fsync, a prune's unlock: no database write is pending), the same file whatever the
# database: killed there on SQLite only, every step of both commands is still killed on one backend.
DATABASE_STEPS = {
    "rotate": ("before-reseal", "mid-reseal", "before-commit", "before-unlock"),
    "prune": ("prune-looked",),
}


class Keys:
    """The CLI on one database and key file: each command a process of its own, forked from one that imported the
    CLI once (`forkserver.py`), so it dies a real process's death at its step."""

    def __init__(self, database_url: str, key_file: Path) -> None:
        self.database_url = database_url
        self.key_file = key_file
        self.env = {**os.environ, "DATABASE_URL": database_url, "ACCESSGOV_SECRET_KEY_FILE": str(key_file)}
        self.env.pop("ACCESSGOV_SECRET_KEY", None)
        scratch = key_file.parent / "commands"
        scratch.mkdir()
        self.commands = ForkServer(self.env, ROOT, scratch)

    def __enter__(self) -> Keys:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.commands.close()

    def start(self, *args: str, kill_at: str | None = None) -> Command:
        return self.commands.start(list(args), kill_at=kill_at)

    def run(self, *args: str, kill_at: str | None = None) -> subprocess.CompletedProcess[str]:
        process = self.start(*args, kill_at=kill_at)
        stdout, stderr = process.communicate(timeout=120)
        assert process.returncode is not None
        return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)

    def seed(self) -> int:
        """Two listeners, one with a previous secret, and the page-token keys: four sealed values."""
        created = [self.run("listeners", "create") for _ in range(2)]
        assert all(result.returncode == 0 for result in created), [result.stderr for result in created]
        listener = re.search(r"listener (\S+)", created[0].stdout)
        assert listener is not None
        assert self.run("listeners", "rotate", listener.group(1), "--grace", "24h").returncode == 0
        assert self.run("page-keys", "rotate").returncode == 0
        return 4

    def assert_every_value_opens(self, sealed: int, after: str) -> None:
        """`accessgov keys doctor` (in this process: a fresh read of the key file and the database each time)."""
        output = io.StringIO()
        with mock.patch.dict(os.environ, self.env, clear=True), contextlib.redirect_stdout(output):
            status = main(["keys", "doctor"])
        assert status == 0, f"after {after}:\n{output.getvalue()}"
        assert f"{sealed} sealed value(s) open, 0 do not" in output.getvalue(), f"after {after}:\n{output.getvalue()}"

    def key_ids(self) -> list[str]:
        return list(json.loads(self.key_file.read_text())["keys"])

    def kill_steps(self, command: str, steps: tuple[str, ...]) -> tuple[str, ...]:
        """The steps of `command` to kill it at: all on SQLite, those the database decides elsewhere."""
        if self.database_url.startswith("sqlite:"):
            return steps
        return tuple(step for step in steps if step in DATABASE_STEPS[command])


@pytest.fixture
def sqlite_keys(tmp_path: Path) -> Iterator[Keys]:
    with Keys(f"sqlite:///{tmp_path / 'accessgov.db'}", tmp_path / "secret.keys") as keys:
        yield keys


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def keys(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Keys]:
    if request.param == "sqlite":
        yield request.getfixturevalue("sqlite_keys")
        return
    admin: Engine = request.getfixturevalue("postgres_admin")
    with fresh_schema(admin) as url, Keys(url, tmp_path / "secret.keys") as keys:
        yield keys


def test_commands_killed_at_every_step_leave_every_value_readable(keys: Keys) -> None:
    sealed = keys.seed()
    for step in keys.kill_steps("rotate", ROTATE_STEPS):
        killed = keys.run("keys", "rotate", kill_at=step)
        assert killed.returncode == -signal.SIGKILL, f"{step}: {killed.stdout}{killed.stderr}"
        keys.assert_every_value_opens(sealed, f"rotate killed at {step}")
    assert keys.run("keys", "rotate").returncode == 0  # the next one is not blocked by a dead one's lock
    for step in keys.kill_steps("prune", PRUNE_STEPS):
        before = keys.key_ids()
        killed = keys.run("keys", "prune", kill_at=step)
        assert killed.returncode == -signal.SIGKILL, f"{step}: {killed.stdout}{killed.stderr}"
        keys.assert_every_value_opens(sealed, f"prune killed at {step}")
        assert set(keys.key_ids()) in (set(before), {json.loads(keys.key_file.read_text())["primary"]})
    pruned = keys.run("keys", "prune")
    assert pruned.returncode == 0, pruned.stderr
    keys.assert_every_value_opens(sealed, "the last prune")
    assert len(keys.key_ids()) == 1  # every value is under the primary now: the others went


def test_parallel_rotations_and_prunes_some_killed_lose_nothing(keys: Keys) -> None:
    sealed = keys.seed()
    for round_ in range(2):
        running = [keys.start("keys", "rotate") for _ in range(4)] + [keys.start("keys", "prune") for _ in range(2)]
        doomed = [keys.start("keys", "rotate") for _ in range(3)]
        # Killed 0.05, 0.15 and 0.3 s in, while the round's nine commands take turns at the key file's lock (forked
        # commands start at once): varied points of a rotation; whatever they hit, the outcome must hold.
        for delay, process in zip((0.05, 0.1, 0.15), doomed, strict=True):
            time.sleep(delay)
            process.send_signal(signal.SIGKILL)
        for process in running:
            stdout, stderr = process.communicate(timeout=180)
            assert process.returncode == 0, f"round {round_}: {stdout}{stderr}"
        for process in doomed:
            process.communicate(timeout=60)
        assert any(process.returncode == -signal.SIGKILL for process in doomed), "no kill landed mid-command"
        keys.assert_every_value_opens(sealed, f"round {round_} of parallel rotations and prunes")
    assert keys.run("keys", "prune").returncode == 0
    keys.assert_every_value_opens(sealed, "the last prune")


def test_a_command_that_finds_the_key_file_locked_waits_or_refuses(sqlite_keys: Keys) -> None:
    keys = sqlite_keys
    sealed = keys.seed()
    before = keys.key_file.read_bytes()
    descriptor = os.open(lock_path(keys.key_file), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)  # another `keys` command, mid-rotation
        refused = keys.run("keys", "rotate", "--wait", "0")
        assert refused.returncode == 1
        assert "another `accessgov keys` command is changing the key file" in refused.stderr
        assert str(keys.key_file) in refused.stderr
        assert keys.run("keys", "prune", "--wait", "0").returncode == 1
        assert keys.key_file.read_bytes() == before  # nothing was written
        waiting = keys.start("keys", "rotate", "--wait", "2m")
        time.sleep(0.5)
        assert waiting.poll() is None  # it waits for the lock ...
    finally:
        fcntl.flock(descriptor, fcntl.LOCK_UN)
        os.close(descriptor)
    stdout, stderr = waiting.communicate(timeout=120)
    assert waiting.returncode == 0, stderr  # ... and rotates once it is free
    assert "new primary key" in stdout
    keys.assert_every_value_opens(sealed, "a rotation that waited")


def test_a_loaded_keyring_seals_under_the_primary_a_rotation_just_wrote(tmp_path: Path) -> None:
    """A server's keyring (read 30 s ago, say) seals under the file's new primary, not the one it loaded: a
    `keys rotate` and `keys prune` in between would otherwise drop the key its new values are sealed under."""
    from accessgov.keys import Keyring, open_sealed, seal
    from accessgov.keys.secretbox import key_id_of

    path = tmp_path / "secret.keys"
    server = Keyring.from_file(path, create=True)
    old = server.primary_id
    operator = Keyring.from_file(path)
    new = operator.add_primary()
    operator.remove({old})
    value = seal(server, "whsec_x", b"listener:l:hmac")
    assert key_id_of(value) == new
    assert open_sealed(Keyring.from_file(path), value, b"listener:l:hmac") == "whsec_x"
