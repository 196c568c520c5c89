"""A wrong or hostile target gets one clear answer, fast, and never takes the kit's memory.

Real loopback servers (tests/support/hostile.py). Before any rule, the preflight stops the run with one message and
exit 2; a target that turns hostile after the preflight gets a clear reason from every rule, the transcript stays
bounded whatever the target sends, and no rule passes. How long each rule took and the kit's peak RSS are measured and
written to `build/hostile-targets/` (not asserted: the machine's load is not the kit's behaviour).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from accessgov_conformance import cli, transport
from accessgov_conformance.cli import select
from accessgov_conformance.config import load
from accessgov_conformance.context import TRANSCRIPT_HEAD, RunState
from accessgov_conformance.rules import all_rules
from accessgov_conformance.runner import Result, run
from accessgov_conformance.verdicts import Verdict

from tests.support import hostile

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "conformance" / "conformance.example.toml"
MEASUREMENTS = ROOT / "build" / "hostile-targets"  # one file per measurement: xdist workers write side by side
TIMEOUT = 1.0
CAP_TIMEOUT = 30.0
# One rule of each family and request helper: a dripping target costs --timeout per rule.
SAMPLE = "RS-OK-001,PG-WALK-001,PG-SIZE-001,WH-ACCEPT-001,WH-HMAC-001,AU-OAUTH-001,AU-API-001,ER-REQID-001"

pytestmark = pytest.mark.slow


def config_for(tmp_path: Path, base_url: str) -> Path:
    text = EXAMPLE.read_text(encoding="utf-8").replace('"http://127.0.0.1:8080"', f'"{base_url}"', 1)
    path = tmp_path / "kit.toml"
    path.write_text(text, encoding="utf-8")
    return path


def run_cli(tmp_path: Path, base_url: str, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, list[str]]:
    argv = ["run", "--config", str(config_for(tmp_path, base_url)), "--checks", "conformance"]
    code = cli.main([*argv, "--report-dir", str(tmp_path / "report"), "--timeout", str(TIMEOUT), *extra])
    return code, capsys.readouterr().err.strip().splitlines()


@pytest.mark.parametrize(
    ("behaviour", "message"),
    [
        ("html", "with Content-Type 'text/html', not application/json: this does not speak the contract"),
        ("redirect-loop", "a redirect to /again: the kit follows no redirects"),
        ("slow-drip", f"no complete answer within {TIMEOUT:g} s (--timeout)"),
        ("slow-body", f"no complete answer within {TIMEOUT:g} s (--timeout)"),
        ("gzip-bomb", "the gzip answer decompresses to more than"),
        ("big-body", f"the answer exceeds {transport.MAX_RESPONSE_BYTES} bytes"),
        ("brotli", "Content-Encoding 'br', which the kit did not accept"),
        ("truncated-json", "with a body that is not JSON"),
        ("silent", f"no complete answer within {TIMEOUT:g} s (--timeout)"),
        ("hang-up", "did not answer in HTTP/1.1"),
        ("not-http", "did not answer in HTTP/1.1"),
    ],
)
def test_the_preflight_stops_a_target_that_does_not_speak_the_contract(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], behaviour: str, message: str
) -> None:
    with hostile.serve(behaviour) as server:
        code, lines = run_cli(tmp_path, server.base_url, capsys)
    assert code == 2
    assert len(lines) == 2, lines  # the banner, then one message
    assert lines[1].startswith(f"accessgov-conformance: cannot check {server.base_url}: ") and message in lines[1]
    assert not (tmp_path / "report").exists()


@pytest.mark.parametrize(
    ("base_url", "message"),
    [
        ("http://127.0.0.1:{closed}", "nothing listens at 127.0.0.1:"),
        ("http://no-such-host.invalid", "the address no-such-host.invalid does not resolve"),
    ],
)
def test_the_preflight_stops_when_nothing_answers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], base_url: str, message: str
) -> None:
    # The port is picked when the test runs: collection must be the same on every xdist worker.
    code, lines = run_cli(tmp_path, base_url.format(closed=hostile.closed_port()), capsys)
    assert code == 2 and len(lines) == 2 and message in lines[1], lines


def test_the_preflight_names_a_tls_failure(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with hostile.serve("html") as server:  # plain HTTP: a TLS handshake with it fails
        code, lines = run_cli(tmp_path, server.base_url.replace("http://", "https://"), capsys)
    assert code == 2 and len(lines) == 2 and f"TLS with 127.0.0.1:{server.port} failed" in lines[1], lines


def run_after_preflight(tmp_path: Path, behaviour: str, only: str = "", timeout: float = TIMEOUT) -> list[Result]:
    """Every behavioural rule (or `only`) in process against `behaviour` after one honest answer."""
    with hostile.serve(behaviour, honest=1) as server:
        config = load(config_for(tmp_path, server.base_url))
        with transport.client(timeout) as client:
            state = RunState(config, 1, client)
            client.get(server.base_url + "/preflight")  # takes the honest answer
            results = run(select(all_rules(), "conformance", only), state, lambda *_: None)
    for exchange in state.history:
        assert len(exchange.response_body) <= TRANSCRIPT_HEAD, exchange.url
    return results


def record(name: str, **values: object) -> None:
    """Write one measurement to `build/hostile-targets/<name>.json`."""
    MEASUREMENTS.mkdir(parents=True, exist_ok=True)
    (MEASUREMENTS / f"{name}.json").write_text(json.dumps(values, indent=2, sort_keys=True) + "\n")


@pytest.mark.parametrize(
    ("behaviour", "only", "reason"),
    [
        ("slow-drip", SAMPLE, "no complete answer within"),
        ("slow-body", SAMPLE, "no complete answer within"),
        ("gzip-bomb", "", "decompresses to more than"),
        ("big-body", "", "exceeds"),
        ("html", "", ""),
        ("redirect-loop", "", ""),
        ("truncated-json", "", ""),
    ],
)
def test_a_target_hostile_after_the_preflight_gets_a_reason_from_every_rule(
    tmp_path: Path, behaviour: str, only: str, reason: str
) -> None:
    # The size caps are what must end those answers: a deadline they cannot reach first on a loaded machine (a 1 s
    # one sometimes ran out while 8 MiB was still arriving), so the cap, not the clock, is what is shown.
    timeout = CAP_TIMEOUT if behaviour in ("gzip-bomb", "big-body") else TIMEOUT
    results = run_after_preflight(tmp_path, behaviour, only, timeout)
    slowest = max(results, key=lambda result: result.seconds)
    record(f"{behaviour}-rules", timeout=timeout, rules=len(results), slowest_rule=slowest.rule.id,
           slowest_seconds=round(slowest.seconds, 2))  # fmt: skip
    for result in results:
        assert result.verdict != Verdict.PASS, result.rule.id  # nothing is shown by such answers
        assert result.reason.strip(), result.rule.id
        if reason and result.verdict == Verdict.NO_EVIDENCE and not result.exchanges and result.rule.id != "EV-OPS-001":
            assert reason in result.reason, (result.rule.id, result.reason)
    evidence = [result for result in results if result.rule.id == "EV-OPS-001"]
    assert all(result.verdict == Verdict.NO_EVIDENCE for result in evidence)


def test_the_kits_memory_stays_bounded_whatever_the_target_sends(tmp_path: Path) -> None:
    """The CLI in its own process against a gzip bomb and 50 MB bodies (after the preflight): it ends with
    failures, not a crash; its peak RSS is measured."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for behaviour in ("gzip-bomb", "big-body"):
        with hostile.serve(behaviour, honest=1) as server:
            argv = ["run", "--config", str(config_for(tmp_path, server.base_url)), "--checks", "conformance"]
            argv += ["--timeout", str(TIMEOUT), "--report-dir", str(tmp_path / behaviour)]
            process = subprocess.Popen(
                [sys.executable, "-m", "accessgov_conformance", *argv],
                env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            )  # fmt: skip
            assert process.stderr is not None
            stderr = process.stderr.read().decode()
            _, status, usage = os.wait4(process.pid, 0)
        assert os.waitstatus_to_exitcode(status) == 1, stderr[-2000:]
        summary = (tmp_path / behaviour / "summary.md").read_text(encoding="utf-8")
        assert "| pass |" not in summary
        record(f"{behaviour}-rss", cli_peak_rss_mb=round(usage.ru_maxrss / 1024, 1))
