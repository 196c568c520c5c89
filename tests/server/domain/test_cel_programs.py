"""`domain.cel` runs celpy's transpiled programs with celpy's run-time casts made cheap (`_cheap_result_casts`):
every value and every error must be exactly what celpy gives with its own `Result`."""

from __future__ import annotations

import typing
from typing import Any

import celpy
import celpy.evaluation
import pytest

from accessgov.domain import cel

PAYLOAD = {
    "trigger": {
        "orderId": "A-1001",
        "amount": 42,
        "ratio": 0.5,
        "items": [{"sku": "X-1", "qty": 2}, {"sku": "Y-9", "qty": 1}],
        "tags": ["new", "vip"],
        "note": None,
    }
}
EXPRESSIONS = [
    'type(ctx.trigger) == map && "orderId" in ctx.trigger ? string(ctx.trigger["orderId"]) : ""',
    '"vip" in ctx.trigger.tags',
    '"gold" in ctx.trigger.tags',
    '"missing" in ctx.trigger',
    '"x" in ctx.trigger.amount',  # `in` on a number: an error
    "ctx.trigger.items.exists(i, i.qty > 1)",
    "ctx.trigger.items.all(i, i.qty > 0)",
    "ctx.trigger.items.map(i, i.sku)",
    "ctx.trigger.items.filter(i, i.qty == 1).size()",
    "ctx.trigger.amount * 2 + int(ctx.trigger.ratio * 10.0)",
    "ctx.trigger.amount / 0",  # division by zero: an error
    "ctx.trigger.absent",  # no such key: an error
    "ctx.trigger.note == null",
    "size(ctx.trigger.orderId) > 3 && ctx.trigger.orderId.startsWith('A-')",
    "has(ctx.trigger.orderId) && !has(ctx.trigger.absent)",  # celpy's transpiler fails `has`: the interpreter runs it
    "has(ctx.trigger.absent) ? 1 : 2",
    "has(ctx.trigger.note)",
    "nobody.knows",  # an undeclared variable: an error
    "9223372036854775807 + 1",  # int64 overflow: an error
]


def outcome(program: celpy.Runner, variables: dict[str, Any]) -> tuple[str, Any]:
    try:
        value = program.evaluate(dict(variables))
    except celpy.CELEvalError as error:
        return "error", error.args[0] if error.args else None
    if isinstance(value, celpy.CELEvalError):
        return "error", value.args[0] if value.args else None
    return "value", cel._to_json(value)


def test_the_casts_are_cheap() -> None:
    """A celpy upgrade that renames or reshapes `Result` loses the speed-up silently: this says so."""
    assert celpy.evaluation.Result is typing.Any


@pytest.mark.parametrize("expression", EXPRESSIONS)
def test_programs_give_what_they_give_with_celpys_result(expression: str, monkeypatch: pytest.MonkeyPatch) -> None:
    variables = cel.to_cel({"ctx": PAYLOAD})
    program = cel.compile_expression(expression)
    ours = outcome(program, variables)
    with monkeypatch.context() as patched:
        patched.setattr(celpy.evaluation, "Result", cel.CELPY_RESULT)
        assert typing.get_origin(celpy.evaluation.Result) is typing.Union
        assert outcome(program, variables) == ours
    if ours[0] == "value":
        assert cel.evaluate(expression, {"ctx": PAYLOAD}) == ours[1]
    else:
        with pytest.raises(cel.ExpressionError):
            cel.evaluate(expression, {"ctx": PAYLOAD})


def test_values_are_those_of_the_interpreter() -> None:
    variables = cel.to_cel({"ctx": PAYLOAD})
    interpreter = celpy.Environment()  # celpy's default runner: the tree-walking interpreter
    for expression in EXPRESSIONS:
        ours = outcome(cel.compile_expression(expression), variables)
        theirs = outcome(interpreter.program(interpreter.compile(expression)), variables)
        assert ours[0] == theirs[0], expression  # error messages differ between celpy's two runners
        if ours[0] == "value":
            assert ours == theirs, expression


def test_the_has_macro_answers_true_or_false_in_every_position() -> None:
    assert cel.evaluate("!has(ctx.trigger.absent) && has(ctx.trigger.orderId)", {"ctx": PAYLOAD}) is True
    assert cel.evaluate("has(ctx.trigger.absent) ? 'yes' : 'no'", {"ctx": PAYLOAD}) == "no"
    transpiler = celpy.Environment(runner_class=celpy.CompiledRunner)
    program = transpiler.program(transpiler.compile("!has(ctx.trigger.absent)"))
    # Why the interpreter runs these: if celpy's transpiler answers here one day, this fails and it can go.
    assert outcome(program, cel.to_cel({"ctx": PAYLOAD}))[0] == "error"
