"""`http.heap.settle`: startup's objects frozen, full collections made rarer (and the rest as Python has it)."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from accessgov.http import heap


@pytest.fixture
def restored() -> Iterator[None]:
    thresholds = gc.get_threshold()
    yield
    gc.set_threshold(*thresholds)
    gc.unfreeze()


@pytest.mark.usefixtures("restored")
def test_settle_freezes_what_is_alive_and_makes_full_collections_rarer() -> None:
    gc.set_threshold(700, 10, 10)
    kept = [{"a": [1]}]  # alive at startup
    heap.settle()
    assert gc.get_threshold() == (700, 10, heap.FULL_COLLECTION_EVERY)
    assert gc.get_freeze_count() > 0 and kept
