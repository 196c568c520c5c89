"""`make bench-diff`: the breaking-change diff's cost per finding stays flat as findings grow (linear, not quadratic).

    python -m benchmarks.bench_diff [--findings 10000] [--scale 4] [--repeat 3] [--shapes properties,enum,yaml]

For each shape, two documents are written to a temporary directory whose diff has N findings, and two whose diff
has SCALE x N: N optional properties added to a response schema (`properties`, JSON), N values added to a response
enum (`enum`), the properties again written as YAML (`yaml`: the head's lines come from its YAML node tree). Each
diff runs as a whole process (`python -m accessgov_tools.diffcheck --format json`) and is measured in CPU seconds
(user + system); a diff of two identical documents, measured in the same run, is the baseline each figure is
taken net of (interpreter start-up and imports). The printed ratio is the net CPU per finding at SCALE x N over
the net CPU per finding at N: about 1 when the cost is linear in the findings, about SCALE when it is quadratic
(before the source index, 10,000 added properties took 9.6 s and 40,000 had no verdict). Runs alternate between
the sizes, and the median of `--repeat` runs is printed; nothing is asserted (tests/tools/diffcheck/
test_linear_cost.py holds the behaviour, by counting).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import yaml

SHAPES = ("properties", "enum", "yaml")


def _document(schema: dict[str, Any]) -> dict[str, Any]:
    ok = {"description": "OK", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/A"}}}}
    return {
        "openapi": "3.1.0",
        "info": {"title": "bench", "version": "1.0.0"},
        "paths": {"/a": {"get": {"responses": {"200": ok}}}},
        "components": {"schemas": {"A": schema}},
    }


def properties(count: int) -> dict[str, Any]:
    """A response object with `count` optional properties (each one added is a finding)."""
    return _document({"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(count)}})


def enum(count: int) -> dict[str, Any]:
    """A response enum of `count` values and one more (each value added is a finding)."""
    return _document({"type": "string", "enum": ["base", *(f"v{i}" for i in range(count))]})


def _json(doc: dict[str, Any]) -> str:
    return json.dumps(doc, indent=1)


def _yaml(doc: dict[str, Any]) -> str:
    return yaml.safe_dump(doc, sort_keys=False)


BUILDERS: dict[str, tuple[Callable[[int], dict[str, Any]], Callable[[dict[str, Any]], str], str]] = {
    "properties": (properties, _json, ".json"),
    "enum": (enum, _json, ".json"),
    "yaml": (properties, _yaml, ".yaml"),
}


def write_pair(folder: Path, shape: str, findings: int) -> tuple[Path, Path]:
    build, dump, suffix = BUILDERS[shape]
    folder.mkdir(parents=True, exist_ok=True)
    base, head = folder / f"base{suffix}", folder / f"head{suffix}"
    base.write_text(dump(build(0)), encoding="utf-8")
    head.write_text(dump(build(findings)), encoding="utf-8")
    return base, head


def cpu_of(command: Sequence[str]) -> float:
    """CPU seconds (user + system) of one run of `command`, a child process."""
    before = os.times()
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    after = os.times()
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(command)} exited {done.returncode}: {done.stderr.decode(errors='replace')}")
    return (after.children_user - before.children_user) + (after.children_system - before.children_system)


def diff_command(base: Path, head: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "accessgov_tools.diffcheck",
        "--base-file",
        str(base),
        "--head-file",
        str(head),
        "--format",
        "json",
        "--accepted",
        os.devnull,
    ]


def measure(shape: str, findings: int, scale: int, repeat: int, root: Path) -> dict[str, float]:
    small = write_pair(root / f"{shape}-{findings}", shape, findings)
    large = write_pair(root / f"{shape}-{findings * scale}", shape, findings * scale)
    same = write_pair(root / f"{shape}-0", shape, 0)
    runs: dict[str, list[float]] = {"baseline": [], "small": [], "large": []}
    for _ in range(repeat):  # alternated, so that a change in the machine's load falls on every size alike
        runs["baseline"].append(cpu_of(diff_command(*same)))
        runs["small"].append(cpu_of(diff_command(*small)))
        runs["large"].append(cpu_of(diff_command(*large)))
    median = {name: statistics.median(values) for name, values in runs.items()}
    per_small = max(median["small"] - median["baseline"], 1e-9) / findings
    per_large = max(median["large"] - median["baseline"], 1e-9) / (findings * scale)
    return median | {"per_small_us": per_small * 1e6, "per_large_us": per_large * 1e6, "ratio": per_large / per_small}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--findings", type=int, default=10_000, help="N, the smaller diff's findings")
    parser.add_argument("--scale", type=int, default=4, help="the larger diff has SCALE x N findings")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each size (the median is printed)")
    parser.add_argument("--shapes", default=",".join(SHAPES), help=f"comma-separated, of {', '.join(SHAPES)}")
    args = parser.parse_args(argv)
    shapes = [s for s in args.shapes.split(",") if s]
    unknown = sorted(set(shapes) - set(SHAPES))
    if unknown or args.findings < 1 or args.scale < 2 or args.repeat < 1:
        parser.error(f"unknown shapes {unknown}" if unknown else "--findings >= 1, --scale >= 2, --repeat >= 1")
    large = args.findings * args.scale
    print(
        f"{'shape':<11} {'baseline s':>10} {f'{args.findings} s':>10} {f'{large} s':>10} "
        f"{'us/finding':>10} {'us/finding':>10} {'ratio':>6}"
    )
    with tempfile.TemporaryDirectory(prefix="bench-diff-") as tmp:
        for shape in shapes:
            m = measure(shape, args.findings, args.scale, args.repeat, Path(tmp))
            print(
                f"{shape:<11} {m['baseline']:>10.2f} {m['small']:>10.2f} {m['large']:>10.2f} "
                f"{m['per_small_us']:>10.1f} {m['per_large_us']:>10.1f} {m['ratio']:>6.2f}",
                flush=True,
            )
    print(f"ratio: CPU per finding at {large} over that at {args.findings} (1: linear, {args.scale}: quadratic)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
