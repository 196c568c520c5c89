"""The TypeScript SDK's own tests (`sdk-ts/test/*.test.ts`, node:test), compiled `tsc --strict` in a project that
installed the package from its tarball, and run there against the reference server, the mock and hostile servers
of their own (hostile.test.ts)."""

from __future__ import annotations

import pytest

from tests.sdk_ts.conftest import Servers
from tests.sdk_ts.harness import SDK, Built, NodeRun, node_tests

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("sdk-ts")]

SUITES = sorted(path.name.removesuffix(".ts") + ".js" for path in (SDK / "test").glob("*.test.ts"))


def test_every_suite_is_run() -> None:
    expected = {"server.test.js", "mock.test.js", "hostile.test.js", "hostile-answers.test.js", "webhooks.test.js"}
    assert expected | {"types.test.js"} <= set(SUITES)


@pytest.fixture(scope="module")
def run(built: Built, servers: Servers) -> NodeRun:
    """Every suite, in one `node --test` (each file in its own process, one after another)."""
    return node_tests(built, SUITES, servers.env)


def test_the_run_of_every_suite_exits_0(run: NodeRun) -> None:
    assert run.returncode == 0 and run.counts.get("fail") == 0, run.output[-6000:]
    assert set(run.files) == set(SUITES), set(run.files) - set(SUITES)  # no result outside the suites' files


@pytest.mark.parametrize("suite", SUITES)
def test_suite_passes(suite: str, run: NodeRun) -> None:
    assert suite in run.files, f"{suite}: no result\n{run.output[-3000:]}"
    counts, failures = run.files[suite], "\n".join(run.failures[suite])
    assert counts["fail"] == 0, f"{suite}: {counts}\n{failures[-4000:]}\n--- the run's output\n{run.output[-3000:]}"
    assert counts["pass"] >= 1 and counts["skipped"] == 0, f"{suite}: {counts}\n{run.output[-3000:]}"
