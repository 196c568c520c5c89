"""The bundle covers every type, field, enum value, operation and convention the seed names."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from accessgov_tools.bundle import REPO

pytestmark = pytest.mark.slow

SEEDCHECK = REPO.parent / "shared" / "tools" / "seedcheck.py"


def test_seedcheck_reports_full_coverage() -> None:
    if not SEEDCHECK.exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"{SEEDCHECK} is missing")
        pytest.skip("shared/tools/seedcheck.py is not beside this checkout")
    result = subprocess.run(
        [sys.executable, str(SEEDCHECK), str(REPO / "generated/openapi.yaml")],
        capture_output=True,
        text=True,
        check=False,
    )
    last = result.stdout.strip().splitlines()[-1]
    covered, total = last.split(":")[1].strip().split("/")
    assert result.returncode == 0 and covered == total, result.stdout


def test_seedcheck_catches_a_missing_field(tmp_path: Path) -> None:
    if not SEEDCHECK.exists():
        pytest.skip("seedcheck not available")
    text = (REPO / "generated/openapi.yaml").read_text(encoding="utf-8")
    broken = tmp_path / "openapi.yaml"
    broken.write_text(text.replace("        ticketActionId:", "        ticketActionIdRenamed:"))
    result = subprocess.run([sys.executable, str(SEEDCHECK), str(broken)], capture_output=True, text=True)
    assert result.returncode == 1
    assert "TaskActionsServiceRestartResponse.ticketActionId" in result.stdout
