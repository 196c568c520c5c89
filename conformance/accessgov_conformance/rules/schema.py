"""Rules that span the run: Schemathesis' schema checks, and evidence that every operation was served."""

from __future__ import annotations

from .. import schema_part, spec
from ..context import Context, RunState
from ..curl import hide_secrets
from ..registry import rule
from ..verdicts import Fail, NoEvidence


def _run(ctx: Context) -> RunState:
    """The run these rules judge as a whole (its exchanges, the schema part's statuses)."""
    if ctx.run is None:
        raise NoEvidence(f"{ctx.rule_id} judges a whole run, and was checked outside one")
    return ctx.run


@rule(
    "SC-001",
    family="schema",
    title="Responses conform to the OpenAPI document (Schemathesis)",
    text="Under Schemathesis' generated requests (examples, coverage, fuzzing, stateful links), every response "
    "has a documented status, a body and headers matching its schema, and schema-invalid requests are refused.",
    spec="generated/variants/public.json (the public contract)",
    requirements="Endpoints; Errors",
    mock=True,
)
def schemathesis_checks(ctx: Context) -> None:
    state = _run(ctx)
    options = state.schema
    if options is None:
        raise NoEvidence("the schema part runs from the command line only (accessgov-conformance run)")
    if ctx.config.source is None:
        raise NoEvidence("the schema part needs the configuration as a file")
    result = schema_part.run(
        ctx.config.base_url,
        ctx.config.source,
        ctx.seed,
        options.report_dir / "schemathesis",
        options.passthrough,
        options.spec,
        mock=ctx.config.is_mock,
        timeout=options.timeout,
        retry_wait=state.retry_budget.seconds_left,
        on_wait=state.retry_budget.spent,
    )
    state.schema_statuses = result.statuses
    state.schema_evidence = result.evidence
    if result.failures:
        shown = hide_secrets("\n".join(result.failures[:10]), ctx.config)
        raise Fail(f"{len(result.failures)} Schemathesis failure(s) (full log: {result.log}):\n{shown}")
    if result.exit_code != 0:
        raise Fail(f"Schemathesis exited {result.exit_code} (log: {result.log})")


@rule(
    "EV-OPS-001",
    family="evidence",
    title="Every operation was served at least once",
    text="A run passes only with evidence: each operation of the contract answered at least one request of the "
    "run with a 2xx of a documented status, the contract's content type and a body that matches its schema (all "
    "401/429/5xx, an HTML page, a truncated or schema-breaking body means nothing was shown).",
    spec="generated/variants/public.json#/paths",
    requirements="Endpoints",
    mock=True,
)
def every_operation_served(ctx: Context) -> None:
    operations = sorted(spec.OPERATIONS)
    if not ctx.config.oauth_client_id:
        operations.remove(("POST", spec.TOKEN))  # no OAuth client configured: that operation is not in play
    state = _run(ctx)
    parts: dict[str, tuple[dict[tuple[str, str], list[int]], dict[tuple[str, str], str | None]]] = {}
    if state.history:
        statuses: dict[tuple[str, str], list[int]] = {operation: [] for operation in operations}
        for exchange in state.history:
            if exchange.operation in statuses:
                statuses[exchange.operation].append(exchange.status)
        parts["the behavioural checks"] = (statuses, state.evidence)
    if state.schema_statuses is not None:
        # Judged on its own: Schemathesis' checks pass on documented statuses, 429 included, so a part that was
        # only ever refused would look green next to the behavioural checks' successes.
        schema = {op: list(state.schema_statuses.get(op, [])) for op in operations}
        parts["Schemathesis"] = (schema, state.schema_evidence or {})
    if not parts:
        raise NoEvidence("no request was sent")
    problems = []
    for part, (counts, evidence) in parts.items():
        for operation in operations:
            if operation in evidence and evidence[operation] is None:
                continue
            codes = counts.get(operation, [])
            statuses_seen = ", ".join(f"{code} x{codes.count(code)}" for code in sorted(set(codes))) or "none"
            why = evidence.get(operation) or "no 2xx"
            problems.append(f"{part}: {operation[0]} {operation[1]} got {why} ({statuses_seen})")
    if problems:
        raise NoEvidence("no successful call: " + "; ".join(problems))
