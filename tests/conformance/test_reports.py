"""The kit's reports, reproduce lines, configuration errors and exit codes."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from accessgov_conformance import cli, reports
from accessgov_conformance.config import ConfigError, load, parse
from accessgov_conformance.curl import hide_secrets, reproduce
from accessgov_conformance.rules import all_rules
from accessgov_conformance.runner import Result
from accessgov_conformance.verdicts import Verdict

from tests.conformance.fake_target import ADMIN, SECRET, FakeTarget
from tests.conformance.kit import fake_config, run_fake


def test_reports_carry_one_row_per_rule_and_the_failure_with_its_reproduce_lines(tmp_path: Path) -> None:
    config = fake_config(tmp_path)
    results = list(run_fake(config, FakeTarget(breaks={"WH-IDEM-001"}), only="WH-IDEM-001,WH-IDEM-002").values())
    junit_path, summary_path = reports.write(results, config, tmp_path / "report", 1.0)
    suites = ET.parse(junit_path).getroot()
    failures = [case.get("name") for case in suites.iter("testcase") if case.find("failure") is not None]
    assert failures == ["WH-IDEM-001 A repeated event id on the same listener is a duplicate"]
    assert len(list(suites.iter("testcase"))) == len(results)
    summary = summary_path.read_text(encoding="utf-8")
    assert "| WH-IDEM-001 | FAIL |" in summary and "| WH-IDEM-002 | pass |" in summary
    assert "expected HTTP 409 DUPLICATE_EVENT, got 200" in summary
    assert "Reproduce with:" in summary and SECRET not in summary.split("export ", 1)[0]


def test_reproduce_lines_name_secrets_as_variables(tmp_path: Path) -> None:
    config = fake_config(tmp_path)
    results = run_fake(config, FakeTarget(breaks={"RS-404-001", "WH-TS-003"}))
    api = reproduce(results["RS-404-001"].exchange, config)  # type: ignore[arg-type]
    assert api.splitlines()[0] == f"export ACCESSGOV_TOKEN={ADMIN}"
    assert '"authorization: Bearer ${ACCESSGOV_TOKEN}"' in api and ADMIN not in api.split("\n", 1)[1]
    webhook = reproduce(results["WH-TS-003"].exchange, config)  # type: ignore[arg-type]
    # The first edge the fake accepts, stamped and signed afresh by the program that prints TS and SIG.
    assert "read -r TS SIG < <(python3 - '' '' -302 " in webhook and '-H "webhook-timestamp: ${TS}"' in webhook
    assert "os.environ['WEBHOOK_SECRET_WH_A']" in webhook and "hashlib.sha256" in webhook
    assert webhook.startswith("export WEBHOOK_SECRET_WH_A=") and SECRET not in webhook.split("\n", 1)[1]
    text = hide_secrets(f"curl -H 'Authorization: Bearer {ADMIN}' http://x", config)
    assert text == f'export ACCESSGOV_TOKEN={ADMIN}\ncurl -H "Authorization: Bearer ${{ACCESSGOV_TOKEN}}" http://x'


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ({"auth": {"token": "t"}}, "no base URL"),
        ({"target": {"base_url": "ftp://x"}, "auth": {"token": "t"}}, "http:// or https://"),
        ({"target": {"base_url": "http://x", "kind": "stub"}, "auth": {"token": "t"}}, "target.kind"),
        ({"target": {"base_url": "http://x"}}, "auth: give token"),
        (
            {"target": {"base_url": "http://x"}, "auth": {"token": "t"}, "listeners": [{"id": "a", "method": "x"}]},
            "method",
        ),
        ({"target": {"base_url": "http://x"}, "auth": {"token_env": "NO_SUCH_VARIABLE_SET"}}, "is not set"),
        ({"target": {"base_url": "http://x"}, "auth": {"token": "t"}, "fixtures": {"min_entitlements": -1}}, "min_ent"),
        # Typos are errors that name the near key, never a silent "not applicable".
        ({"target": {"base_url": "http://x"}, "auth": {"token": "t"}, "listener": {}}, r"\[listener\].*'listeners'"),
        (
            {"target": {"base_url": "http://x"}, "auth": {"token": "t"}, "fixtures": {"open_tasks": ["a"]}},
            "unknown key fixtures.open_tasks \\(did you mean 'open_task_ids'\\?\\)",
        ),
        (
            {"target": {"base_url": "http://x"}, "auth": {"token": "t"}, "listeners": [{"id": "a", "secrt": "s"}]},
            r"listeners\[0\].secrt \(did you mean 'secret'\?\)",
        ),
        ({"target": {"base_url": "http://x", "max_retry_wait": -1}, "auth": {"token": "t"}}, "max_retry_wait"),
        ({"target": {"base_url": "http://x", "credential_age": 0}, "auth": {"token": "t"}}, "credential_age"),
        ({"target": {"base_url": "http://x", "credential_age": "6"}, "auth": {"token": "t"}}, "credential_age"),
        ({"target": {"base_url": "http://x"}, "auth": {"token": "t", "tokn_env": "X"}}, "'token_env'"),
    ],
)
def test_a_wrong_configuration_names_the_key(document: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse(document)


def test_usage_and_configuration_errors_exit_2(tmp_path: Path) -> None:
    assert cli.main(["run", "--config", str(tmp_path / "missing.toml")]) == 2
    config = tmp_path / "ok.toml"
    config.write_text('[target]\nbase_url = "http://127.0.0.1:9"\n[auth]\ntoken = "t"\n', encoding="utf-8")
    assert load(config).base_url == "http://127.0.0.1:9"
    assert load(config).credential_age == 6.0
    assert cli.main(["run", "--config", str(config), "--only", "NO-SUCH-RULE"]) == 2
    assert cli.main(["run", "--config", str(config), "--checks", "conformance", "--max-examples", "5"]) == 2
    assert cli.main(["run", "--config", str(config), "--max-retry-wait", "-1"]) == 2
    assert cli.main(["run", "--config", str(config), "--credential-age", "0"]) == 2
    config.write_text(config.read_text(encoding="utf-8") + "[fixtures]\nopen_tasks = ['x']\n", encoding="utf-8")
    assert cli.main(["run", "--config", str(config)]) == 2


def test_an_unreachable_target_stops_the_run_with_one_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "ok.toml"
    config.write_text('[target]\nbase_url = "http://127.0.0.1:9"\n[auth]\ntoken = "t"\n', encoding="utf-8")
    argv = ["run", "--config", str(config), "--checks", "conformance", "--report-dir", str(tmp_path / "r")]
    assert cli.main([*argv, "--timeout", "2"]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert lines[1:] == ["accessgov-conformance: cannot check http://127.0.0.1:9: nothing listens at 127.0.0.1:9 "
                         "(connection refused)"]  # fmt: skip
    assert not (tmp_path / "r").exists()


def test_schemathesis_options_pass_through_over_the_kits_defaults(tmp_path: Path) -> None:
    from accessgov_conformance.schema_part import command

    line = command("http://x", tmp_path / "spec.json", 7, tmp_path, ["--max-examples", "3", "--phases=examples"])
    assert line[line.index("--seed") + 1] == "7" and line.count("--max-examples") == 1 and "--phases" not in line
    assert line[-3:] == ["--max-examples", "3", "--phases=examples"]
    assert "--output-sanitize" in line and "ignored_auth" not in line
    assert "ignored_auth" in command("http://x", tmp_path, 1, tmp_path, [], mock=True)


def test_a_deliberately_wrong_signature_is_reproduced_as_sent(tmp_path: Path) -> None:
    results = run_fake(fake_config(tmp_path), FakeTarget(breaks={"WH-HMAC-003"}), only="WH-HMAC-003")
    snippet = reproduce(results["WH-HMAC-003"].exchange, fake_config(tmp_path))  # type: ignore[arg-type]
    assert "openssl" not in snippet and "webhook-signature: " in snippet  # the signature that was sent, not a fresh one


def test_the_summary_stays_within_a_mebibyte_and_says_where_it_was_cut(tmp_path: Path) -> None:
    config = fake_config(tmp_path)
    rules = all_rules()[:40]
    # Reasons as long as a target can make them (a body excerpt, a header): 40 failures of 200,000 characters.
    results = [Result(rule, Verdict.FAIL, "no.\n" + "x`|<!--\n" * 25_000) for rule in rules]
    page = reports.markdown(results, config, 1.0)
    assert len(page.encode("utf-8")) <= reports.MAX_SUMMARY_BYTES
    assert all(page.count(f"\n| {rule.id} | FAIL |") == 1 for rule in rules)  # every rule keeps its row
    shown = page.count("\n#### ")
    assert 0 < shown < len(rules)
    assert f"The report is cut here, at {reports.MAX_SUMMARY_BYTES} bytes: {len(rules) - shown} more failure(s)" in page
    assert "more characters)" in page  # each failure's text is cut too, and says so
