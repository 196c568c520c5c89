"""Render the bundle into a static, self-contained HTML reference with Redocly CLI (`build-docs`).

    npm ci --prefix tools/redocly          # once: installs the pinned @redocly/cli into tools/redocly/node_modules
    python -m accessgov_tools.build_docs [--input generated/openapi.yaml] [--output build/docs/index.html]

`--inlineBundle` embeds the Redoc script in the page, so the page works offline and from `file://`; the build
itself needs no network (telemetry and update checks are switched off). Redoc 3 renders one page per tag,
routed by the URL fragment: `index.html#/<tag>` shows that tag's operations.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

from accessgov_tools.loader import LoadError
from accessgov_tools.paths import REPO, shown
from accessgov_tools.refs import References

DOCS_TOOLING = REPO / "tools" / "redocly"
REDOCLY = DOCS_TOOLING / "node_modules" / ".bin" / "redocly"
DEFAULT_INPUT = REPO / "generated" / "openapi.yaml"
DEFAULT_OUTPUT = REPO / "build" / "docs" / "index.html"
# Redocly's page template plus a style that wraps code blocks instead of cutting long lines off.
TEMPLATE = DOCS_TOOLING / "template.hbs"
# A page that still loads its script from elsewhere would not work offline.
_REMOTE_SCRIPT = re.compile(r"<script[^>]*\ssrc=\"https?://|<link[^>]*modulepreload[^>]*https?://|from \"https?://")


class DocsError(Exception):
    """The docs could not be built."""


def build_docs(source: Path = DEFAULT_INPUT, output: Path = DEFAULT_OUTPUT, redocly: Path = REDOCLY) -> Path:
    """Build `output` from `source`; raise `DocsError` when the tooling is missing or the build fails, a
    `LoadError` when the document is over a limit or holds a reference other than a local one (Redocly would
    resolve it itself: the one resolver reads it first, `accessgov_tools/refs.py`)."""
    references = References(source.resolve().parent)
    references.self_contained(source)
    references.check_chains(source)
    if not redocly.exists():
        raise DocsError(f"{redocly} is missing: run `npm ci --prefix {DOCS_TOOLING.relative_to(REPO)}`")
    output.parent.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "REDOCLY_TELEMETRY": "off", "REDOCLY_SUPPRESS_UPDATE_NOTICE": "true", "NO_COLOR": "1"}
    command = [
        str(redocly),
        "build-docs",
        str(source.resolve()),
        "--inlineBundle",
        "--template",
        str(TEMPLATE),
        "--lint-config",
        "off",
        "--output",
        str(output.resolve()),
    ]
    # cwd: the tooling folder, so that no stray redocly.yaml elsewhere changes the output.
    result = subprocess.run(command, cwd=DOCS_TOOLING, env=env, capture_output=True, text=True, check=False)
    if result.returncode != 0 or not output.exists():
        raise DocsError(f"redocly build-docs failed ({result.returncode}):\n{result.stdout}\n{result.stderr}")
    if _REMOTE_SCRIPT.search(output.read_text(encoding="utf-8")):
        raise DocsError(f"{output} loads a script from the network; it must be self-contained (--inlineBundle)")
    return output


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--input", type=Path, default=DEFAULT_INPUT, help="bundled OpenAPI document")
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT, help="HTML file to write")
    args = parser.parse_args(argv)
    try:
        path = build_docs(args.input, args.output)
    except (DocsError, LoadError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"built {shown(path)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
