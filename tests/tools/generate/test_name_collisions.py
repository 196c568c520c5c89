"""Names that collide once sanitised into Python are refused before anything is written (exit 2, one line)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from accessgov_tools.cli import guarded
from accessgov_tools.generate import main


def _doc(paths: dict[str, Any], schemas: dict[str, Any] | None = None) -> dict[str, Any]:
    ok = {"200": {"description": "OK"}}
    return {
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1.0.0"},
        "paths": {
            path: {"get": {**({"operationId": op} if op else {}), "responses": ok}} for path, op in paths.items()
        },
        "components": {"schemas": schemas or {}},
    }


CASES = {
    "operationIds-one-function": (_doc({"/a": "get-Task", "/b": "GetTask"}), "both become the Python name 'get_task'"),
    "operationIds-snake-and-kebab": (_doc({"/a": "list_tasks", "/b": "list-tasks"}), "'list_tasks'"),
    "dunder-and-keyword-schemas": (_doc({}, {"__class__": {}, "class": {}}), "both become the Python class 'Class'"),
    "schemas-differing-in-case": (_doc({}, {"Task": {}, "task": {}}), "both become the Python class 'Task'"),
    "no-operationId": (_doc({"/a": ""}), "needs an operationId"),
    "operationIds-sanitised-to-nothing": (_doc({"/a": "__", "/b": "."}), "both become the Python name 'field_'"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_colliding_names_are_refused_and_nothing_is_written(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document, message = CASES[case]
    (tmp_path / "openapi.json").write_text(json.dumps(document), encoding="utf-8")
    assert guarded(lambda: main(["--out", str(tmp_path)])) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["openapi.json"]
