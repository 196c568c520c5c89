"""CEL expressions (cel-python) used by policy rules and webhook automations."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import celpy


class ExpressionError(ValueError):
    """An expression that does not compile or fails to evaluate."""


@lru_cache(maxsize=512)
def _program(expression: str) -> celpy.Runner:
    env = celpy.Environment()
    try:
        return env.program(env.compile(expression))
    except celpy.CELParseError as error:
        raise ExpressionError(f"cannot compile {expression!r}: {error}") from None


def evaluate(expression: str, activation: dict[str, Any]) -> Any:
    """Evaluate `expression` with JSON-shaped variables; return a plain Python (JSON) value."""
    variables = {name: celpy.json_to_cel(value) for name, value in activation.items()}
    try:
        result = _program(expression).evaluate(variables)
    except celpy.CELEvalError as error:
        raise ExpressionError(f"{expression!r} failed: {error.args[0] if error.args else error}") from None
    if isinstance(result, celpy.CELEvalError):
        raise ExpressionError(f"{expression!r} failed: {result.args[0] if result.args else result}")
    return _to_json(result)


def _to_json(value: Any) -> Any:
    if isinstance(value, celpy.celtypes.BoolType):
        return bool(value)
    if isinstance(value, celpy.celtypes.IntType | celpy.celtypes.UintType):
        return int(value)
    if isinstance(value, celpy.celtypes.DoubleType):
        return float(value)
    if isinstance(value, celpy.celtypes.StringType):
        return str(value)
    if isinstance(value, dict):
        return {str(_to_json(k)): _to_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_to_json(v) for v in value]
    if value is None or isinstance(value, celpy.celtypes.NullType):
        return None
    return str(value)
