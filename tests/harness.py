"""Start an ASGI app under uvicorn on a free loopback port, in a thread, for real-HTTP tests."""

from __future__ import annotations

import atexit
import contextlib
import shutil
import socket
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import uvicorn
from sqlalchemy.orm import Session, sessionmaker

from accessgov.config import ServerConfig


@contextlib.contextmanager
def serve(app: Any, host: str = "127.0.0.1") -> Iterator[str]:
    """Serve `app` until the block exits; yields its base URL (`http://127.0.0.1:<port>`)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, 0))
    port = sock.getsockname()[1]
    # proxy_headers=False as in `accessgov serve`: uvicorn would otherwise trust X-Forwarded-For from loopback
    # peers itself, before the app sees the TCP peer (and the listener CIDR checks would test nothing).
    config = uvicorn.Config(app, log_level="warning", lifespan="on", proxy_headers=False, timeout_graceful_shutdown=2)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("server did not start")
        time.sleep(0.01)
    try:
        yield f"http://[{host}]:{port}" if family == socket.AF_INET6 else f"http://{host}:{port}"
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


_seeded_sqlite: list[Path] = []  # this process's migrated SQLite file with the demo tenant, copied for each test


def _seeded_sqlite_template() -> Path:
    """The demo tenant seeded once per test process: seeding costs ~2 s of CPU, copying the file a millisecond."""
    if not _seeded_sqlite:
        from accessgov.demo.seed import seed_demo
        from accessgov.storage.engine import create_engine, migrate, session_factory

        directory = Path(tempfile.mkdtemp(prefix="accessgov-seeded-"))
        atexit.register(shutil.rmtree, directory, ignore_errors=True)
        path = directory / "accessgov.db"
        engine = create_engine(f"sqlite:///{path}")
        migrate(engine)
        with session_factory(engine).begin() as session:
            seed_demo(session)
        engine.dispose()  # the last connection closed: the WAL is checkpointed into the file
        _seeded_sqlite.append(path)
    return _seeded_sqlite[0]


@contextlib.contextmanager
def seeded_database(data_dir: Path, url: str | None = None) -> Iterator[tuple[str, sessionmaker[Session]]]:
    """A fresh, migrated database with the demo tenant loaded: (url, sessions). SQLite in `data_dir` (a copy of
    this process's seeded file), unless `url` names an empty one."""
    from accessgov.demo.seed import seed_demo
    from accessgov.storage.engine import create_engine, migrate, session_factory

    if url is None:
        template = _seeded_sqlite_template()
        for suffix in ("", "-wal"):  # a WAL left behind belongs with its file
            if template.with_name(template.name + suffix).exists():
                shutil.copyfile(template.with_name(template.name + suffix), data_dir / f"accessgov.db{suffix}")
        url = f"sqlite:///{data_dir / 'accessgov.db'}"
        engine = create_engine(url)
        sessions = session_factory(engine)
    else:
        engine = create_engine(url)
        migrate(engine)
        sessions = session_factory(engine)
        with sessions.begin() as session:
            seed_demo(session)
    try:
        yield url, sessions
    finally:
        engine.dispose()


# Suites about other behaviour send many failed credentials on purpose: the failure limits stay off there
# (tests/service/test_failure_limits.py and tests/server/test_shared_limits.py hold the limits themselves).
NO_FAILURE_LIMITS: dict[str, Any] = {"auth_failure_limit": "off", "auth_failure_limit_per_credential": "off"}


@contextlib.contextmanager
def seeded_server(
    data_dir: Path, *, url: str | None = None, **config: Any
) -> Iterator[tuple[str, ServerConfig, sessionmaker[Session]]]:
    """The reference server on a fresh database (`seeded_database`) with the demo tenant loaded; `config`
    overrides `ServerConfig` fields (failure limits off unless given)."""
    from accessgov.app import create_app

    with seeded_database(data_dir, url) as (url, sessions):
        config = ServerConfig(database_url=url, **{**NO_FAILURE_LIMITS, **config})
        with serve(create_app(config)) as base_url:
            yield base_url, config, sessions
