"""The contract suite must fail against broken servers: run it (CLI runner, fixed seed) on each broken variant."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from scripts import contract
from tests.contract import broken


@pytest.mark.parametrize("variant", broken.VARIANTS, ids=lambda variant: variant.name)
def test_suite_catches_broken_server(variant: broken.Variant, tmp_path: Path) -> None:
    args = argparse.Namespace(
        **{
            **vars(contract.parse_args([])),
            "max_examples": 10,
            "seed": 1,
            "phases": "examples,coverage,fuzzing,stateful",
            "report_dir": str(tmp_path),
            **variant.run_options,
        }
    )
    with contract.reference_server(variant.wrap) as (base_url, env):
        result = contract.run_suite(base_url, args, tmp_path / variant.name, env)
    assert result.exit_code != 0, result.output[-3000:]
    assert variant.expected_check in result.output, result.output[-3000:]
