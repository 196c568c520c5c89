"""The automation linked to a webhook listener: CEL steps over `ctx.trigger`, compiled once per listener version."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from celpy import celtypes

from accessgov.domain.cel import ExpressionError, compile_expression, run_program, to_cel

SUCCEEDED, SKIPPED, FAILED = "SUCCEEDED", "SKIPPED", "FAILED"
_TRIGGER, _STEPS = celtypes.StringType("trigger"), celtypes.StringType("steps")


def skip_reason(*, published: bool, enabled: bool) -> str | None:
    """Why an accepted event does not run the automation (the requirements' two causes), or None."""
    if not published:
        return "automation not published"
    if not enabled:
        return "trigger disabled"
    return None


@dataclass(frozen=True)
class Step:
    name: str
    expression: str
    program: Any  # celpy.Runner, or None when the expression does not compile
    error: str | None = None


@dataclass(frozen=True)
class Automation:
    """The compiled steps of one listener version."""

    steps: tuple[Step, ...]

    @classmethod
    def compile(cls, steps: Sequence[Mapping[str, str]]) -> Automation:
        compiled = []
        for index, step in enumerate(steps):
            name = step.get("name") or f"step{index + 1}"
            expression = step.get("expression", "")
            try:
                compiled.append(Step(name, expression, compile_expression(expression)))
            except ExpressionError as error:  # reported when the run reaches the step, as before
                compiled.append(Step(name, expression, None, str(error)))
        return cls(tuple(compiled))

    def run(self, payload: Any) -> tuple[str, str | None, dict[str, Any]]:
        """Evaluate the steps in order. Each step sees the trigger payload as `ctx.trigger` and earlier
        results as `ctx.steps.<name>`. Returns (status, reason, outputs by step name)."""
        outputs: dict[str, Any] = {}
        try:
            trigger = to_cel({"trigger": payload})["trigger"]
        except ExpressionError as error:
            return FAILED, f"trigger payload: {error}", outputs
        for step in self.steps:
            if step.program is None:
                return FAILED, f"step {step.name}: {step.error}", outputs
            try:
                ctx = celtypes.MapType()  # filled, not built from a dict: MapType(dict) checks it against typing ABCs
                ctx[_TRIGGER] = trigger
                ctx[_STEPS] = to_cel({"s": outputs})["s"]
                value = run_program(step.program, {"ctx": ctx}, step.expression)
            except ExpressionError as error:
                return FAILED, f"step {step.name}: {error}", outputs
            if isinstance(value, float) and not math.isfinite(value):
                value = str(value)  # JSON (and the database's JSON column) has no NaN or Infinity
            outputs[step.name] = value
        return SUCCEEDED, None, outputs
