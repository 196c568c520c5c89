"""`LoopBatches`: PostgreSQL's webhook deliveries committed together on the event loop (group commit, bounded,
one failing item failing alone, broken connections never reused)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Dialect, Engine
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from accessgov.errors import ApiError, Conflict, ErrorCode
from accessgov.storage import events
from accessgov.storage.database import MAX_BATCH
from accessgov.storage.loop_batches import LoopBatches
from accessgov.storage.prepared import PreparedQuery
from accessgov.storage.schema import WebhookEvent
from accessgov.storage.statement_steps import Steps, read
from tests.server.storage.conftest import NOW, MakeListener
from tests.server.storage.test_events import (
    EVENT,
    FRESH,
    PAYLOAD,
    assert_decided_event_by_event,
    count,
    deliver,
    mixed_batch,
)
from tests.server.storage.test_loop_reads import Opened

pytestmark = [pytest.mark.postgres, pytest.mark.parametrize("db_url", ["postgres"], indirect=True)]


SLEEP = sa.select(sa.func.pg_sleep(sa.bindparam("seconds", type_=sa.Float)))
SUICIDE = sa.select(sa.func.pg_terminate_backend(sa.func.pg_backend_pid()))


class Recording:
    """`events.claim_each`, recording the items of each call (one call per transaction and unit), after a sleep
    of `delay` seconds in the transaction."""

    def __init__(self, delay: float = 0.0) -> None:
        self.batches: list[int] = []
        self.delay = delay

    def __call__(self, dialect: Dialect, items: list[Any]) -> Steps[list[Any]]:
        self.batches.append(len(items))
        if self.delay:
            yield read(PreparedQuery(SLEEP, dialect), seconds=self.delay)
        results: list[Any] = yield from events.claim_each(dialect, items)
        return results


def _batches(engine: Engine, size: int = 2, **options: Any) -> tuple[LoopBatches, Opened]:
    opened = Opened(engine, autocommit=False)
    return LoopBatches(opened, size, engine.dialect, MAX_BATCH, **options), opened


def test_deliveries_of_one_turn_commit_together_and_are_decided_like_record_deliveries(
    engine: Engine, sessions: sessionmaker[Session], make_listener: MakeListener
) -> None:
    first, second = make_listener(), make_listener()
    deliver(sessions, first.id, EVENT)
    batches, opened = _batches(engine)
    unit = Recording()

    async def main() -> list[events.DeliveryResult]:
        return await asyncio.gather(*(batches.submit(unit, item) for item in mixed_batch(first.id, second.id)))

    results = asyncio.run(main())
    assert unit.batches == [5]
    assert len(opened.connections) == 1
    assert_decided_event_by_event(sessions, results)
    batches.close()
    assert opened.connections[0].closed


def test_items_queued_while_every_connection_is_busy_share_the_next_transaction(
    engine: Engine, sessions: sessionmaker[Session], make_listener: MakeListener
) -> None:
    listener = make_listener()
    batches, opened = _batches(engine, size=1)
    unit = Recording(delay=0.05)

    async def main() -> list[events.DeliveryResult]:
        first = batches.submit(unit, events.Delivery(listener.id, EVENT, PAYLOAD, NOW))
        await asyncio.sleep(0.01)  # the first transaction is under way: the rest wait for its connection
        rest = [
            batches.submit(unit, events.Delivery(listener.id, f"{index:08x}-2a1c-4e5f-9a8b-7c6d5e4f3a2b", PAYLOAD, NOW))
            for index in range(10)
        ]
        return await asyncio.gather(first, *rest)

    results = asyncio.run(main())
    assert unit.batches == [1, 10]
    assert len(opened.connections) == 1
    assert all(result.accepted for result in results)
    assert count(sessions, WebhookEvent) == 11


def test_at_most_size_transactions_run_at_once(engine: Engine, make_listener: MakeListener) -> None:
    listener = make_listener()
    batches, opened = _batches(engine, size=2)
    unit = Recording(delay=0.02)

    async def main() -> list[events.DeliveryResult]:
        submitted = []
        for index in range(6):  # a turn each: every submission finds the connections busy or a drainer running
            delivery = events.Delivery(listener.id, f"{index:08x}-2a1c-4e5f-9a8b-7c6d5e4f3a2b", PAYLOAD, NOW)
            submitted.append(batches.submit(unit, delivery))
            await asyncio.sleep(0)
        return await asyncio.gather(*submitted)

    assert all(result.accepted for result in asyncio.run(main()))
    assert len(opened.connections) == 2
    assert sum(unit.batches) == 6


def test_a_failing_item_fails_alone_and_its_neighbours_are_committed(
    engine: Engine, sessions: sessionmaker[Session], make_listener: MakeListener
) -> None:
    listener = make_listener()
    batches, _ = _batches(engine)
    unit = Recording()

    async def main() -> list[Any]:
        good = batches.submit(unit, events.Delivery(listener.id, EVENT, PAYLOAD, NOW))
        gone = batches.submit(unit, events.Delivery("wh_gone", EVENT, PAYLOAD, NOW))  # no such listener
        also_good = batches.submit(unit, events.Delivery(listener.id, FRESH, PAYLOAD, NOW))
        return await asyncio.gather(good, gone, also_good, return_exceptions=True)

    good, gone, also_good = asyncio.run(main())
    assert unit.batches == [3, 1, 1, 1]  # the batch rolled back, then each item alone
    assert isinstance(gone, IntegrityError)
    assert good.accepted and also_good.accepted
    assert count(sessions, WebhookEvent) == 2


def test_an_api_error_result_is_raised_to_its_caller_only(engine: Engine) -> None:
    batches, _ = _batches(engine)
    refused = Conflict(ErrorCode.DUPLICATE_EVENT, "seen")

    def unit(dialect: Dialect, items: list[str]) -> Steps[list[Any]]:
        yield from ()
        return [refused if item == "bad" else item.upper() for item in items]

    async def main() -> list[Any]:
        return await asyncio.gather(*(batches.submit(unit, item) for item in ("a", "bad", "b")), return_exceptions=True)

    a, bad, b = asyncio.run(main())
    assert (a, b) == ("A", "B")
    assert bad is refused and isinstance(bad, ApiError)


def test_a_connection_that_broke_while_idle_is_replaced_before_a_write(
    engine: Engine, postgres_admin: Engine, make_listener: MakeListener
) -> None:
    listener = make_listener()
    batches, opened = _batches(engine, size=1, ping_after=0.0)
    unit = Recording()

    async def main() -> events.DeliveryResult:
        await batches.submit(unit, events.Delivery(listener.id, EVENT, PAYLOAD, NOW))
        pid = opened.connections[0].info.backend_pid
        with postgres_admin.begin() as connection:
            connection.execute(sa.select(sa.func.pg_terminate_backend(pid)))
        await asyncio.sleep(0.05)
        return await batches.submit(unit, events.Delivery(listener.id, FRESH, PAYLOAD, NOW))

    assert asyncio.run(main()).accepted
    assert len(opened.connections) == 2 and opened.connections[0].closed


def test_a_connection_lost_mid_transaction_fails_its_batch_and_is_not_reused(
    engine: Engine, postgres_admin: Engine, make_listener: MakeListener
) -> None:
    listener = make_listener()
    batches, opened = _batches(engine, size=1)

    def dies(dialect: Dialect, items: list[Any]) -> Steps[list[Any]]:
        yield read(PreparedQuery(SUICIDE, dialect))  # the connection's backend ends itself, mid-transaction
        results: list[Any] = yield from events.claim_each(dialect, items)
        return results

    async def main() -> tuple[list[Any], events.DeliveryResult]:
        lost = await asyncio.gather(
            batches.submit(dies, events.Delivery(listener.id, EVENT, PAYLOAD, NOW)),
            batches.submit(dies, events.Delivery(listener.id, FRESH, PAYLOAD, NOW)),
            return_exceptions=True,
        )
        return lost, await batches.submit(Recording(), events.Delivery(listener.id, EVENT, PAYLOAD, NOW))

    lost, after = asyncio.run(main())
    assert all(isinstance(error, DBAPIError) for error in lost)  # not repeated one by one on a dead connection
    assert after.accepted  # nothing of the lost batch was committed
    assert len(opened.connections) == 2 and opened.connections[0].closed


def test_a_closed_pool_refuses_work(engine: Engine) -> None:
    batches, _ = _batches(engine)
    batches.close()

    async def main() -> None:
        batches.submit(Recording(), None)

    with pytest.raises(RuntimeError, match="closed"):
        asyncio.run(main())


def test_a_transaction_cancelled_with_its_loop_closes_its_connection(engine: Engine) -> None:
    batches, opened = _batches(engine, size=1)
    submitted: list[asyncio.Future[Any]] = []

    def stalls(dialect: Dialect, items: list[Any]) -> Steps[list[Any]]:
        yield read(PreparedQuery(SLEEP, dialect), seconds=30)
        return items

    async def main() -> None:  # returns while the transaction is under way: asyncio.run cancels its task
        submitted.append(batches.submit(stalls, "item"))
        await asyncio.sleep(0.1)

    asyncio.run(main())
    assert submitted[0].cancelled()
    assert len(opened.connections) == 1 and opened.connections[0].closed
