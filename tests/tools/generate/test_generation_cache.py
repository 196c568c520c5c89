"""`make generate` and `make check-generated` skip only a tree whose inputs and generated/ are exactly what the last
run produced or verified (tools/accessgov_tools/generation_cache.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from accessgov_tools import generation_cache

pytestmark = pytest.mark.slow


def _tree(root: Path) -> Path:
    (root / "spec").mkdir()
    (root / "spec" / "openapi.yaml").write_text("openapi: 3.1.0\n")
    (root / "tools" / "accessgov_tools").mkdir(parents=True)
    (root / "tools" / "accessgov_tools" / "generate.py").write_text("# the generator\n")
    (root / "generated").mkdir()
    (root / "generated" / "openapi.json").write_text("{}\n")
    (root / "pyproject.toml").write_text("[project]\n")
    return root


def test_nothing_is_fresh_before_a_recorded_run(tmp_path: Path) -> None:
    assert not generation_cache.fresh(_tree(tmp_path))


def test_a_recorded_tree_is_fresh_until_anything_it_depends_on_changes(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    generation_cache.record(root)
    assert generation_cache.fresh(root)
    for changed in (
        "spec/openapi.yaml",
        "tools/accessgov_tools/generate.py",
        "generated/openapi.json",
        "pyproject.toml",
    ):
        original = (root / changed).read_text()
        (root / changed).write_text(original + "# edited\n")
        assert not generation_cache.fresh(root), changed
        (root / changed).write_text(original)
        assert generation_cache.fresh(root), changed
    (root / "generated" / "extra.py").write_text("")  # a file added by hand
    assert not generation_cache.fresh(root)


def test_a_corrupt_stamp_is_not_fresh(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    generation_cache.record(root)
    (root / generation_cache.STAMP).write_text("{not json")
    assert not generation_cache.fresh(root)


def test_a_generate_does_not_vouch_for_check_generateds_client_checks(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    (root / "sdk-ts" / "src").mkdir(parents=True)
    (root / "sdk-ts" / "src" / "client.ts").write_text("export {};\n")
    generation_cache.record(root)  # what make generate records
    assert generation_cache.fresh(root) and not generation_cache.fresh(root, verified=True)
    generation_cache.record(root, verified=True)  # what a passing check-generated records
    assert generation_cache.fresh(root, verified=True)
    generation_cache.record(root)  # a generate with nothing to do keeps the verification of the same tree
    assert generation_cache.fresh(root, verified=True)
    (root / "sdk-ts" / "src" / "client.ts").write_text("export const x = 1;\n")  # the TypeScript SDK is an input
    assert not generation_cache.fresh(root)
