"""Where the tools find the repository they work on, and their own data.

The tools work on a checkout of this repository (spec/, overlays/, review/, generated/). It is `ACCESSGOV_REPO`
when set, else the nearest directory at or above the working directory that holds `spec/openapi.yaml`, else the
checkout this package was installed from in editable mode (`pip install -e ./tools`), else the working directory.
"""

from __future__ import annotations

import os
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
MARKER = Path("spec") / "openapi.yaml"


def find_repo() -> Path:
    """The checkout the tools work on (see the module's docstring)."""
    if configured := os.environ.get("ACCESSGOV_REPO"):
        return Path(configured).resolve()
    here = Path.cwd().resolve()
    for candidate in (here, *here.parents):
        if (candidate / MARKER).is_file():
            return candidate
    source = PACKAGE.parents[1]  # tools/accessgov_tools -> the checkout, for an editable install
    return source if (source / MARKER).is_file() else here


REPO = find_repo()


def shown(path: Path) -> str:
    """`path` as the tools print it: relative to the checkout when it is inside it, else absolute."""
    resolved = path.resolve()
    return str(resolved.relative_to(REPO)) if resolved.is_relative_to(REPO) else str(resolved)
