"""No verdict without evidence: the kit against Prism (a stateless mock of the contract) configured as an
implementation. Prism answers every well-formed request with an example and accepts any credential, so a rule
that needs state, a clock or a secret (the registry's `mock=False`) and passes there passed on nothing.

Prism is `benchmarks/mock-bench`'s pinned `@stoplight/prism-cli` (`make test` installs it with the mock-bench npm
stamp); without it the test skips, and fails under CI=true. The stateful rules Prism passes are also written to
`build/prism-passes.json` for the record.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from accessgov_conformance import preflight, transport
from accessgov_conformance.cli import select
from accessgov_conformance.config import load
from accessgov_conformance.context import Context, RunState
from accessgov_conformance.rules import all_rules
from accessgov_conformance.runner import run
from accessgov_conformance.verdicts import Verdict
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ed25519

from benchmarks.bench_mock import PRISM, prism

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "conformance" / "conformance.example.toml"
RECORD = ROOT / "build" / "prism-passes.json"

pytestmark = pytest.mark.slow

# Every listener kind the rules know, so that no stateful rule hides behind "not applicable".
LISTENERS = """
[[listeners]]
id = "wh_jwt"
method = "jwt"
private_key_file = "jwt-key.pem"
kid = "prism-kid"

[[listeners]]
id = "wh_outside"
method = "hmac"
secret = "outside-secret"
source_allowed = false
allowed_cidrs = ["192.0.2.0/24"]

[[listeners]]
id = "wh_inside"
method = "hmac"
secret = "inside-secret"
cidr_restricted = true
allowed_cidrs = ["127.0.0.0/8"]

[[listeners]]
id = "wh_trigger_off"
method = "hmac"
secret = "trigger-off-secret"
trigger_enabled = false

[[listeners]]
id = "wh_unpublished"
method = "hmac"
secret = "unpublished-secret"
automation_published = false
"""


def prism_config(tmp_path: Path, base_url: str) -> Path:
    key = ed25519.Ed25519PrivateKey.generate()
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    (tmp_path / "jwt-key.pem").write_bytes(pem)
    text = EXAMPLE.read_text(encoding="utf-8").replace('"http://127.0.0.1:8080"', f'"{base_url}"', 1)
    assert 'kind = "implementation"' in text
    text = text.replace("\n[fixtures]", LISTENERS + "\n[fixtures]", 1)
    path = tmp_path / "prism.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_no_rule_that_needs_state_passes_against_prism(tmp_path: Path) -> None:
    if not PRISM.exists():
        message = f"{PRISM} is missing: make test installs it (npm ci --prefix benchmarks/mock-bench)"
        if os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}:
            pytest.fail(message)
        pytest.skip(message)
    with prism() as base_url:
        config = load(prism_config(tmp_path, base_url))
        with transport.client(5.0) as client:
            state = RunState(config, 1, client)
            assert preflight.problem(Context(config, client, "preflight", 1, state.salt, {}, run=state)) is None
            results = run(select(all_rules(), "conformance", ""), state, lambda *_: None)
    stateful_passes = sorted(
        result.rule.id for result in results if not result.rule.mock and result.verdict == Verdict.PASS
    )
    RECORD.parent.mkdir(exist_ok=True)
    RECORD.write_text(json.dumps({"stateful_rules_passing_on_prism": stateful_passes}, indent=2) + "\n")
    ran = [result for result in results if not result.rule.mock and result.verdict != Verdict.NOT_APPLICABLE]
    assert len(ran) > 50  # the configuration reaches the stateful rules: they ran and were refused, not skipped
    assert stateful_passes == []
