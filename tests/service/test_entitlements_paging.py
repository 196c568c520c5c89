"""The pagination convention on `GET /api/v1/apps/{app_id}/entitlements`, over real HTTP."""

from __future__ import annotations

import base64

import httpx
import pytest

from accessgov.demo import tenant as demo
from tests.service.conftest import Server

URL = f"/api/v1/apps/{demo.PAGING_APP_ID}/entitlements"


def page(client: httpx.Client, **params: object) -> httpx.Response:
    return client.get(URL, params={k: v for k, v in params.items() if v is not None})


CLAMPS = [(None, 25), (1, 10), (9, 10), (10, 10), (37, 37), (100, 100), (500, 100)]


@pytest.mark.parametrize(("asked", "served"), CLAMPS)
def test_page_size_is_clamped(admin: httpx.Client, asked: int | None, served: int) -> None:
    response = page(admin, page_size=asked)
    assert response.status_code == 200
    assert len(response.json()["list"]) == served


@pytest.mark.parametrize("bad", ["abc", "1.5", "", "1e3"])
def test_non_integer_page_size_is_400(admin: httpx.Client, bad: str) -> None:
    response = admin.get(URL, params={"page_size": bad})
    if bad == "":
        assert response.status_code == 400 or len(response.json()["list"]) == 25
        return
    assert response.status_code == 400
    assert response.json()["code"] == "INVALID_PAGE_SIZE"


def test_walking_all_pages_yields_every_item_once(admin: httpx.Client) -> None:
    seen: list[str] = []
    token = ""
    while True:
        body = page(admin, page_size=100, page_token=token or None).json()
        seen += [item["appEntitlement"]["id"] for item in body["list"]]
        token = body["nextPageToken"]
        if not token:
            break
    assert len(seen) == demo.PAGING_APP_ENTITLEMENTS
    assert len(set(seen)) == len(seen)
    assert seen == sorted(seen)


def test_last_page_has_empty_token(admin: httpx.Client) -> None:
    body = page(admin, app_id=None).json()
    assert body["nextPageToken"]
    small = admin.get("/api/v1/apps/app-okta/entitlements", params={"page_size": 100}).json()
    assert len(small["list"]) == 12 and small["nextPageToken"] == ""


def test_items_wrap_app_entitlement(admin: httpx.Client) -> None:
    item = page(admin, page_size=10).json()["list"][0]
    assert set(item) == {"appEntitlement"}
    assert item["appEntitlement"]["appId"] == demo.PAGING_APP_ID


def test_inserts_while_walking_never_duplicate_or_skip(admin: httpx.Client, server: Server) -> None:
    from accessgov.storage import entitlements

    app_id = "app-jira"
    url = f"/api/v1/apps/{app_id}/entitlements"
    first = admin.get(url, params={"page_size": 10}).json()
    with server.sessions.begin() as session:
        entitlements.insert_entitlements(
            session, app_id, [demo.entitlement(app_id, 0)] + [demo.entitlement(app_id, n) for n in (5000, 5001)]
        )
    rest = admin.get(url, params={"page_size": 100, "page_token": first["nextPageToken"]}).json()
    ids = [i["appEntitlement"]["id"] for i in first["list"] + rest["list"]]
    original = [e["id"] for e in demo.DemoTenant().entitlements(app_id)]
    assert len(ids) == len(set(ids))
    assert set(original) <= set(ids)


def test_tampered_truncated_and_foreign_tokens_are_400(admin: httpx.Client) -> None:
    token = page(admin, page_size=10).json()["nextPageToken"]
    flipped = token[:-2] + ("A" if token[-2] != "A" else "B") + token[-1]
    foreign = admin.get("/api/v1/apps/app-okta/entitlements", params={"page_size": 10}).json()["nextPageToken"]
    forged = base64.urlsafe_b64encode(b'{"c":["ent-0000100"]}').decode().rstrip("=")
    for bad in (flipped, token[: len(token) // 2], forged, foreign, "!!!"):
        response = page(admin, page_token=bad)
        assert response.status_code == 400, bad
        assert response.json()["code"] == "INVALID_PAGE_TOKEN"


def test_unknown_app_is_404(admin: httpx.Client) -> None:
    response = admin.get("/api/v1/apps/app-nope/entitlements")
    assert response.status_code == 404


def test_listing_needs_credentials(server: Server) -> None:
    assert httpx.get(server.base_url + URL).status_code == 401
