"""The cyclic garbage collector tuned for a long-running server process.

Measured under load (PostgreSQL, 500 deliveries/s offered): a full (generation 2) collection walked the
~150,000 objects the process holds from startup (the route table, compiled schemas, SQLAlchemy's mappers and
caches, the demo tenant) and paused the event loop for ~100 ms, the worst latency of the run. Those objects live
as long as the process: `settle` collects once and then freezes them (`gc.freeze`), so later collections only
walk what requests allocate.

What requests leave alive grows too: the parsed documents the caches keep (task histories, entitlements) are
containers a full collection walks, and it finds nothing to free in them. Under restart load the pause grew with
them, 4 -> 78 ms over 20 s, and the p99 with it (12 -> 52 ms); a full collection is therefore started a tenth as
often (Python's third threshold, 10 -> 100 younger collections): p99 9-16 ms over the same run. Short-lived
cycles are still collected at once by the younger generations.

The young generation, in a serving process (`set_young_threshold`, `accessgov serve --gc-threshold`): a young
collection traverses every container still alive, and a restart keeps its task's history (hundreds of steps)
alive across its awaits. With Python's 700 allocations between young collections the collector was 12.5 % of the
loop's samples under restart load (py-spy), and restart's CPU grew with the histories (167 -> 234 us over four
rounds of 5 s); with 50,000, 166 -> 193 us. GET page and HMAC deliveries did not change.
"""

from __future__ import annotations

import gc

# Collections of the middle generation between two full ones (Python's default is 10).
FULL_COLLECTION_EVERY = 100
# Allocations between young collections in a serving process (Python's default is 700).
DEFAULT_YOUNG_THRESHOLD = 50_000
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
