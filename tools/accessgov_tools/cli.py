"""`accessgov-tools COMMAND [ARGS ...]`: the reviewers' tools behind one console script.

Each command hands its arguments to the tool's own `main` (`accessgov-tools COMMAND --help` shows them); the Make
targets of the repository call these commands.

Exit status, the same in every command: 0 valid / no breaking change, 1 a finding (a breaking change, an invalid
document, a lint finding, a failed version rule, a stale generated file), 2 the input could not be judged (a document
over a limit, unreadable, a reference that leaves the spec root or the machine, a cycle) or an internal error: one line
on stderr, never a traceback. The options before COMMAND set the document limits and the network allow-list of every
command (docs/document-limits.md).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence

from accessgov_tools import limits, refs
from accessgov_tools.display import TerminalSafe
from accessgov_tools.loader import LoadError
from accessgov_tools.paths import REPO

Main = Callable[[list[str] | None], int | None]


def _tool(module: str, *prefix: str) -> Callable[[list[str]], int]:
    """A command running `module.main(prefix + args)`; the module is imported when the command runs."""

    def run(args: list[str]) -> int:
        main: Main = importlib.import_module(f"accessgov_tools.{module}").main
        return main([*prefix, *args]) or 0

    return run


def _generate(args: list[str]) -> int:
    """Regenerate generated/ from spec/: the bundle, the overlay variants (validated), the models and the client,
    the stub server, the TypeScript SDK's generated part (sdk-ts/src/generated) and its version; skipped when
    nothing changed since the last generate or check-generated (`--force`)."""
    parser = argparse.ArgumentParser(prog="accessgov-tools generate", description=_generate.__doc__)
    parser.add_argument("--force", action="store_true", help="regenerate even when nothing changed")
    options = parser.parse_args(args)
    from accessgov_tools import generation_cache

    if not options.force and generation_cache.fresh():
        print(
            "generate: nothing to do (spec/, the generators and generated/ unchanged since the last run; --force, or"
            " make generate FORCE=1, regenerates)"
        )
        return 0
    # Imported once there is work: the generators and the validator take about a second to import.
    from accessgov_tools import bundle, generate, generate_stub, generate_ts, overlay, validate

    steps: list[Callable[[], int | None]] = [
        lambda: bundle.main([]),
        lambda: overlay.main(["variants"]),
        lambda: validate.main([str(path) for path in sorted((REPO / "generated" / "variants").glob("*.yaml"))]),
        lambda: generate.main([]),
        lambda: generate_stub.main([]),
        lambda: generate_ts.main([]),
        lambda: generation_cache.main(["record"]),
    ]
    for step in steps:
        if code := step():
            return code
    return 0


def _mock(args: list[str]) -> int:
    """Serve the generated stub server of the checkout (`generated/stub_server`, a mock of the contract); needs
    the `mock` extra (`pip install './tools[mock]'`): uvicorn, orjson, httptools."""
    root = str(REPO)
    if root not in sys.path:
        sys.path.insert(0, root)
    stub_main: Main = importlib.import_module("generated.stub_server.__main__").main
    return stub_main(args) or 0


COMMANDS: dict[str, tuple[str, Callable[[list[str]], int]]] = {
    "bundle": ("bundle spec/ into generated/openapi.{yaml,json}", _tool("bundle")),
    "validate": ("validate OpenAPI documents (default: the bundle)", _tool("validate")),
    "lint": ("the house rules (and Redocly CLI with --redocly) on the bundle", _tool("lint")),
    "overlay": (
        "apply overlays: `variants` (overlays/ -> generated/variants/) or `apply OVERLAY DOC`",
        _tool("overlay"),
    ),
    "overlay-conformance": (
        "score the overlay engine on the Overlay Specification's material",
        _tool("overlay_conformance"),
    ),
    "diff": ("breaking-change report against a git revision", _tool("diffcheck.cli")),
    "diff-history": ("diff real public API revision pairs from git mirrors", _tool("diffcheck.history")),
    "diff-score": ("score the diff engine on oasdiff's checker test pairs", _tool("diffcheck.score")),
    "changelog": ("contract changes since a revision as a changelog section", _tool("release.cli", "changelog")),
    "release-check": ("fail unless info.version is bumped as the changes need", _tool("release.cli", "check")),
    "summary": ("a pull request's job summary: report, changelog preview, version verdict", _tool("summary")),
    "generate": ("regenerate generated/ from spec/ (skipped when nothing changed)", _generate),
    "check-generated": ("fail with a diff when generated/ is not what spec/ produces", _tool("check_generated")),
    "docs": ("static HTML reference of the bundle (Redocly CLI)", _tool("build_docs")),
    "sdk": ("build the SDK's wheel and sdist (generated/client)", _tool("release.build_sdk")),
    "mock": ("serve the generated stub server (a mock of the contract)", _mock),
}


def guarded(run: Callable[[], int | None], prog: str = "accessgov-tools") -> int:
    """`run()`'s exit status, with every way it can fail mapped to one line on stderr and exit 2: a document it could
    not read or judge, a tool's own `SystemExit("error: ...")`, an internal error (a bug, a recursion too deep, no
    memory left). 1 stays what it means: a finding. While it runs, stdout and stderr are `display.TerminalSafe`: no
    document text reaches a terminal or a CI log raw, whatever message quotes it."""
    streams = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = TerminalSafe(sys.stdout), TerminalSafe(sys.stderr)
    try:
        return _guarded(run, prog)
    finally:
        sys.stdout, sys.stderr = streams


def _guarded(run: Callable[[], int | None], prog: str) -> int:
    try:
        return run() or 0
    except SystemExit as stop:
        if stop.code is None or isinstance(stop.code, int):
            return stop.code or 0
        print(str(stop.code), file=sys.stderr)
        return 2
    except LoadError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130
    except RecursionError:
        print(f"error: {prog}: internal error: a structure nested too deeply to walk (RecursionError)", file=sys.stderr)
        return 2
    except MemoryError:
        print(f"error: {prog}: out of memory (MemoryError)", file=sys.stderr)
        return 2
    except Exception as error:  # the guard of last resort: a crash is never 1 (a finding) nor a traceback
        message = " ".join(str(error).split())[:500]
        print(f"error: {prog}: internal error: {type(error).__name__}: {message}", file=sys.stderr)
        return 2


def _limit_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("document limits and references (docs/document-limits.md)")
    for limit in limits.LIMITS:
        group.add_argument(
            limit.option,
            type=int,
            metavar="N",
            dest=limit.field,
            help=f"{limit.name}: default {limit.default:,} {limit.what} (or {limit.variable})",
        )
    group.add_argument(
        "--allow-ref",
        action="append",
        default=None,
        metavar="URL",
        help=f"a URL prefix a network $ref may name (repeatable; or {refs.ALLOW_VARIABLE}); default: none",
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="accessgov-tools",
        description="The reviewers' tools of the access-governance contract (run in a checkout of it).",
        epilog="commands:\n" + "\n".join(f"  {name:<20} {text}" for name, (text, _) in COMMANDS.items()),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _limit_options(parser)
    parser.add_argument("command", choices=COMMANDS, metavar="COMMAND", help="one of the commands below")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="the command's arguments (COMMAND --help)")
    options = parser.parse_args(argv)

    def run() -> int:
        limits.configure(
            limits.current().replace(**{limit.field: getattr(options, limit.field) for limit in limits.LIMITS})
        )
        if options.allow_ref is not None:
            refs.configure_allowed(options.allow_ref)
        return COMMANDS[options.command][1](options.args)

    return guarded(run)


if __name__ == "__main__":
    sys.exit(main())
