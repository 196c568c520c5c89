"""The server's wheel holds `accessgov` only, with the two contract documents it reads inside it.

The wheel is the server's clean venv's (`server_venv`, tests/support/venvs.py: `pip wheel` of a copy of the sources,
so the checkout gets no `build/` or egg-info, installed into a fresh virtual environment and the copy deleted):
`accessgov.documents`, the one place that knows where the documents live, finds them in the installed package and
imports nothing but the standard library. tests/server/test_install.py starts the installed server and fetches its
/openapi.json.
"""

from __future__ import annotations

import json
import subprocess
import zipfile
from pathlib import Path

import pytest

from accessgov.documents import BUNDLE, PUBLIC_VARIANT, document
from tests.support.venvs import ProductVenv

pytestmark = pytest.mark.xdist_group("server-venv")  # with test_install.py: one venv build, no worker waiting on it

REPO = Path(__file__).resolve().parents[2]
DOCUMENTS = "accessgov/bundle/documents"
# What the installed package answers: where each document is and its bytes, whether `generated` is importable, and
# the top-level modules outside the standard library that importing `accessgov.documents` brought in.
PROBE = """
import importlib.util, json, sys
before = set(sys.modules)
from accessgov.documents import BUNDLE, PUBLIC_VARIANT, document
imported = {name.split(".")[0] for name in set(sys.modules) - before} - set(sys.stdlib_module_names)
found = {name: [str(document(name)), document(name).read_text(encoding="utf-8")] for name in (BUNDLE, PUBLIC_VARIANT)}
generated = importlib.util.find_spec("generated") is not None
print(json.dumps({"found": found, "generated": generated, "imported": sorted(imported)}))
"""


@pytest.mark.slow
def test_the_wheel_holds_the_server_and_the_documents_it_reads(server_venv: ProductVenv, tmp_path: Path) -> None:
    wheel = server_venv.wheel
    assert wheel is not None and wheel.name.startswith("accessgov-"), wheel

    with zipfile.ZipFile(wheel) as archive:
        names = [name for name in archive.namelist() if not name.endswith("/")]
    top = {name.split("/")[0] for name in names}
    assert {entry for entry in top if not entry.endswith(".dist-info")} == {"accessgov"}, sorted(top)
    assert len(top) == 2, sorted(top)
    # Every module of the checkout's accessgov/ (a package missing from pyproject.toml's list is not), and of
    # generated/ only the package marker, the bundle and the public variant: no other variant, no YAML, no stub.
    modules = {path.relative_to(REPO).as_posix() for path in (REPO / "accessgov").rglob("*.py")}
    assert {name for name in names if name.endswith(".py") and not name.startswith(DOCUMENTS)} == modules
    assert sorted(name for name in names if name.startswith(DOCUMENTS)) == [
        f"{DOCUMENTS}/__init__.py",
        f"{DOCUMENTS}/openapi.json",
        f"{DOCUMENTS}/variants/public.json",
    ]

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    probe = subprocess.run(
        [server_venv.python, "-c", PROBE],
        cwd=elsewhere,
        env={},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert probe.returncode == 0, probe.stderr
    answer = json.loads(probe.stdout)
    for name in (BUNDLE, PUBLIC_VARIANT):
        where, text = answer["found"][name]
        assert Path(where) == server_venv.site_packages / DOCUMENTS / name
        assert text == (REPO / "generated" / name).read_text(encoding="utf-8")
    assert not answer["generated"]
    assert answer["imported"] == ["accessgov"]  # no dependency: the documents are found by the package alone


def test_the_editable_server_reads_the_checkouts_generated_documents() -> None:
    """`make setup` installs the server editable: it reads `make generate`'s files where they are, no copy."""
    for name in (BUNDLE, PUBLIC_VARIANT):
        assert Path(str(document(name))) == REPO / "generated" / name
