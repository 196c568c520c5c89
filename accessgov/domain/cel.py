"""CEL expressions (cel-python) used by policy rules and webhook automations.

Programs are transpiled to Python once (celpy's `CompiledRunner`; measured 4-5x faster per evaluation than its
interpreter on the demo automation). celpy runs a transpiled program through one module global
(`base_activation`), so evaluations are serialised by a lock: two threads must not see each other's variables.
"""

from __future__ import annotations

import logging
import re
import threading
import typing
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

import celpy
import celpy.evaluation
from celpy import adapter as celpy_adapter
from celpy import celtypes
from celpy.celparser import CELParseError
from celpy.evaluation import CELEvalError


def _cheap_result_casts() -> None:
    """Make celpy's run-time `typing.cast`s cheap: each variable lookup and `in` of a transpiled program casts to
    a Union over `Result`, ~15 types whose hash typing's cache recomputes each time (a quarter of a run, profiled).
    A cast returns its argument unchanged and celpy uses `Result` only in casts and annotations, so `Any` in its
    place changes no value. Measured: the demo automation's run ~195 -> ~88 us."""
    if typing.get_origin(getattr(celpy.evaluation, "Result", None)) is typing.Union:
        celpy.evaluation.Result = Any  # type: ignore[assignment]


CELPY_RESULT = getattr(celpy.evaluation, "Result", None)  # as celpy defines it (tests compare against it)
_cheap_result_casts()

_HAS_MACRO = re.compile(r"\bhas\s*\(")
_MAKING = threading.Lock()


@lru_cache(maxsize=1)
def _environments() -> tuple[celpy.Environment, celpy.Environment]:
    """The transpiler's environment and the interpreter's, made on first use: their parsers cost ~0.5 CPU-s, which
    a process that never compiles an expression (the CLI, most servers) need not pay at import."""
    with _MAKING:
        # celpy builds one parser per process with the tree class of the first Environment; the transpiler needs
        # its own, so it is made first.
        transpiler = celpy.Environment(runner_class=celpy.CompiledRunner)
        # celpy 0.5.0's transpiler makes `has(...)` a Python bool, which `!`, `&&`, `||` and `? :` then refuse (an
        # evaluation error where CEL says true or false): expressions using the macro run on celpy's interpreter,
        # which implements it (slower, and only those). Any `has(` in the text counts, a string literal's too.
        return transpiler, celpy.Environment()


_EVALUATING = threading.Lock()
# celpy logs every failed evaluation at ERROR before raising; the caller reports the failure instead.
logging.getLogger("celpy").setLevel(logging.CRITICAL)


class ExpressionError(ValueError):
    """An expression that does not compile, or fails to evaluate on the given data."""


@lru_cache(maxsize=1024)
def compile_expression(expression: str) -> celpy.Runner:
    """The compiled program of `expression` (compiled once per distinct text)."""
    transpiler, interpreter = _environments()
    environment = interpreter if _HAS_MACRO.search(expression) else transpiler
    try:
        return environment.program(environment.compile(expression))
    except CELParseError as error:
        raise ExpressionError(f"cannot compile {expression!r}: {error}") from None
    except Exception as error:  # the compiler's own failures (deep nesting, odd tokens) are a bad expression too
        raise ExpressionError(f"cannot compile {expression!r}: {type(error).__name__}") from None


INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


def to_cel(activation: Mapping[str, Any]) -> dict[str, Any]:
    """JSON-shaped variables as CEL values.

    CEL integers are 64-bit; a JSON integer beyond that is taken as a double, as JSON numbers are in CEL's
    own JSON mapping (or as its decimal text when even a double cannot hold it). Data that still cannot be
    converted (nesting deeper than the converter's recursion) is an `ExpressionError`, never a crash.
    """
    try:
        return {name: json_to_cel(value) for name, value in activation.items()}
    except (ValueError, OverflowError):
        pass  # an integer out of range, somewhere: retry with those widened (rare, so no walk up front)
    except (TypeError, RecursionError) as error:
        raise ExpressionError(f"the data cannot be represented in CEL: {type(error).__name__}") from None
    try:
        return {name: json_to_cel(_widen(value)) for name, value in activation.items()}
    except (ValueError, TypeError, OverflowError, RecursionError) as error:
        raise ExpressionError(f"the data cannot be represented in CEL: {type(error).__name__}") from None


_new_int, _new_float, _new_str = int.__new__, float.__new__, str.__new__


def json_to_cel(value: Any) -> Any:
    """`celpy.json_to_cel`, the same values of the same types, ~7x faster on a typical payload (celpy's `IntType`
    builds a closure per call: ~20 % of the runner's CPU). Plain JSON types are built here, anything else goes to
    celpy; an integer outside int64 raises `ValueError("overflow")`, as `IntType` does."""
    kind = type(value)
    if kind is str:
        return _new_str(celtypes.StringType, value)
    if kind is int:
        if INT64_MIN <= value <= INT64_MAX:
            return _new_int(celtypes.IntType, value)
        raise ValueError("overflow")
    if kind is dict:
        result = celtypes.MapType()
        for key, item in value.items():
            result[json_to_cel(key)] = json_to_cel(item)
        return result
    if kind is list:
        return celtypes.ListType([json_to_cel(item) for item in value])
    if kind is bool:
        return celtypes.BoolType(value)
    if kind is float:
        return _new_float(celtypes.DoubleType, value)
    if value is None:
        return None
    return celpy_adapter.json_to_cel(value)


def _widen(value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, int | dict | list):
        return value
    if isinstance(value, int):
        if INT64_MIN <= value <= INT64_MAX:
            return value
        try:
            return float(value)
        except OverflowError:
            return str(value)
    if isinstance(value, dict):
        return {key: _widen(item) for key, item in value.items()}
    return [_widen(item) for item in value]


def run_program(program: celpy.Runner, variables: Mapping[str, Any], expression: str = "") -> Any:
    """Run a compiled program over `to_cel` variables; return a plain Python (JSON) value."""
    try:
        with _EVALUATING:
            result = program.evaluate(dict(variables))
    except CELEvalError as error:
        raise ExpressionError(f"{expression!r} failed: {error.args[0] if error.args else error}") from None
    except (ValueError, TypeError, OverflowError, RecursionError, ArithmeticError) as error:
        raise ExpressionError(f"{expression!r} failed: {type(error).__name__}: {error}") from None
    if isinstance(result, CELEvalError):
        raise ExpressionError(f"{expression!r} failed: {result.args[0] if result.args else result}")
    return _to_json(result)


def evaluate(expression: str, activation: Mapping[str, Any]) -> Any:
    """Evaluate `expression` with JSON-shaped variables; return a plain Python (JSON) value."""
    return run_program(compile_expression(expression), to_cel(activation), expression)


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
