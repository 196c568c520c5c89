"""Every message shape of the diff engine reads as a changelog line: checked on the engine's own fixture pairs."""

from __future__ import annotations

from pathlib import Path

import pytest

from accessgov_tools.diffcheck.cli import load_file
from accessgov_tools.diffcheck.compare import compare
from accessgov_tools.diffcheck.model import Finding, Severity
from accessgov_tools.release.classify import relevant
from accessgov_tools.release.phrasing import phrase

FIXTURES = Path(__file__).resolve().parents[1] / "diffcheck" / "fixtures"
CASES = sorted(path for path in FIXTURES.iterdir() if (path / "base.yaml").is_file())


def test_there_are_fixture_pairs() -> None:
    assert len(CASES) > 300


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_every_finding_of_a_fixture_pair_is_phrased(case: Path) -> None:
    findings = compare(load_file(case / "base.yaml"), load_file(case / "fail.yaml"))
    assert findings
    for finding in relevant(findings):  # not the engine's own note on info.version
        text = phrase(finding)
        assert text[:1].isupper() or text.startswith("`"), text
        # The direction is said in words ("Request field ...") instead of the engine's trailing "(request)".
        assert not text.endswith(("(request)", "(response)")), (finding.message, text)


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        (
            "`TaskActionsServiceRestartRequest.comment`: maxLength increased from `1000` to `4000` (request)",
            "Request field `comment` may now be up to 4,000 characters (was 1,000)",
        ),
        ("`Task.state`: enum value `PAUSED` added (response)", "Response field `state` has a new value `PAUSED`"),
        ("`Task.id`: now optional (response)", "Response field `id` is no longer always sent"),
        (
            "`Task.note` (response): deprecated, sunset 2027-01-31",
            "Response field `note` is deprecated (sunset 2027-01-31)",
        ),
        (
            "query parameter `page_size`: maximum set to `100` (request)",
            "Query parameter `page_size` may now be at most 100",
        ),
        ("response status 429 added", "New response status 429"),
        ("response 200 header `X-Request-Id` added", "New header `X-Request-Id` on response 200"),
        ("security requirement anonymous access now accepted", "Now also accepts anonymous access"),
        ("some message no rule knows", "Some message no rule knows"),
    ],
)
def test_phrases(message: str, expected: str) -> None:
    assert phrase(Finding("any-check", Severity.INFO, message, ())) == expected


def test_shared_lines_keep_the_schema_name() -> None:
    finding = Finding("x", Severity.INFO, "`Task.state`: enum value `PAUSED` added (response)", ())
    assert phrase(finding, shared=True) == "Response field `Task.state` has a new value `PAUSED`"
