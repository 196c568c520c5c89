"""The table of every oasdiff check id and what ours does with it, for `docs/diff.md`.

    python -m accessgov_tools.diffcheck.coverage OASDIFF_REPO > table.md

An oasdiff id is *covered* when ours has the same id, or the same check under our location naming (a request or
response body is `*-property-*` here, a parameter's property is the parameter's). It *agrees* when our severity
under this contract's config is oasdiff's level (ERR breaking, WARN warning, INFO info), *differs by policy* when
a named policy of the config sets it, and *differs* otherwise (the reason is in the check's meaning, `rules/`).
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

from accessgov_tools.diffcheck.config import DiffConfig, load_config
from accessgov_tools.diffcheck.oasdiff import ours_for, rule_levels, why_not
from accessgov_tools.diffcheck.rules import CHECKS

LEVEL = {"ERR": "breaking", "WARN": "warning", "INFO": "info"}


def verdict(oasdiff_id: str, level: str, config: DiffConfig) -> tuple[str, str | None]:
    ours = ours_for(oasdiff_id)
    if ours is None:
        return f"not covered: {why_not(oasdiff_id)}", None
    severity = config.severities.get(ours, CHECKS[ours].severity).value
    if severity == LEVEL[level]:
        return "agrees", ours
    for policy in config.policies.values():
        if ours in policy.checks:
            return f"differs by policy `{policy.name}`", ours
    return f"differs ({severity})", ours


def table(repo: Path, config: DiffConfig) -> str:
    rows: list[str] = []
    counts: Counter[str] = Counter()
    for oasdiff_id, level in sorted(rule_levels(repo).items()):
        status, ours = verdict(oasdiff_id, level, config)
        counts[status.split(" (")[0].split(" `")[0].split(":")[0]] += 1
        counts["covered"] += ours is not None
        rows.append(f"| `{oasdiff_id}` | {level} | {f'`{ours}`' if ours else '—'} | {status} |")
    head = [
        f"{len(rows)} oasdiff checks: {counts['covered']} covered, {counts['agrees']} agreeing, "
        f"{counts['differs by policy']} differing by documented policy, {counts['differs']} differing otherwise, "
        f"{counts['not covered']} not covered.",
        "",
        "| oasdiff check | level | ours | status |",
        "|---|---|---|---|",
    ]
    return "\n".join([*head, *rows]) + "\n"


if __name__ == "__main__":
    sys.stdout.write(table(Path(sys.argv[1]), load_config()))
