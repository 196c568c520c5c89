"""The rendered reference (`scripts.build_docs`): built with Redocly CLI, opened in headless Chromium.

Needs npm (for `npm ci --prefix scripts/docs`) and Chromium (Debian package `chromium`). Without them the test
is skipped, except under `CI=true`, where a missing tool is a failure: CI installs both.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from html.parser import HTMLParser
from pathlib import Path

import pytest

from scripts.build_docs import DOCS_TOOLING, REDOCLY, build_docs
from scripts.bundle import REPO
from scripts.overlay import load_document

BUNDLE = REPO / "generated" / "openapi.yaml"
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome")
# Sidebar links to tag pages: `/task` in the server-rendered markup, `#/task` once the hash router took over.
TAG_PAGE = re.compile(r"^#?(/(?!section/)[^/#]+)$")


def _missing(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason} (CI=true: the Makefile must install it)")
    pytest.skip(reason)


def _chromium() -> str:
    for name in (os.environ.get("CHROMIUM", ""), *CHROMIUM_NAMES):
        if name and (path := shutil.which(name)):
            return path
    _missing("chromium is not installed (apt-get install -y chromium)")
    raise AssertionError  # unreachable


class _Page(HTMLParser):
    """Visible text and link targets of a DOM dump."""

    def __init__(self) -> None:
        super().__init__()
        self.text: list[str] = []
        self.links: set[str] = set()
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style"):
            self._skip += 1
        href = dict(attrs).get("href")
        if tag == "a" and href:
            self.links.add(href)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style") and self._skip:
            self._skip -= 1

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.text.append(data)

    @property
    def visible(self) -> str:
        return re.sub(r"\s+", " ", " ".join(self.text))


def _dump_dom(chromium: str, url: str, profile: Path) -> _Page:
    """The DOM after the page's scripts ran, as Chromium serialises it."""
    result = subprocess.run(
        [
            chromium,
            "--headless",
            "--no-sandbox",  # running as root in CI
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--no-first-run",
            f"--user-data-dir={profile}",
            "--virtual-time-budget=10000",
            "--dump-dom",
            url,
        ],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    page = _Page()
    page.feed(result.stdout)
    return page


@pytest.fixture(scope="module")
def docs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not REDOCLY.exists():
        npm = shutil.which("npm")
        if npm is None:
            _missing("npm is not installed, so the pinned @redocly/cli cannot be installed")
        subprocess.run([str(npm), "ci", "--prefix", str(DOCS_TOOLING), "--no-audit", "--no-fund"], check=True)
    return build_docs(BUNDLE, tmp_path_factory.mktemp("docs") / "index.html")


def test_every_operation_summary_is_rendered(docs: Path, tmp_path: Path) -> None:
    chromium = _chromium()
    spec = load_document(BUNDLE)
    summaries = {
        f"{method.upper()} {path}": op["summary"]
        for path, item in spec["paths"].items()
        for method, op in item.items()
        if isinstance(op, dict) and "summary" in op
    }
    assert summaries
    url = docs.resolve().as_uri()
    home = _dump_dom(chromium, url, tmp_path / "profile-home")
    assert spec["info"]["title"] in home.visible, "the page did not render (is the Redoc script inlined?)"
    tag_pages = sorted({m.group(1) for link in home.links if (m := TAG_PAGE.match(link))})
    assert len(tag_pages) == len(spec["tags"]), f"one page per tag expected, sidebar links: {sorted(home.links)}"
    with ThreadPoolExecutor(max_workers=4) as pool:
        pages = list(
            pool.map(lambda page: _dump_dom(chromium, f"{url}#{page}", tmp_path / f"profile{page}"), tag_pages)
        )
    rendered = " ".join(page.visible for page in [home, *pages])
    missing = {op: summary for op, summary in summaries.items() if summary not in rendered}
    assert not missing, f"operation summaries not in the rendered DOM: {missing}"
