"""503 `KEY_UNAVAILABLE`: a request needs a stored secret sealed under a key this server cannot get."""

from __future__ import annotations

import logging
import math
import time

from accessgov.errors import ErrorCode, ServiceUnavailable

log = logging.getLogger(__name__)
WARN_EVERY_SECONDS = 60.0
_warned_at: dict[str, float] = {}


def key_unavailable(what: str, error: Exception) -> ServiceUnavailable:
    """The 503 for `what` (e.g. `listener wh_x`), whose sealed value did not open: logged for the operator at most
    once a minute per value (the cause is theirs to fix: `accessgov keys doctor`), never shown to the client."""
    now = time.monotonic()
    if now - _warned_at.get(what, -math.inf) >= WARN_EVERY_SECONDS:
        if len(_warned_at) > 10_000:
            _warned_at.clear()
        _warned_at[what] = now
        log.warning("%s: sealed secret does not open: %s (run `accessgov keys doctor`)", what, error)
    return ServiceUnavailable(
        ErrorCode.KEY_UNAVAILABLE, f"a secret of this {what.split()[0]} is sealed under a key the server does not have"
    )
