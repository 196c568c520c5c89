"""The mutant catalogue: every mutant (must be killed) and every control (must pass)."""

from __future__ import annotations

from tests.conformance.selftest.mutants import (
    controls,
    errors_auth,
    paging,
    restart,
    shapes,
    spec_text,
    webhook,
    webhook_jwt,
)
from tests.conformance.selftest.mutants.base import Mutant

MUTANTS: list[Mutant] = [
    *webhook.MUTANTS,
    *webhook_jwt.MUTANTS,
    *paging.MUTANTS,
    *restart.MUTANTS,
    *errors_auth.MUTANTS,
    *shapes.MUTANTS,
    *spec_text.MUTANTS,
]
CONTROLS: list[Mutant] = [
    *controls.CONTROLS,
    *restart.CONTROLS,
    *webhook.CONTROLS,
    *webhook_jwt.CONTROLS,
    *spec_text.CONTROLS,
]
ALL: list[Mutant] = [*MUTANTS, *CONTROLS]
BY_ID: dict[str, Mutant] = {mutant.id: mutant for mutant in ALL}
assert len(BY_ID) == len(ALL), "mutant ids must be unique"
