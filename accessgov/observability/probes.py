"""`GET /healthz` (the process answers), `GET /readyz` (the database answers and is migrated to the newest
revision) and `GET /metrics` (Prometheus text format). Internal operations, without credentials: meant for a
load balancer and a scraper on the operator's network, dropped from the public contract."""

from __future__ import annotations

import asyncio
import logging

from starlette.responses import Response

from accessgov.errors import ErrorCode, ServiceUnavailable
from accessgov.http.context import RequestContext
from accessgov.http.negotiation import require_acceptable
from accessgov.observability import metrics
from accessgov.storage import engine
from accessgov.storage.database import Database

log = logging.getLogger(__name__)
READY_TIMEOUT_SECONDS = 2.0


class Probes:
    def __init__(self, db: Database) -> None:
        self.db = db
        self.head = engine.head_revision()  # read once: the code's newest schema does not change while it runs

    async def healthz(self, ctx: RequestContext) -> tuple[int, dict[str, str]]:
        require_acceptable(ctx, "application/json")
        return 200, {"status": "ok"}

    async def readyz(self, ctx: RequestContext) -> tuple[int, dict[str, str]]:
        require_acceptable(ctx, "application/json")
        try:
            found = await asyncio.wait_for(self.db.read(engine.current_revision), READY_TIMEOUT_SECONDS)
        except Exception as error:  # unreachable, timed out, no alembic_version table: all mean "not ready"
            log.warning("readiness: the database does not answer: %s", type(error).__name__)
            raise ServiceUnavailable(ErrorCode.NOT_READY, "the database is unreachable") from None
        if found != self.head:
            raise ServiceUnavailable(
                ErrorCode.NOT_READY, f"the database schema is at revision {found}, not {self.head}; run migrate"
            )
        return 200, {"status": "ready", "revision": found}

    async def metrics(self, ctx: RequestContext) -> Response:
        require_acceptable(ctx, "text/plain")
        body, content_type = metrics.render()
        return Response(body, media_type=content_type)
