"""The cyclic garbage collector paused while a diff reads and compares its documents.

A diff allocates millions of long-lived, acyclic objects (the YAML nodes of both documents, their values, the
merged views, the findings) and frees almost none of them before it ends: each collection of the oldest
generation walks all of them again, for nothing. Paused, a 4.1 MB Stripe pair takes 1.7 s of CPU instead of
6.0 s at the same peak memory, and locating 80,000 findings in a JSON head costs what 4 x 20,000 do, where the
collector made it 6 x (`benchmarks/bench_diff.py`).
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def paused() -> Iterator[None]:
    """No cyclic collection inside the block (reference counting still frees everything else); the collector's
    state is restored after it."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
