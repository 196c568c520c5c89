"""The serving process's garbage-collector setting: `--gc-threshold` / ACCESSGOV_GC_THRESHOLD and `tune_gc`."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from accessgov.cli import parser, serve_options
from accessgov.http.server import DEFAULT_GC_THRESHOLD, MAX_GC_THRESHOLD, tune_gc


@pytest.fixture
def restored_gc() -> Iterator[None]:
    """`tune_gc` is process-wide: the test process gets its collector back as it was."""
    thresholds, frozen = gc.get_threshold(), gc.get_freeze_count()
    yield
    gc.unfreeze()
    gc.set_threshold(*thresholds)
    assert frozen == 0  # nothing else in the test process freezes: unfreezing restored it


def options(*argv: str, env: dict[str, str] | None = None) -> int:
    return int(serve_options(parser().parse_args(["serve", *argv]), env or {}).gc_threshold)


def test_option_over_variable_over_default() -> None:
    assert options() == DEFAULT_GC_THRESHOLD
    assert options(env={"ACCESSGOV_GC_THRESHOLD": "20000"}) == 20000
    assert options("--gc-threshold", "0", env={"ACCESSGOV_GC_THRESHOLD": "20000"}) == 0


def test_tune_gc_freezes_what_exists_and_sets_the_young_threshold(restored_gc: None) -> None:
    _, middle, oldest = gc.get_threshold()
    tune_gc(12345)
    assert gc.get_threshold() == (12345, middle, oldest)
    assert gc.get_freeze_count() > 0  # the modules and objects of this process: out of later collections


def test_zero_leaves_the_collector_alone(restored_gc: None) -> None:
    before = gc.get_threshold()
    tune_gc(0)
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0


@pytest.mark.parametrize("threshold", [-1, MAX_GC_THRESHOLD + 1])
def test_out_of_range_is_refused(threshold: int, restored_gc: None) -> None:
    with pytest.raises(SystemExit, match="GC threshold"):
        tune_gc(threshold)
    assert gc.get_freeze_count() == 0
