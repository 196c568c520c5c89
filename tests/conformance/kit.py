"""Run the kit's rules in process against a `FakeTarget`."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import httpx
from accessgov_conformance.cli import select
from accessgov_conformance.config import Config, load
from accessgov_conformance.context import RunState
from accessgov_conformance.rules import all_rules
from accessgov_conformance.runner import Result, run

from tests.conformance.fake_target import CONFIG, FakeTarget


def fake_config(tmp_path: Path, extra: str = "") -> Config:
    path = tmp_path / "fake.toml"
    path.write_text(CONFIG.replace("[target]\n", f"[target]\n{extra}\n", 1), encoding="utf-8")
    return load(path)


def run_fake(config: Config, fake: FakeTarget, only: str = "", seed: int = 1) -> dict[str, Result]:
    """The verdicts of the behavioural rules (`only`: these ids) against `fake`."""
    rules = select(all_rules(), "conformance", only)
    # The fake's lifetime switches end a credential after 0.1 s.
    config = dataclasses.replace(config, credential_age=0.2)
    with httpx.Client(transport=fake.transport(), timeout=5) as client:
        state = RunState(config, seed, client)
        state.retry_budget.sleep = lambda _seconds: None  # the fake's 429s are waited out without waiting
        results = run(rules, state, lambda *_: None)
    return {result.rule.id: result for result in results}
