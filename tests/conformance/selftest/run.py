"""`make conformance-selftest`: run the conformance kit against every mutant and control and score it.

    python -m tests.conformance.selftest.run [--workers N] [--seed N] [--only ID,...] [--repeat N] [--report-dir DIR]
                                   [--json FILE]

One reference server serves each mutant and control on its own port (`target.py`); worker processes run the
kit (`accessgov-conformance run --checks conformance`, fixed seed) against one after another. A control gets
the whole kit and must exit 0. A mutant gets the rules of the requirements its `covers` names (the traceability
table), and is killed when the kit exits 1 with one of THOSE rules failing: a kill by another rule is reported
as such (WRONG-RULE), not counted. Prints one line per mutant and control, the mutation score and the time
taken; exits 1 below 100 % or when a control fails, 2 when the kit could not be run at all (exit 2, or a
crash). `--repeat N` runs everything N times and also fails when the verdicts differ between runs;
`--full-kit` runs the whole kit against every mutant too (slower; the kill must still be by a covered rule).
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import subprocess
import sys
import threading
import time
import xml.etree.ElementTree as ET
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from accessgov_conformance import traceability

from tests.conformance.selftest import mutants
from tests.conformance.selftest.mutants.base import Mutant
from tests.conformance.selftest.target import kit_config, serve_variants

ROOT = Path(__file__).resolve().parents[3]
DEFAULT_REPORT_DIR = ROOT / "build" / "conformance-selftest"
KILLED, SURVIVED, PASSED, FALSE_FAILURE, BROKEN = "killed", "SURVIVED", "passed", "FAILED", "ERROR"
WRONG_RULE = "WRONG-RULE"  # the kit failed, but none of the rules the mutant's covered requirements name
# Rules that judge the whole run, not one requirement: a mutant whose requirements name one gets the whole kit.
WHOLE_RUN_RULES = {"EV-OPS-001"}


def requirements() -> list[Any]:
    """The kit's traceability table."""
    return list(traceability.load())


def expected_rules(mutant: Mutant, table: list[Any]) -> list[str]:
    """The rules of the requirements `mutant.covers` names: the ones that may kill it."""
    return sorted(traceability.rules_of(table, mutant.covers))


def kit_rules(mutant: Mutant, expected: list[str], full_kit: bool) -> list[str] | None:
    """The `--only` rules of the mutant's kit run; None: the whole kit (a control, a mutant without `covers`,
    one whose requirements name a whole-run rule)."""
    if full_kit or mutant.control or not expected or WHOLE_RUN_RULES & set(expected):
        return None
    return expected


@dataclass
class Verdict:
    """What the kit said about one mutant or control."""

    id: str
    family: str
    control: bool
    exit: int
    rules: list[str] = field(default_factory=list)  # the rule ids that failed
    seconds: float = 0.0
    expected: list[str] = field(default_factory=list)  # the rules that may kill it (empty: any, no `covers`)
    restricted: bool = False  # the kit ran the expected rules only

    @property
    def outcome(self) -> str:
        if self.exit not in (0, 1):
            return BROKEN
        if self.control:
            return PASSED if self.exit == 0 else FALSE_FAILURE
        if self.exit == 0:
            return SURVIVED
        if self.expected and not set(self.rules) & set(self.expected):
            return WRONG_RULE
        return KILLED

    def key(self) -> tuple[str, str, tuple[str, ...]]:
        """What must be identical between runs."""
        return self.id, self.outcome, tuple(self.rules)


def failed_rules(report_dir: Path) -> list[str]:
    """The ids of the rules that failed, from the kit's JUnit report(s)."""
    found: set[str] = set()
    for path in report_dir.glob("*.xml"):
        for case in ET.parse(path).getroot().iter("testcase"):
            if any(child.tag in ("failure", "error") for child in case):
                found.add(str(case.get("name")).split(" ", 1)[0])  # "<RULE-ID> <title>"
    return sorted(found)


def kit_env() -> dict[str, str]:
    """The environment the kit runs in (installed in the venv, `make setup`), with the checkout importable for the
    self-test's own modules."""
    paths = [str(ROOT), os.environ.get("PYTHONPATH", "")]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, paths)), "NO_COLOR": "1"}


def _drive(worker: subprocess.Popen[str], jobs: queue.Queue[dict[str, object]], answers: list[dict[str, Any]]) -> None:
    """Feed `worker` jobs until the queue is empty; collect its answers."""
    assert worker.stdin is not None and worker.stdout is not None
    while True:
        try:
            job = jobs.get_nowait()
        except queue.Empty:
            worker.stdin.close()
            return
        worker.stdin.write(json.dumps(job) + "\n")
        worker.stdin.flush()
        line = worker.stdout.readline()
        answers.append(json.loads(line) if line else {"id": job["id"], "exit": 3, "seconds": 0.0})


def run_once(
    selected: list[Mutant], *, workers: int, seed: int, report_dir: Path, full_kit: bool = False
) -> list[Verdict]:
    """Serve `selected`, run the kit against each; verdicts in catalogue order."""
    report_dir.mkdir(parents=True, exist_ok=True)
    table = requirements()
    expected = {m.id: expected_rules(m, table) for m in selected}
    only = {m.id: kit_rules(m, expected[m.id], full_kit) for m in selected}
    with serve_variants({m.id: m.build for m in selected}) as (urls, fixtures):
        config = report_dir / "selftest.toml"
        config.write_text(kit_config(fixtures), encoding="utf-8")
        jobs: queue.Queue[dict[str, object]] = queue.Queue()
        # The whole-kit runs (controls) first: the short restricted runs then fill the workers evenly at the end.
        whole = 0
        for mutant in sorted(selected, key=lambda m: only[m.id] is not None):
            reports = report_dir / mutant.id
            reports.mkdir(exist_ok=True)
            for old in reports.glob("*.xml"):
                old.unlink()
            own = config
            if only[mutant.id] is None:  # each whole-kit run restarts tasks of its own (target.kit_config)
                whole += 1
                own = reports / "selftest.toml"
                own.write_text(kit_config(fixtures, group=whole), encoding="utf-8")
            argv = ["run", "--base-url", urls[mutant.id], "--config", str(own), "--checks", "conformance"]
            argv += ["--seed", str(seed), "--report-dir", str(reports)]
            # The target's failed-authentication limits are off: a 429 here is a mutant refusing for good, and
            # waiting it out (the kit's default for a real server) would only add its Retry-After to the run.
            argv += ["--max-retry-wait", "0"]
            if only[mutant.id] is not None:
                argv += ["--only", ",".join(only[mutant.id] or [])]
            jobs.put({"id": mutant.id, "argv": argv, "log": str(reports / "kit.log")})
        answers: list[dict[str, Any]] = []
        procs = [
            subprocess.Popen(
                [sys.executable, "-m", "tests.conformance.selftest.worker"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
                cwd=ROOT,
                env=kit_env(),
            )
            for _ in range(max(1, min(workers, len(selected))))
        ]
        threads = [threading.Thread(target=_drive, args=(proc, jobs, answers)) for proc in procs]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        for proc in procs:
            proc.wait(timeout=60)
    by_id = {answer["id"]: answer for answer in answers}
    return [
        Verdict(
            m.id,
            m.family,
            m.control,
            int(by_id[m.id]["exit"]),
            failed_rules(report_dir / m.id),
            round(float(by_id[m.id]["seconds"]), 1),
            [] if m.control else expected[m.id],
            only[m.id] is not None,
        )
        for m in selected
    ]


def describe(verdict: Verdict) -> str:
    rules = f" by {', '.join(verdict.rules)}" if verdict.rules else ""
    if verdict.outcome == BROKEN:
        rules = f" (the kit exited {verdict.exit}; see its kit.log)"
    elif verdict.outcome == WRONG_RULE:
        rules += f"; none of its requirements' rules ({', '.join(verdict.expected)})"
    elif not verdict.control and not verdict.expected:
        rules += " (no `covers`: any failing rule counts)"
    return f"{verdict.outcome:<10} {verdict.id:<40} [{verdict.family}] {verdict.seconds:5.1f}s{rules}"


def kit_time(verdicts: list[Verdict]) -> str:
    """Where the kit's time went: whole-kit runs (controls, mutants without traced rules) against restricted ones."""
    parts = []
    for label, runs in (
        ("whole kit", [v for v in verdicts if not v.restricted]),
        ("restricted", [v for v in verdicts if v.restricted]),
    ):
        seconds = sum(v.seconds for v in runs)
        parts.append(f"{label} {len(runs)} run(s), {seconds:.0f}s of kit time")
    return "; ".join(parts)


def score(verdicts: list[Verdict]) -> tuple[int, int, int, int]:
    """(killed, mutants, controls passed, controls)."""
    found = [v for v in verdicts if not v.control]
    controls = [v for v in verdicts if v.control]
    return (
        sum(v.outcome == KILLED for v in found),
        len(found),
        sum(v.outcome == PASSED for v in controls),
        len(controls),
    )


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workers", type=int, default=2, help="kit processes running at once (default 2)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--only", default="", help="comma-separated mutant/control ids (default: all)")
    parser.add_argument("--repeat", type=int, default=1, help="run N times; the verdicts must be identical")
    parser.add_argument("--report-dir", type=Path, default=DEFAULT_REPORT_DIR)
    parser.add_argument("--json", type=Path, help="write the verdicts (of the last run) to this file")
    parser.add_argument("--list", action="store_true", help="print the catalogue (id, family, covers, what it breaks)")
    parser.add_argument(
        "--full-kit", action="store_true", help="run every rule against each mutant, not only its requirements' rules"
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    wanted = [item for item in args.only.split(",") if item]
    unknown = [item for item in wanted if item not in mutants.BY_ID]
    if unknown:
        print(f"unknown mutant ids: {', '.join(unknown)}", file=sys.stderr)
        return 2
    selected = [mutants.BY_ID[item] for item in wanted] if wanted else mutants.ALL
    if args.list:
        for mutant in selected:
            print(f"{mutant.id}  [{mutant.family}]  {', '.join(mutant.covers) or '-'}\n    {mutant.breaks}")
        return 0
    runs: list[list[Verdict]] = []
    for number in range(1, args.repeat + 1):
        started = time.monotonic()
        verdicts = run_once(
            selected, workers=args.workers, seed=args.seed, report_dir=args.report_dir, full_kit=args.full_kit
        )
        runs.append(verdicts)
        header = f"run {number} of {args.repeat}: " if args.repeat > 1 else ""
        print(f"{header}the kit against {len(selected)} variants of the reference server")
        for verdict in verdicts:
            print(describe(verdict))
        killed, total, passed, controls = score(verdicts)
        percent = 100.0 * killed / total if total else 100.0
        print(
            f"mutation score {killed}/{total} ({percent:.1f} %), controls passed {passed}/{controls}, "
            f"{time.monotonic() - started:.1f}s with {args.workers} worker(s); {kit_time(verdicts)}"
        )
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps([asdict(v) for v in runs[-1]], indent=2) + "\n", encoding="utf-8")
    stable = all([v.key() for v in run] == [v.key() for v in runs[0]] for run in runs)
    if not stable:
        print("verdicts differ between runs")
    last = runs[-1]
    if any(v.outcome == BROKEN for v in last):
        return 2
    killed, total, passed, controls = score(last)
    return 0 if stable and killed == total and passed == controls else 1


if __name__ == "__main__":
    sys.exit(main())
