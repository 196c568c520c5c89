"""check-generated's clean environments install from the user's index only: a `uv.toml` in the checkout (which a
pull request writes) naming another index is not read."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from accessgov_tools import client_check

pytestmark = pytest.mark.slow

CLOSED = "http://127.0.0.1:9/simple"  # the discard port: nothing listens, a fetch from it fails at once


def test_a_uv_toml_in_the_checkout_names_no_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    (checkout / "uv.toml").write_text(f'index-url = "{CLOSED}"\nno-cache = true\n', encoding="utf-8")
    monkeypatch.chdir(checkout)
    # The tools' own pin, so the user's index (or uv's cache) has it.
    python = client_check.clean_env(["typing-extensions==4.16.0"], cache=checkout / "build" / "clean-envs")
    done = subprocess.run(
        [str(python), "-I", "-c", "import typing_extensions"], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
