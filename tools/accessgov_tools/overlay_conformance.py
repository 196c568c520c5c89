"""Score an overlay engine on the OpenAPI Overlay Specification's own material.

The material is a checkout of https://github.com/OAI/Overlay-Specification (Apache-2.0), given as
`--spec-repo PATH` or `OVERLAY_SPEC_REPO=PATH`; nothing of it is committed here. The cases:

- `compliant-sets/*/`: apply `overlay.yaml` to `openapi.yaml`; the result must equal `output.yaml`.
- `tests/v<major.minor>/{pass,fail}/*.yaml` of every released version (not `-dev`): a `pass` document must be
  accepted, a `fail` document refused before anything is applied. When `jsonschema` and the version's
  `schemas/v<x>/schema.yaml` are there, the folder's verdict is checked against the schema's and any
  disagreement in the material itself is printed.
- The newest released text (`versions/<x.y.z>.md`): every example section whose YAML blocks are an OpenAPI
  document, an overlay and the resulting document (the traits and copy examples of 1.1.0).

Results are compared as JSON values (objects are unordered); a different key order is reported, not counted.
Prints "N of M cases behave as the standard says" and lists the others; exits 1 unless all of them do.

Engines: `ours` (accessgov_tools.overlay, standard mode; `--strict` for the house rules), `oas-patch` (the PyPI
package, when importable) and `file:PATH` (a Python file with `parse_overlay(doc, source)` and
`apply_overlay(overlay, doc)`, e.g. an older tools/accessgov_tools/overlay.py taken from git, to measure "before").
"""

from __future__ import annotations

import argparse
import copy
import importlib.util
import os
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import yaml

from accessgov_tools import loader
from accessgov_tools.bundle import dump_yaml
from accessgov_tools.overlay import OverlayDocumentError, OverlayError, apply_overlay, parse_overlay
from accessgov_tools.paths import REPO

GOLDEN = REPO / "tests" / "tools" / "overlay" / "fixtures"
CaseKind = Literal["compliant-set", "pass", "fail", "text-example", "golden"]
RELEASED_TESTS = re.compile(r"^v(\d+\.\d+)$")
RELEASED_TEXT = re.compile(r"^(\d+)\.(\d+)\.(\d+)\.md$")
HEADING = re.compile(r"^(#{1,5}) +(.*\S)")
YAML_BLOCK = re.compile(r"^```ya?ml\n(.*?)^```", re.MULTILINE | re.DOTALL)


@dataclass(frozen=True)
class Case:
    """One thing the Specification's material says an engine must do."""

    name: str
    kind: CaseKind
    overlay: Any
    document: Any = None
    expected: Any = None
    refused: bool = False  # golden triples with an error.txt: the engine must refuse


@dataclass(frozen=True)
class Outcome:
    case: Case
    ok: bool
    detail: str = ""
    order_differs: bool = False


@dataclass(frozen=True)
class Engine:
    """How to validate an overlay document and apply one; both raise on refusal."""

    name: str
    validate: Callable[[Any, str], None]
    apply: Callable[[Any, Any, str], Any]
    # What a deliberate refusal raises; anything else is a crash and propagates.
    invalid_document: type[Exception] = Exception
    refused: type[Exception] = Exception


def _load(path: Path) -> Any:
    """A document of the material, read as every tool reads documents (the one loader, its limits)."""
    return loader.load_document(path)


# --- the material ----------------------------------------------------------------------------------------------


def compliant_sets(repo: Path) -> Iterator[Case]:
    for folder in sorted((repo / "compliant-sets").glob("*/")):
        files = [folder / f"{stem}.yaml" for stem in ("overlay", "openapi", "output")]
        if all(f.exists() for f in files):
            overlay, document, expected = (_load(f) for f in files)
            yield Case(f"compliant-sets/{folder.name}", "compliant-set", overlay, document, expected)


def test_documents(repo: Path) -> Iterator[Case]:
    for version_dir in sorted((repo / "tests").glob("v*/")):
        if not RELEASED_TESTS.match(version_dir.name):
            continue
        for verdict in ("pass", "fail"):
            for path in sorted((version_dir / verdict).glob("*.yaml")):
                yield Case(str(path.relative_to(repo)), verdict, _load(path))


def newest_text(repo: Path) -> Path | None:
    released = [
        (tuple(map(int, m.groups())), p) for p in (repo / "versions").glob("*.md") if (m := RELEASED_TEXT.match(p.name))
    ]
    return max(released)[1] if released else None


def text_examples(repo: Path) -> Iterator[Case]:
    """Example sections of the newest text made of exactly: an OpenAPI document, an overlay, the result."""
    text_path = newest_text(repo)
    if text_path is None:
        return
    sections: list[tuple[str, list[Any]]] = []
    for part in re.split(r"(?m)^(?=#{1,5} )", text_path.read_text(encoding="utf-8")):
        heading = HEADING.match(part)
        blocks = [loader.loads(block, str(text_path)) for block in YAML_BLOCK.findall(part)]
        if heading:
            sections.append((heading.group(2), blocks))
        elif sections:
            sections[-1][1].extend(blocks)
    for title, blocks in sections:
        shapes = [next(iter(b), None) if isinstance(b, dict) else None for b in blocks]
        if shapes == ["openapi", "overlay", "openapi"]:
            document, overlay, expected = blocks
            yield Case(f"{text_path.relative_to(repo)}: {title}", "text-example", overlay, document, expected)


def golden_triples(folder: Path) -> Iterator[Case]:
    """Our own triples (tests/tools/overlay/fixtures): output.yaml, or error.txt when the overlay must be refused."""
    for case in sorted(folder.glob("*/overlay.yaml")):
        expected = case.parent / "output.yaml"
        overlay, document = _load(case), _load(case.parent / "openapi.yaml")
        yield Case(
            case.parent.name,
            "golden",
            overlay,
            document,
            _load(expected) if expected.exists() else None,
            refused=not expected.exists(),
        )


def all_cases(repo: Path) -> list[Case]:
    return [*compliant_sets(repo), *test_documents(repo), *text_examples(repo)]


def schema_disagreements(repo: Path, cases: list[Case]) -> list[str]:
    """Pass/fail documents whose folder verdict the version's JSON Schema contradicts (a flaw of the material)."""
    try:
        from jsonschema import Draft202012Validator
    except ImportError:  # optional cross-check
        return []
    problems = []
    validators: dict[str, Any] = {}
    for case in cases:
        if case.kind not in ("pass", "fail"):
            continue
        version = case.name.split("/")[1]
        if version not in validators:
            schema_path = repo / "schemas" / version / "schema.yaml"
            validators[version] = Draft202012Validator(_load(schema_path)) if schema_path.exists() else None
        validator = validators[version]
        if validator is not None and validator.is_valid(case.overlay) != (case.kind == "pass"):
            problems.append(f"{case.name}: the folder says {case.kind}, the schema says otherwise")
    return problems


# --- engines ---------------------------------------------------------------------------------------------------


def ours(strict: bool) -> Engine:
    def validate(doc: Any, source: str) -> None:
        parse_overlay(doc, source, strict=strict)

    def apply(doc: Any, document: Any, source: str) -> Any:
        return apply_overlay(parse_overlay(doc, source, strict=strict), document)

    name = "accessgov_tools.overlay (strict)" if strict else "accessgov_tools.overlay"
    return Engine(name, validate, apply, OverlayDocumentError, OverlayError)


def from_file(path: Path) -> Engine:
    spec = importlib.util.spec_from_file_location("overlay_engine_under_test", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"error: cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)

    def apply(doc: Any, document: Any, source: str) -> Any:
        return module.apply_overlay(module.parse_overlay(doc, source), document)

    return Engine(str(path), lambda doc, source: module.parse_overlay(doc, source), apply)


def oas_patch() -> Engine:
    try:
        from oas_patch.overlay import apply_overlay as oas_apply
        from oas_patch.validator import validate as oas_validate
    except ImportError as error:
        raise SystemExit(f"error: oas-patch is not importable here ({error}); install it in another venv") from error

    def validate(doc: Any, _source: str) -> None:
        report = yaml.safe_load(oas_validate(doc, "yaml"))
        if report.get("status") != "success":
            raise ValueError(report)

    def apply(doc: Any, document: Any, source: str) -> Any:
        validate(doc, source)
        return oas_apply(copy.deepcopy(document), doc)

    return Engine("oas-patch", validate, apply)


# --- scoring ---------------------------------------------------------------------------------------------------


def run_case(engine: Engine, case: Case) -> Outcome:
    if case.kind in ("pass", "fail"):
        try:
            engine.validate(case.overlay, case.name)
        except engine.invalid_document as error:
            return Outcome(case, case.kind == "fail", f"refused: {error}")
        return Outcome(case, case.kind == "pass", "accepted")
    try:
        result = engine.apply(case.overlay, copy.deepcopy(case.document), case.name)
    except engine.refused as error:
        return Outcome(case, case.refused, f"refused: {type(error).__name__}: {error}")
    if case.refused:
        return Outcome(case, False, "applied; the overlay must be refused")
    if result != case.expected:
        return Outcome(case, False, "result differs from the expected document")
    return Outcome(case, True, "same document", dump_yaml(result) != dump_yaml(case.expected))


def report(engine: Engine, outcomes: list[Outcome], material_problems: list[str], what: str = "cases") -> str:
    good = [o for o in outcomes if o.ok]
    lines = [f"{engine.name}: {len(good)} of {len(outcomes)} {what} behave as the standard says"]
    by_kind: dict[str, list[Outcome]] = {}
    for outcome in outcomes:
        by_kind.setdefault(outcome.case.kind, []).append(outcome)
    lines += [f"  {kind}: {sum(o.ok for o in group)} of {len(group)}" for kind, group in by_kind.items()]
    others = [o for o in outcomes if not o.ok]
    if others:
        lines.append("Not as the standard says:")
        lines += [f"  - {o.case.name} ({o.case.kind}): {o.detail}" for o in others]
    reordered = [o for o in outcomes if o.order_differs]
    if reordered:
        lines.append("Same document, other key order (JSON objects are unordered; not counted):")
        lines += [f"  - {o.case.name}" for o in reordered]
    if material_problems:
        lines.append("The material contradicts itself (folder verdict vs its JSON Schema):")
        lines += [f"  - {problem}" for problem in material_problems]
    return "\n".join(lines)


def score(repo: Path, engine: Engine) -> tuple[list[Outcome], list[str]]:
    """Every case's outcome for `engine`, and the material's own inconsistencies."""
    cases = all_cases(repo)
    if not cases:
        raise SystemExit(f"error: no Overlay Specification material under {repo}")
    return [run_case(engine, case) for case in cases], schema_disagreements(repo, cases)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec-repo", type=Path, default=os.environ.get("OVERLAY_SPEC_REPO"))
    parser.add_argument("--engine", default="ours", help="ours (default), oas-patch, or file:PATH")
    parser.add_argument("--strict", action="store_true", help="score our engine in strict mode (house rules)")
    parser.add_argument(
        "--golden", default=str(GOLDEN), help="also score these golden triples (default: ours; '' to skip)"
    )
    args = parser.parse_args(argv)
    if args.spec_repo is None:
        parser.error("give --spec-repo PATH or OVERLAY_SPEC_REPO=PATH (a checkout of OAI/Overlay-Specification)")
    if args.engine == "ours":
        engine = ours(args.strict)
    elif args.engine == "oas-patch":
        engine = oas_patch()
    elif args.engine.startswith("file:"):
        engine = from_file(Path(args.engine.removeprefix("file:")))
    else:
        parser.error(f"unknown engine {args.engine!r}")
    outcomes, problems = score(args.spec_repo, engine)
    print(report(engine, outcomes, problems))
    if args.golden:
        golden = [run_case(engine, case) for case in golden_triples(Path(args.golden))]
        print(report(engine, golden, [], f"golden triples of {Path(args.golden).name}/"))
        outcomes += golden
    return 0 if all(o.ok for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
