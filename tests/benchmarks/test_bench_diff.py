"""`make bench-diff`'s harness, minus the timing: it writes diffs of N and SCALE x N findings and measures each."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import bench_diff

pytestmark = pytest.mark.slow  # it runs the diff as three child processes


def test_the_pairs_have_the_findings_they_are_named_for(tmp_path: Path) -> None:
    for shape in bench_diff.SHAPES:
        base, head = bench_diff.write_pair(tmp_path / shape, shape, 3)
        assert base.exists() and head.exists()
    base, head = bench_diff.write_pair(tmp_path / "counted", "properties", 7)
    assert len(json.loads(head.read_text())["components"]["schemas"]["A"]["properties"]) == 7


def test_a_measurement_reports_both_sizes_net_of_the_baseline(tmp_path: Path) -> None:
    measured = bench_diff.measure("enum", 5, 2, 1, tmp_path)
    assert set(measured) == {"baseline", "small", "large", "per_small_us", "per_large_us", "ratio"}
    assert measured["baseline"] > 0 and measured["ratio"] > 0
