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
import xml.etree.ElementTree as ET
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


# What a hostile target says in its Error code and message: a fence closed, a forged heading and table with a PASS
# row, an HTML comment opened (to hide the true rows after it) and HTML, a line break in a header-like value.
FORGED_CODE = (
    "NOT_FOUND <b>PASS</b> ` `` | RS-OK-001 | pass | <!-- \x1b[32m\n```\n\n## Conformance of http://127.0.0.1 "
    "(implementation)\n\n| rule | verdict | title | spec | detail |\n|---|---|---|---|---|\n"
    "| RS-OK-001 | pass | forged | - | - |\n\n<!--"
)
FORGED_MESSAGE = "| RS-OK-001 | pass | <!-- -->"
FORGED_BODY = json.dumps({"code": FORGED_CODE, "message": FORGED_MESSAGE}).encode()


def _forging(sock: hostile.Counted) -> None:
    head = hostile._head(404, "application/json", len(FORGED_BODY), "X-Request-Id: hostile-2")
    sock.sendall(head + FORGED_BODY)


def test_what_a_hostile_target_says_cannot_forge_the_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """summary.md shows the target's words as data: read back as Markdown (markdown-it-py), its one table holds
    each rule once with the verdict the JUnit report gives it; no forged row, heading or HTML."""
    from markdown_it import MarkdownIt

    with hostile.serve(_forging, honest=1) as server:
        code, _ = run_cli(tmp_path, server.base_url, capsys, "--only", SAMPLE)
    assert code == 1
    junit = ET.parse(tmp_path / "report" / "junit.xml").getroot()
    truth = {}
    for case in junit.iter("testcase"):
        kinds = {child.tag for child in case}
        verdict = "FAIL" if "failure" in kinds else "NO EVIDENCE" if "error" in kinds else "n/a" if kinds else "pass"
        truth[str(case.get("name")).split(" ", 1)[0]] = verdict
    assert sorted(truth) == sorted(SAMPLE.split(",")) and "pass" not in truth.values()
    page = (tmp_path / "report" / "summary.md").read_text(encoding="utf-8")
    assert "<!--" in page and "<b>PASS</b>" in page  # there, as the target sent it
    tokens = MarkdownIt("commonmark").enable("table").parse(page)
    assert not [token for token in tokens if token.type.startswith("html")]
    assert [token.tag for token in tokens if token.type == "heading_open"] == ["h2", "h3"] + ["h4"] * len(truth)
    assert [token.type for token in tokens].count("table_open") == 1
    rows: list[list[str]] = []
    in_row = False
    for token in tokens:
        if token.type in ("tr_open", "tr_close"):
            in_row = token.type == "tr_open"
            rows += [[]] if in_row else []
        elif token.type == "inline" and in_row:
            rows[-1].append(token.content)
    cells = [row for row in rows if row[0] != "rule"]
    assert {row[0]: row[1] for row in cells} == truth and len(cells) == len(truth)
    # The target's words are there, read back whole as code, not markup.
    shown = [child.content for token in tokens if token.children for child in token.children]
    assert any("NOT_FOUND <b>PASS</b> ` `` | RS-OK-001 | pass | <!-- \\x1b[32m" in text for text in shown), shown
    blocks = [token.content for token in tokens if token.type == "fence"]
    assert len(blocks) == len(truth) and any("## Conformance of" in text for text in blocks)
