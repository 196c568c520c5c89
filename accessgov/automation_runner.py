"""The automation runner: executes queued runs outside the delivery's request and transaction, on the server's
event loop or in `accessgov worker` processes. It claims batches under a lease, lets requests go first (for at most
`max_lag` after a run was queued), runs them one at a time on the loop and records the outcomes in one transaction;
a stale runner's outcome is discarded (docs/architecture.md, "A webhook delivery, hop by hop"; docs/operations.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from accessgov.domain.automations import FAILED, SKIPPED, Automation, skip_reason
from accessgov.errors import ServiceUnavailable
from accessgov.observability import metrics
from accessgov.storage import events
from accessgov.storage.caches import AutomationCache, AutomationRecord
from accessgov.storage.database import Database

log = logging.getLogger(__name__)
DEFAULT_LEASE = timedelta(seconds=60)
DEFAULT_BATCH = 64
DEFAULT_POLL_SECONDS = 1.0
# Runs wait for a moment without requests, but never longer than this after being queued.
DEFAULT_MAX_LAG = timedelta(seconds=5)
YIELD_SECONDS = 0.002
# A listener whose runs cannot be prepared is reported at most this often (one line, no traceback).
REPORT_EVERY_SECONDS = 60.0


class AutomationRunner:
    """Claims and executes queued automation runs until stopped."""

    def __init__(
        self,
        db: Database,
        listeners: AutomationCache,
        *,
        batch: int = DEFAULT_BATCH,
        lease: timedelta = DEFAULT_LEASE,
        poll_seconds: float = DEFAULT_POLL_SECONDS,
        busy: Callable[[], bool] = lambda: False,
        max_lag: timedelta = DEFAULT_MAX_LAG,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.busy = busy
        self.max_lag = max_lag
        self.db = db
        self.listeners = listeners
        self.batch = batch
        self.lease = lease
        self.poll_seconds = poll_seconds
        self.clock = clock
        self._wake = asyncio.Event()
        self._compiled: dict[tuple[str, datetime], Automation] = {}
        self._reported: dict[str, float] = {}  # listener id -> when its trouble was last logged (monotonic)

    def wake(self) -> None:
        """New runs were queued: look now instead of at the next poll."""
        self._wake.set()

    def _now(self) -> datetime:
        return datetime.fromtimestamp(self.clock(), UTC)

    async def run_forever(self) -> None:
        database_away = False  # said once per outage, not once per round
        while True:
            try:
                done = await self.run_once()
            except asyncio.CancelledError:
                raise
            except ServiceUnavailable as error:  # the database is away (logged by it too): wait, go on
                if not database_away:
                    log.warning("automation runner waits for the database: %s", error)
                database_away, done = True, 0
            except Exception:  # a bug: its traceback, then back off and go on
                log.exception("automation runner round failed")
                done = 0
            else:
                if database_away:
                    log.warning("automation runner: the database answers again")
                database_away = False
            if done == 0:
                self._wake.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), self.poll_seconds)

    async def run_once(self) -> int:
        """Claim one batch, run it, record the outcomes; returns how many runs were claimed."""
        now = self._now()
        claimed = await self.db.write(
            lambda session: events.claim_runs(session, now=now, lease=self.lease, limit=self.batch)
        )
        if not claimed:
            return 0
        outcomes = []
        for run in claimed:
            await self._yield_to_requests(run)
            outcomes.append(await self._execute(run))
            await asyncio.sleep(0)  # let requests in between runs
        finished_at = self._now()

        written = await self.db.write(lambda session: events.finish_runs(session, outcomes, now=finished_at))
        if written == len(outcomes):
            for outcome in outcomes:
                metrics.run_recorded(str(outcome.status))
        else:  # one statement for the batch says how many, not which: the stale batch is left out of the metrics
            log.warning(
                "%d of %d run outcomes were stale (lease expired and reclaimed)", len(outcomes) - written, len(outcomes)
            )
        return len(claimed)

    async def _yield_to_requests(self, run: events.ClaimedRun) -> None:
        """Requests first: while the process is serving requests, a run waits, unless it has been queued for
        `max_lag` already (then it runs regardless, so a sustained load delays runs by a bounded time and
        never starves them). The delivery was acknowledged; only the automation's start moves."""
        while self.busy() and self._now() - run.queued_at < self.max_lag:
            await asyncio.sleep(YIELD_SECONDS)

    async def _execute(self, run: events.ClaimedRun) -> events.RunOutcome:
        """One run's outcome. Whatever keeps this run's listener from loading (a row that does not read, stored steps
        that are not steps) fails this run only, with the reason; the batch's other runs go on. Only the database
        being unavailable fails the round (every run is retried after the lease)."""
        try:
            listener = await self.listeners.get(run.listener_id)
            if listener is None:  # deleted since the delivery: nothing to run
                return events.RunOutcome(run, FAILED, "listener no longer exists", {})
            reason = skip_reason(published=listener.automation_published, enabled=listener.trigger_enabled)
            if reason:  # unpublished or disabled after the event was accepted
                return events.RunOutcome(run, SKIPPED, reason, {})
            automation = self._automation(listener)
        except ServiceUnavailable:
            raise
        except Exception as error:
            self._report(run.listener_id, error)
            # The run's reason is an API field: the error's type only, its text goes to the operator's log.
            unloaded = f"the listener's automation cannot be loaded ({type(error).__name__})"
            return events.RunOutcome(run, FAILED, unloaded, {})
        try:
            status, why, outputs = automation.run(run.context)
        except Exception as error:  # a bug in a step must fail the run, not the runner
            log.exception("automation of run %s crashed", run.id)
            return events.RunOutcome(run, FAILED, f"internal error: {type(error).__name__}", {})
        return events.RunOutcome(run, status, why, outputs)

    def _automation(self, listener: AutomationRecord) -> Automation:
        key = (listener.id, listener.updated_at)
        automation = self._compiled.get(key)
        if automation is None:
            automation = self._compiled[key] = Automation.compile(listener.automation_steps or [])
        return automation

    def _report(self, listener_id: str, error: Exception) -> None:
        """One warning line per listener at most every `REPORT_EVERY_SECONDS`, not a traceback per run or round."""
        now = time.monotonic()
        if now - self._reported.get(listener_id, -REPORT_EVERY_SECONDS) < REPORT_EVERY_SECONDS:
            return
        if len(self._reported) > 10_000:
            self._reported.clear()
        self._reported[listener_id] = now
        log.warning("listener %s: its runs fail: the automation cannot be loaded: %s", listener_id, _named(error))


def _named(error: Exception) -> str:
    """`Type: message` of an error, its first line."""
    text = str(error).splitlines()[0] if str(error) else ""
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


async def run_worker(db: Database, stop: asyncio.Event, *, cache_seconds: float, **options: object) -> None:
    """`accessgov worker`: a runner in its own process until `stop` is set; a listener's automation is read again
    after `cache_seconds`."""
    runner = AutomationRunner(db, AutomationCache(db, ttl=cache_seconds), **options)  # type: ignore[arg-type]
    task = asyncio.create_task(runner.run_forever())
    await stop.wait()
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
