"""What each test file costs: `pytest --costs N` prints the N test files that took the most wall time and the most
CPU, and the run's totals (a plugin of tests/conftest.py).

CPU is the test process's own (`RUSAGE_SELF`) plus that of every process it started and waited for
(`RUSAGE_CHILDREN`: servers, pip, npm, the CLI), user and system, for the setup, call and teardown of each test;
under pytest-xdist each worker measures its own tests and the controller adds them up. On a shared machine wall
time says how loaded it was; CPU says what the file costs.
"""

from __future__ import annotations

import resource
import time
from collections import defaultdict
from collections.abc import Generator
from typing import Any

import pytest

_KEY = "accessgov-costs"


def _cpu() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


class Costs:
    """Wall and CPU seconds and the test count of each file, added up over this process's tests (or, on the
    controller, over the workers')."""

    def __init__(self, report: int) -> None:
        self.report = report
        self.files: defaultdict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0])

    def add(self, path: str, wall: float, cpu: float, tests: int = 1) -> None:
        entry = self.files[path]
        entry[0] += wall
        entry[1] += cpu
        entry[2] += tests

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> Generator[None, object, object]:
        wall, cpu = time.perf_counter(), _cpu()
        try:
            return (yield)
        finally:
            self.add(item.location[0], time.perf_counter() - wall, _cpu() - cpu)

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        workeroutput: dict[str, Any] | None = getattr(session.config, "workeroutput", None)
        if workeroutput is not None:  # an xdist worker: hand the figures to the controller
            workeroutput[_KEY] = dict(self.files)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: object) -> None:
        for path, (wall, cpu, tests) in getattr(node, "workeroutput", {}).get(_KEY, {}).items():
            self.add(path, wall, cpu, int(tests))

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if not self.files:
            return
        rows = sorted(self.files.items(), key=lambda item: -item[1][1])
        wall = sum(entry[0] for entry in self.files.values())
        cpu = sum(entry[1] for entry in self.files.values())
        write = terminalreporter.write_line
        terminalreporter.section(f"costs: the {min(self.report, len(rows))} test files of most CPU")
        write(f"{'CPU s':>8} {'wall s':>8} {'tests':>6}  file")
        for path, (file_wall, file_cpu, tests) in rows[: self.report]:
            write(f"{file_cpu:8.1f} {file_wall:8.1f} {int(tests):6d}  {path}")
        write(f"{cpu:8.1f} {wall:8.1f} {sum(int(e[2]) for e in self.files.values()):6d}  all {len(rows)} files")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--costs",
        type=int,
        default=None,
        metavar="N",
        help="print the N test files of most CPU (with their wall time) and the run's totals",
    )


def pytest_configure(config: pytest.Config) -> None:
    report = config.getoption("costs")
    if report is not None:
        config.pluginmanager.register(Costs(report), _KEY)
