"""The lowest versions the SDK's dependency ranges allow, as a pip constraints file (`make sdk-deps-check`).

python -m accessgov_tools.release.sdk_deps [generated/client/pyproject.toml] > lower-bounds.txt
"""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement

from accessgov_tools.paths import REPO

CLIENT_PYPROJECT = REPO / "generated" / "client" / "pyproject.toml"


def requirements(pyproject: Path = CLIENT_PYPROJECT) -> list[Requirement]:
    data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    return [Requirement(text) for text in data["project"]["dependencies"]]


def lower_bounds(pyproject: Path = CLIENT_PYPROJECT) -> list[str]:
    """`name==lowest` for each dependency; a dependency without a `>=` bound is an error (it must have one)."""
    pins = []
    for requirement in requirements(pyproject):
        lows = [spec.version for spec in requirement.specifier if spec.operator == ">="]
        uppers = [spec for spec in requirement.specifier if spec.operator == "<"]
        if len(lows) != 1 or len(uppers) != 1:
            raise ValueError(f"{requirement}: the SDK's dependencies are ranges `>=tested,<next major`")
        pins.append(f"{requirement.name}=={lows[0]}")
    return pins


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    print("\n".join(lower_bounds(Path(args[0]) if args else CLIENT_PYPROJECT)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
