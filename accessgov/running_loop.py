"""The running event loop, asked of the system only when a hint cannot answer: on Python 3.11
`asyncio.get_running_loop()` makes a `getpid` system call (1.7 % of a GET page's and 2.6 % of a JWT delivery's loop
samples, from the access log and the SQLite writer asking once per request). Both hold the loop a flush of theirs is
scheduled on, the running one while it runs: the first caller of a turn asks, the others take the hint.
"""

from __future__ import annotations

import asyncio


def running_loop(scheduled: asyncio.AbstractEventLoop | None) -> asyncio.AbstractEventLoop:
    """`scheduled` (the loop the caller's pending work is scheduled on) when it is running, else the running loop;
    `RuntimeError` outside one, as `asyncio.get_running_loop`."""
    if scheduled is not None and scheduled.is_running():
        return scheduled
    return asyncio.get_running_loop()
