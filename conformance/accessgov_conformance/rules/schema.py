"""Rules that span the run: Schemathesis' schema checks, and evidence that every operation was served."""

from __future__ import annotations

from pathlib import Path

from .. import schema_part, spec
from ..context import Context
from ..curl import hide_secrets
from ..registry import Fail, NoEvidence, rule


@rule(
    "SC-001",
    family="schema",
    title="Responses conform to the OpenAPI document (Schemathesis)",
    text="Under Schemathesis' generated requests (examples, coverage, fuzzing, stateful links), every response "
    "has a documented status, a body and headers matching its schema, and schema-invalid requests are refused.",
    spec="generated/variants/public.json (the public contract)",
    seed="Endpoints; Errors",
    mock=True,
)
def schemathesis_checks(ctx: Context) -> None:
    options = ctx.run.options
    if ctx.config.source is None:
        raise NoEvidence("the schema part needs the configuration as a file")
    result = schema_part.run(
        ctx.config.base_url,
        ctx.config.source,
        ctx.seed,
        Path(str(options["report_dir"])) / "schemathesis",
        list(options.get("passthrough", [])),  # type: ignore[call-overload]
        Path(str(options["spec"])),
        mock=ctx.config.is_mock,
    )
    ctx.run.schema_statuses = result.statuses
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
    "run with 2xx (all 401/429/5xx means nothing was shown).",
    spec="generated/variants/public.json#/paths",
    seed="Endpoints",
    mock=True,
)
def every_operation_served(ctx: Context) -> None:
    operations = sorted(spec.OPERATIONS)
    if not ctx.config.oauth_client_id:
        operations.remove(("POST", spec.TOKEN))  # no OAuth client configured: that operation is not in play
    parts: dict[str, dict[tuple[str, str], list[int]]] = {}
    if ctx.run.history:
        parts["the behavioural checks"] = {operation: [] for operation in operations}
        for exchange in ctx.run.history:
            if exchange.operation in parts["the behavioural checks"]:
                parts["the behavioural checks"][exchange.operation].append(exchange.status)
    if ctx.run.schema_statuses is not None:
        # Judged on its own: Schemathesis' checks pass on documented statuses, 429 included, so a part that was
        # only ever refused would look green next to the behavioural checks' successes.
        parts["Schemathesis"] = {op: list(ctx.run.schema_statuses.get(op, [])) for op in operations}
    if not parts:
        raise NoEvidence("no request was sent")
    problems = []
    for part, counts in parts.items():
        for (method, path), codes in counts.items():
            if not any(200 <= code < 300 for code in codes):
                statuses = ", ".join(f"{code} x{codes.count(code)}" for code in sorted(set(codes))) or "none"
                problems.append(f"{part}: {method} {path} got no 2xx ({statuses})")
    if problems:
        raise NoEvidence("no successful call: " + "; ".join(problems))
