"""The schema part: Schemathesis' checks (status codes, response schemas, headers, negative data rejected,
stateful links) run as a subprocess with the kit's hooks, its output kept in the report directory."""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import accessgov_client

DEFAULTS = {"--max-examples": "15", "--phases": "examples,coverage,fuzzing,stateful", "--workers": "1"}
# Schemathesis' own lists of the statuses a refusal of invalid data, and an answer to valid data, may have, plus the
# contract's refusals it does not list: 413 (a body over 64 KB) and 431 (a request head over the server's limits,
# which a long multi-byte page token reaches though its 1,024 characters are within the schema).
CHECKS_CONFIG = """\
[checks.negative_data_rejection]
expected-statuses = ["400", "401", "403", "404", "405", "406", "409", "413", "415", "422", "428", "429", "431", "5xx"]

[checks.positive_data_acceptance]
expected-statuses = ["2xx", "3xx", "401", "403", "404", "409", "429", "431", "5xx"]
"""


@dataclass
class SchemaRun:
    exit_code: int
    failures: list[str]
    statuses: dict[tuple[str, str], list[int]]
    log: Path
    # operation -> None when one of its 2xx answers conformed (content type, schema), else why none did
    evidence: dict[tuple[str, str], str | None]


def command(
    base_url: str,
    spec_path: Path,
    seed: int,
    report_dir: Path,
    passthrough: list[str],
    *,
    mock: bool = False,
    timeout: float | None = None,
) -> list[str]:
    """The `schemathesis run` command line; options in `passthrough` win over the kit's defaults (`timeout`:
    the kit's `--timeout`, as Schemathesis' `--request-timeout`).

    A mock checks that credentials are present, not that they are valid (as Prism does): Schemathesis'
    `ignored_auth` check, which sends invalid ones, is left out for it (missing ones: RS-401-001, AU-API-001)."""
    given = {option.split("=", 1)[0] for option in passthrough if option.startswith("-")}
    defaults = [part for option, value in DEFAULTS.items() if option not in given for part in (option, value)]
    if mock and "--exclude-checks" not in given:
        defaults += ["--exclude-checks", "ignored_auth"]
    if timeout is not None and "--request-timeout" not in given:
        defaults += ["--request-timeout", f"{timeout:g}"]
    fixed = [] if "--seed" in given else ["--seed", str(seed)]
    config = report_dir / "schemathesis.toml"
    return [
        sys.executable, "-m", "schemathesis.cli", "--config-file", str(config),
        "run", str(spec_path), "--url", base_url,
        "--checks", "all", *fixed, *defaults, "--generation-database", "none",
        "--report", "junit", "--report-dir", str(report_dir), "--output-sanitize", "false", "--no-color",
        *passthrough,
    ]  # fmt: skip


def run(
    base_url: str,
    config_path: Path,
    seed: int,
    report_dir: Path,
    passthrough: list[str],
    spec_path: Path,
    *,
    mock: bool = False,
    timeout: float | None = None,
    retry_wait: float = 0.0,
    on_wait: Callable[[float, str], None] | None = None,
) -> SchemaRun:
    """Schemathesis against `base_url`; `retry_wait`: seconds it may spend waiting out 429s, each wait reported
    to `on_wait(seconds, why)` as it starts."""
    report_dir.mkdir(parents=True, exist_ok=True)
    (report_dir / "schemathesis.toml").write_text(CHECKS_CONFIG, encoding="utf-8")
    statuses_file = report_dir / "statuses.txt"
    statuses_file.unlink(missing_ok=True)
    waits_file = report_dir / "waits.txt"
    waits_file.unlink(missing_ok=True)
    for old in report_dir.glob("junit*.xml"):
        old.unlink()
    # The kit and the SDK as this process imports them (installed, or from a checkout).
    roots = [str(Path(__file__).resolve().parents[1]), str(Path(accessgov_client.__file__).resolve().parents[1])]
    env = {
        **os.environ,
        "SCHEMATHESIS_HOOKS": "accessgov_conformance.schema_hooks",
        "ACCESSGOV_CONFORMANCE_CONFIG": str(config_path.resolve()),
        "ACCESSGOV_CONFORMANCE_BASE_URL": base_url,
        "ACCESSGOV_CONFORMANCE_STATUSES": str(statuses_file),
        "ACCESSGOV_CONFORMANCE_WAITS": str(waits_file),
        "ACCESSGOV_CONFORMANCE_MAX_RETRY_WAIT": f"{retry_wait:g}",
        "PYTHONPATH": os.pathsep.join([*roots, *filter(None, [os.environ.get("PYTHONPATH")])]),
    }
    log = report_dir / "schemathesis.log"
    with log.open("w", encoding="utf-8") as output:
        process = subprocess.Popen(
            command(base_url, spec_path, seed, report_dir, passthrough, mock=mock, timeout=timeout),
            env=env, stdout=output, stderr=subprocess.STDOUT,
        )  # fmt: skip
        reported = 0
        while True:
            finished = process.poll() is not None or _wait(process, POLL_SECONDS)
            reported = _report_waits(waits_file, reported, on_wait)
            if finished:
                break
    statuses, evidence = read_statuses(statuses_file)
    return SchemaRun(int(process.returncode), junit_failures(report_dir), statuses, log, evidence)


POLL_SECONDS = 0.5


def _wait(process: subprocess.Popen[bytes], seconds: float) -> bool:
    try:
        process.wait(seconds)
    except subprocess.TimeoutExpired:
        return False
    return True


def _report_waits(path: Path, reported: int, on_wait: Callable[[float, str], None] | None) -> int:
    """Report the waits the hooks logged since the `reported` first ones; the count reported now."""
    if not path.exists():
        return reported
    lines = path.read_text(encoding="utf-8").splitlines()
    complete = lines if path.read_bytes().endswith(b"\n") else lines[:-1]
    for line in complete[reported:]:
        seconds, _, why = line.partition(" ")
        if on_wait is not None:
            on_wait(float(seconds), why)
    return max(reported, len(complete))


def read_statuses(
    path: Path,
) -> tuple[dict[tuple[str, str], list[int]], dict[tuple[str, str], str | None]]:
    """The hooks' log (`<METHOD> <path> <status> [why a 2xx is no evidence]` a line): the statuses of each
    operation, and per operation None once a 2xx conformed, else why none did."""
    statuses: dict[tuple[str, str], list[int]] = defaultdict(list)
    evidence: dict[tuple[str, str], str | None] = {}
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            method, template, status, problem = (*line.split(" ", 3), "")[:4]
            operation = (method, template)
            statuses[operation].append(int(status))
            if 200 <= int(status) < 300 and evidence.get(operation, "") is not None:
                evidence[operation] = problem or None
    return dict(statuses), evidence


def junit_failures(report_dir: Path) -> list[str]:
    found = []
    for path in sorted(report_dir.glob("junit*.xml")):
        for case in ET.parse(path).getroot().iter("testcase"):
            for child in case:
                if child.tag in ("failure", "error"):
                    text = (child.text or child.get("message") or "").strip()
                    found.append(f"{case.get('name')}: {text}")
    return found
