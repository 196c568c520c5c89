"""`accessgov-conformance`: run the kit against a target, or list its rules.

    accessgov-conformance run --base-url URL --config FILE [--checks conformance|schema|all] [--report-dir DIR]
                              [--seed N] [--only RULE_ID,...] [schemathesis options]
    accessgov-conformance rules [--coverage]

Exit status of `run`: 0 when every applicable check passed with evidence, 1 when a check failed or showed no
evidence, 2 for a usage or configuration error. Options `run` does not know are passed to `schemathesis run`.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import time
from pathlib import Path

from . import coverage, preflight, reports, spec, transport
from . import markdown as md
from .config import ConfigError, load
from .context import Context, RunState, SchemaOptions
from .registry import Rule
from .rules import all_rules
from .runner import run
from .verdicts import Verdict

CHECKS = ("conformance", "schema", "all")
SCHEMA_RULES = {"SC-001"}
ALWAYS = {"EV-OPS-001"}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="accessgov-conformance",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        allow_abbrev=False,
    )
    commands = parser.add_subparsers(dest="command", required=True)
    run_cmd = commands.add_parser("run", help="check a target against the contract", allow_abbrev=False)
    run_cmd.add_argument("--base-url", help="the target's base URL (overrides [target].base_url)")
    run_cmd.add_argument("--config", required=True, help="the TOML configuration (see conformance.example.toml)")
    run_cmd.add_argument("--checks", choices=CHECKS, default="all", help="behavioural rules, Schemathesis, or both")
    run_cmd.add_argument("--report-dir", default="conformance-report", help="where junit.xml and summary.md go")
    run_cmd.add_argument("--seed", type=int, default=1, help="seed of every generated value (default 1)")
    run_cmd.add_argument("--only", default="", help="comma-separated rule ids to run (EV-OPS-001 only if named)")
    run_cmd.add_argument("--spec", help="the OpenAPI document for the schema part (default: the packaged one)")
    run_cmd.add_argument("--timeout", type=float, default=30.0, help="seconds per request, in total (default 30)")
    run_cmd.add_argument(
        "--max-retry-wait", type=float, help="seconds a run may wait out 429s in all (overrides [target])"
    )
    run_cmd.add_argument(
        "--credential-age",
        type=float,
        help="seconds an early credential is kept before the lifetime rules use it again (overrides [target])",
    )
    rules_cmd = commands.add_parser("rules", help="list every rule: id, title, where the contract states it")
    shown = rules_cmd.add_mutually_exclusive_group()
    shown.add_argument(
        "--coverage", action="store_true", help="the traceability table: each requirement, its rules and status"
    )
    shown.add_argument("--markdown", action="store_true", help="the rules as a Markdown table")
    rules_cmd.add_argument(
        "--spec", help="with --coverage: the contract whose text is traced (default: the packaged public contract)"
    )
    return parser


def select(rules: list[Rule], checks: str, only: str) -> list[Rule]:
    """The rules of `--checks`, narrowed to `--only` (unknown ids are a usage error). The evidence rule runs
    with either part; `--only` leaves it out unless named (a subset does not call every operation)."""
    wanted = {item.strip() for item in only.split(",") if item.strip()}
    known = {item.id for item in rules}
    unknown = wanted - known
    if unknown:
        raise ConfigError(f"--only names unknown rule id(s): {', '.join(sorted(unknown))} (see the rules command)")
    chosen = []
    for item in rules:
        in_part = item.id in ALWAYS or (item.id in SCHEMA_RULES) == (checks == "schema") or checks == "all"
        if in_part and (not wanted or item.id in wanted):
            chosen.append(item)
    return chosen


def list_rules() -> int:
    """Each rule: its id and title, then where the contract states it and what it applies to."""
    pad = " " * 17
    for item in all_rules():
        applies = "implementations and mocks" if item.mock else "implementations (a mock: not applicable)"
        lines = [f"{item.id:<16} {item.title}", *(pad + line for line in item.sources), f"{pad}applies to: {applies}"]
        print("\n".join(lines))
    return 0


def run_command(args: argparse.Namespace, passthrough: list[str]) -> int:
    try:
        config = load(args.config, base_url=args.base_url)
        if args.max_retry_wait is not None:
            if args.max_retry_wait < 0:
                raise ConfigError("--max-retry-wait must not be negative")
            config = dataclasses.replace(config, max_retry_wait=args.max_retry_wait)
        if args.credential_age is not None:
            if args.credential_age <= 0:
                raise ConfigError("--credential-age must be a positive number of seconds")
            config = dataclasses.replace(config, credential_age=args.credential_age)
        chosen = select(all_rules(), args.checks, args.only)
    except ConfigError as error:
        print(f"accessgov-conformance: {error}", file=sys.stderr)
        return 2
    if passthrough and args.checks == "conformance":
        print(f"accessgov-conformance: {' '.join(passthrough)}: options for Schemathesis need --checks schema|all",
              file=sys.stderr)  # fmt: skip
        return 2
    report_dir = Path(args.report_dir)
    print(f"accessgov-conformance: {len(chosen)} rule(s) against {config.base_url} ({config.kind}), seed {args.seed}",
          file=sys.stderr)  # fmt: skip
    started = time.monotonic()
    with transport.client(args.timeout) as client:
        state = RunState(config, args.seed, client)
        spec_path = Path(args.spec) if args.spec else spec.default_spec_path()
        state.schema = SchemaOptions(report_dir, passthrough, spec_path, args.timeout)
        probe = Context(config, client, "preflight", args.seed, state.salt, state.token_cache, run=state)
        stopped = preflight.problem(probe)
        if stopped is not None:
            print(f"accessgov-conformance: cannot check {config.base_url}: {stopped}", file=sys.stderr)
            return 2
        printer = reports.progress()
        budget = state.retry_budget
        budget.on_wait = lambda seconds, why: printer.waiting(seconds, why, budget.seconds_left)
        results = run(chosen, state, printer, printer.started)
    seconds = time.monotonic() - started
    junit_path, summary_path = reports.write(results, config, report_dir, seconds)
    failed = [result for result in results if result.verdict.failed]
    for result in failed:
        print(f"\n{result.rule.id} {result.verdict.value.upper()}: {result.rule.title}", file=sys.stderr)
        print(md.visible(reports.failure_text(result, config), "\n\t"), file=sys.stderr)  # no terminal escapes
    passed = sum(result.verdict == Verdict.PASS for result in results)
    na = sum(result.verdict == Verdict.NOT_APPLICABLE for result in results)
    enabling = reports.what_enables(results)
    if enabling:
        print(f"\n{na} rule(s) not applicable; what would enable them:\n{enabling}", file=sys.stderr)
    print(
        f"\n{passed} passed, {len(failed)} failed or without evidence, {na} not applicable in {seconds:.1f} s; "
        f"reports: {junit_path}, {summary_path}",
        file=sys.stderr,
    )
    return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
    """The command line; output cut short by its reader (`rules | head`) ends the command quietly."""
    try:
        code = _main(argv)
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader has what it wanted. Point stdout at /dev/null so that the interpreter's own flush at exit
        # does not raise the same error again (https://docs.python.org/3/library/signal.html#note-on-sigpipe).
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    return code


def _main(argv: list[str] | None) -> int:
    parser = _parser()
    args, passthrough = parser.parse_known_args(argv)
    if args.command == "rules":
        if passthrough:
            parser.error(f"unrecognized arguments: {' '.join(passthrough)}")
        if args.markdown:
            print(coverage.rules_markdown())
            return 0
        if args.spec and not args.coverage:
            parser.error("--spec goes with --coverage")
        return coverage.print_table(spec_path=args.spec) if args.coverage else list_rules()
    return run_command(args, passthrough)


if __name__ == "__main__":
    sys.exit(main())
