"""The run's reports: live progress on stderr, a JUnit XML file for CI, a Markdown summary for a pull request
(one row per rule), and the reproduce snippet of each failure."""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET
from collections import Counter, OrderedDict
from pathlib import Path
from typing import TextIO

from . import markdown as md
from .config import Config
from .curl import reproduce
from .runner import Result
from .spec import contract_pointers
from .verdicts import Verdict

SYMBOL = {Verdict.PASS: "pass", Verdict.FAIL: "FAIL", Verdict.NOT_APPLICABLE: "n/a", Verdict.NO_EVIDENCE: "NO EVIDENCE"}


def progress(stream: TextIO = sys.stderr) -> ProgressPrinter:
    return ProgressPrinter(stream)


class ProgressPrinter:
    """One line per rule as it finishes: `[ 3/80] WH-TS-002 pass 0.04s`, the reason when it did not pass; and a
    line when a rule starts to wait out a 429 (`waiting`), saying how long and why."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.current = ""  # the `[ i/n] RULE-ID` prefix of the rule running now

    def started(self, index: int, total: int, rule_id: str) -> None:
        width = len(str(total))
        self.current = f"[{index:>{width}}/{total}] {rule_id:<16}"

    def waiting(self, seconds: float, why: str, left: float) -> None:
        """A rule (or the schema part) waits `seconds` before sending again."""
        reason = f": {why}" if why else ""
        line = f"{self.current} waiting {seconds:.0f} s{reason}; {left:.0f} s of max_retry_wait left"
        print(line, file=self.stream, flush=True)

    def __call__(self, index: int, total: int, result: Result) -> None:
        self.started(index, total, result.rule.id)
        line = f"{self.current} {SYMBOL[result.verdict]:<11} {result.seconds:5.2f}s"
        if result.verdict != Verdict.PASS:
            line += f"  {md.visible(result.reason.splitlines()[0]) if result.reason else ''}"
        print(line, file=self.stream, flush=True)


def what_enables(results: list[Result]) -> str:
    """The rules not applicable, grouped by the reason each gave (what the configuration lacks, or the kind of
    target): one line per reason, naming its rules; "" when every rule applied."""
    by_reason: dict[str, list[str]] = {}
    for result in results:
        if result.verdict == Verdict.NOT_APPLICABLE:
            by_reason.setdefault(result.reason or "no reason given", []).append(result.rule.id)
    return "\n".join(f"  - {reason}: {', '.join(ids)}" for reason, ids in by_reason.items())


# The texts made last: a run shows each failure three times (JUnit, summary, stderr), and making its reproduce
# lines may re-derive how a signature was made. Kept with the result and configuration they belong to.
_TEXTS: OrderedDict[int, tuple[Result, Config, str]] = OrderedDict()
TEXTS_KEPT = 512


def failure_text(result: Result, config: Config) -> str:
    """The reason, and the last request of the check as a shell snippet that sends it again."""
    kept = _TEXTS.get(id(result))
    if kept is not None and kept[0] is result and kept[1] is config:
        return kept[2]
    text = result.reason
    if result.exchange is not None:
        text += "\n\nReproduce with:\n" + reproduce(result.exchange, config, result.before)
    _TEXTS[id(result)] = (result, config, text)
    while len(_TEXTS) > TEXTS_KEPT:
        _TEXTS.popitem(last=False)
    return text


def junit(results: list[Result], config: Config, path: Path) -> None:
    suites = ET.Element("testsuites", name="accessgov-conformance")
    by_family: dict[str, list[Result]] = {}
    for result in results:
        by_family.setdefault(result.rule.family, []).append(result)
    for family, members in by_family.items():
        counts = Counter(result.verdict for result in members)
        suite = ET.SubElement(
            suites,
            "testsuite",
            name=family,
            tests=str(len(members)),
            failures=str(counts[Verdict.FAIL]),
            errors=str(counts[Verdict.NO_EVIDENCE]),
            skipped=str(counts[Verdict.NOT_APPLICABLE]),
            time=f"{sum(result.seconds for result in members):.3f}",
        )
        for result in members:
            case = ET.SubElement(
                suite,
                "testcase",
                classname=f"accessgov_conformance.{family}",
                name=f"{result.rule.id} {result.rule.title}",
                time=f"{result.seconds:.3f}",
            )
            # What the target sent (in a reason) may hold control characters, which XML 1.0 cannot carry.
            first = md.visible(result.reason.splitlines()[0] if result.reason else "")
            if result.verdict == Verdict.FAIL:
                ET.SubElement(case, "failure", message=first).text = md.visible(failure_text(result, config), "\n\t")
            elif result.verdict == Verdict.NO_EVIDENCE:
                ET.SubElement(case, "error", message=first).text = md.visible(failure_text(result, config), "\n\t")
            elif result.verdict == Verdict.NOT_APPLICABLE:
                ET.SubElement(case, "skipped", message=md.visible(result.reason))
    ET.indent(suites)
    path.write_text(ET.tostring(suites, encoding="unicode", xml_declaration=True) + "\n", encoding="utf-8")


MAX_SUMMARY_BYTES = 1024 * 1024  # a job summary's limit (GitHub's): the report is cut before it, saying so


def markdown(results: list[Result], config: Config, seconds: float, limit: int = MAX_SUMMARY_BYTES) -> str:
    """The summary: a row per rule, then each failure's reason and reproduce lines. Everything the target sent
    (in a reason) is shown as data (`markdown.value`, `markdown.block`); the page stays within `limit` bytes,
    dropping the failures that do not fit and saying how many."""
    counts = Counter(result.verdict for result in results)
    lines = [
        f"## Conformance of {md.value(config.base_url)} ({config.kind})",
        "",
        f"{counts[Verdict.PASS]} passed, {counts[Verdict.FAIL]} failed, {counts[Verdict.NO_EVIDENCE]} without "
        f"evidence, {counts[Verdict.NOT_APPLICABLE]} not applicable, in {seconds:.1f} s.",
        "",
        "| rule | verdict | title | spec | detail |",
        "|---|---|---|---|---|",
    ]
    for result in results:
        detail = result.reason.splitlines()[0] if result.reason else ""
        lines.append(
            f"| {result.rule.id} | {SYMBOL[result.verdict]} | {md.own(result.rule.title)} | "
            f"{md.own(contract_pointers(result.rule.spec))} | {md.value(detail)} |"
        )
    page = "\n".join(lines) + "\n"
    failing = [result for result in results if result.verdict.failed]
    if not failing:
        return page
    page += "\n### Failures\n\n"
    # Room kept for the line that says the page was cut.
    budget = limit - len(page.encode("utf-8")) - 200
    for shown, result in enumerate(failing):
        section = (
            f"#### {result.rule.id}: {md.own(result.rule.title)}\n\n{md.block(failure_text(result, config), 'sh')}\n\n"
        )
        size = len(section.encode("utf-8"))
        if size > budget:
            left = len(failing) - shown
            page += (
                f"**The report is cut here, at {limit} bytes: {left} more failure(s) not shown "
                "(junit.xml has every one).**\n"
            )
            break
        page += section
        budget -= size
    return page


def write(results: list[Result], config: Config, report_dir: Path, seconds: float) -> tuple[Path, Path]:
    report_dir.mkdir(parents=True, exist_ok=True)
    junit_path, summary_path = report_dir / "junit.xml", report_dir / "summary.md"
    junit(results, config, junit_path)
    summary_path.write_text(markdown(results, config, seconds), encoding="utf-8")
    return junit_path, summary_path
