"""`UTCDateTime` on SQLite binds exactly the text SQLAlchemy's own DATETIME would store for the value in UTC."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone, tzinfo
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy.dialects import sqlite
from sqlalchemy.dialects.sqlite.base import DATETIME

from accessgov.storage.schema import UTCDateTime

DIALECT = sqlite.dialect()
OURS = UTCDateTime().dialect_impl(DIALECT).bind_processor(DIALECT)
SQLALCHEMYS = DATETIME().bind_processor(DIALECT)
# UTC itself (the fast path), other objects for offset 0, fixed offsets, and a zone with DST.
ZONES = st.sampled_from(
    [
        UTC,
        ZoneInfo("Etc/UTC"),
        timezone(timedelta(hours=5, minutes=30)),
        timezone(-timedelta(hours=8)),
        ZoneInfo("Europe/Berlin"),
    ]
)


@pytest.mark.slow
@settings(max_examples=500, deadline=None)
@given(st.datetimes(min_value=datetime(2, 1, 1), max_value=datetime(9998, 12, 31)), ZONES)
def test_the_stored_text_is_sqlalchemys(moment: datetime, zone: tzinfo) -> None:
    aware = moment.replace(tzinfo=zone)
    assert OURS is not None and SQLALCHEMYS is not None
    assert OURS(aware) == SQLALCHEMYS(aware.astimezone(UTC))


def test_none_and_naive_values() -> None:
    assert OURS is not None
    assert OURS(None) is None
    with pytest.raises(ValueError, match="naive"):
        OURS(datetime(2026, 1, 1, 12, 0))
    assert OURS(datetime(2026, 1, 1, 12, 0, tzinfo=UTC)) == "2026-01-01 12:00:00.000000"
