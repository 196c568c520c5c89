"""Running the automation linked to a webhook listener: CEL steps over `ctx.trigger`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from accessgov.service.cel import ExpressionError, evaluate

SUCCEEDED, SKIPPED, FAILED = "SUCCEEDED", "SKIPPED", "FAILED"


def run_automation(
    *, published: bool, enabled: bool, steps: Sequence[Mapping[str, str]], payload: Any
) -> tuple[str, str | None, dict[str, Any]]:
    """Evaluate the steps in order. Each step sees the trigger payload as `ctx.trigger` and earlier
    results as `ctx.steps.<name>`. Returns (status, reason, outputs by step name)."""
    if not published:
        return SKIPPED, "automation not published", {}
    if not enabled:
        return SKIPPED, "trigger disabled", {}
    outputs: dict[str, Any] = {}
    for index, step in enumerate(steps):
        name = step.get("name") or f"step{index + 1}"
        try:
            outputs[name] = evaluate(step["expression"], {"ctx": {"trigger": payload, "steps": outputs}})
        except ExpressionError as error:
            return FAILED, f"step {name}: {error}", outputs
    return SUCCEEDED, None, outputs
