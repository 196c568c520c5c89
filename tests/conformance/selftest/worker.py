"""A self-test worker: runs the kit in this process for one mutant after another, as the parent asks.

    python -m tests.conformance.selftest.worker

Reads one JSON job per line on stdin (`{"id", "argv", "log"}`), runs `accessgov-conformance <argv>` in process
(the CLI's own `main`, so nothing but its command line is relied on) with its output sent to the job's log file,
and answers one JSON line (`{"id", "exit", "seconds"}`) on the stdout it started with.
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any


def run_kit(argv: list[str]) -> int:
    """`accessgov-conformance <argv>` in process; its exit status."""
    from accessgov_conformance.cli import main

    try:
        result: Any = main(argv)
    except SystemExit as stop:
        result = stop.code
    return result if isinstance(result, int) else (0 if result is None else 2)


def main() -> int:
    answers = os.fdopen(os.dup(1), "w", buffering=1)
    for line in sys.stdin:
        job = json.loads(line)
        started = time.monotonic()
        with open(job["log"], "w", encoding="utf-8") as log:
            sys.stdout.flush()
            sys.stderr.flush()
            saved = os.dup(1), os.dup(2)
            os.dup2(log.fileno(), 1)
            os.dup2(log.fileno(), 2)
            try:
                code = run_kit(job["argv"])
            except Exception as error:  # a kit crash is reported as such, not as a verdict
                print(f"selftest worker: the kit raised {type(error).__name__}: {error}", file=sys.stderr)
                code = 3
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os.dup2(saved[0], 1)
                os.dup2(saved[1], 2)
                os.close(saved[0])
                os.close(saved[1])
        answers.write(json.dumps({"id": job["id"], "exit": code, "seconds": time.monotonic() - started}) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
