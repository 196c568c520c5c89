"""The access log's writer and clock: lines of one loop turn leave in one write (at most PIPE_BUF bytes, cut at
line ends, so workers sharing stderr never interleave inside a line), and timestamps read as
`datetime.isoformat(timespec="milliseconds")` reads them."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accessgov.observability import line_writer
from accessgov.observability.access_log import _Timestamps
from accessgov.observability.line_writer import PIPE_BUF, LineWriter


class Writes(list[bytes]):
    """What reached the test's own descriptor `fd`, one item per `os.write`."""

    fd: int


@pytest.fixture
def writes(monkeypatch: pytest.MonkeyPatch) -> Iterator[Writes]:
    """`os.write` recorded for a descriptor of this test's own (/dev/null): other threads of the test session
    (servers, their access logs on stderr) still write wherever they write."""
    recorded = Writes()
    recorded.fd = os.open(os.devnull, os.O_WRONLY)
    real_write = os.write

    def write(fd: int, data: bytes) -> int:
        if fd != recorded.fd:
            return real_write(fd, data)
        recorded.append(bytes(data))
        return len(data)

    monkeypatch.setattr(line_writer.os, "write", write)
    yield recorded
    os.close(recorded.fd)


def test_lines_of_one_loop_turn_leave_in_one_write(writes: Writes) -> None:
    writer = LineWriter(writes.fd)

    async def scenario() -> None:
        for n in range(3):
            writer.write(b'{"n":%d}\n' % n)
        assert writes == []  # not during the turn
        await asyncio.sleep(0)
        assert writes == [b'{"n":0}\n{"n":1}\n{"n":2}\n']
        writer.write(b'{"n":3}\n')
        await asyncio.sleep(0)

    asyncio.run(scenario())
    assert writes == [b'{"n":0}\n{"n":1}\n{"n":2}\n', b'{"n":3}\n']


def test_writes_stay_within_pipe_buf_and_end_at_a_line(writes: Writes) -> None:
    writer = LineWriter(writes.fd)
    lines = [(b"x" * (97 + n % 50)) + b"\n" for n in range(200)]

    async def scenario() -> None:
        for line in lines:
            writer.write(line)
        await asyncio.sleep(0)

    asyncio.run(scenario())
    assert len(writes) > 1
    assert all(len(data) <= PIPE_BUF and data.endswith(b"\n") for data in writes)
    assert b"".join(writes) == b"".join(lines)


def test_outside_a_loop_and_after_a_closed_loop_lines_are_still_written(writes: Writes) -> None:
    writer = LineWriter(writes.fd)
    writer.write(b"at once\n")
    assert writes == [b"at once\n"]

    writes.clear()
    loop = asyncio.new_event_loop()

    def log_and_stop() -> None:
        writer.write(b"first loop\n")  # the flush it schedules never runs: the loop stops and closes first
        loop.stop()

    loop.call_soon(log_and_stop)
    loop.run_forever()
    loop.close()
    assert writes == []

    async def log_again() -> None:
        writer.write(b"second loop\n")
        await asyncio.sleep(0)

    asyncio.run(log_again())
    assert writes == [b"first loop\nsecond loop\n"]


@pytest.mark.slow
@settings(max_examples=500, deadline=None)
@given(st.integers(min_value=0, max_value=4_102_444_800 * 10**6))
def test_timestamps_read_as_isoformat_reads_them(micros: int) -> None:
    now = micros / 1e6
    clock = _Timestamps(lambda: now)
    assert clock.now() == datetime.fromtimestamp(now, UTC).isoformat(timespec="milliseconds")


def test_what_is_pending_at_exit_is_written_by_the_exit_hook(writes: Writes) -> None:
    writer = LineWriter(writes.fd)
    loop = asyncio.new_event_loop()

    def log_and_stop() -> None:
        writer.write(b"last words\n")
        loop.stop()

    loop.call_soon(log_and_stop)
    loop.run_forever()
    loop.close()
    assert writes == []
    line_writer._flush_all()  # what atexit runs
    assert writes == [b"last words\n"]


def test_the_lines_of_one_turn_leave_in_one_write(writes: Writes) -> None:
    writer = LineWriter(writes.fd)

    async def scenario() -> None:
        for turn in range(3):
            for n in range(5):
                writer.write(b'{"turn":%d,"n":%d}\n' % (turn, n))
            await asyncio.sleep(0)

    asyncio.run(scenario())
    assert len(writes) == 3 and all(data.count(b"\n") == 5 for data in writes)
