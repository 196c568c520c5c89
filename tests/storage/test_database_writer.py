"""The writer path of `storage.database`: units queued together commit together; batch units see every item of
their batch at once, each caller gets its own result or error, and one broken item never loses the others."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.orm import Session

from accessgov.errors import ErrorCode, InvalidRequest
from accessgov.storage.database import Database
from accessgov.storage.schema import Setting


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Database]:
    database = Database(f"sqlite:///{tmp_path / 'writer.db'}")
    yield database
    database.close()


class Recorder:
    """A batch unit storing one setting per item; `poison` items break the whole batch."""

    def __init__(self, poison: set[str] = frozenset(), refuse: set[str] = frozenset()) -> None:
        self.calls: list[list[str]] = []
        self.poison, self.refuse = poison, refuse

    def __call__(self, session: Session, items: list[str]) -> list[Any]:
        self.calls.append(list(items))
        if self.poison & set(items):
            raise RuntimeError("a broken item")
        results: list[Any] = []
        for item in items:
            if item in self.refuse:
                results.append(InvalidRequest(ErrorCode.INVALID_ARGUMENT, f"{item} refused"))
                continue
            session.add(Setting(key=item, value=item.upper()))
            results.append(f"stored {item}")
        session.flush()
        return results


async def queue_behind_a_held_writer(db: Database, recorder: Recorder, items: list[str]) -> list[Any]:
    """Hold the writer with a plain unit until every item is queued, so they meet in one batch."""
    held, release = threading.Event(), threading.Event()

    def hold(session: Session) -> None:
        held.set()
        release.wait(10)

    blocker = asyncio.ensure_future(db.write(hold))
    await asyncio.to_thread(held.wait, 10)
    calls = [asyncio.ensure_future(db.write_batched(recorder, item)) for item in items]
    await asyncio.sleep(0.05)  # every put has reached the queue
    release.set()
    await blocker
    return await asyncio.gather(*calls, return_exceptions=True)


def stored(db: Database) -> dict[str, str]:
    with db.sessions() as session:
        return {row.key: row.value for row in session.query(Setting).filter(Setting.key.like("item-%"))}


def test_batched_items_reach_the_unit_together_in_queue_order(db: Database) -> None:
    recorder = Recorder()
    items = [f"item-{n:02d}" for n in range(20)]
    results = asyncio.run(queue_behind_a_held_writer(db, recorder, items))
    assert results == [f"stored {item}" for item in items]
    assert recorder.calls == [items]  # one call, in order
    assert stored(db) == {item: item.upper() for item in items}


def test_an_item_refused_with_an_api_error_fails_alone(db: Database) -> None:
    recorder = Recorder(refuse={"item-03"})
    items = [f"item-{n:02d}" for n in range(6)]
    results = asyncio.run(queue_behind_a_held_writer(db, recorder, items))
    assert isinstance(results[3], InvalidRequest)
    assert [r for i, r in enumerate(results) if i != 3] == [f"stored {item}" for item in items if item != "item-03"]
    assert len(recorder.calls) == 1
    assert set(stored(db)) == set(items) - {"item-03"}


def test_a_broken_batch_is_retried_item_by_item(db: Database) -> None:
    recorder = Recorder(poison={"item-02"})
    items = [f"item-{n:02d}" for n in range(5)]
    results = asyncio.run(queue_behind_a_held_writer(db, recorder, items))
    assert isinstance(results[2], RuntimeError)
    assert [r for i, r in enumerate(results) if i != 2] == [f"stored {item}" for item in items if item != "item-02"]
    assert recorder.calls[0] == items and sorted(recorder.calls[1:]) == [[item] for item in items]
    assert set(stored(db)) == set(items) - {"item-02"}
