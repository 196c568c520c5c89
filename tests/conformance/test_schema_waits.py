"""The schema part waits out a 429 as the behavioural rules do: `schema_hooks` wraps every request Schemathesis
sends, waits as `Retry-After` says within what is left of the run's budget, logs each wait for the kit's
progress line, and sends the request again; a wait over the budget is not taken."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest


class Answer(SimpleNamespace):
    status_code: int
    headers: dict[str, list[str]]


def _hooks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, budget: float) -> ModuleType:
    config = tmp_path / "kit.toml"
    config.write_text('[target]\nbase_url = "http://x.test"\n[auth]\ntoken = "t"\n', encoding="utf-8")
    monkeypatch.setenv("ACCESSGOV_CONFORMANCE_CONFIG", str(config))
    monkeypatch.setenv("ACCESSGOV_CONFORMANCE_MAX_RETRY_WAIT", str(budget))
    monkeypatch.setenv("ACCESSGOV_CONFORMANCE_WAITS", str(tmp_path / "waits.txt"))
    sys.modules.pop("accessgov_conformance.schema_hooks", None)
    from schemathesis.transport.requests import RequestsTransport

    original = RequestsTransport.send
    module = importlib.import_module("accessgov_conformance.schema_hooks")
    monkeypatch.setattr(RequestsTransport, "send", original)  # undone after the test: other tests send for real
    return module


def _case() -> Any:
    return SimpleNamespace(operation=SimpleNamespace(method="post", path="/api/v1/tasks/{task_id}/action/restart"))


def test_a_429_in_the_schema_part_is_waited_out_and_logged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    hooks = _hooks(tmp_path, monkeypatch, budget=60)
    answers = [Answer(status_code=429, headers={"retry-after": ["2"]}), Answer(status_code=401, headers={})]
    slept: list[float] = []
    monkeypatch.setattr(hooks, "_send", lambda self, case, **kwargs: answers.pop(0))
    monkeypatch.setattr(hooks.time, "sleep", slept.append)
    response = hooks._waiting_send(object(), _case())
    assert response.status_code == 401 and slept == [2.0]
    assert (tmp_path / "waits.txt").read_text(encoding="utf-8") == (
        "2 POST /api/v1/tasks/{task_id}/action/restart answered 429 (Retry-After: 2)\n"
    )
    assert hooks._budget[0] == 58


def test_a_wait_over_the_budget_is_not_taken(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    hooks = _hooks(tmp_path, monkeypatch, budget=5)
    monkeypatch.setattr(
        hooks, "_send", lambda self, case, **kwargs: Answer(status_code=429, headers={"retry-after": ["9"]})
    )
    monkeypatch.setattr(hooks.time, "sleep", lambda seconds: pytest.fail("waited over the budget"))
    assert hooks._waiting_send(object(), _case()).status_code == 429
    assert not (tmp_path / "waits.txt").exists()
