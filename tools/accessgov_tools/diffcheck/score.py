"""Score the engine against oasdiff's own verdicts on the base/revision pairs of its checker tests.

    python -m accessgov_tools.diffcheck.score OASDIFF_REPO [--misses] [--false-alarms] [--json]

`OASDIFF_REPO` is a checkout of https://github.com/oasdiff/oasdiff (nothing of it is copied here). A pair is a
test function in `checker/*_test.go` that loads two documents from `data/` (with `open(...)`, a `dataFileFn`
handle or `l(t, N)`), diffs them once, and leaves them as they are on disk (a test that edits a loaded document in
Go is skipped: its pair on disk is not what it tests). The pair is *breaking* when the test expects a change whose
level (its `Level:`, else the level of its id in `checker/rules.go`) is ERR or WARN (what `oasdiff breaking`
reports), and *non-breaking* otherwise; a pair met by several tests (each runs some checks) is breaking when any
of them says so, and every test counts once, as in the issue's measurement. Our verdict is breaking when a finding is
`breaking` under this contract's config. A false alarm whose breaking findings all come from checks a documented
policy of the config makes stricter than oasdiff is counted apart, as *by policy*.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from datetime import date
from pathlib import Path

from accessgov_tools.diffcheck.compare import compare
from accessgov_tools.diffcheck.config import DEFAULT_CONFIG, DiffConfig, load_config
from accessgov_tools.diffcheck.inputs import load_file
from accessgov_tools.diffcheck.model import Severity
from accessgov_tools.diffcheck.oasdiff import constants, ours_for, rule_handlers, rule_levels

_SINGLE = re.compile(r"singleCheckConfig\(\s*checker\.(\w+)")
_FUNC = re.compile(r"^func (Test\w*)\(t \*testing\.T\) \{\n(.*?)^\}", re.MULTILINE | re.DOTALL)
_HANDLE = re.compile(r"\b(\w+)\s*=\s*dataFileFn\(\"([^\"]+)\"\)")
_OPEN = re.compile(r"\b(\w+)\s*(?:,\s*\w+\s*)?:?=\s*open\(\s*(?:\"\.\./data/([^\"]+)\"|(\w+)\(\"([^\"]+)\"\))")
_NUMBERED = re.compile(r"\b(\w+)\s*:?=\s*l\(t,\s*(\d+)\s*[,)]")
_DIFF = re.compile(r"diff\.(?:Get|GetWithOperationsSourcesMap)\(\s*[^,]+,\s*(\w+),\s*(\w+)\s*\)")
_SHORT = re.compile(r"\bd\(t,\s*[^,]+,\s*(\d+),\s*(\d+)\s*[,)]")
_ID_REF = re.compile(r"checker\.(\w+Id)\b")


@dataclass
class Pair:
    """Two documents of oasdiff's test data, the test that diffs them and oasdiff's verdict in that test."""

    base: str  # relative to the repository's data/
    revision: str
    breaking: bool = False
    test: str = ""  # file:function of the test that diffs them
    only: frozenset[str] = frozenset()  # the check functions the test runs, when it runs some only
    expected: set[str] = field(default_factory=set)  # the Go constants of the check ids the test names

    @property
    def name(self) -> str:
        return f"{self.base} -> {self.revision}"


@dataclass
class Outcome:
    """Our verdict on one pair: the breaking findings, and whether all of them are a documented policy's."""

    pair: Pair
    breaking_checks: list[str]  # our `breaking` findings' checks
    by_policy: bool
    outside: bool = False  # every breaking finding is one oasdiff also grades ERR/WARN, in a check the test did not run
    warning_checks: list[str] = field(default_factory=list)
    error: str | None = None

    @property
    def detected(self) -> bool:
        """oasdiff's ERR and WARN are our breaking and warning: a pair it reports, we report at one of them."""
        return bool(self.breaking_checks or self.warning_checks)

    @property
    def alarm(self) -> bool:
        """A `breaking` finding (what fails `make diff`) on a pair oasdiff passes."""
        return bool(self.breaking_checks)

    @property
    def kind(self) -> str:
        """Why a false alarm is one: a documented policy, a check the test did not run, or a real difference."""
        return "policy" if self.by_policy else "outside" if self.outside else "differs"


def _constant_levels(repo: Path) -> dict[str, str]:
    """Go constant name (`RequestBodyConstChangedId`) -> level, for reading the tests' expectations."""
    levels = rule_levels(repo)
    return {name: levels[value] for name, value in constants(repo).items() if value in levels}


def _loads(body: str, handles: dict[str, str]) -> dict[str, str]:
    """Variable -> data file for every document the test body loads."""
    found: dict[str, str] = {}
    for var, path, handle, name in _OPEN.findall(body):
        if path:
            found[var] = path
        elif handle in handles:
            found[var] = f"{handles[handle]}/{name}"
    for var, number in _NUMBERED.findall(body):
        found[var] = f"openapi-test{number}.yaml"
    return found


def _test_pair(body: str, handles: dict[str, str]) -> tuple[str, str] | None:
    """The (base, revision) data files of a test that diffs one untouched pair, else None."""
    shorthand = _SHORT.findall(body)
    diffs = _DIFF.findall(body)
    if len(shorthand) + len(diffs) != 1:
        return None
    if shorthand:
        return f"openapi-test{shorthand[0][0]}.yaml", f"openapi-test{shorthand[0][1]}.yaml"
    base_var, revision_var = diffs[0]
    loads = _loads(body, handles)
    if base_var not in loads or revision_var not in loads or loads[base_var] == loads[revision_var]:
        return None
    for var in (base_var, revision_var):  # edited in Go, or loaded twice: not the pair on disk
        if re.search(rf"\b{var}\.\w", body) or len(re.findall(rf"\b{var}\s*(?:,\s*\w+\s*)?:?=", body)) > 1:
            return None
    return loads[base_var], loads[revision_var]


_SERIOUS = ("ERR", "WARN")  # what `oasdiff breaking` reports; INFO is changelog only
_CALL = re.compile(r"CheckBackwardCompatibility(UntilLevel)?\((.*)")
_COUNT = re.compile(
    r"require\.(?:(NotEmpty)\(t, errs\)|(Empty)\(t, errs\)|Len\(t, errs, (\d+)\)|Equal\(t, (\d+), len\(errs\)\))"
)


def _counted(body: str) -> bool:
    """Whether the first assertion on the number of changes of a WARN-threshold run expects some."""
    call = _CALL.search(body)
    if call is None or (call.group(1) and not re.search(r"checker\.(ERR|WARN)\)", call.group(2))):
        return False
    count = _COUNT.search(body, call.end())
    if count is None:
        return False
    not_empty, _empty, length, equal = count.groups()
    return bool(not_empty) or int(length or equal or 0) > 0


def _verdict(body: str, constant_levels: dict[str, str]) -> tuple[bool, set[str]]:
    """Whether the test expects an ERR- or WARN-level change, and the constants of the ids it names."""
    names = set(_ID_REF.findall(body))
    explicit = re.findall(r"Level:\s*checker\.(ERR|WARN|INFO)", body)
    explicit += re.findall(r"checker\.(ERR|WARN|INFO)\s*,\s*\w+(?:\[\d+\])?\.(?:GetLevel|Level)", body)
    if explicit:
        return bool(set(_SERIOUS) & set(explicit)), names
    if names:
        return any(constant_levels.get(n) in _SERIOUS for n in names), names
    return _counted(body), names


def pairs(repo: Path) -> list[Pair]:
    """Every test that diffs one untouched pair, with its verdict (one pair may be met by several tests)."""
    checker = repo / "checker"
    constant_levels = _constant_levels(repo)
    handles: dict[str, str] = {}
    tests = sorted(checker.glob("*_test.go"))
    for source in tests:
        handles.update(_HANDLE.findall(source.read_text(encoding="utf-8")))
    found: list[Pair] = []
    for source in tests:
        for name, body in _FUNC.findall(source.read_text(encoding="utf-8")):
            files = _test_pair(body, handles)
            if files is None or not all((repo / "data" / f).is_file() for f in files):
                continue
            breaking, names = _verdict(body, constant_levels)
            only = frozenset(_SINGLE.findall(body))
            found.append(Pair(*files, breaking, f"{source.name}:{name}", only, names))
    # A test that runs one check sees one side: the pair breaks when any of its tests expects a serious change.
    serious = {(p.base, p.revision) for p in found if p.breaking}
    for pair in found:
        pair.breaking = (pair.base, pair.revision) in serious
    return found


def _policy_checks(config: DiffConfig) -> set[str]:
    return {check for policy in config.policies.values() for check in policy.checks}


def _outside(pair: Pair, breaking: list[str], levels: dict[str, str], handlers: dict[str, str]) -> bool:
    """Whether oasdiff grades each of our breaking checks ERR/WARN in a check function the test did not run."""
    if not pair.only or not breaking:
        return False
    for check in breaking:
        ours = [o for o in levels if ours_for(o) == check and levels[o] in _SERIOUS]
        if not ours or any(handlers.get(o) in pair.only for o in ours):
            return False
    return True


def judge(repo: Path, pair: Pair, config: DiffConfig, today: date | None = None) -> Outcome:
    """Run the engine on one pair."""
    try:
        base, head = (load_file(repo / "data" / f) for f in (pair.base, pair.revision))
        findings = compare(base, head, config.severities, config, today)
    except Exception as error:  # a document the engine cannot read is a miss, listed with its error
        return Outcome(pair, [], False, error=f"{type(error).__name__}: {error}")

    def checks(*severities: Severity) -> list[str]:
        return sorted({f.check for f in findings if f.severity in severities} - {"api-version-not-bumped"})

    breaking = checks(Severity.BREAKING, Severity.CLIENT_BREAKING)  # both fail `make diff`
    by_policy = bool(breaking) and set(breaking) <= _policy_checks(config)
    return Outcome(pair, breaking, by_policy, warning_checks=checks(Severity.WARNING))


@dataclass
class Score:
    outcomes: list[Outcome]

    def _select(self, breaking: bool) -> list[Outcome]:
        return [o for o in self.outcomes if o.pair.breaking is breaking]

    @property
    def misses(self) -> list[Outcome]:
        return [o for o in self._select(True) if not o.detected]

    @property
    def false_alarms(self) -> list[Outcome]:
        return [o for o in self._select(False) if o.alarm]

    def summary(self) -> dict[str, int]:
        alarms = self.false_alarms
        return {
            "breaking_pairs": len(self._select(True)),
            "detected": len(self._select(True)) - len(self.misses),
            "non_breaking_pairs": len(self._select(False)),
            "false_alarms": len(alarms),
            "false_alarms_by_policy": sum(o.kind == "policy" for o in alarms),
            "false_alarms_outside_the_test": sum(o.kind == "outside" for o in alarms),
            "false_alarms_not_policy": sum(o.kind == "differs" for o in alarms),
        }


def score(repo: Path, config: DiffConfig, today: date | None = None) -> Score:
    """Every test's pair judged; a pair met by several tests is compared once."""
    levels, handlers = rule_levels(repo), rule_handlers(repo)
    judged: dict[tuple[str, str], Outcome] = {}
    outcomes = []
    for pair in pairs(repo):
        key = (pair.base, pair.revision)
        if key not in judged:
            judged[key] = judge(repo, pair, config, today)
        outcome = replace(judged[key], pair=pair)
        outcome.outside = not outcome.by_policy and _outside(pair, outcome.breaking_checks, levels, handlers)
        outcomes.append(outcome)
    return Score(outcomes)


def _lines(outcomes: list[Outcome], title: str) -> Iterator[str]:
    yield f"\n{title} ({len(outcomes)}):"
    for o in outcomes:
        said = o.error or ", ".join(
            [*o.breaking_checks, *(f"{c} (warning)" for c in o.warning_checks)]
            + ([f"[{o.kind}]"] if o.alarm and not o.pair.breaking else [])
        )
        expected = ", ".join(sorted(o.pair.expected)) or "-"
        yield f"  {o.pair.test}: {o.pair.name}  oasdiff: {expected}  ours: {said or 'nothing'}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", type=Path, help="a checkout of oasdiff/oasdiff")
    parser.add_argument("--config", type=Path, default=DEFAULT_CONFIG)
    parser.add_argument("--misses", action="store_true", help="list the breaking pairs we do not detect")
    parser.add_argument("--false-alarms", action="store_true", help="list the non-breaking pairs we call breaking")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    args = parser.parse_args(argv)
    if not (args.repo / "checker" / "rules.go").is_file():
        parser.error(f"{args.repo} is not an oasdiff checkout (no checker/rules.go)")
    result = score(args.repo, load_config(args.config))
    numbers = result.summary()
    if args.json:
        print(json.dumps(numbers, indent=2))
    else:
        print(
            f"breaking pairs detected: {numbers['detected']}/{numbers['breaking_pairs']}; "
            f"false alarms: {numbers['false_alarms']}/{numbers['non_breaking_pairs']} "
            f"({numbers['false_alarms_by_policy']} by documented policy, "
            f"{numbers['false_alarms_outside_the_test']} from checks the oasdiff test did not run, "
            f"{numbers['false_alarms_not_policy']} differing)"
        )
    if args.misses:
        print("\n".join(_lines(result.misses, "missed breaking pairs")))
    if args.false_alarms:
        print("\n".join(_lines(result.false_alarms, "false alarms")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
