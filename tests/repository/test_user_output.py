"""What users read speaks their language, not this repository's: no "the seed" (the requirements document is "the
requirements"), no "workspace", in the help of every command of the three CLIs (`accessgov`, `accessgov-tools`,
`accessgov-conformance`), the kit's rule listing and traceability table, the Makefile's help and messages, and the
strings the products' code prints or raises. ("seed" as a random seed, `--seed N`, and "seed the demo tenant" are
the user's words.)"""

from __future__ import annotations

import ast
import contextlib
import io
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
INTERNAL = re.compile(r"\bthe seed\b|\bseed's\b|\bseed:|\bworkspace\b", re.IGNORECASE)
PRODUCT_CODE = ("accessgov", "tools/accessgov_tools", "conformance/accessgov_conformance", "sdk")


def printed(main: object, argv: list[str]) -> str:
    """What `main(argv)` prints (stdout and stderr), `--help`'s exit included."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out), contextlib.suppress(SystemExit):
        main(argv)  # type: ignore[operator]
    return out.getvalue()


def command_helps() -> dict[str, str]:
    from accessgov_conformance import cli as kit_cli

    from accessgov import cli as server_cli
    from accessgov_tools import cli as tools_cli

    helps = {"accessgov --help": printed(server_cli.main, ["--help"])}
    for command in re.findall(r"^    (\w[\w-]*)", helps["accessgov --help"], re.MULTILINE):
        helps[f"accessgov {command} --help"] = printed(server_cli.main, [command, "--help"])
    helps["accessgov-tools --help"] = printed(tools_cli.main, ["--help"])
    for command in tools_cli.COMMANDS:
        if command != "mock":  # its help is the generated stub's, below
            helps[f"accessgov-tools {command} --help"] = printed(tools_cli.main, [command, "--help"])
    from generated.stub_server.__main__ import main as mock_main

    helps["accessgov-tools mock --help"] = printed(mock_main, ["--help"])
    for argv in (["--help"], ["run", "--help"], ["rules", "--help"], ["rules"], ["rules", "--coverage"]):
        helps["accessgov-conformance " + " ".join(argv)] = printed(kit_cli.main, argv)
    return helps


def test_the_commands_say_requirements_not_seed() -> None:
    helps = command_helps()
    assert len(helps) > 20 and all(helps.values()), [name for name, text in helps.items() if not text]
    found = {name: INTERNAL.findall(text) for name, text in helps.items() if INTERNAL.search(text)}
    assert not found, found


def test_the_makefile_says_requirements_not_seed() -> None:
    """Its help texts (`## ...`) and the messages its recipes echo."""
    lines = (ROOT / "Makefile").read_text(encoding="utf-8").splitlines()
    told = [line for line in lines if "## " in line or re.search(r"\becho\b", line)]
    assert told
    assert not [line for line in told if INTERNAL.search(line)]


def _strings(path: Path) -> list[tuple[int, str]]:
    """The string constants of a module that are not docstrings: what it may print, raise or log."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
    ]


@pytest.mark.parametrize("root", PRODUCT_CODE)
def test_no_message_of_the_products_says_seed_or_workspace(root: str) -> None:
    pattern = re.compile(r"\bthe seed\b|\bseed's\b|\bworkspace\b", re.IGNORECASE)  # `seed:` is code in templates
    found = [
        f"{path.relative_to(ROOT)}:{line}: {text[:80]!r}"
        for path in sorted((ROOT / root).rglob("*.py"))
        if "node_modules" not in path.parts
        for line, text in _strings(path)
        if pattern.search(text)
    ]
    assert not found, found
