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
    counts: dict[tuple[str, str], list[int]] = {operation: [] for operation in sorted(spec.OPERATIONS)}
    for exchange in ctx.run.history:
        if exchange.operation in counts:
            counts[exchange.operation].append(exchange.status)
    for operation, statuses in ctx.run.schema_statuses.items():
        if operation in counts:
            counts[operation].extend(statuses)
    if not ctx.config.oauth_client_id:
        counts.pop(("POST", spec.TOKEN))  # the configuration has no OAuth client: that operation is not in play
    unserved = {op: codes for op, codes in counts.items() if not any(200 <= code < 300 for code in codes)}
    if unserved:
        detail = "; ".join(
            f"{method} {path}: {len(codes)} request(s), statuses {sorted(set(codes)) or 'none'}"
            for (method, path), codes in unserved.items()
        )
        raise NoEvidence(f"no successful call of: {detail}")
