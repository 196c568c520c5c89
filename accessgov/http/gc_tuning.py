"""The cyclic garbage collector tuned for a long-running server process: the ~150,000 objects of startup frozen out
of later collections (a full collection of them paused the loop ~100 ms), full collections a tenth as often
(restart's p99 12-52 -> 9-16 ms), young ones every 50,000 allocations instead of 700 (the collector was 12.5 % of
the loop under restart load). The measurements: docs/performance.md, "Why the fast paths are shaped as they are".
"""

from __future__ import annotations

import gc

from accessgov.config import DEFAULTS

# Collections of the middle generation between two full ones (Python's default is 10).
FULL_COLLECTION_EVERY = 100
# Allocations between young collections in a serving process (Python's default is 700).
DEFAULT_YOUNG_THRESHOLD = DEFAULTS.gc_threshold  # ACCESSGOV_GC_THRESHOLD, --gc-threshold
MAX_THRESHOLD = 2**31 - 1  # gc.set_threshold takes a C int


def settle() -> None:
    """Collect the garbage of startup, exempt everything still alive from later collections, and make full
    collections rarer."""
    gc.collect()
    gc.freeze()
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, FULL_COLLECTION_EVERY)


def set_young_threshold(threshold: int) -> None:
    """`threshold` allocations between young-generation collections (0: Python's setting unchanged). Process-wide:
    set by `accessgov serve` and each worker before the app starts (whose `settle` keeps it), never by the app."""
    if not 0 <= threshold <= MAX_THRESHOLD:
        raise SystemExit(f"the GC threshold must be between 0 and {MAX_THRESHOLD}, got {threshold}")
    if threshold:
        _, middle, oldest = gc.get_threshold()
        gc.set_threshold(threshold, middle, oldest)
