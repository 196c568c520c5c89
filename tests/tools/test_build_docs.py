"""The rendered reference (`accessgov_tools.build_docs`): built with Redocly CLI, opened in headless Chromium.

Besides the DOM, the layout is measured in the page itself: a copy of the built page gets a script that, once Redoc
has rendered, records every element whose content is wider than its box while its overflow is not visible (a code
block that scrolls sideways or an ellipsis hides part of it) and the page's `innerText` (visible text only). Each
page (home, the authentication chapter, every tag page) is rendered once per module (`rendered`), and the module
runs on one xdist worker, so that no page is rendered twice.

Needs npm (for `npm ci --prefix tools/redocly`) and Chromium (Debian package `chromium`). Without them the test
is skipped, except under `CI=true`, where a missing tool is a failure: CI installs both.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from html import unescape
from html.parser import HTMLParser
from pathlib import Path

import pytest

from accessgov_tools.build_docs import DOCS_TOOLING, REDOCLY, build_docs
from accessgov_tools.bundle import REPO
from accessgov_tools.overlay import load_document

# One worker renders every page once (the `rendered` fixture), instead of both workers each rendering them.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("rendered-docs")]

BUNDLE = REPO / "generated" / "openapi.yaml"
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome")
# Sidebar links to tag pages: `/task` in the server-rendered markup, `#/task` once the hash router took over.
TAG_PAGE = re.compile(r"^#?(/(?!section/)[^/#]+)$")
AUTHENTICATION = "/section/authentication"


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
        self.raw = ""
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


# Appended to a copy of the page: once Redoc rendered (its lazy "Loading..." placeholder gone, at most ~9 s of the
# virtual time budget), write the measurements into <pre id="layout-report">. A fixed delay raced the rendering
# on a busy machine.
_MEASURE = """
<script>
(function report(waited) {
  if (waited < 9000 && (waited < 2000 || document.body.innerText.indexOf('Loading...') !== -1)) {
    setTimeout(function () { report(waited + 250); }, 250);
    return;
  }
  var cut = [];
  document.querySelectorAll('*').forEach(function (el) {
    var box = el.getBoundingClientRect();
    if (!box.width || !box.height || getComputedStyle(el).overflowX === 'visible') return;
    if (el.scrollWidth > el.clientWidth + 1) {
      cut.push({tag: el.tagName, text: el.textContent.slice(0, 80), scrollWidth: el.scrollWidth,
                clientWidth: el.clientWidth});
    }
  });
  var out = document.createElement('pre');
  out.id = 'layout-report';
  out.textContent = JSON.stringify({cut: cut, text: document.body.innerText});
  document.body.appendChild(out);
})(0);
</script>
"""
_REPORT = re.compile(r'<pre id="layout-report">(.*?)</pre>', re.DOTALL)


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
            "--window-size=1280,900",
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
    page.raw = result.stdout
    return page


@dataclass(frozen=True)
class _Rendered:
    """One page once Redoc rendered it."""

    dom: _Page  # the DOM as Chromium serialises it (the measuring script's report left out)
    text: str  # the page's innerText: what is visible
    cut: list[dict[str, object]]  # elements whose content is wider than their box


def _measure(chromium: str, docs: Path, fragment: str, profile: Path) -> _Rendered:
    """The page at `#<fragment>` (the home page for ""), desktop width, measured once Redoc rendered it."""
    instrumented = profile.with_suffix(".html")
    html = docs.read_text(encoding="utf-8")
    end = html.rindex("</body>")
    instrumented.write_text(html[:end] + _MEASURE + html[end:], encoding="utf-8")
    url = instrumented.resolve().as_uri() + (f"#{fragment}" if fragment else "")
    page = _dump_dom(chromium, url, profile)
    match = _REPORT.search(page.raw)
    assert match, f"the measuring script did not run on #{fragment}"
    dom = _Page()
    dom.feed(page.raw[: match.start()] + page.raw[match.end() :])
    dom.raw = page.raw
    report = json.loads(unescape(match.group(1)))
    return _Rendered(dom=dom, text=report["text"], cut=report["cut"])


def _tag_page(tag: dict[str, str]) -> str:
    """The fragment Redoc routes a tag's page to: its name, lower case, spaces as dashes."""
    return "/" + tag["name"].lower().replace(" ", "-")


@pytest.fixture(scope="module")
def docs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not REDOCLY.exists():
        npm = shutil.which("npm")
        if npm is None:
            _missing("npm is not installed, so the pinned @redocly/cli cannot be installed")
        subprocess.run([str(npm), "ci", "--prefix", str(DOCS_TOOLING), "--no-audit", "--no-fund"], check=True)
    return build_docs(BUNDLE, tmp_path_factory.mktemp("docs") / "index.html")


@pytest.fixture(scope="module")
def rendered(docs: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, _Rendered]:
    """Every page by fragment, each rendered once: the home page (""), the authentication chapter, and the tag
    pages both the home page's sidebar links to and the spec's tags name (one set when the docs are right; the
    tests compare them)."""
    chromium = _chromium()
    spec = load_document(BUNDLE)
    profiles = tmp_path_factory.mktemp("chromium")
    home = _measure(chromium, docs, "", profiles / "home")
    linked = {m.group(1) for link in home.dom.links if (m := TAG_PAGE.match(link))}
    fragments = sorted({AUTHENTICATION, *linked, *map(_tag_page, spec["tags"])})
    with ThreadPoolExecutor(max_workers=4) as pool:
        pages = list(
            pool.map(lambda f: _measure(chromium, docs, f, profiles / f.strip("/").replace("/", "-")), fragments)
        )
    return {"": home, **dict(zip(fragments, pages, strict=True))}


def test_every_operation_summary_is_rendered(rendered: dict[str, _Rendered]) -> None:
    spec = load_document(BUNDLE)
    summaries = {
        f"{method.upper()} {path}": op["summary"]
        for path, item in spec["paths"].items()
        for method, op in item.items()
        if isinstance(op, dict) and "summary" in op
    }
    assert summaries
    home = rendered[""].dom
    assert spec["info"]["title"] in home.visible, "the page did not render (is the Redoc script inlined?)"
    tag_pages = sorted({m.group(1) for link in home.links if (m := TAG_PAGE.match(link))})
    assert len(tag_pages) == len(spec["tags"]), f"one page per tag expected, sidebar links: {sorted(home.links)}"
    text = " ".join(rendered[page].dom.visible for page in ["", *tag_pages])
    missing = {op: summary for op, summary in summaries.items() if summary not in text}
    assert not missing, f"operation summaries not in the rendered DOM: {missing}"


def test_authentication_chapter_is_visible_without_a_pop_up(rendered: dict[str, _Rendered]) -> None:
    """The chapter from `info.description`: credentials, the one-header rule, HMAC recipe and vector, JWT claims."""
    spec = load_document(BUNDLE)
    vector = spec["paths"]["/api/v1/webhooks/incoming/{listener_id}"]["post"]["x-hmac-test-vector"]
    page = rendered[AUTHENTICATION]
    text = re.sub(r"\s+", " ", page.text)
    for expected in (
        "Authentication",
        "Tenant API credentials",
        "Authorization: Bearer <token>",
        "POST /auth/v1/token",
        "one token of either kind satisfies the requirement",
        "Webhook signatures: HMAC",
        "{timestamp}.{event id}.{body}",
        "Webhook signatures: JWT",
        "htb_s256",
        *(vector[key] for key in ("secret", "timestamp", "eventId", "body", "signature")),
    ):
        assert expected in text, f"{expected!r} is not visible on #/section/authentication"
    assert page.cut == [], f"cut off on #/section/authentication: {page.cut}"
    # The seed's single requirement naming both schemes stays as it is.
    restart = spec["paths"]["/api/v1/tasks/{task_id}/action/restart"]["post"]
    assert restart["security"] == [{"bearerAuth": [], "oauth": []}]


def test_no_code_block_or_example_is_cut_off(rendered: dict[str, _Rendered]) -> None:
    spec = load_document(BUNDLE)
    pages = [AUTHENTICATION, *map(_tag_page, spec["tags"])]
    for page in pages:
        assert len(rendered[page].text) > 200, f"#{page} did not render"
    # Where an operation's security names `bearerAuth and oauth`, its page says that one header carries either.
    for page in ("/task", "/app-entitlements"):
        assert "That is why the security requirement names both schemes" in rendered[page].text, page
    cut = {page: rendered[page].cut for page in pages if rendered[page].cut}
    assert not cut, f"content wider than its box (scrolls or is clipped): {cut}"
