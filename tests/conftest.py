"""Session-wide setup: the test lanes, and a private key file for the keyring that seals signing secrets.

Lanes: `make test-fast` runs what is not marked `slow` or `postgres`; `make test` runs everything. Whole
directories whose tests start processes, browsers or npm are marked `slow` here (`SLOW_DIRECTORIES`), and every
test that reaches the PostgreSQL fixture is marked `postgres`, so a test needs a marker of its own only when it
is the exception in its directory. Under pytest-xdist, tests of one `xdist_group` run in one worker
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

_created: list[str] = []

TESTS = Path(__file__).resolve().parent
# Every test under these starts a server process, a fresh virtualenv, Schemathesis or hypothesis runs over HTTP,
# a browser or npm: the full lane only.
SLOW_DIRECTORIES = frozenset({"bench", "contract", "generated", "mock", "property", "sdk", "server"})
# Files and tests elsewhere that start processes (the CLI, workers, git, npm, Chromium) or took over ~2 s of CPU
# (`pytest --durations`, 2026-11-26): a node id prefix each. A whole file is not even collected by the fast lane.
SLOW_TESTS = (
    "tests/review/test_diffcheck.py",
    "tests/review/test_docs.py",
    "tests/review/test_redocly_lint.py",
    "tests/spec/test_seed_coverage.py",
    "tests/unit/test_cli.py",
    "tests/webhooks/test_worker.py",
    "tests/conformance/test_rules.py::test_verdicts_are_the_same_run_after_run",
    "tests/overlays/test_overlay_engine.py::test_check_mode_fails_with_a_diff_on_stale_variants",
    "tests/overlays/test_overlay_engine.py::test_public_overlay_drops_whatever_is_marked_internal",
    "tests/overlays/test_overlay_engine.py::test_variant_is_valid_openapi_31",
    "tests/overlays/test_overlay_engine.py::test_variants_regenerate_byte_identically",
    "tests/review/test_diff_fixtures.py::test_committed_documents_are_what_the_cases_build",
    "tests/service/test_failure_limits.py::test_a_hung_limiter_backend_is_given_up_on_and_reported_once",
    "tests/service/test_failure_limits.py::test_an_unreachable_limiter_store_fails_open",
    "tests/service/test_key_unavailable.py::test_a_secret_sealed_under_a_missing_key_answers_503",
    "tests/service/test_page_key_rotation.py::test_a_grace_ends_on_time_on_a_server_that_does_not_reload",
    "tests/service/test_page_key_rotation.py::test_a_rotation_without_grace_reaches_a_default_server_within_seconds",
    "tests/service/test_page_key_rotation.py::test_a_worker_that_has_not_reloaded_yet_accepts_tokens_of_the_new_key",
    "tests/service/test_purge.py::test_old_event_records_are_purged_at_startup",
    "tests/spec/test_bundle.py::test_bundling_twice_gives_identical_bytes",
    "tests/storage/test_events.py::test_concurrent_processes_deliver_once",
    "tests/unit/test_access_log_writer.py::test_timestamps_read_as_isoformat_reads_them",
    "tests/unit/test_cel_conversion.py::test_any_json_document_converts_as_celpy_converts_it",
    "tests/unit/test_fastcheck.py::test_same_verdict_as_jsonschema",
    "tests/unit/test_json_fast_path.py::test_any_document_reads_as_json_reads_it",
    "tests/unit/test_json_fast_path.py::test_documents_read_together_as_each_reads_alone",
    "tests/unit/test_jsoncodec.py::test_a_growing_array_is_written_as_a_fresh_dumps_writes_it",
    "tests/unit/test_request_metrics.py::test_the_same_samples_as_a_counter_and_a_histogram",
    "tests/unit/test_utc_datetime.py::test_the_stored_text_is_sqlalchemys",
    "tests/webhooks/test_listener_http.py::test_cli_",
    "tests/webhooks/test_listener_http.py::test_worker_processes_share_one_sqlite_file",
)
# The benchmarks' own tests that run wrk or valgrind: `make bench-test`, which installs both, not `make test`.
BENCH_TOOL_TESTS = (
    "tests/bench/test_bench_smoke.py::test_instruction_counts_are_repeatable",
    "tests/bench/test_bench_smoke.py::test_wrk_",
)
# Fixtures whose use means a PostgreSQL server (tests/storage/conftest.py).
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
    """Do not even collect `SLOW_DIRECTORIES` and the files of `SLOW_TESTS` when their tests are deselected:
    collecting them costs seconds (Schemathesis builds its tests from the bundle at collection)."""
    relative = collection_path.relative_to(TESTS.parent).as_posix() if collection_path.is_relative_to(TESTS) else ""
    slow = (collection_path.parent == TESTS and collection_path.name in SLOW_DIRECTORIES) or relative in SLOW_TESTS
    if slow and _slow_deselected(config):
        return True
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the tests of `SLOW_DIRECTORIES` and `SLOW_TESTS` `slow`, `BENCH_TOOL_TESTS` `bench_tools`, and those
    that reach PostgreSQL `postgres`."""
    for item in items:
        relative = Path(str(item.path)).resolve().relative_to(TESTS)
        if relative.parts[0] in SLOW_DIRECTORIES or item.nodeid.startswith(SLOW_TESTS):
            item.add_marker(pytest.mark.slow)
        if item.nodeid.startswith(BENCH_TOOL_TESTS):
            item.add_marker(pytest.mark.bench_tools)
        if POSTGRES_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.postgres)
