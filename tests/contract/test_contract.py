"""The contract suite in pytest: every operation of the bundled spec against the seeded reference server.

Property-based tests per operation (all checks, fixed seed, bounded examples) plus the stateful test that follows the
spec's OpenAPI links (`RestartAgain`, `NextPage`). Credentials, webhook signing and real object IDs come from
`tests/contract/hooks.py` (imported here, which registers them).
"""

from __future__ import annotations

from pathlib import Path

import hypothesis
import pytest
import schemathesis
from hypothesis import HealthCheck
from schemathesis.checks import CHECKS

from tests.contract import hooks  # noqa: F401  (registers the auth provider and hooks)

SPEC = Path(__file__).resolve().parents[2] / "generated" / "openapi.json"
schema = schemathesis.openapi.from_path(str(SPEC))
ALL_CHECKS = CHECKS.get_all()


@pytest.fixture(autouse=True)
def _point_schema_at_server(contract_base_url: str) -> None:
    schema.config.update(base_url=contract_base_url)


@schema.parametrize()
@hypothesis.settings(
    max_examples=25,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)
def test_operation(case: schemathesis.Case, contract_base_url: str) -> None:
    case.call_and_validate(base_url=contract_base_url, checks=ALL_CHECKS)


def test_stateful(contract_base_url: str) -> None:
    # Built after the fixture set the base URL: the state machine reads the schema's config when created.
    schema.as_state_machine().run(
        settings=hypothesis.settings(
            max_examples=15,
            stateful_step_count=6,
            deadline=None,
            derandomize=True,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
    )
