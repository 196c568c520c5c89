"""The one loader (`accessgov_tools/loader.py`): JSON as JSON, YAML 1.2, errors with file, line and column; and its
users."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from accessgov_tools import loader
from accessgov_tools.bundle import REPO, bundle, dump_yaml
from accessgov_tools.bundle import main as bundle_main
from accessgov_tools.diffcheck.cli import load_file
from accessgov_tools.diffcheck.cli import main as diff_main
from accessgov_tools.diffcheck.sources import SourceMap
from accessgov_tools.limits import Limits
from accessgov_tools.loader import LimitError, LoadError, compose, load_document, load_with_nodes, loads, read_text
from accessgov_tools.overlay import OverlayDocumentError, load_overlay
from accessgov_tools.overlay import load_document as overlay_document

EMOJI = '{"info": {"title": "\\ud83d\\ude00 \\u00e9\\n\\t\\"\\\\\\/", "version": "1"}}'


def test_json_escapes_surrogate_pairs_included(tmp_path: Path) -> None:
    path = tmp_path / "doc.json"
    path.write_text(EMOJI, encoding="utf-8")
    assert load_document(path)["info"]["title"] == '😀 é\n\t"\\/'
    assert load_file(path) == json.loads(EMOJI)
    assert overlay_document(path) == json.loads(EMOJI)


def test_json_written_in_a_yaml_file_is_read_as_json(tmp_path: Path) -> None:
    path = tmp_path / "doc.yaml"
    path.write_text(EMOJI, encoding="utf-8")
    assert load_document(path)["info"]["title"].startswith("😀")


def test_yaml_12_core_schema() -> None:
    doc = loads("a: yes\nb: on\nc: 0o17\nd: 017\ne: 2024-01-15\nf: 0x1F\ng: ~\nh: True\ni: 1e3\nj: -.5\nk: 1_000\n")
    assert doc == {
        "a": "yes",
        "b": "on",
        "c": 15,
        "d": 17,
        "e": "2024-01-15",
        "f": 31,
        "g": None,
        "h": True,
        "i": 1000.0,
        "j": -0.5,
        "k": "1_000",
    }


def test_yaml_anchor_redefined_later_refers_to_the_latest() -> None:
    text = "first: &item {name: a}\nuse1: *item\nsecond: &item {name: b}\nuse2: *item\n"
    assert loads(text) == {
        "first": {"name": "a"},
        "use1": {"name": "a"},
        "second": {"name": "b"},
        "use2": {"name": "b"},
    }


def test_merge_keys_still_apply() -> None:
    assert loads("base: &b {x: 1}\nitem: {<<: *b, y: 2}\n")["item"] == {"x": 1, "y": 2}


@pytest.mark.parametrize(
    ("name", "text", "where"),
    [
        ("bad.yaml", "a: 1\nb: [1,\n", "bad.yaml:3:1"),
        ("bad.yaml", "a: 1\n  b: 2\n", "bad.yaml:2:4"),
        ("bad.json", '{"a": 1,\n "b": }', "bad.json:2:7"),
        ("nan.json", '{"a": NaN}', "nan.json"),
    ],
)
def test_errors_name_file_line_and_column(tmp_path: Path, name: str, text: str, where: str) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(LoadError) as error:
        load_document(path)
    assert str(error.value).startswith(str(tmp_path / where))


def test_not_utf8_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "latin1.yaml"
    path.write_bytes(b"a: 1\nb: caf\xe9\n")
    with pytest.raises(LoadError, match=r"latin1.yaml:2:7: document rule utf-8: not UTF-8 text: byte 0xe9"):
        load_document(path)


def test_compose_keeps_lines_of_json_with_surrogate_pairs(tmp_path: Path) -> None:
    path = tmp_path / "doc.json"
    path.write_text('{\n  "a": "\\ud83d\\ude00",\n  "b": {"c": 1}\n}\n', encoding="utf-8")
    node = compose(path)
    assert node is not None
    assert SourceMap(path).locate(("b", "c")) == (path.as_posix(), 3)


def test_the_diff_reads_json_with_emoji_and_yaml_with_redefined_anchors(tmp_path: Path) -> None:
    base, head = tmp_path / "base.json", tmp_path / "head.yaml"
    base.write_text(
        '{"openapi": "3.1.0", "info": {"title": "\\ud83d\\ude00", "version": "1"}, "paths": {}}', encoding="utf-8"
    )
    head.write_text(
        "openapi: 3.1.0\ninfo: &i {title: x, version: '1'}\nx-a: *i\nx-b: &i [1]\nx-c: *i\npaths: {}\n",
        encoding="utf-8",
    )
    assert diff_main(["--base-file", str(base), "--head-file", str(head)]) == 0


def test_the_diff_exits_2_naming_the_broken_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "broken.yaml"
    broken.write_text("openapi: 3.1.0\npaths: [\n", encoding="utf-8")
    assert diff_main(["--base-file", str(broken), "--head-file", str(broken)]) == 2
    assert f"{broken}:3:1" in capsys.readouterr().err


def test_the_bundler_reads_split_files_with_the_loader(tmp_path: Path) -> None:
    (tmp_path / "schemas").mkdir()
    (tmp_path / "openapi.yaml").write_text(
        "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths: {}\n"
        "components:\n  schemas:\n    Flag: {$ref: './schemas/Flag.json'}\n    Opt: {$ref: './schemas/Opt.yaml'}\n",
        encoding="utf-8",
    )
    (tmp_path / "schemas" / "Flag.json").write_text('{"type": "string", "title": "\\ud83d\\ude00"}', encoding="utf-8")
    (tmp_path / "schemas" / "Opt.yaml").write_text("type: string\nenum: [yes, no, on]\nexample: 2024-01-15\n")
    doc = bundle(tmp_path / "openapi.yaml")
    assert doc["components"]["schemas"]["Flag"] == {"type": "string", "title": "😀"}
    assert doc["components"]["schemas"]["Opt"] == {
        "type": "string",
        "enum": ["yes", "no", "on"],
        "example": "2024-01-15",
    }


def test_the_overlay_engine_reports_a_broken_overlay_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "o.yaml"
    path.write_text("overlay: 1.1.0\nactions: [\n", encoding="utf-8")
    with pytest.raises(OverlayDocumentError, match=r"o.yaml:3:1"):
        load_overlay(path)


def test_make_bundle_names_the_broken_split_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "schemas").mkdir()
    (tmp_path / "openapi.yaml").write_text(
        "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths: {}\n"
        "components:\n  schemas:\n    A: {$ref: './schemas/A.yaml'}\n",
        encoding="utf-8",
    )
    (tmp_path / "schemas" / "A.yaml").write_text("type: object\nproperties:\n  a: [1,\n", encoding="utf-8")
    assert bundle_main(["--root", str(tmp_path / "openapi.yaml"), "--out", str(tmp_path / "out")]) == 2
    assert f"{tmp_path / 'schemas' / 'A.yaml'}:4:1: " in capsys.readouterr().err


def test_the_bundle_dumper_quotes_what_yaml_12_would_read_otherwise() -> None:
    """PyYAML writes YAML 1.1, where `1e3` and `0o17` are strings; a 1.2 reader would take them for numbers."""
    doc = {"a": "1e3", "b": "0o17", "c": "017", "d": "yes", "e": "2024-01-15", "f": "1_000", "g": 3, "h": None}
    text = dump_yaml(doc)
    assert "a: '1e3'" in text and "b: '0o17'" in text
    assert loads(text) == doc


def test_a_json_head_yaml_cannot_compose_still_gets_its_report(tmp_path: Path) -> None:
    """A JSON key over 1,024 characters is valid JSON but not a YAML implicit key: the report points at line 1."""
    head = tmp_path / "head.json"
    doc = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {}, "x-a": {"k" * 1500: 1}}
    head.write_text(json.dumps(doc), encoding="utf-8")
    assert SourceMap(head).locate(("x-a",)) == (head.as_posix(), 1)
    assert diff_main(["--base-file", str(head), "--head-file", str(head)]) == 0


# Texts that exercise every branch of the loader's direct constructor and of its fallback to PyYAML's.
CONSTRUCTOR_MATERIAL = [
    "a: yes\nb: on\nc: 0o17\nd: 017\ne: 2024-01-15\nf: 0x1F\ng: ~\nh: True\ni: 1e3\nj: 1.5e3\nk: 1_000\nl: -.5\nm:\n",
    "first: &item {name: a}\nuse1: *item\nsecond: &item {name: b}\nuse2: *item\n",
    "base: &b {x: 1, y: 2}\nmerged:\n  <<: *b\n  y: 3\nmany:\n  <<: [*b, {z: 4}]\n",
    "list: &l [1, 2]\nagain: *l\n? 1\n: int key\n? true\n: bool key\n? null\n: null key\nx: 1.5\n",
    "s: !!str 017\nf: !!float 1\nn: !!int '12'\nm: !!map {a: !!seq [!!null '', !!bool true]}\n",
    "[a, {b: [c, {d: e}]}, 'quoted: yes', \"017\", ~]\n",
    "same: &s 1\nkey: &k name\nuse: [*s, *k]\nnested: {deep: {deeper: [x, {y: z}]}}\n",
    "plain scalar at the root\n",
]


def _generic(text: str) -> object:
    """PyYAML's own constructor (with the loader's 1.2 rules) over a fresh node tree: the reference."""
    return loader._Constructor12().construct_document(loader._compose(text, "<test>"))


@pytest.mark.parametrize("text", CONSTRUCTOR_MATERIAL)
def test_the_direct_constructor_builds_what_pyyaml_builds(text: str) -> None:
    assert loads(text) == _generic(text)
    assert type(loads(text)) is type(_generic(text))


def test_aliased_collections_stay_one_object_as_in_pyyaml() -> None:
    doc = loads("list: &l [1, 2]\nagain: *l\n")
    assert doc["list"] is doc["again"]


def test_an_explicit_tag_that_does_not_fit_is_a_load_error() -> None:
    with pytest.raises(LoadError, match="<string>"):
        loads("n: !!int twelve\n")


def test_every_yaml_document_of_the_repository_reads_the_same_both_ways() -> None:
    """The spec's split files, the bundles and variants, the overlays, the kit's and the tools' configs."""
    folders = ("spec", "generated", "conformance", "overlays", "scripts", "review")
    paths = [p for folder in folders for p in sorted((REPO / folder).glob("**/*.yaml"))]
    assert len(paths) > 100
    for path in paths:
        text = read_text(path).removeprefix("\ufeff")
        try:
            expected = _generic(text)
        except LoadError:
            continue  # a deliberately broken test document: both ways refuse it (the error tests above)
        assert loads(text, str(path)) == expected, path
        data, node = load_with_nodes(path)
        assert data == expected and node is not None, path


def test_one_read_gives_the_document_and_the_lines_compose_gives(tmp_path: Path) -> None:
    path = tmp_path / "doc.yaml"
    path.write_text("openapi: 3.1.0\ninfo:\n  title: t\n  version: '1'\npaths: {}\n", encoding="utf-8")
    data, node = load_with_nodes(path)
    assert data == load_document(path)
    composed = compose(path)
    assert node is not None and composed is not None
    assert [(k.value, k.start_mark.line) for k, _ in node.value] == [
        (k.value, k.start_mark.line) for k, _ in composed.value
    ]
    assert SourceMap(path, None, node).locate(("info", "version")) == (path.as_posix(), 4)
    json_path = tmp_path / "doc.json"
    json_path.write_text(EMOJI, encoding="utf-8")
    assert load_with_nodes(json_path) == (json.loads(EMOJI), None)  # JSON: its lines are composed when asked


@pytest.mark.parametrize(
    ("text", "where", "rule"),
    [
        ("a: 1\nb: !!python/object/apply:os.system [x]\n", "2:4", "yaml-tag"),
        ("a: !!binary aGk=\n", "1:4", "yaml-tag"),
        ("a: !!set {x, y}\n", "1:4", "yaml-tag"),
        ("a: !!timestamp 2024-01-15\n", "1:4", "yaml-tag"),
        ("a: !custom {b: 1}\n", "1:4", "yaml-tag"),
        ("a: 1\nb: 2\na: 3\n", "3:1", "duplicate-key"),
        ("? [a, b]\n: c\n", "1:3", "yaml-key"),
        ("a: .inf\n", "1:4", "json-number"),
        ("a: [1, .nan]\n", "1:8", "json-number"),
        ("a: 1e400\n", "1:4", "json-number"),
        ("a: 1" + "0" * 5000 + "\n", "1:4", "json-number"),
        ("a: 0x" + "f" * 5000 + "\n", "1:4", "json-number"),
        ('{"a": 1, "b": 2, "a": 3}', "1:18", "duplicate-key"),
        ('{"a": 1e400}', "1:7", "json-number"),
        ('{"a": 1' + "0" * 5000 + "}", "1:7", "json-number"),
        ('{"a": "x\\ud800y"}', "1:9", "unicode"),
        ('{"a": "\\udc00"}', "1:8", "unicode"),
        ("a: \x00\n", "1:4", "U+0000"),
        ("a: \x1b[31mred\n", "1:4", "U+001B"),
    ],
    ids=lambda value: value[:30] if isinstance(value, str) else value,
)
def test_what_is_not_json_data_is_refused_where_it_is(text: str, where: str, rule: str) -> None:
    """Tags beyond the core schema, repeated or collection keys, numbers JSON cannot hold, lone surrogates and
    characters YAML does not allow: one LoadError naming `file:line:column` and the rule, never a value."""
    with pytest.raises(LoadError) as raised:
        loads(text, "doc.yaml")
    message = str(raised.value)
    assert message.startswith(f"doc.yaml:{where}: "), message
    assert rule in message and "\n" not in message and "\x1b" not in message, message


def test_a_string_over_max_text_is_refused_where_it_starts() -> None:
    long = "x" * (2**20 + 1)
    for text, where in (
        (f"a: 1\nb: {long}\n", "2:4"),
        (f'{{"a": 1, "b": "{long}"}}', "1:15"),
        (f"? {long}\n: 1\n", "1:3"),
    ):
        with pytest.raises(LimitError, match=rf"^doc:{where}: document limit max-text: a string of 1,048,577"):
            loads(text, "doc")
    assert len(loads(f"a: {long}\n", "doc", limits=Limits(max_text=2**21))["a"]) == 2**20 + 1


def test_aliased_text_is_counted_expanded_against_max_text_total() -> None:
    levels = "".join(f"l{i}: &l{i} [*l{i - 1}, *l{i - 1}]\n" for i in range(1, 12))
    text = "l0: &l0 " + "a" * 100_000 + "\n" + levels  # 100 KB of text, 2**11 times
    with pytest.raises(LimitError, match=r"document limit max-text-total: more than 67,108,864 characters"):
        loads(text, "doc")
    assert (
        loads(text, "doc", limits=Limits(max_text_total=2**29))["l11"][0][0][0][0][0][0][0][0][0][0][0] == "a" * 100_000
    )


def test_a_utf8_byte_order_mark_is_read_and_others_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "doc.yaml"
    path.write_bytes(b"\xef\xbb\xbfa: 1\n")
    assert load_document(path) == {"a": 1}
    path.write_bytes("a: 1\n".encode("utf-16"))
    with pytest.raises(LoadError, match=r"doc.yaml:1:1: document rule utf-8: not UTF-8 text: UTF-16 text"):
        load_document(path)
