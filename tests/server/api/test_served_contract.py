"""The reference server serves its public contract: `GET /openapi.json` and `GET /docs`, both internal."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from accessgov.api.contract_docs import ContractDocs
from tests.support import loopback
from tests.support.harness import seeded_server

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[3]
PUBLIC = json.loads((REPO / "generated" / "variants" / "public.json").read_text(encoding="utf-8"))
BUNDLE = json.loads((REPO / "generated" / "openapi.json").read_text(encoding="utf-8"))
SDK = json.loads((REPO / "generated" / "variants" / "sdk.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[httpx.Client]:
    data_dir = tmp_path_factory.mktemp("served-contract")
    with seeded_server(data_dir) as (base_url, _config, _sessions), loopback.client(base_url=base_url) as client:
        yield client


def test_openapi_json_is_the_public_variant(server: httpx.Client) -> None:
    response = server.get("/openapi.json")
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    assert response.json() == PUBLIC
    assert "/openapi.json" not in response.json()["paths"]


def test_docs_is_an_html_page(server: httpx.Client) -> None:
    response = server.get("/docs")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    assert "<html" in response.text
    assert PUBLIC["info"]["title"] in response.text


def test_fallback_page_lists_the_public_operations(tmp_path: Path) -> None:
    page = ContractDocs(docs_html=tmp_path / "absent.html").page().decode()
    assert 'href="/openapi.json"' in page
    assert "/api/v1/tasks/{task_id}/action/restart" in page
    assert "/docs" not in page.replace('"/openapi.json"', "")
    built = tmp_path / "index.html"
    built.write_text("<html>rendered</html>", encoding="utf-8")
    assert ContractDocs(docs_html=built).page() == b"<html>rendered</html>"


def test_docs_serves_what_make_docs_built_since_the_server_started(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No restart: the page `make docs` writes while the server runs is served from the next request on, a rebuilt
    one too, and the plain page again if it is removed."""
    built = tmp_path / "docs" / "index.html"
    monkeypatch.setenv("ACCESSGOV_DOCS_HTML", str(built))
    with seeded_server(tmp_path) as (base_url, _config, _sessions), loopback.client(base_url=base_url) as client:
        assert "make docs" in client.get("/docs").text  # not built yet: the plain page says how
        built.parent.mkdir()
        built.write_text("<html>rendered</html>", encoding="utf-8")
        assert client.get("/docs").text == "<html>rendered</html>"
        built.write_text("<html>rendered again, longer</html>", encoding="utf-8")
        assert client.get("/docs").text == "<html>rendered again, longer</html>"
        built.unlink()
        assert "make docs" in client.get("/docs").text


@pytest.mark.parametrize("path", ["/openapi.json", "/docs"])
def test_internal_in_the_bundle_dropped_from_public_and_sdk_variants(path: str) -> None:
    assert BUNDLE["paths"][path]["x-internal"] is True
    assert path not in PUBLIC["paths"]
    assert path not in SDK["paths"]
    assert "Contract" not in {tag["name"] for tag in PUBLIC.get("tags", []) + SDK.get("tags", [])}


def test_an_accept_header_that_rules_the_media_type_out_is_406(server: httpx.Client) -> None:
    response = server.get("/openapi.json", headers={"Accept": "text/html"})
    assert (response.status_code, response.json()["code"]) == (406, "NOT_ACCEPTABLE")
    assert server.get("/docs", headers={"Accept": "application/json"}).status_code == 406
    assert server.get("/docs", headers={"Accept": "text/html;q=0.9, */*;q=0.1"}).status_code == 200
    assert server.get("/openapi.json", headers={"Accept": "application/*"}).status_code == 200
    assert server.get("/openapi.json", headers={"Accept": "application/json;q=0, text/html"}).status_code == 406
