"""Start an ASGI app under uvicorn on a free loopback port, in a thread, for real-HTTP tests."""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import socket
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import uvicorn
from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from accessgov.config import Settings
from accessgov.http.edge import EdgeConfig


@contextlib.contextmanager
def serve(app: Any, host: str = "127.0.0.1", *, edge: str | None = None) -> Iterator[str]:
    """Serve `app` until the block exits; yields its base URL (`http://127.0.0.1:<port>`). `edge` ("h11" or
    "httptools"): behind the repository's HTTP edge with that parser, as `accessgov serve` and `proxy` run it."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, 0))
    port = sock.getsockname()[1]
    # proxy_headers=False as in `accessgov serve`: uvicorn would otherwise trust X-Forwarded-For from loopback
    # peers itself, before the app sees the TCP peer (and the listener CIDR checks would test nothing).
    config = uvicorn.Config(app, log_level="warning", lifespan="on", proxy_headers=False, timeout_graceful_shutdown=2)
    if edge is not None:  # the edge's default deadlines and head limits
        config = EdgeConfig(app, http=edge, log_level="warning", lifespan="on", timeout_graceful_shutdown=2)
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


# This process's migrated SQLite files with the demo tenant, by the keyring their secrets are sealed under.
_seeded_sqlite: dict[tuple[str, str, bytes], Path] = {}


def _keyring_identity() -> tuple[str, str, bytes] | None:
    """What the seeding seals secrets under: the key setting, the key file's name and content. None when neither
    is set (the key file then lives beside the database, so a copy would leave it behind)."""
    value, path = os.environ.get("ACCESSGOV_SECRET_KEY", ""), os.environ.get("ACCESSGOV_SECRET_KEY_FILE", "")
    if not value and not path:
        return None
    content = Path(path).read_bytes() if path and Path(path).is_file() else b""
    return value, path, content


def sqlite_template(prefix: str, prepare: Callable[[Engine], None] | None = None) -> Path:
    """A migrated SQLite file (then `prepare`d) that lives as long as the test process, to copy into tests with
    `copy_sqlite` instead of migrating or seeding each time."""
    from accessgov.storage.backends import create_engine
    from accessgov.storage.engine import migrate

    directory = Path(tempfile.mkdtemp(prefix=prefix))
    atexit.register(shutil.rmtree, directory, ignore_errors=True)
    path = directory / "accessgov.db"
    engine = create_engine(f"sqlite:///{path}")
    migrate(engine)
    if prepare is not None:
        prepare(engine)
    engine.dispose()  # the last connection closed: the WAL is checkpointed into the file
    return path


def copy_sqlite(template: Path, target: Path) -> None:
    """`template` (see `sqlite_template`) copied to `target`, with its WAL when one was left behind."""
    for suffix in ("", "-wal"):
        if template.with_name(template.name + suffix).exists():
            shutil.copyfile(template.with_name(template.name + suffix), target.with_name(target.name + suffix))


def _seed(engine: Engine) -> None:
    from accessgov.demo.seed import seed_demo
    from accessgov.storage.engine import session_factory

    with session_factory(engine).begin() as session:
        seed_demo(session)


def _seeded_sqlite_template(identity: tuple[str, str, bytes]) -> Path:
    """The demo tenant seeded once per test process and keyring: seeding costs ~2 s of CPU, copying a file a
    millisecond."""
    if identity not in _seeded_sqlite:
        path = sqlite_template("accessgov-seeded-", _seed)
        # The key file may have been created by this seeding: key the template by what it holds now.
        _seeded_sqlite[_keyring_identity() or identity] = path
        _seeded_sqlite.setdefault(identity, path)
    return _seeded_sqlite[identity]


@contextlib.contextmanager
def seeded_database(data_dir: Path, url: str | None = None) -> Iterator[tuple[str, sessionmaker[Session]]]:
    """A fresh, migrated database with the demo tenant loaded: (url, sessions). SQLite in `data_dir` (a copy of
    this process's seeded file), unless `url` names an empty one."""
    from accessgov.demo.seed import seed_demo
    from accessgov.storage.backends import create_engine
    from accessgov.storage.engine import migrate, session_factory

    identity = _keyring_identity()
    if url is None and identity is not None:
        template = _seeded_sqlite_template(identity)
        copy_sqlite(template, data_dir / "accessgov.db")
        url = f"sqlite:///{data_dir / 'accessgov.db'}"
        engine = create_engine(url)
        sessions = session_factory(engine)
    else:
        url = url or f"sqlite:///{data_dir / 'accessgov.db'}"
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
# (the tests of tests/server/failure_limits/ hold the limits themselves).
NO_FAILURE_LIMITS: dict[str, Any] = {"auth_failure_limit": "off", "auth_failure_limit_per_credential": "off"}


@contextlib.contextmanager
def seeded_server(
    data_dir: Path, *, url: str | None = None, **config: Any
) -> Iterator[tuple[str, Settings, sessionmaker[Session]]]:
    """The reference server on a fresh database (`seeded_database`) with the demo tenant loaded; `config`
    overrides `Settings` fields (failure limits off unless given)."""
    from accessgov.app import create_app

    with seeded_database(data_dir, url) as (url, sessions):
        config = Settings.load(database_url=url, **{**NO_FAILURE_LIMITS, **config})  # the suite's key file
        with serve(create_app(config)) as base_url:
            yield base_url, config, sessions
