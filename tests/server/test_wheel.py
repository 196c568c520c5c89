"""The server's wheel holds `accessgov` only, with the two contract documents it reads inside it.

`pip wheel` builds from a copy of the sources (the checkout gets no `build/` or egg-info of this test's); the wheel
goes into a fresh virtual environment (`tests/support/venvs.py`), without dependencies: `accessgov.documents`, the one
place that knows where the documents live, imports nothing else. tests/server/test_install.py starts an installed
server and fetches its /openapi.json.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import zipfile
from pathlib import Path

from accessgov.documents import BUNDLE, PUBLIC_VARIANT, document
from tests.support.venvs import new_venv, pip, server_sources

REPO = Path(__file__).resolve().parents[2]
DOCUMENTS = "accessgov/bundle/documents"
# What the installed package answers: where each document is and its bytes, and whether `generated` is importable.
PROBE = """
import importlib.util, json
from accessgov.documents import BUNDLE, PUBLIC_VARIANT, document
found = {name: [str(document(name)), document(name).read_text(encoding="utf-8")] for name in (BUNDLE, PUBLIC_VARIANT)}
print(json.dumps({"found": found, "generated": importlib.util.find_spec("generated") is not None}))
"""


def test_the_wheel_holds_the_server_and_the_documents_it_reads(tmp_path: Path) -> None:
    source = server_sources(tmp_path / "source")
    python = new_venv(tmp_path / "venv")
    pip(python, "wheel", "--quiet", "--no-deps", "--wheel-dir", tmp_path / "dist", source, cwd=tmp_path)
    (wheel,) = (tmp_path / "dist").glob("accessgov-*.whl")

    with zipfile.ZipFile(wheel) as archive:
        names = [name for name in archive.namelist() if not name.endswith("/")]
    top = {name.split("/")[0] for name in names}
    assert {entry for entry in top if not entry.endswith(".dist-info")} == {"accessgov"}, sorted(top)
    assert len(top) == 2, sorted(top)
    # Every module of the checkout's accessgov/ (a package missing from pyproject.toml's list is not), and of
    # generated/ only the package marker, the bundle and the public variant: no other variant, no YAML, no stub.
    modules = {path.relative_to(source).as_posix() for path in (source / "accessgov").rglob("*.py")}
    assert {name for name in names if name.endswith(".py") and not name.startswith(DOCUMENTS)} == modules
    assert sorted(name for name in names if name.startswith(DOCUMENTS)) == [
        f"{DOCUMENTS}/__init__.py",
        f"{DOCUMENTS}/openapi.json",
        f"{DOCUMENTS}/variants/public.json",
    ]

    pip(python, "install", "--quiet", "--no-deps", "--no-compile", wheel, cwd=tmp_path)
    shutil.rmtree(source)  # nothing may be read from the copy any more
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    probe = subprocess.run(
        [python, "-c", PROBE], cwd=elsewhere, env={}, capture_output=True, text=True, timeout=60, check=False
    )
    assert probe.returncode == 0, probe.stderr
    answer = json.loads(probe.stdout)
    site = next((tmp_path / "venv" / "lib").glob("python3*/site-packages"))
    for name in (BUNDLE, PUBLIC_VARIANT):
        where, text = answer["found"][name]
        assert Path(where) == site / DOCUMENTS / name
        assert text == (REPO / "generated" / name).read_text(encoding="utf-8")
    assert not answer["generated"]


def test_the_editable_server_reads_the_checkouts_generated_documents() -> None:
    """`make setup` installs the server editable: it reads `make generate`'s files where they are, no copy."""
    for name in (BUNDLE, PUBLIC_VARIANT):
        assert Path(str(document(name))) == REPO / "generated" / name
