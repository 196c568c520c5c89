"""The loader's limits (`accessgov_tools/limits.py`, `budget.py`) and the one resolver's rules (`refs.py`), in process:
each limit and rule once, its name and place in the message, its default and both ways to change it."""

from __future__ import annotations

from pathlib import Path

import pytest

from accessgov_tools import cli, limits
from accessgov_tools.bundle import bundle
from accessgov_tools.limits import Limits
from accessgov_tools.loader import LimitError, load_document, loads
from accessgov_tools.refs import References, RefError
from accessgov_tools.validate import main as validate_main

BOMB = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{name}: &{name} [{', '.join([f'*{prior}'] * 10)}]\n" for prior, name in zip("abcdefg", "bcdefgh", strict=True)
)


@pytest.fixture(autouse=True)
def _defaults() -> object:
    limits.configure(None)
    yield
    limits.configure(None)


@pytest.mark.parametrize(
    ("text", "limit", "where"),
    [
        ("a: " + "[" * 100_000 + "]" * 100_000, "max-depth", "<t>:1:"),
        ("[" * 100_000 + "]" * 100_000, "max-depth", "<t>:1:129"),
        ("- " * 100_000 + "x", "max-depth", "<t>:1:"),
        (BOMB, "max-nodes", "<t>:7:"),
        ("a: &a [1, *a]\n", "recursive-alias", "<t>:1:"),
        ("".join(f"k{i}: {i}\n" for i in range(20_001)), "max-keys", "<t>:20001:1"),
        ("{" + ",".join(f'"k{i}": {i}' for i in range(20_001)) + "}", "max-keys", "<t>:1:"),
    ],
    ids=["yaml-flow-deep", "json-deep", "yaml-compact-deep", "alias-bomb", "recursive-alias", "yaml-keys", "json-keys"],
)
def test_a_limit_hit_names_the_limit_and_the_place(text: str, limit: str, where: str) -> None:
    with pytest.raises(LimitError) as raised:
        loads(text, "<t>")
    assert raised.value.limit == limit
    assert str(raised.value).startswith(where) and f"document limit {limit}" in str(raised.value)


def test_aliases_are_measured_expanded_not_expanded() -> None:
    """A chain whose levels each alias the one below twice is within budget only as long as its expansion is."""
    chain = "l0: &l0 {v: 1}\n" + "".join(f"l{i}: &l{i} {{a: *l{i - 1}, b: *l{i - 1}}}\n" for i in range(1, 40))
    with pytest.raises(LimitError, match="max-nodes"):
        loads(chain, "<t>")
    assert loads(chain, "<t>", limits=Limits(max_nodes=2**45, max_text_total=2**45))["l39"]["a"]["b"]["a"] is not None


def test_the_size_is_looked_at_before_the_file_is_read(tmp_path: Path) -> None:
    path = tmp_path / "big.yaml"
    with path.open("wb") as sparse:
        sparse.truncate(33 * 2**20)  # no data written: refused on its size alone
    with pytest.raises(LimitError, match=r"big.yaml:1:1: document limit max-bytes"):
        load_document(path)


def test_the_environment_and_the_option_change_a_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    deep = "a: " + "[" * 40 + "]" * 40
    assert loads(deep, "<t>")
    monkeypatch.setenv("ACCESSGOV_MAX_DOCUMENT_DEPTH", "20")
    limits.configure(None)
    with pytest.raises(LimitError, match="max-depth: nested deeper than 20 levels"):
        loads(deep, "<t>")
    path = tmp_path / "deep.yaml"
    path.write_text(deep, encoding="utf-8")
    assert cli.main(["--max-document-depth", "10", "overlay", "apply", str(path), str(path)]) == 2
    assert limits.current().max_depth == 10
    assert Limits.from_environment({"ACCESSGOV_MAX_DOCUMENT_NODES": "1_000"}).max_nodes == 1000
    with pytest.raises(ValueError, match="positive"):
        Limits(max_keys=0)


def _split_spec(root: Path, ref: str) -> Path:
    (root / "spec").mkdir(parents=True)
    spec = root / "spec" / "openapi.yaml"
    spec.write_text(
        "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths: {}\ncomponents:\n  schemas:\n"
        f"    X:\n      $ref: '{ref}'\n",
        encoding="utf-8",
    )
    return spec


@pytest.mark.parametrize(
    ("ref", "rule"),
    [
        ("../outside.yaml", "spec-root"),
        ("{outside}", "spec-root"),
        ("file://{outside}", "spec-root"),
        ("./link.yaml", "spec-root"),
        ("http://127.0.0.1:9/x.yaml", "network"),
        ("https://example.invalid/x.json#/a", "network"),
        ("./missing.yaml", "missing-file"),
        ("./self.yaml", "ref-cycle"),
        ("#/components/schemas/X", "ref-cycle"),
    ],
)
def test_bundle_refuses_what_leaves_the_spec_root(tmp_path: Path, ref: str, rule: str) -> None:
    outside = tmp_path / "outside.yaml"
    outside.write_text("secret: 42\n", encoding="utf-8")
    spec = _split_spec(tmp_path, ref.format(outside=outside))
    (spec.parent / "link.yaml").symlink_to(outside)
    (spec.parent / "self.yaml").write_text("a: {$ref: './self.yaml'}\n", encoding="utf-8")
    with pytest.raises(RefError) as raised:
        bundle(spec)
    assert raised.value.limit == rule
    assert "secret" not in str(raised.value)


def test_an_allowed_network_prefix_is_kept_as_a_reference(tmp_path: Path) -> None:
    spec = _split_spec(tmp_path, "https://schemas.example/x.json")
    references = References(spec.parent, allow=["https://schemas.example/"])
    assert references.document(spec)["components"]["schemas"]["X"] == {"$ref": "https://schemas.example/x.json"}
    with pytest.raises(RefError, match="self-contained"):
        references.self_contained(spec)


def test_validate_answers_2_for_a_refused_reference_and_fetches_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = _split_spec(tmp_path, "http://127.0.0.1:9/schema.json")
    assert validate_main([str(spec)]) == 2
    assert "reference rule network" in capsys.readouterr().err
    spec.write_text(spec.read_text(encoding="utf-8").replace("http://127.0.0.1:9/schema.json", "./ok.yaml"))
    (spec.parent / "ok.yaml").write_text("type: string\n", encoding="utf-8")
    assert validate_main([str(spec)]) == 0


def test_lint_reads_what_redocly_will_lint_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from accessgov_tools import lint
    from accessgov_tools.loader import LoadError

    monkeypatch.setattr(lint, "REPO", tmp_path)
    spec = _split_spec(tmp_path, "../outside.yaml")
    (tmp_path / "outside.yaml").write_text("type: string\n", encoding="utf-8")
    config = tmp_path / "redocly.yaml"
    config.write_text(f"apis:\n  a:\n    root: {spec.relative_to(tmp_path)}\n", encoding="utf-8")
    with pytest.raises(RefError, match="spec-root"):
        lint.preflight(config)
    config.write_text("plugins: ['./run-me.js']\n", encoding="utf-8")
    with pytest.raises(LoadError, match="plugins"):
        lint.preflight(config)
    config.write_text("extends: ['https://example.invalid/redocly.yaml']\n", encoding="utf-8")
    with pytest.raises(LoadError, match="network"):
        lint.preflight(config)


def test_lint_keeps_the_configurations_roots_beside_it_and_lints_what_the_user_names(tmp_path: Path) -> None:
    """An API root the configuration names (a pull request may change it) outside the configuration's folder is
    refused; a document the user names on the command line may be anywhere, its references still kept home."""
    from accessgov_tools import lint
    from accessgov_tools.loader import LoadError

    home, elsewhere = tmp_path / "repo", tmp_path / "elsewhere"
    home.mkdir()
    spec = _split_spec(elsewhere, "./ok.yaml")
    (spec.parent / "ok.yaml").write_text("type: string\n", encoding="utf-8")
    config = home / "redocly.yaml"
    config.write_text(f"apis:\n  a:\n    root: ../elsewhere/{spec.relative_to(elsewhere)}\n", encoding="utf-8")
    with pytest.raises(LoadError, match=r"outside .*the configuration's folder"):
        lint.preflight(config)
    config.write_text("extends: [recommended]\n", encoding="utf-8")
    lint.preflight(config, [str(spec)])  # the user's own document: read, its references inside its folder
    spec.write_text(spec.read_text(encoding="utf-8").replace("./ok.yaml", "../../outside.yaml"), encoding="utf-8")
    with pytest.raises(RefError, match="spec-root"):
        lint.preflight(config, [str(spec)])
