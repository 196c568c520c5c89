"""A reference server with the demo tenant, on a free loopback port, for the whole session."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import httpx
import pytest

from accessgov.config import Settings
from accessgov.demo.seed import DEMO_ADMIN_TOKEN, DEMO_VIEWER_TOKEN
from tests.support import loopback
from tests.support.harness import seeded_server


@dataclass
class Server:
    base_url: str
    config: Settings
    sessions: object

    def client(self, token: str | None = DEMO_ADMIN_TOKEN) -> httpx.Client:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return loopback.client(base_url=self.base_url, headers=headers, timeout=30)


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with seeded_server(tmp_path_factory.mktemp("server-data")) as (base_url, config, sessions):
        yield Server(base_url, config, sessions)


@pytest.fixture
def admin(server: Server) -> Iterator[httpx.Client]:
    with server.client() as client:
        yield client


@pytest.fixture
def viewer(server: Server) -> Iterator[httpx.Client]:
    with server.client(DEMO_VIEWER_TOKEN) as client:
        yield client
