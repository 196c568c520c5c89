"""`make sdk`: the SDK's wheel and sdist in `dist/`, built from a copy of `generated/client`.

A setuptools build writes `build/` and `*.egg-info/` beside the sources; building from a copy keeps `generated/`
exactly what `make generate` wrote (`make check-generated` compares it file by file).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from accessgov_tools.paths import REPO

CLIENT_DIR = REPO / "generated" / "client"


def build(out_dir: Path, client_dir: Path = CLIENT_DIR) -> list[Path]:
    """Build the wheel and the sdist of `client_dir` into `out_dir`; return the two files."""
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="accessgov-sdk-") as tmp:
        source = Path(tmp) / "client"
        shutil.copytree(client_dir, source, ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info"))
        before = set(out_dir.iterdir())
        subprocess.run([sys.executable, "-m", "build", "--outdir", str(out_dir), str(source)], check=True)
    return sorted(set(out_dir.iterdir()) - before) or sorted(out_dir.glob("accessgov_client-*"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "dist", help="where the wheel and sdist go")
    args = parser.parse_args(argv)
    for path in build(args.out):
        print(f"built {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
