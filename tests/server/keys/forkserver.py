"""`accessgov` commands as real processes, forked from one process that imported the CLI once.

A key command killed at a step must be a process of its own: only a real SIGKILL shows what a crash leaves on disk
(the key file, its lock, the database). Started as `python -m accessgov.cli`, each of the ~20 commands of a test
spent ~0.5 CPU-s importing the server before its first step; forked from a process that has imported it (a fork
server, as `multiprocessing`'s), each starts at once and dies the same death. The fork server is single-threaded
(nothing else runs while it forks), holds no database connection or key file, and runs every command with the one
environment it was started with; a command may SIGKILL itself at a named step (`KILL_STEPS`) before it runs.

Protocol (JSON lines): the test sends `{"argv": [...], "kill_at": step|null, "out": path, "err": path}` and
reads `{"pid": n}`; `{"kill": n}` SIGKILLs command `n` unless it has ended (through its pidfd: no pid reuse); every
ending is announced as `{"ended": n, "returncode": r}` (negative: the signal, as `subprocess` reports it).
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

# The fork server. A command's process redirects its output to the files it was given, installs the kill at its
# step (right after the key file's lock is taken, before the temporary file is renamed over the key file, before
# the directory is fsynced, before the re-sealing, after the first value was re-sealed, after every value was (not
# committed), after the commit (lock still held), after prune looked at the keys in use) and runs the CLI's main.
SERVER = r"""
import contextlib, json, os, selectors, signal, sys, traceback
from accessgov.cli import main
from accessgov.keys import keyring
from accessgov.storage import sealing
# What every command loads before its first step, imported once here (~0.4 CPU-s a command otherwise): the
# backends' modules, which configure its engine, and Alembic, which its `migrate` runs.
import alembic.command, alembic.config, alembic.runtime.migration, alembic.script
from accessgov.storage import backends, postgres, sqlite


def die(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGKILL)


def after(module, name, calls=1):
    original, seen = getattr(module, name), [0]

    def wrapper(*args, **kwargs):
        result = original(*args, **kwargs)
        seen[0] += 1
        if seen[0] >= calls:
            die()
        return result

    setattr(module, name, wrapper)


def around_lock(when):
    original = keyring._file_lock

    @contextlib.contextmanager
    def wrapper(*args, **kwargs):
        with original(*args, **kwargs):
            if when == "enter":
                die()
            yield
            die()

    keyring._file_lock = wrapper


KILLS = {
    "locked": lambda: around_lock("enter"),
    "before-rename": lambda: setattr(os, "replace", die),
    "before-directory-fsync": lambda: setattr(keyring, "_fsync_directory", die),
    "before-reseal": lambda: setattr(sealing, "reseal_all", die),
    "mid-reseal": lambda: after(sealing, "seal", 1),
    "before-commit": lambda: after(sealing, "reseal_all"),
    "before-unlock": lambda: around_lock("exit"),
    "prune-looked": lambda: after(sealing, "referenced_key_ids"),
}


def command(request):
    # The command's own process: its output to its files, its kill installed, then the CLI as `accessgov` runs it.
    out, err = os.open(request["out"], os.O_WRONLY | os.O_CREAT), os.open(request["err"], os.O_WRONLY | os.O_CREAT)
    null = os.open(os.devnull, os.O_RDONLY)
    for source, target in ((null, 0), (out, 1), (err, 2)):
        os.dup2(source, target)
    sys.stdin, sys.stdout, sys.stderr = open(0), open(1, "w"), open(2, "w")
    status = 1
    try:
        if request["kill_at"]:
            KILLS[request["kill_at"]]()
        status = main(request["argv"])
    except SystemExit as exit:
        status = exit.code if isinstance(exit.code, int) else 1
    except BaseException:
        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)


def reply(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


running = {}  # pidfd -> pid
selector = selectors.DefaultSelector()
selector.register(0, selectors.EVENT_READ)
pending = b""  # requests arrive as lines on fd 0, read unbuffered (a buffered reader hides lines from select)
reply({"ready": os.getpid()})
while True:
    for key, _ in selector.select():
        if key.fileobj != 0:
            pidfd = key.fileobj
            pid = running.pop(pidfd)
            selector.unregister(pidfd)
            os.close(pidfd)
            _, status = os.waitpid(pid, 0)
            reply({"ended": pid, "returncode": os.waitstatus_to_exitcode(status)})
            continue
        data = os.read(0, 65536)
        if not data:  # the test is done: nothing may outlive it
            for pidfd in running:
                signal.pidfd_send_signal(pidfd, signal.SIGKILL)
            sys.exit(0)
        pending += data
        while b"\n" in pending:
            line, pending = pending.split(b"\n", 1)
            request = json.loads(line)
            if "kill" in request:
                for pidfd, pid in running.items():
                    if pid == request["kill"]:
                        signal.pidfd_send_signal(pidfd, signal.SIGKILL)
                continue
            pid = os.fork()
            if pid == 0:
                command(request)
            pidfd = os.pidfd_open(pid)
            running[pidfd] = pid
            selector.register(pidfd, selectors.EVENT_READ)
            reply({"pid": pid})
"""

KILL_STEPS = (
    "locked",
    "before-rename",
    "before-directory-fsync",
    "before-reseal",
    "mid-reseal",
    "before-commit",
    "before-unlock",
    "prune-looked",
)


class ForkServer:
    """One fork server (a process of `python -c SERVER` with `env`) and the commands it started."""

    def __init__(self, env: dict[str, str], cwd: Path, scratch: Path) -> None:
        self.scratch = scratch
        self.process = subprocess.Popen(
            [sys.executable, "-c", SERVER], env=env, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0
        )
        self.pending = b""
        self.ended: dict[int, int] = {}
        self.started = 0
        ready = self._read(timeout=120)
        assert "ready" in ready, ready

    def _read(self, timeout: float) -> dict[str, Any]:
        """The fork server's next message (read unbuffered: a buffered reader hides lines from select)."""
        assert self.process.stdout is not None
        fd = self.process.stdout.fileno()
        deadline = time.monotonic() + timeout
        while b"\n" not in self.pending:
            if not select.select([fd], [], [], max(0.0, deadline - time.monotonic()))[0]:
                raise subprocess.TimeoutExpired("the fork server", timeout)
            data = os.read(fd, 65536)
            assert data, f"the fork server exited with {self.process.poll()}"
            self.pending += data
        line, self.pending = self.pending.split(b"\n", 1)
        message: dict[str, Any] = json.loads(line)
        if "ended" in message:
            self.ended[message["ended"]] = message["returncode"]
        return message

    def _send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\n")

    def start(self, argv: list[str], kill_at: str | None = None) -> Command:
        if kill_at is not None:
            assert kill_at in KILL_STEPS, kill_at
        self.started += 1
        out, err = self.scratch / f"{self.started}.out", self.scratch / f"{self.started}.err"
        self._send({"argv": argv, "kill_at": kill_at, "out": str(out), "err": str(err)})
        while "pid" not in (message := self._read(timeout=60)):
            pass
        return Command(self, int(message["pid"]), argv, out, err)

    def wait(self, pid: int, timeout: float) -> int:
        deadline = time.monotonic() + timeout
        while pid not in self.ended:
            left = deadline - time.monotonic()
            if left <= 0:
                raise subprocess.TimeoutExpired(str(pid), timeout)
            self._read(timeout=left)
        return self.ended[pid]

    def kill(self, pid: int) -> None:
        self._send({"kill": pid})

    def close(self) -> None:
        """Stop the fork server; it SIGKILLs any command still running."""
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait(60)
        if self.process.stdout is not None:
            self.process.stdout.close()


class Command:
    """A command the fork server started: the `subprocess.Popen` methods its tests use."""

    def __init__(self, server: ForkServer, pid: int, argv: list[str], out: Path, err: Path) -> None:
        self.server, self.pid, self.args, self.out, self.err = server, pid, argv, out, err
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None and self.pid in self.server.ended:
            self.returncode = self.server.ended[self.pid]
        return self.returncode

    def send_signal(self, sig: int) -> None:
        assert sig == signal.SIGKILL, "the fork server only kills"
        self.server.kill(self.pid)

    def communicate(self, timeout: float) -> tuple[str, str]:
        self.returncode = self.server.wait(self.pid, timeout)
        return self.out.read_text(), self.err.read_text()
