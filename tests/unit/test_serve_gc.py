"""The serving process's young-generation threshold: `--gc-threshold` / ACCESSGOV_GC_THRESHOLD, and
`heap.set_young_threshold` (the rest of the collector's setting is `heap.settle`'s, at the app's startup)."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from accessgov.cli import parser, serve_options
from accessgov.http import heap


@pytest.fixture
def restored_gc() -> Iterator[None]:
    """The threshold is process-wide: the test process gets its collector back as it was."""
    thresholds = gc.get_threshold()
    yield
    gc.set_threshold(*thresholds)


def options(*argv: str, env: dict[str, str] | None = None) -> int:
    return int(serve_options(parser().parse_args(["serve", *argv]), env or {}).gc_threshold)


def test_option_over_variable_over_default() -> None:
    assert options() == heap.DEFAULT_YOUNG_THRESHOLD == 50_000
    assert options(env={"ACCESSGOV_GC_THRESHOLD": "20000"}) == 20000
    assert options("--gc-threshold", "0", env={"ACCESSGOV_GC_THRESHOLD": "20000"}) == 0


def test_the_young_threshold_is_set_and_settle_keeps_it(restored_gc: None) -> None:
    gc.set_threshold(700, 10, 10)
    heap.set_young_threshold(12345)
    assert gc.get_threshold() == (12345, 10, 10)
    heap.settle()
    try:
        assert gc.get_threshold() == (12345, 10, heap.FULL_COLLECTION_EVERY)
    finally:
        gc.unfreeze()


def test_zero_leaves_the_collector_alone(restored_gc: None) -> None:
    before = gc.get_threshold()
    heap.set_young_threshold(0)
    assert gc.get_threshold() == before


@pytest.mark.parametrize("threshold", [-1, heap.MAX_THRESHOLD + 1])
def test_out_of_range_is_refused(threshold: int, restored_gc: None) -> None:
    before = gc.get_threshold()
    with pytest.raises(SystemExit, match="GC threshold"):
        heap.set_young_threshold(threshold)
    assert gc.get_threshold() == before
