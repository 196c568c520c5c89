"""The GIL switch interval of a serving process: ACCESSGOV_GIL_SWITCH_INTERVAL over the default, set by `create_app`."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from accessgov.app import create_app
from accessgov.config import ServerConfig


@pytest.fixture
def restored_interval() -> Iterator[None]:
    """The interval is process-wide: the test process gets its own back."""
    before = sys.getswitchinterval()
    yield
    sys.setswitchinterval(before)


def test_variable_over_default(tmp_path: Path) -> None:
    env = {"DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite'}"}
    assert ServerConfig.from_env(env).gil_switch_interval == ServerConfig.gil_switch_interval == 0.0002
    assert ServerConfig.from_env({**env, "ACCESSGOV_GIL_SWITCH_INTERVAL": "0.001"}).gil_switch_interval == 0.001


def test_the_app_sets_the_interval(tmp_path: Path, restored_interval: None) -> None:
    sys.setswitchinterval(0.005)
    config = ServerConfig(database_url=f"sqlite:///{tmp_path / 'db.sqlite'}", gil_switch_interval=0.0003)
    app = create_app(config)

    async def started_and_stopped() -> None:
        async with app.router.lifespan_context(app):
            pass

    asyncio.run(started_and_stopped())  # closes what create_app opened
    assert sys.getswitchinterval() == pytest.approx(0.0003)
