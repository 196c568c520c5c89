"""`make conformance`'s path end to end: the reference server started by `tests/conformance/run_reference.py`
(demo tenant, a JWT listener, CIDR listeners) passes every behavioural rule of the kit, none left not applicable;
and a failing request's reproduce snippet, pasted into a shell, sends a request the server accepts."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from accessgov_conformance.config import load
from accessgov_conformance.context import Context, run_salt
from accessgov_conformance.curl import reproduce

from tests.conformance import run_reference as contract
from tests.support import loopback

ROOT = Path(__file__).resolve().parents[2]

# One worker runs the module: the reference server (`reference`) starts once, not once per worker.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("contract-reference")]


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    with contract.reference_server(tmp_path_factory.mktemp("contract")) as (base_url, config):
        yield base_url, config


@pytest.mark.slow
def test_the_reference_server_passes_every_behavioural_rule(reference: tuple[str, Path], tmp_path: Path) -> None:
    base_url, config = reference
    code = contract.run_kit(base_url, config, tmp_path, ["--checks", "conformance"])
    summary = (tmp_path / "summary.md").read_text(encoding="utf-8")
    assert code == 0, summary
    rows = [line for line in summary.splitlines() if line.startswith("| ") and not line.startswith("| rule")]
    assert len(rows) > 70 and all(" | pass | " in row for row in rows), summary
    assert "Started server process" not in summary  # the server's own log stays in server.log


@pytest.mark.slow
def test_a_reproduce_snippet_runs_when_pasted(reference: tuple[str, Path], tmp_path: Path) -> None:
    base_url, config_path = reference
    config = load(config_path, base_url=base_url)
    with loopback.client(timeout=30) as client:
        ctx = Context(config, client, "REPRO", 1, run_salt(), {})
        exchange = ctx.deliver(config.listeners[0])
        assert exchange.status == 200
    snippet = reproduce(exchange, config)
    assert config.listeners[0].secret not in snippet.split("\n", 1)[1]  # only on its export line
    assert "[Filtered]" not in snippet
    done = subprocess.run(["bash", "-c", snippet], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.stdout.startswith("HTTP/1.1 200"), done.stdout + done.stderr
