"""What a check concludes: the verdicts, and the exceptions a check raises for each verdict other than a pass.

A leaf of the kit (it imports nothing of it): the rules, the run context and the reports all import their verdict
types from here, so none of them has to import another to name a failure.

A check function returns normally when the target honours its rule. It raises `Fail` when the target breaks it,
`NotApplicable` when the target or the configuration cannot show it either way (never a pass), and `NoEvidence`
when a configured fixture turns out unusable or the target refused to serve the check at all (everything
401/429/5xx): that fails the run too, with the reason.
"""

from __future__ import annotations

import enum


class Verdict(enum.StrEnum):
    PASS = "pass"
    FAIL = "fail"
    NOT_APPLICABLE = "not applicable"
    NO_EVIDENCE = "no evidence"

    @property
    def failed(self) -> bool:
        return self in (Verdict.FAIL, Verdict.NO_EVIDENCE)


class CheckOutcome(Exception):
    """A check's verdict other than a pass, with the reason."""

    verdict: Verdict

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Fail(CheckOutcome):
    verdict = Verdict.FAIL


class NotApplicable(CheckOutcome):
    verdict = Verdict.NOT_APPLICABLE


class NoEvidence(CheckOutcome):
    verdict = Verdict.NO_EVIDENCE
