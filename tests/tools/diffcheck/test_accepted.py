"""Accepted breaking changes (`review/accepted-breaking.yaml`): accepted, expired, stale, in every format."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from accessgov_tools.diffcheck.accepted import Acceptance, AcceptedError, apply_accepted, failing, load_accepted
from accessgov_tools.diffcheck.cli import main
from accessgov_tools.diffcheck.model import Finding, Severity
from accessgov_tools.diffcheck.render import render_github, render_json, render_markdown, render_text

EXPIRES = dt.date(2026, 12, 31)
REMOVED = "api-removed-without-deprecation"


def _finding() -> Finding:
    return Finding(REMOVED, Severity.BREAKING, "`GET /a` removed", ("paths", "/a", "get"), ["GET /a (listA)"])


def _entry(**where: str) -> Acceptance:
    return Acceptance(REMOVED, "nobody calls it", EXPIRES, **where)


def test_an_accepted_finding_does_not_fail_and_says_so_in_every_format() -> None:
    finding = _finding()
    stale = apply_accepted([finding], [_entry(operation="GET /a")], dt.date(2026, 12, 31))
    assert stale == [] and failing([finding]) == [] and finding.accepted
    assert "  accepted until 2026-12-31: nobody calls it" in render_text([finding]).splitlines()
    assert "🔴 breaking (accepted until 2026-12-31: nobody calls it)" in render_markdown([finding])
    body = json.loads(render_json([finding]))
    assert body["findings"][0]["acceptance"] == {"reason": "nobody calls it", "expires": "2026-12-31", "expired": False}
    assert body["summary"]["accepted"] == 1
    assert render_github([finding]).startswith(f"::notice title={REMOVED} (accepted)::")


def test_an_expired_acceptance_fails_again_with_its_date() -> None:
    finding = _finding()
    apply_accepted([finding], [_entry(pointer="/paths/~1a/get")], dt.date(2027, 1, 1))
    assert failing([finding]) == [finding] and not finding.accepted
    assert "  acceptance expired on 2026-12-31" in render_text([finding]).splitlines()
    assert "acceptance expired on 2026-12-31" in render_markdown([finding])
    assert json.loads(render_json([finding]))["findings"][0]["acceptance"]["expired"] is True
    assert render_github([finding]).startswith(f"::error title={REMOVED}::")


def test_an_acceptance_that_matches_nothing_is_reported_stale() -> None:
    finding, entry = _finding(), _entry(operation="GET /b")
    stale = apply_accepted([finding], [entry], dt.date(2026, 1, 1))
    assert stale == [entry] and failing([finding]) == [finding]
    line = f"accepted {REMOVED} at GET /b matches no finding (stale; expires 2026-12-31)"
    assert line in render_text([finding], stale)
    assert line in render_markdown([], stale)
    assert json.loads(render_json([], stale))["stale_acceptances"][0]["operation"] == "GET /b"
    assert f"::warning title=stale-acceptance::{line}" in render_github([], stale).splitlines()


def test_a_warning_or_another_check_is_never_matched() -> None:
    warning = Finding(REMOVED, Severity.WARNING, "x", ("paths", "/a", "get"), ["GET /a"])
    other = Finding("request-body-removed", Severity.BREAKING, "x", ("paths", "/a", "get"), ["GET /a"])
    stale = apply_accepted([warning, other], [_entry(operation="GET /a")], dt.date(2026, 1, 1))
    assert len(stale) == 1 and failing([warning, other]) == [other]


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("accepted:\n  - {check: nope, operation: GET /a, reason: r, expires: 2026-01-01}\n", "unknown check"),
        (f"accepted:\n  - {{check: {REMOVED}, reason: r, expires: 2026-01-01}}\n", "exactly one of"),
        (f"accepted:\n  - {{check: {REMOVED}, operation: GET /a, expires: 2026-01-01}}\n", "missing reason"),
        (f"accepted:\n  - {{check: {REMOVED}, operation: GET /a, reason: r, expires: soon}}\n", "not a date"),
    ],
)
def test_bad_entries_are_refused(tmp_path: Path, text: str, error: str) -> None:
    path = tmp_path / "accepted.yaml"
    path.write_text(text)
    with pytest.raises(AcceptedError, match=error):
        load_accepted(path)


def test_the_cli_exit_status_follows_the_acceptance(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base, head = tmp_path / "base.yaml", tmp_path / "head.yaml"
    op = "{responses: {'200': {description: OK}}}"
    base.write_text(
        f"openapi: 3.1.0\ninfo: {{title: t, version: 1.0.0}}\npaths:\n  /a: {{get: {op}}}\n  /b: {{get: {op}}}\n"
    )
    head.write_text(f"openapi: 3.1.0\ninfo: {{title: t, version: 2.0.0}}\npaths:\n  /b: {{get: {op}}}\n")
    accepted = tmp_path / "accepted.yaml"
    accepted.write_text(f"accepted:\n  - {{check: {REMOVED}, operation: GET /a, reason: r, expires: 2026-12-31}}\n")
    argv = ["--base-file", str(base), "--head-file", str(head), "--accepted", str(accepted)]
    assert main([*argv, "--date", "2026-06-01"]) == 0
    assert main([*argv, "--date", "2027-01-01"]) == 1
    assert "acceptance expired on 2026-12-31" in capsys.readouterr().err


def test_the_shipped_file_loads() -> None:
    assert all(entry.reason for entry in load_accepted())
