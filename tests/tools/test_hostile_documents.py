"""The hostile-document corpus against every tool command: each answers exit 2 with one line naming the limit (or the
reference rule) and `file:line:column`, in bounded memory and time, never a traceback or a signal.

Every document class runs in a forked child (no interpreter start-up: the tools are imported once) whose address
space is capped (RLIMIT_AS: what the child already maps plus 1.5 GiB), so an input that exhausts memory or crashes the
C parser shows as a failed child, not as a slow test; the parent's timeout is a safety net, not an assertion. A
loopback listener stands where an `http://` reference points, and must never have been connected to.
"""

from __future__ import annotations

import importlib
import io
import json
import multiprocessing
import os
import re
import resource
import socket
from collections.abc import Iterator
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest
import yaml

from accessgov_tools import cli, limits, refs
from accessgov_tools.paths import REPO

# Imported here, once: every forked child has them (each child would otherwise import them again).
for _module in (
    "accessgov_tools.bundle",
    "accessgov_tools.build_docs",
    "accessgov_tools.check_generated",
    "accessgov_tools.diffcheck.cli",
    "accessgov_tools.generate",
    "accessgov_tools.lint",
    "accessgov_tools.overlay",
    "accessgov_tools.release.cli",
    "accessgov_tools.summary",
    "accessgov_tools.validate",
    "jsonschema_path",
    "openapi_spec_validator",
    "referencing.jsonschema",
):
    importlib.import_module(_module)

pytestmark = pytest.mark.slow

MINIMAL = "openapi: 3.1.0\ninfo: {title: t, version: '1.0.0'}\npaths: {}\n"
WHERE = re.compile(r"(?m)^error: .*?:\d+:\d+: ")
CHILD_TIMEOUT = 300.0  # seconds: a safety net for a child that hangs, far above what a run takes


def _alias_bomb() -> str:
    levels = "".join(
        f"    {name}: &{name} [{', '.join([f'*{prior}'] * 10)}]\n"
        for prior, name in zip("abcdefgh", "bcdefghi", strict=True)
    )
    return MINIMAL + "components:\n  schemas:\n    a: &a [x, x, x, x, x, x, x, x, x, x]\n" + levels


def _alias_chain() -> str:
    """A schema whose levels each use the one below twice: 2**40 schemas once expanded."""
    levels = "".join(
        f"    L{i}: &L{i} {{type: object, properties: {{a: *L{i - 1}, b: *L{i - 1}}}}}\n" for i in range(1, 41)
    )
    return MINIMAL + "components:\n  schemas:\n    L0: &L0 {type: string}\n" + levels


def _keys(count: int) -> str:
    properties = "".join(f"        p{i}: x\n" for i in range(count))
    return MINIMAL + "components:\n  schemas:\n    Big:\n      type: object\n      properties:\n" + properties


def _aliased_text() -> str:
    """1 MB of text used 2**11 times: 2 GB once expanded (a bundle or a report would write it out)."""
    levels = "".join(f"  l{i}: &l{i} [*l{i - 1}, *l{i - 1}]\n" for i in range(1, 12))
    return MINIMAL + "x-text:\n  l0: &l0 '" + "a" * 1_000_000 + "'\n" + levels


def _merge_bomb() -> str:
    """Merge keys (`<<`) whose levels each merge the one below and use it twice more."""
    first = "  m0: &m0 {" + ", ".join(f"k{i}: v" for i in range(10)) + "}\n"
    levels = "".join(f"  m{i}: &m{i} {{<<: [*m{i - 1}], n{i}: [*m{i - 1}, *m{i - 1}]}}\n" for i in range(1, 41))
    return MINIMAL + "x-merge:\n" + first + levels


JSON_HEAD = '{"openapi": "3.1.0", "info": {"title": "t", "version": "1.0.0"}, "paths": {}, '

# name -> (file name, text (bytes: written as they are), the limit or rule its refusal names)
DOCUMENTS: dict[str, tuple[str, str | bytes, str]] = {
    "alias-bomb": ("bomb.yaml", _alias_bomb(), "max-nodes"),
    "alias-chain": ("chain.yaml", _alias_chain(), "max-nodes"),
    "recursive-alias": (
        "recursive.yaml",
        MINIMAL + "components:\n  schemas:\n    A: &a {items: [*a]}\n",
        "recursive-alias",
    ),
    "deep-yaml-flow": ("deep.yaml", MINIMAL + "x-deep: " + "[" * 100_000 + "]" * 100_000 + "\n", "max-depth"),
    "deep-yaml-block": ("block.yaml", MINIMAL + "x-deep:\n" + "- " * 100_000 + "x\n", "max-depth"),
    "deep-json": (
        "deep.json",
        '{"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {}, "x": '
        + "[" * 100_000
        + "]" * 100_000
        + "}",
        "max-depth",
    ),
    # 2,050 keys against a key limit lowered to 2,000 (SCALED), as many-strings.
    "many-keys-yaml": ("keys.yaml", _keys(2_050), "max-keys"),
    "huge-string-yaml": ("string.yaml", MINIMAL + "x-s: '" + "a" * 3_000_000 + "'\n", "max-text"),
    "huge-string-json": ("string.json", JSON_HEAD + '"x-s": "' + "a" * 30_000_000 + '"}', "max-text"),
    "huge-key": ("key.yaml", MINIMAL + "? " + "k" * 2_000_000 + "\n: 1\n", "max-text"),
    # 30,000 strings against a node limit lowered to 20,000 (SCALED): the same refusal as 3,000,000 against the
    # default 2,000,000, for a hundredth of the parsing in every command.
    "many-strings": ("strings.yaml", MINIMAL + "x-s: [" + ",".join(["a"] * 30_000) + "]\n", "max-nodes"),
    "aliased-text": ("aliased-text.yaml", _aliased_text(), "max-text-total"),
    "merge-bomb": ("merge.yaml", _merge_bomb(), "max-nodes"),
    "not-utf8": ("latin1.yaml", MINIMAL.encode() + b"x-a: caf\xe9\n", "utf-8"),
    "utf16": ("utf16.yaml", MINIMAL.encode("utf-16"), "utf-8"),
    "utf8-in-surrogate-bytes": ("cesu.yaml", MINIMAL.encode() + b"x-a: \xed\xa0\x80\n", "utf-8"),
    "nul-yaml": ("nul.yaml", MINIMAL + "x-a: a\x00b\n", "yaml-character"),
    "escape-sequence-yaml": ("esc.yaml", MINIMAL + "x-a: \x1b]0;owned\x07\x1b[2J\n", "yaml-character"),
    "lone-surrogate-json": ("surrogate.json", JSON_HEAD + '"x-a": "\\ud800"}', "unicode"),
    "python-tag": ("python.yaml", MINIMAL + "x-a: !!python/object/apply:os.system ['touch PWNED']\n", "yaml-tag"),
    "binary-tag": ("binary.yaml", MINIMAL + "x-a: !!binary aGk=\n", "yaml-tag"),
    "custom-tag": ("custom.yaml", MINIMAL + "x-a: !include /etc/passwd\n", "yaml-tag"),
    "duplicate-key-yaml": ("dup.yaml", MINIMAL + "x-a: 1\nx-a: 2\n", "duplicate-key"),
    "duplicate-key-json": ("dup.json", JSON_HEAD + '"paths": {"/a": {}}}', "duplicate-key"),
    "huge-integer-yaml": ("int.yaml", MINIMAL + "x-a: 1" + "0" * 100_000 + "\n", "json-number"),
    "huge-integer-json": ("int.json", JSON_HEAD + '"x-a": 1' + "0" * 100_000 + "}", "json-number"),
    "huge-hex-integer": ("hex.yaml", MINIMAL + "x-a: 0x" + "f" * 1_000_000 + "\n", "json-number"),
    "infinity-yaml": (
        "inf.yaml",
        MINIMAL + "components:\n  schemas:\n    A: {type: number, maximum: .inf}\n",
        "json-number",
    ),
    "nan-yaml": ("nan.yaml", MINIMAL + "x-a: .nan\n", "json-number"),
    "overflowing-float-json": ("float.json", JSON_HEAD + '"x-a": 1e400}', "json-number"),
    "many-keys-json": (
        "keys.json",
        json.dumps(
            {"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {f"/p{i}": {} for i in range(2_050)}}
        ),
        "max-keys",
    ),
}


def _document_commands(path: Path, ok: Path, work: Path) -> list[list[str]]:
    """Every command that reads one document, `path` in each place it can take."""
    generate_dir = work / f"generate-{path.stem}"
    (generate_dir / "variants").mkdir(parents=True, exist_ok=True)
    if path.suffix == ".json":
        (generate_dir / "openapi.json").write_bytes(path.read_bytes())
    else:
        (generate_dir / "openapi.json").write_text(json.dumps({"openapi": "3.1.0", "paths": {}}), encoding="utf-8")
        (generate_dir / "variants" / "sdk.yaml").write_bytes(path.read_bytes())
    overlay = work / "ok-overlay.yaml"
    return [
        ["validate", str(path)],
        ["lint", str(path), "--spec-root", str(work / "spec-ok")],
        ["overlay", "apply", str(overlay), str(path)],
        ["overlay", "apply", str(path), str(ok)],
        ["diff", "--base-file", str(ok), "--head-file", str(path)],
        ["diff", "--base-file", str(path), "--head-file", str(ok)],
        ["changelog", str(ok), "--head", str(path)],
        ["release-check", str(path), "--head", str(ok)],
        ["summary", str(ok), "--head", str(path)],
        ["docs", "--input", str(path), "--output", str(work / "docs.html")],
        # `accessgov-tools generate` regenerates the checkout's generated/; its generator reads any directory:
        ["-m", "accessgov_tools.generate", "--out", str(generate_dir)],
    ]


def _spec_commands(root: Path, ok: Path, work: Path) -> list[list[str]]:
    """Every command that reads a split spec rooted at `root`."""
    return [
        ["bundle", "--root", str(root), "--out", str(work / "bundled" / "openapi")],
        ["validate", str(root)],
        ["diff", "--base-file", str(ok), "--root", str(root)],
        ["changelog", str(ok), "--head", str(root.parent)],
        ["release-check", str(ok), "--head", str(root.parent)],
        ["summary", str(ok), "--head", str(root.parent)],
        ["check-generated", "--spec-root", str(root), "--generated", str(work / "generated")],
        ["docs", "--input", str(root), "--output", str(work / "docs.html")],
    ]


def _vm_bytes() -> int:
    for line in Path("/proc/self/status").read_text(encoding="utf-8").splitlines():
        if line.startswith("VmSize:"):
            return int(line.split()[1]) * 1024
    return 0


def _child(commands: list[list[str]], cwd: str, writer: Any, env: dict[str, str]) -> None:
    os.chdir(cwd)
    os.environ.update(env)
    cap = _vm_bytes() + 3 * 2**29  # what the child maps already, and 1.5 GiB
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    results = []
    for command in commands:
        out, err = io.StringIO(), io.StringIO()
        limits.configure(None)
        refs.configure_allowed(None)
        with redirect_stdout(out), redirect_stderr(err):
            if command[0] == "-m":  # a tool's own entry point, under the same guard as accessgov-tools
                main = importlib.import_module(command[1]).main
                code = cli.guarded(lambda main=main, args=command[2:]: main(args))
            else:
                code = cli.main(command)
        results.append({"command": command, "code": code, "out": out.getvalue()[-1000:], "err": err.getvalue()[-2000:]})
    writer.send(results)
    writer.close()
    os._exit(0)


# Documents built against a lowered limit (the variable every tool reads), so each command parses less; the readers'
# own tests (tests/tools/test_document_limits.py) hold the defaults.
SCALED: dict[str, dict[str, str]] = {
    "many-strings": {"ACCESSGOV_MAX_DOCUMENT_NODES": "20000"},
    "many-keys-yaml": {"ACCESSGOV_MAX_MAPPING_KEYS": "2000"},
    "many-keys-json": {"ACCESSGOV_MAX_MAPPING_KEYS": "2000"},
}


def run_bounded(commands: list[list[str]], cwd: Path, env: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """Each command's exit status and output, run by `accessgov-tools` in a forked, memory-capped child (with
    `env` added to its environment)."""
    context = multiprocessing.get_context("fork")
    reader, writer = context.Pipe(duplex=False)
    child = context.Process(target=_child, args=(commands, str(cwd), writer, env or {}))
    child.start()
    writer.close()
    results: list[dict[str, Any]] | None = None
    try:
        if reader.poll(CHILD_TIMEOUT):
            results = reader.recv()
    except EOFError:
        results = None
    child.join(10)
    if child.is_alive():
        child.kill()
        child.join()
        pytest.fail(f"still running after {CHILD_TIMEOUT:.0f} s: {commands}")
    assert child.exitcode == 0, f"the child ended with {child.exitcode} (a negative status is a signal)"
    assert results is not None
    return results


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("hostile")
    (root / "ok.yaml").write_text(MINIMAL, encoding="utf-8")
    (root / "spec-ok").mkdir()
    (root / "spec-ok" / "openapi.yaml").write_text(MINIMAL, encoding="utf-8")
    (root / "ok-overlay.yaml").write_text(
        "overlay: 1.1.0\ninfo: {title: t, version: '1'}\nactions:\n  - target: $.info\n    update: {x-a: 1}\n",
        encoding="utf-8",
    )
    return root


def _assert_refused(results: list[dict[str, Any]], rule: str) -> None:
    for result in results:
        command, err = " ".join(result["command"][:2]), result["err"]
        assert result["code"] == 2, (command, result)
        assert "Traceback" not in err and "internal error" not in err and "out of memory" not in err, (command, err)
        # docs hands its input to Redocly, which resolves references itself: any file reference is refused there
        rules = f"{re.escape(rule)}|self-contained" if result["command"][0] == "docs" else re.escape(rule)
        assert re.search(rf"\b(limit|rule) ({rules})\b", err), (command, err)
        assert WHERE.search(err), (command, err)


@pytest.mark.parametrize("name", sorted(DOCUMENTS))
def test_every_command_refuses_a_document_over_a_limit(work: Path, name: str) -> None:
    file_name, text, limit = DOCUMENTS[name]
    path = work / file_name
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass"))
    _assert_refused(run_bounded(_document_commands(path, work / "ok.yaml", work), work, SCALED.get(name)), limit)


def test_a_document_larger_than_max_bytes_is_refused_unread(work: Path) -> None:
    path = work / "huge.yaml"
    with path.open("wb") as sparse:
        sparse.truncate(33 * 2**20)
    _assert_refused(run_bounded(_document_commands(path, work / "ok.yaml", work)[:4], work), "max-bytes")


@pytest.fixture
def listener() -> Iterator[int]:
    """A loopback port that records whether anyone connected (its backlog is read after the run)."""
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    server.setblocking(False)
    yield server.getsockname()[1]
    try:
        connection, _ = server.accept()
    except BlockingIOError:
        pass
    else:
        connection.close()
        pytest.fail("a tool connected to the loopback listener an http:// reference names")
    finally:
        server.close()


def _split_spec(root: Path, ref: str, files: dict[str, str] | None = None) -> Path:
    (root / "spec").mkdir(parents=True)
    spec = root / "spec" / "openapi.yaml"
    spec.write_text(MINIMAL + f"components:\n  schemas:\n    X:\n      $ref: '{ref}'\n", encoding="utf-8")
    for name, text in (files or {}).items():
        (root / "spec" / name).write_text(text, encoding="utf-8")
    return spec


REFERENCES = {
    "dot-dot": ("../secret.yaml", "spec-root"),
    "absolute": ("{secret}", "spec-root"),
    "file-url": ("file://{secret}", "spec-root"),
    "symlink": ("./link.yaml", "spec-root"),
    "http": ("http://127.0.0.1:{port}/schema.yaml", "network"),
    "file-cycle": ("./a.yaml", "ref-cycle"),
    "local-cycle": ("#/components/schemas/X", "ref-cycle"),
}


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_every_command_keeps_references_at_home(tmp_path: Path, work: Path, listener: int, name: str) -> None:
    secret = tmp_path / "secret.yaml"
    secret.write_text("type: string\ndescription: SECRET-CONTENT\n", encoding="utf-8")
    ref, rule = REFERENCES[name]
    spec = _split_spec(
        tmp_path,
        ref.format(secret=secret, port=listener),
        {"a.yaml": "$ref: './b.yaml'\n", "b.yaml": "$ref: './a.yaml#'\n"},
    )
    (spec.parent / "link.yaml").symlink_to(secret)
    results = run_bounded(_spec_commands(spec, work / "ok.yaml", tmp_path), tmp_path)
    _assert_refused(results, rule)
    assert not any("SECRET-CONTENT" in result["out"] + result["err"] for result in results)
    assert not (tmp_path / "bundled").exists()


def test_hostile_overlays_are_bounded(work: Path) -> None:
    regex = work / "regex.yaml"
    regex.write_text(
        "overlay: 1.1.0\ninfo: {title: t, version: '1'}\nactions:\n"
        "  - target: '$..[?search(@.description, \"(a|aa)*(a|aa)*(a|aa)*(a|aa)*c\")]'\n    update: {x-hit: true}\n"
        "  - target: '$..[?match(@.summary, \"(.*)*(.*)*(.*)*(.*)*z\")]'\n    update: {x-hit: true}\n",
        encoding="utf-8",
    )
    doubling = work / "doubling.yaml"
    copies = "".join(f"  - target: $.tags\n    copy: $.tags\n    description: c{i}\n" for i in range(40))
    doubling.write_text(f"overlay: 1.1.0\ninfo: {{title: t, version: '1'}}\nactions:\n{copies}", encoding="utf-8")
    bomb = work / "update-bomb.yaml"
    levels = "".join(
        f"        {n}: &{n} [{', '.join([f'*{p}'] * 10)}]\n" for p, n in zip("abcde", "bcdef", strict=True)
    )
    bomb.write_text(
        "overlay: 1.1.0\ninfo: {title: t, version: '1'}\nactions:\n  - target: $.components.schemas.*\n    update:\n"
        f"      x-bomb:\n        a: &a [x, x, x, x, x, x, x, x, x, x]\n{levels}",
        encoding="utf-8",
    )
    searches = work / "searches.yaml"  # 3,000 actions, each searching the whole bundle
    actions = "".join(f"  - target: $..properties.*\n    update: {{x-n{i}: {i}}}\n" for i in range(3000))
    searches.write_text(f"overlay: 1.1.0\ninfo: {{title: t, version: '1'}}\nactions:\n{actions}", encoding="utf-8")
    bundle = str(REPO / "generated" / "openapi.yaml")
    out = str(work / "variant.yaml")
    regex_run, doubling_run, bomb_run, searches_run = run_bounded(
        [
            ["overlay", "apply", str(regex), bundle, "-o", out],
            # A lower budget than the default (the option under test too): the same refusal, sooner.
            ["--max-document-nodes", "300000", "overlay", "apply", str(doubling), bundle, "-o", out],
            ["overlay", "apply", str(bomb), bundle, "-o", out],
            ["overlay", "apply", str(searches), bundle, "-o", out],
        ],
        work,
    )
    assert regex_run["code"] == 0, regex_run
    _assert_refused([doubling_run, bomb_run, searches_run], "max-nodes")
    assert "the overlay's queries visit more than 50,000 nodes in all" in searches_run["err"]


def test_the_contract_itself_passes_every_command(work: Path) -> None:
    """The control: the real bundle and spec are judged (0 or 1), never refused."""
    bundle = REPO / "generated" / "openapi.yaml"
    results = run_bounded(
        [
            ["validate", str(bundle)],
            ["bundle", "--root", str(REPO / "spec" / "openapi.yaml"), "--out", str(work / "control" / "openapi")],
            ["diff", "--base-file", str(bundle), "--head-file", str(REPO / "generated" / "openapi.json")],
            ["overlay", "apply", str(work / "ok-overlay.yaml"), str(bundle), "-o", str(work / "control.yaml")],
        ],
        work,
    )
    assert [result["code"] for result in results] == [0, 0, 0, 0], results


# Text a terminal acts on (escape sequences that recolour, clear the screen or set the title, CR and backspace that
# overwrite, a C1 CSI, bidi overrides) and lines a CI runner reads as workflow commands, in every kind of name.
TERMINAL = (
    "openapi: 3.1.0\n"
    'info: {title: "t\\e[31mRED\\r\\b\\x9b2J\\u202e", version: "1.0.0", description: "\\n::add-mask::x"}\n'
    "paths:\n"
    '  "/a\\n::error::0 breaking\\e]0;owned\\a":\n'
    "    get:\n"
    '      operationId: "op\\e[2J"\n'
    '      summary: "s\\n::stop-commands::t\\r\\n%0A::error::PASS"\n'
    '      responses: {"200": {description: "x\\u2066y"}}\n'
)
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def test_no_document_text_reaches_a_terminal_or_a_ci_log_raw(work: Path) -> None:
    """Every command's stdout and stderr (reports, messages, an overlay's result on stdout) show control and bidi
    characters spelled out, and no line but the diff's own annotations reads as a workflow command."""
    path = work / "terminal.yaml"
    path.write_text(TERMINAL, encoding="utf-8")
    ok = work / "ok.yaml"
    commands = [
        *_document_commands(path, ok, work),
        ["diff", "--format", "github", "--base-file", str(path), "--head-file", str(ok)],
        ["diff", "--format", "github", "--base-file", str(ok), "--head-file", str(path)],
        ["diff", "--format", "markdown", "--base-file", str(ok), "--head-file", str(path)],
        ["release-check", str(ok), "--head", str(path), "--format", "markdown"],
        ["overlay", "apply", str(work / "ok-overlay.yaml"), str(path)],
    ]
    results = run_bounded(commands, work)
    for result in results:
        command, text = " ".join(result["command"][:4]), result["out"] + result["err"]
        assert "Traceback" not in text and "internal error" not in text, (command, text)
        assert not _UNSAFE.search(text), (command, text)
        github = "github" in result["command"]
        for line in text.splitlines():
            if line.lstrip().startswith("::"):
                assert github and re.match(r"::(error|warning|notice) [^:]*::", line), (command, line)
                assert not re.search(r"(?<!%25)0A::|::(add-mask|stop-commands|set-output)", line), (command, line)
    overlay = results[-1]["out"]
    assert yaml.safe_load(overlay)["info"]["title"] == "t\x1b[31mRED\r\b\x9b2J\u202e"  # escaped, not changed


def _url_fields(url: str, secret: Path) -> str:
    """Every URL-valued field a tool might read, naming the loopback listener or a file outside the root."""
    outside = f"file://{secret}"
    return (
        f"openapi: 3.1.0\n$schema: '{url}/dialect'\njsonSchemaDialect: '{url}/dialect2'\n"
        f"info: {{title: t, version: '1.0.0', x-logo: {{url: '{url}/logo.png'}}}}\n"
        f"externalDocs: {{url: '{outside}'}}\ntags: [{{name: a, externalDocs: {{url: '{url}/tag'}}}}]\n"
        "paths:\n  /a:\n    get:\n      operationId: getA\n"
        f"      externalDocs: {{url: '{url}/op'}}\n      responses:\n        '200':\n          description: OK\n"
        f"          links:\n            l: {{operationRef: '{url}/openapi.yaml#/paths/~1a/get'}}\n"
        f"            m: {{operationRef: '{outside}#/paths'}}\n"
        "          content:\n            application/json:\n              schema: {$ref: '#/components/schemas/A'}\n"
        f"              examples:\n                e: {{externalValue: '{outside}'}}\n"
        f"                f: {{externalValue: '{url}/example.json'}}\n"
        "components:\n  schemas:\n    A:\n"
        f"      $id: '{url}/schemas/a'\n      $schema: '{url}/meta'\n      type: object\n      properties:\n"
        f"        b: {{$ref: '#/components/schemas/B'}}\n        c: {{$dynamicRef: '{url}/dyn#node'}}\n"
        f"    B: {{$id: '{outside}', type: string, $anchor: node}}\n"
    )


def test_url_valued_fields_never_leave_the_root_nor_the_machine(tmp_path: Path, work: Path, listener: int) -> None:
    """`externalValue`, `externalDocs`, `$schema`, `jsonSchemaDialect`, `$id`, `$dynamicRef`, `links.operationRef`,
    `x-logo` and an overlay's `extends` naming a loopback URL or a file outside the root: no tool connects or reads
    the file; Redocly's build-docs, which fetches `externalValue` itself, is refused the document (exit 2)."""
    secret = tmp_path / "secret.yaml"
    secret.write_text("type: string\ndescription: SECRET-CONTENT\n", encoding="utf-8")
    url = f"http://127.0.0.1:{listener}"
    text = _url_fields(url, secret)
    document = tmp_path / "urls.yaml"
    document.write_text(text, encoding="utf-8")
    (tmp_path / "spec").mkdir()
    (tmp_path / "spec" / "openapi.yaml").write_text(text, encoding="utf-8")
    overlay = tmp_path / "extends.yaml"
    overlay.write_text(
        f"overlay: 1.1.0\ninfo: {{title: t, version: '1'}}\nextends: '{url}/base.yaml'\n"
        "actions:\n  - target: $.info\n    update: {x-a: 1}\n",
        encoding="utf-8",
    )
    ok = work / "ok.yaml"
    commands = [
        *_document_commands(document, ok, tmp_path),
        *_spec_commands(tmp_path / "spec" / "openapi.yaml", ok, tmp_path),
        ["overlay", "apply", str(overlay), str(ok)],
    ]
    results = run_bounded(commands, tmp_path)
    for result in results:
        command, text_out = " ".join(result["command"][:2]), result["out"] + result["err"]
        assert "SECRET-CONTENT" not in text_out, command
        assert "Traceback" not in text_out and "internal error" not in text_out, (command, text_out)
        if result["command"][0] == "docs":
            assert result["code"] == 2 and "rule self-contained: externalValue" in result["err"], result


def _responds(schema: str) -> str:
    return (
        MINIMAL.replace("paths: {}\n", "")
        + "paths:\n  /a:\n    get:\n      operationId: g\n      responses:\n        '200':\n          description: OK\n"
        + f"          content:\n            application/json:\n              schema: {schema}\n"
    )


def _chain(link: str) -> str:
    levels = "".join(f"    S{i}: {link.format(next=i + 1, i=i)}\n" for i in range(3000))
    return _responds("{$ref: '#/components/schemas/S0'}") + "components:\n  schemas:\n" + levels + "    S3000: {}\n"


# References that are odd but legal, or lead nowhere: every tool judges them (0 or 1) or refuses them (2) with
# file:line:column; a chain of 3,000 references one inside another is refused by every reader that follows them.
REFERENCE_SHAPES: dict[str, tuple[str, str | None]] = {
    "ref-to-root": (_responds("{$ref: '#'}"), None),
    "ref-to-root-slash": (_responds("{$ref: '#/'}") + "components:\n  schemas:\n    A: {$ref: '#'}\n", None),
    "pointer-escapes": (
        _responds("{$ref: '#/components/schemas/a~1b~0c%25d'}")
        + "components:\n  schemas:\n    'a/b~c%d': {type: string}\n    X: {$ref: '#/components/schemas/~2bad'}\n"
        "    Y: {$ref: '#/paths/~1a/get/responses/200'}\n",
        None,
    ),
    "ref-to-nothing": (_responds("{$ref: '#/components/schemas/Nope'}"), None),
    "allOf-ref-chain": (
        _chain("{{allOf: [{{$ref: '#/components/schemas/S{next}'}}], properties: {{p{i}: {{}}}}}}"),
        "max-ref-depth",
    ),
    "property-ref-chain": (_chain("{{properties: {{n: {{$ref: '#/components/schemas/S{next}'}}}}}}"), "max-ref-depth"),
    "arrays-in-allOf-chains": (
        _responds("{allOf: [{type: array, items: " * 40 + "{type: string}" + "}]}" * 40),
        "max-depth",
    ),
}


@pytest.mark.parametrize("name", sorted(REFERENCE_SHAPES))
def test_odd_references_are_judged_or_refused_never_crash(work: Path, name: str) -> None:
    text, limit = REFERENCE_SHAPES[name]
    path = work / f"{name}.yaml"
    path.write_text(text, encoding="utf-8")
    results = run_bounded(_document_commands(path, work / "ok.yaml", work), work)
    for result in results:
        command, err = " ".join(result["command"][:2]), result["err"]
        assert result["code"] in (0, 1, 2), (command, result)
        assert "Traceback" not in err and "internal error" not in err, (command, err)
        if limit and result["command"][0] in ("validate", "docs", "-m"):
            assert result["code"] == 2 and f"limit {limit}" in err and WHERE.search(err), (command, err)
