"""Sampling profiles of the server under wrk load (py-spy), summarised as the top frames by own and total time.

`make bench ARGS="--profile build/profile"` records the HMAC and restart runs of the first round; py-spy writes
collapsed stacks (`frame;frame;... count`, one line per distinct stack), which `summarise` reads.
"""

from __future__ import annotations

import contextlib
import re
import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

_LINE_NUMBER = re.compile(r":\d+\)$")
# Frames under every sample (thread start, the event loop, the CLI): true but useless in a "total" ranking.
SCAFFOLDING = (
    "(threading.py)",
    "(asyncio/runners.py)",
    "(asyncio/base_events.py)",
    "(asyncio/events.py)",
    "(<frozen runpy>)",
    "(uvicorn/main.py)",
    "(uvicorn/_compat.py)",
    "(uvicorn/server.py)",
    "(accessgov/cli.py)",
    "(concurrent/futures/thread.py)",
)


def py_spy() -> str:
    beside_python = Path(sys.executable).with_name("py-spy")  # the venv's, also when .venv/bin is not on PATH
    found = str(beside_python) if beside_python.exists() else shutil.which("py-spy")
    if not found:
        raise SystemExit("--profile needs py-spy (pinned in the dev extras: `make setup`)")
    return found


@contextlib.contextmanager
def recording(pid: int, output: Path, seconds: int, *, gil_only: bool = False) -> Iterator[None]:
    """py-spy samples `pid` for `seconds` while the block runs (the block should last at least as long).

    By default every thread is sampled (wall time: a writer thread waiting on a commit shows); `gil_only`
    samples only the thread holding the GIL, i.e. where the Python CPU time of the process goes."""
    output.parent.mkdir(parents=True, exist_ok=True)
    command = [py_spy(), "record", "--pid", str(pid), "--duration", str(seconds), "--format", "raw"]
    command += ["--output", str(output), "--nonblocking", *(["--gil"] if gil_only else [])]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        yield
    finally:
        try:
            _, errors = process.communicate(timeout=seconds + 30)
        except subprocess.TimeoutExpired:
            process.kill()
            _, errors = process.communicate()
        if process.returncode != 0:
            raise RuntimeError(f"py-spy failed ({process.returncode}): {errors.decode(errors='replace')}")


@dataclass(frozen=True)
class Frames:
    samples: int
    own: Counter[str]
    total: Counter[str]


def _function(frame: str) -> str:
    """`name (path/file.py:123)` -> `name (path/file.py)`: the lines of one function count together."""
    return _LINE_NUMBER.sub(")", frame.strip())


def summarise(lines: Iterable[str]) -> Frames:
    """Own time: the innermost frame of each sample; total: every function on the stack (once per sample)."""
    own: Counter[str] = Counter()
    total: Counter[str] = Counter()
    samples = 0
    for line in lines:
        stack, _, count_text = line.rstrip("\n").rpartition(" ")
        if not stack or not count_text.isdigit():
            continue
        count = int(count_text)
        frames = [_function(frame) for frame in stack.split(";") if frame]
        samples += count
        own[frames[-1]] += count
        for frame in set(frames):
            total[frame] += count
    return Frames(samples, own, total)


def report(title: str, frames: Frames, top: int = 15) -> str:
    """The top frames by own and by total time, as percentages of the samples."""
    if not frames.samples:
        return f"{title}: no samples"
    out = [f"{title}: {frames.samples} samples"]
    inside = Counter({frame: n for frame, n in frames.total.items() if not frame.endswith(SCAFFOLDING)})
    for label, counter in (("own", frames.own), ("total (thread start and event loop left out)", inside)):
        out.append(f"  top {top} by {label} time:")
        for frame, count in counter.most_common(top):
            out.append(f"    {100 * count / frames.samples:5.1f}%  {frame}")
    return "\n".join(out)
