"""One `Database` protocol, two implementations: each reaches the database in the two styles only (Session units,
statement steps), and nothing outside the implementations asks which backend it is."""

from __future__ import annotations

import ast
import asyncio
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.orm import Session

from accessgov.storage import database
from accessgov.storage.backends import open_url
from accessgov.storage.prepared import PreparedQuery
from accessgov.storage.schema import Setting
from accessgov.storage.statement_steps import Steps, read, write

PACKAGE = Path(database.__file__).resolve().parent.parent
# The two implementations and the URL's choice between them (`backends.implementation`).
IMPLEMENTATIONS = {"storage/sqlite.py", "storage/postgres.py", "storage/backends.py"}
# What names a backend or a driver: compared with, it is a branch on the backend.
BACKEND_NAMES = {"sqlite", "pysqlite", "postgresql", "postgres", "psycopg", "psycopg2", "mysql"}


def test_both_styles_on_either_backend(db_url: str) -> None:
    db = open_url(db_url, readers=1, writers=1)
    insert = PreparedQuery(sa.insert(Setting).values(key=sa.bindparam("key"), value=sa.bindparam("value")), db.dialect)
    select = PreparedQuery(sa.select(Setting.value).where(Setting.key == sa.bindparam("key")), db.dialect)

    def store(dialect: sa.Dialect, keys: list[str]) -> Steps[list[str]]:
        for key in keys:
            yield write(insert, key=key, value=key.upper())
        return keys

    def value_of(key: str) -> Steps[str | None]:
        rows = yield read(select, key=key)
        return str(rows[0][0]) if rows else None

    def by_session(session: Session) -> str | None:
        found = session.get(Setting, "protocol-a")
        return found.value if found else None

    async def scenario() -> tuple[list[str], str | None, str | None]:
        stored = await asyncio.gather(*(db.write_steps(store, key) for key in ("protocol-a", "protocol-b")))
        return stored, await db.read_steps(lambda: value_of("protocol-b")), await db.read(by_session)

    try:
        assert asyncio.run(scenario()) == (["protocol-a", "protocol-b"], "PROTOCOL-B", "PROTOCOL-A")
        assert db.backend == sa.make_url(db_url).get_backend_name()
    finally:
        db.close()


def _names(path: Path) -> set[str]:
    """The attribute and variable names a module reads."""
    tree = ast.parse(path.read_text())
    return {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)} | {
        node.id for node in ast.walk(tree) if isinstance(node, ast.Name)
    }


def _branches(path: Path) -> list[str]:
    """Where a module compares something with a backend's or a driver's name, or reads the name of a URL's
    backend or an engine's driver (`get_backend_name`, `.driver`)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            constants = [
                element.value
                for operand in operands
                for element in (operand.elts if isinstance(operand, ast.Tuple | ast.List | ast.Set) else [operand])
                if isinstance(element, ast.Constant) and isinstance(element.value, str)
            ]
            if BACKEND_NAMES & set(constants):
                found.append(f"line {node.lineno}: {ast.unparse(node)}")
        elif isinstance(node, ast.Attribute) and node.attr in ("get_backend_name", "driver"):
            found.append(f"line {node.lineno}: {ast.unparse(node)}")
    return found


def test_no_module_but_the_implementations_asks_which_backend_it_runs_on() -> None:
    modules = {str(path.relative_to(PACKAGE)): path for path in PACKAGE.rglob("*.py")}
    outside = {name: path for name, path in modules.items() if name not in IMPLEMENTATIONS}
    asking = {
        name
        for name, path in outside.items()
        if name != "storage/database.py" and {"backend", "on_loop"} & _names(path)
    }
    assert asking == {"cli.py"}  # `accessgov worker` names the backend it runs on, and nothing else
    branching = {name: found for name, path in outside.items() if (found := _branches(path))}
    assert not branching, branching
    # The implementations do branch (the check finds what it looks for).
    assert _branches(modules["storage/backends.py"]) and _branches(modules["storage/postgres.py"])
    protocol = (PACKAGE / "storage" / "database.py").read_text()
    assert "on_loop" not in protocol and "backend ==" not in protocol


def test_the_handlers_make_one_storage_call_and_storage_never_calls_back_into_them() -> None:
    for path in (PACKAGE / "storage").rglob("*.py"):
        tree = ast.parse(path.read_text())
        imported = {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)} | {
            alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names
        }
        assert not {name for name in imported if name.startswith("accessgov.api")}, path
    restart = (PACKAGE / "api" / "restart.py").read_text()
    assert "write_steps" not in restart and "restarts.restart(" in restart
