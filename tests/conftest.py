"""Session-wide setup: the test lanes, and a private key file for the keyring that seals signing secrets.

Lanes: `make test-fast` runs what is not marked `slow` or `postgres`; `make test` runs everything. Folders, files
and tests that start processes, browsers or npm are marked `slow` here (`SLOW_TESTS`), and every test that reaches
the PostgreSQL fixture is marked `postgres`, so a test needs a marker of its own only when it is the exception in
its file. Under pytest-xdist, tests of one `xdist_group` run in one worker
(`make test` passes `--dist loadgroup`).

The key file is set before any test runs, so in-process servers, the CLI and every `accessgov serve` process the
tests start (they inherit the environment; so do xdist's workers) share one key file in a temporary directory,
never `./data/secret.keys`.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest
from _pytest.mark.expression import Expression  # pytest's own -m grammar; no public equivalent

# Fixtures shared by suites of several folders (pytest reads `pytest_plugins` only here, in the root conftest).
pytest_plugins = ["tests.support.postgres", "tests.support.costs"]

_created: list[str] = []

TESTS = Path(__file__).resolve().parent
# Every test under these node id prefixes (a folder ends with "/") is marked `slow`: the full lane only. Whole
# folders and files start a server process, a fresh virtualenv, Schemathesis or hypothesis runs over HTTP, a
# browser or npm, and are not even collected by the fast lane; single tests start processes (the CLI, workers, git,
# npm, Chromium) or took over ~2 s of CPU (`pytest --durations`, 2026-11-26).
SLOW_TESTS = (
    # the reference server
    "tests/server/api/test_served_contract.py",
    "tests/server/api/test_service_unavailable.py",
    "tests/server/bundle/test_fastcheck.py::test_same_verdict_as_jsonschema",
    "tests/server/domain/test_cel_conversion.py::test_any_json_document_converts_as_celpy_converts_it",
    "tests/server/failure_limits/test_failure_limits.py::test_a_hung_limiter_backend_is_given_up_on_and_reported_once",
    "tests/server/failure_limits/test_failure_limits.py::test_an_unreachable_limiter_store_fails_open",
    "tests/server/failure_limits/test_limiter_cold_start.py",
    "tests/server/failure_limits/test_shared_limits.py",
    "tests/server/http/test_client_input.py",
    "tests/server/http/test_edges.py",
    "tests/server/http/test_engine_security.py",
    "tests/server/http/test_http_edges.py",
    "tests/server/http/test_one_edge.py",
    "tests/server/keys/test_key_concurrency.py",
    "tests/server/keys/test_key_rotation.py",
    "tests/server/keys/test_key_unavailable.py::test_a_secret_sealed_under_a_missing_key_answers_503",
    "tests/server/observability/test_access_log_writer.py::test_timestamps_read_as_isoformat_reads_them",
    "tests/server/observability/test_log_forging.py",
    "tests/server/observability/test_operations.py",
    "tests/server/observability/test_request_metrics.py::test_the_same_samples_as_a_counter_and_a_histogram",
    "tests/server/paging/test_page_key_rotation.py::test_a_grace_ends_on_time_on_a_server_that_does_not_reload",
    "tests/server/paging/test_page_key_rotation.py::test_a_rotation_without_grace_reaches_a_default_server_within_seconds",
    "tests/server/paging/test_page_key_rotation.py::test_a_worker_that_has_not_reloaded_yet_accepts_tokens_of_the_new_key",
    "tests/server/proxy/",
    "tests/server/storage/test_events.py::test_concurrent_processes_deliver_once",
    "tests/server/storage/test_purge.py::test_old_event_records_are_purged_at_startup",
    "tests/server/storage/test_utc_datetime.py::test_the_stored_text_is_sqlalchemys",
    "tests/server/test_cli.py",
    "tests/server/test_install.py",
    "tests/server/test_json_fast_path.py::test_any_document_reads_as_json_reads_it",
    "tests/server/test_json_fast_path.py::test_documents_read_together_as_each_reads_alone",
    "tests/server/test_jsoncodec.py::test_a_growing_array_is_written_as_a_fresh_dumps_writes_it",
    "tests/server/test_no_5xx.py",
    "tests/server/test_worker.py",
    "tests/server/webhooks/test_listener_http.py::test_cli_",
    "tests/server/webhooks/test_listener_http.py::test_worker_processes_share_one_sqlite_file",
    "tests/server/webhooks/test_slow_jwks.py",
    # the reviewers' tools
    "tests/tools/diffcheck/test_diff_fixtures.py::test_committed_documents_are_what_the_cases_build",
    "tests/tools/diffcheck/test_diffcheck.py",
    "tests/tools/generate/",
    "tests/tools/mock/",
    "tests/tools/overlay/test_overlay_engine.py::test_check_mode_fails_with_a_diff_on_stale_variants",
    "tests/tools/overlay/test_overlay_engine.py::test_public_overlay_drops_whatever_is_marked_internal",
    "tests/tools/overlay/test_overlay_engine.py::test_variant_is_valid_openapi_31",
    "tests/tools/overlay/test_overlay_engine.py::test_variants_regenerate_byte_identically",
    "tests/tools/test_build_docs.py",
    # the SDK (its test against the in-process server, test_generated_client.py, is fast)
    "tests/sdk/test_client_install.py",
    "tests/sdk/test_client_models.py",
    "tests/sdk/test_models.py",
    "tests/sdk/test_oauth.py",
    "tests/sdk/test_paging.py",
    "tests/sdk/test_readme_snippets.py",
    "tests/sdk/test_resilience.py",
    "tests/sdk/test_version.py",
    # the conformance kit and its self-test
    "tests/conformance/selftest/probes/",
    "tests/conformance/selftest/test_selftest.py",
    "tests/conformance/test_reference.py",
    "tests/conformance/test_rules.py::test_verdicts_are_the_same_run_after_run",
    # the benchmarks, the contract document
    "tests/benchmarks/",
    "tests/spec/test_bundle.py::test_bundling_twice_gives_identical_bytes",
    "tests/spec/test_redocly_lint.py",
    "tests/spec/test_seed_coverage.py",
)
# The benchmarks' own tests that run wrk or valgrind: `make bench-test`, which installs both, not `make test`.
BENCH_TOOL_TESTS = (
    "tests/benchmarks/test_bench_smoke.py::test_instruction_counts_are_repeatable",
    "tests/benchmarks/test_bench_smoke.py::test_wrk_",
)
# Fixtures whose use means a PostgreSQL server (tests/support/postgres.py).
POSTGRES_FIXTURES = frozenset({"postgres_admin"})


class _XdistGroupIds:
    """Keep `xdist_group`s together under `--dist loadgroup` on pytest 9.2: xdist 3.8 tags a grouped test by
    rewriting `item._nodeid`, which pytest 9.2's structured node ids no longer read, so every group was silently
    spread over the workers (pytest-xdist#1386). This tags the id pytest reads, as xdist means to; once xdist does
    it itself the id already ends with the tag and nothing is changed."""

    @pytest.hookimpl(trylast=True)  # after the lanes' markers and xdist's own attempt
    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        if not getattr(config.option, "loadgroup", False):  # set on xdist's workers under --dist loadgroup
            return
        from _pytest.nodeid import NodeId  # pytest 9.2's structured ids; no public way to retag an item

        for item in items:
            names = {
                str(m.args[0] if m.args else m.kwargs.get("name", "default")) for m in item.iter_markers("xdist_group")
            }
            tag = "@" + "_".join(sorted(names))
            if names and not item.nodeid.endswith(tag) and hasattr(item, "_id"):
                item._id = NodeId.parse(item.nodeid + tag)


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(_XdistGroupIds(), "accessgov-xdist-group-ids")
    if not os.environ.get("ACCESSGOV_SECRET_KEY") and not os.environ.get("ACCESSGOV_SECRET_KEY_FILE"):
        directory = tempfile.mkdtemp(prefix="accessgov-keys-")
        _created.append(directory)
        os.environ["ACCESSGOV_SECRET_KEY_FILE"] = os.path.join(directory, "secret.keys")


def pytest_unconfigure(config: pytest.Config) -> None:
    for directory in _created:
        shutil.rmtree(directory, ignore_errors=True)


def _slow_deselected(config: pytest.Config) -> bool:
    """Whether `-m` leaves out the tests marked `slow` (as `make test-fast` does)."""
    markexpr = config.getoption("markexpr", "") or ""
    return bool(markexpr) and not Expression.compile(markexpr).evaluate(lambda name: name == "slow")


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Do not even collect the folders and files of `SLOW_TESTS` when their tests are deselected: collecting them
    costs seconds (Schemathesis builds its tests from the bundle at collection)."""
    if not collection_path.is_relative_to(TESTS):
        return None
    relative = collection_path.relative_to(TESTS.parent).as_posix() + ("/" if collection_path.is_dir() else "")
    if relative in SLOW_TESTS and _slow_deselected(config):
        return True
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the tests of `SLOW_TESTS` `slow`, `BENCH_TOOL_TESTS` `bench_tools`, and those that reach PostgreSQL
    `postgres`."""
    for item in items:
        if item.nodeid.startswith(SLOW_TESTS):
            item.add_marker(pytest.mark.slow)
        if item.nodeid.startswith(BENCH_TOOL_TESTS):
            item.add_marker(pytest.mark.bench_tools)
        if POSTGRES_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.postgres)
