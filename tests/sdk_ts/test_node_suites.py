"""The TypeScript SDK's own tests (`sdk-ts/test/*.test.ts`, node:test), compiled `tsc --strict` in a project that
installed the package from its tarball, and run there against the reference server, the mock and hostile servers
of their own (hostile.test.ts)."""

from __future__ import annotations

import pytest

from tests.sdk_ts.conftest import Servers
from tests.sdk_ts.harness import SDK, Built, node_test

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("sdk-ts")]

SUITES = sorted(path.name.removesuffix(".ts") + ".js" for path in (SDK / "test").glob("*.test.ts"))


def test_every_suite_is_run() -> None:
    expected = {"server.test.js", "mock.test.js", "hostile.test.js", "hostile-answers.test.js", "webhooks.test.js"}
    assert expected | {"types.test.js"} <= set(SUITES)


@pytest.mark.parametrize("suite", SUITES)
def test_suite_passes(suite: str, built: Built, servers: Servers) -> None:
    result = node_test(built, [suite], servers.env)
    assert result.returncode == 0 and result.counts.get("fail") == 0, result.output[-6000:]
    assert result.counts.get("pass", 0) >= 1 and result.counts.get("skipped") == 0, result.output[-3000:]
