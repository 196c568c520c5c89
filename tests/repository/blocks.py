"""The fenced blocks of README.md and docs/*.md, each with the `<!-- not-run: reason -->` marker before it."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DOCUMENTS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
SHELL_LANGUAGES = frozenset({"sh", "bash", "shell"})

_FENCE = re.compile(
    r"^(?:<!--\s*not-run:(?P<reason>[^\n]*?)-->\n)?```(?P<language>[\w-]*)\n(?P<body>.*?)^```[ \t]*$",
    re.DOTALL | re.MULTILINE,
)
MARKER = re.compile(r"^<!--\s*not-run:(?P<reason>[^\n]*?)-->", re.MULTILINE)


@dataclass(frozen=True)
class Block:
    path: Path
    line: int  # of the opening fence, 1-based
    language: str
    body: str
    not_run: str | None  # the marker's reason, None when there is no marker

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(REPO)}:{self.line}"


def blocks(path: Path) -> list[Block]:
    text = path.read_text(encoding="utf-8")
    found = []
    for match in _FENCE.finditer(text):
        fence_line = text.count("\n", 0, match.start("language")) + 1
        reason = match.group("reason")
        found.append(
            Block(path, fence_line, match.group("language"), match.group("body"), None if reason is None else reason)
        )
    return found


def all_blocks() -> list[Block]:
    return [block for path in DOCUMENTS for block in blocks(path)]


def shell_blocks() -> list[Block]:
    return [block for block in all_blocks() if block.language in SHELL_LANGUAGES]


def make_invocations(script: str) -> list[list[str]]:
    """The argument lists of the `make` commands in a shell script (shell quoting, operators and comments
    understood; `$(...)` substitutions are not looked into)."""
    commands = []
    for line in script.replace("\\\n", " ").splitlines():
        lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
        lexer.commenters = "#"
        lexer.wordchars += ":,@%+[]{}$!^`\\"  # everything but blanks and operators makes up a word
        words: list[str] = []
        for token in [*lexer, ";"]:
            if set(token) <= set("|&;()<>"):
                if words and words[0] == "make":
                    commands.append(words[1:])
                words = []
            else:
                words.append(token)
    return commands
