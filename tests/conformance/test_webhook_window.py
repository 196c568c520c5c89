"""WH-TS-005 (the exact 300 s window edges) judges the target, not the distance between two clocks: against a
conforming target whose clock is a fraction of a second off the kit's it passes, against an off-by-one window
it fails."""

from __future__ import annotations

import time
import types
from pathlib import Path

import pytest
from accessgov_conformance.verdicts import Verdict

from tests.conformance import fake_target
from tests.conformance.fake_target import FakeTarget
from tests.conformance.kit import fake_config, run_fake

pytestmark = pytest.mark.slow  # each run waits for its moment in a second of the clock


@pytest.mark.parametrize("offset", [-0.45, -0.1, 0.0, 0.3, 0.6])
def test_a_conforming_target_a_fraction_of_a_second_off_passes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, offset: float
) -> None:
    monkeypatch.setattr(fake_target, "time", types.SimpleNamespace(time=lambda: time.time() + offset))
    result = run_fake(fake_config(tmp_path), FakeTarget(), only="WH-TS-005")["WH-TS-005"]
    assert result.verdict == Verdict.PASS, result.reason


@pytest.mark.parametrize("offset", [-0.1, 0.0, 0.3])
def test_an_off_by_one_window_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, offset: float) -> None:
    monkeypatch.setattr(fake_target, "time", types.SimpleNamespace(time=lambda: time.time() + offset))
    result = run_fake(fake_config(tmp_path), FakeTarget(breaks={"WH-TS-005"}), only="WH-TS-005")["WH-TS-005"]
    assert result.verdict == Verdict.FAIL
    assert "timestamp now-300 s" in result.reason or "timestamp now+300 s" in result.reason
