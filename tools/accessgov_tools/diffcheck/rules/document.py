"""The document as a whole: a breaking change needs a new `info.version`."""

from __future__ import annotations

from collections.abc import Iterator

from accessgov_tools.diffcheck.model import show
from accessgov_tools.diffcheck.rules.registry import WARNING, Context, Rule, RuleKey, Said, check
from accessgov_tools.diffcheck.walk.differences import VersionCompared

API_VERSION_NOT_BUMPED = check("api-version-not-bumped", WARNING, "breaking change without a new info.version")


def version_compared(d: VersionCompared, context: Context) -> Iterator[Said]:
    # Client-breaking counts too: it needs a major version as a breaking change does (one table, one rule).
    breaking = sum(f.severity.breaks for f in context.findings)
    if breaking and d.before == d.after:
        yield Said(
            API_VERSION_NOT_BUMPED, f"{breaking} breaking change(s) but `info.version` is still {show(d.after)}", d.head
        )


RULES: dict[RuleKey, Rule] = {VersionCompared: version_compared}
