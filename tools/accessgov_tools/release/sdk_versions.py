"""Both SDKs carry the contract's version: the Python SDK `info.version` in PEP 440 spelling
(`generated/client/pyproject.toml`), the TypeScript SDK as written (`sdk-ts/package.json` and its lock file).

`make release-check` holds it for the working tree's contract: a release whose SDKs say another version than the
contract is refused, naming the file (`make generate` writes all three). docs/release.md, "The SDKs' versions".
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass
from pathlib import Path

from accessgov_tools import display
from accessgov_tools.paths import REPO
from accessgov_tools.release.versions import pep440


@dataclass(frozen=True)
class SdkVersion:
    """One file that states an SDK's version: what it says and what the contract's version makes it."""

    file: str
    package: str
    found: str | None
    expected: str

    @property
    def ok(self) -> bool:
        return self.found == self.expected


def sdk_versions(contract_version: str, repo: Path = REPO) -> list[SdkVersion]:
    """The version each SDK file states, against `contract_version` (a file that is missing states none)."""
    python_file = repo / "generated" / "client" / "pyproject.toml"
    python = tomllib.loads(python_file.read_text(encoding="utf-8"))["project"] if python_file.is_file() else {}
    found = [
        SdkVersion(
            "generated/client/pyproject.toml", "accessgov-client", python.get("version"), pep440(contract_version)
        )
    ]
    for name in ("package.json", "package-lock.json"):
        path = repo / "sdk-ts" / name
        data = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
        found.append(SdkVersion(f"sdk-ts/{name}", "@accessgov/client", data.get("version"), contract_version))
    return found


def report(contract_version: str, repo: Path = REPO, *, markdown: bool = False) -> tuple[bool, list[str]]:
    """(all agree, the lines release-check prints about the SDKs' versions). The versions are document text, shown
    as data (`accessgov_tools/display.py`): visible characters, or fenced code with `markdown`."""
    show = display.code if markdown else display.visible
    prefix = "- " if markdown else ""
    versions = sdk_versions(contract_version, repo)
    if all(version.ok for version in versions):
        shown = ", ".join(f"{v.package} {show(v.expected)}" for v in versions if v.file != "sdk-ts/package-lock.json")
        return True, [f"{prefix}SDKs: {shown}: the contract's version"]
    lines = [
        f"{prefix}FAIL: {v.file} says {v.package} {show(v.found) if v.found else '(none)'}; the contract's"
        f" {show(contract_version)} makes it {show(v.expected)}: run make generate"
        for v in versions
        if not v.ok
    ]
    return False, lines
