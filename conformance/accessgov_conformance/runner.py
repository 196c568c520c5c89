"""Runs the selected rules against the target, one fresh `Context` each, and collects their verdicts."""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import httpx

from .context import Context, Exchange, RunState
from .registry import Rule
from .transport import describe
from .verdicts import CheckOutcome, Verdict

MOCK_REASON = "needs state, a clock or a secret that a stateless mock does not keep"


@dataclass
class Result:
    """The verdict of one rule, with the exchange to reproduce when it did not pass."""

    rule: Rule
    verdict: Verdict
    reason: str = ""
    seconds: float = 0.0
    exchange: Exchange | None = None
    exchanges: list[Exchange] = field(default_factory=list)

    @property
    def before(self) -> list[Exchange]:
        """The check's exchanges before `exchange` (a replay's first delivery, for the reproduce lines)."""
        index = next((i for i, item in enumerate(self.exchanges) if item is self.exchange), len(self.exchanges))
        return self.exchanges[:index]


def run_rule(rule: Rule, state: RunState) -> Result:
    if state.config.is_mock and not rule.mock:
        return Result(rule, Verdict.NOT_APPLICABLE, MOCK_REASON)
    ctx = Context(state.config, state.client, rule.id, state.seed, state.salt, state.token_cache, run=state)
    started = time.monotonic()
    try:
        rule.check(ctx)
        verdict, reason = Verdict.PASS, ""
    except CheckOutcome as outcome:
        verdict, reason = outcome.verdict, outcome.reason
    except httpx.HTTPError as error:
        verdict, reason = Verdict.NO_EVIDENCE, describe(error)
    except Exception as error:  # a response the check could not read is the target's failure, said plainly
        where = traceback.extract_tb(error.__traceback__)[-1]
        verdict = Verdict.FAIL
        reason = f"unexpected response ({type(error).__name__}: {error} at {where.name}:{where.lineno})"
    state.record(ctx)
    transcript = [item.trimmed() for item in ctx.exchanges]
    # The exchange to reproduce: the first one the check held against the contract and found wanting, else
    # its last (a check that goes on after a failure must still show the failure).
    blamed = next((i for i, item in enumerate(ctx.exchanges) if item is ctx.blamed), len(transcript) - 1)
    last = transcript[blamed] if transcript and verdict.failed else None
    return Result(rule, verdict, reason, time.monotonic() - started, last, transcript)


def run(
    rules: Iterable[Rule],
    state: RunState,
    progress: Callable[[int, int, Result], None],
    starting: Callable[[int, int, str], None] | None = None,
) -> list[Result]:
    """Every rule in order; `starting(i, n, rule_id)` before each, `progress(i, n, result)` after it."""
    selected = list(rules)
    results = []
    for index, rule in enumerate(selected, 1):
        if starting is not None:
            starting(index, len(selected), rule.id)
        result = run_rule(rule, state)
        results.append(result)
        progress(index, len(selected), result)
    return results
