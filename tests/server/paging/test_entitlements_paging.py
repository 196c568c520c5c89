"""The pagination convention on `GET /api/v1/apps/{app_id}/entitlements`, over real HTTP."""

from __future__ import annotations

import base64

import httpx
import pytest

from accessgov.demo import tenant as demo
from tests.server.conftest import Server
from tests.support import loopback

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


def test_items_wrap_app_entitlement_and_locate_their_app_in_expanded(admin: httpx.Client) -> None:
    body = page(admin, page_size=10).json()
    item = body["list"][0]
    assert set(item) == {"appEntitlement", "appPath"}
    assert item["appEntitlement"]["appId"] == demo.PAGING_APP_ID
    # The app is expanded once for the page, and every item's appPath resolves to it.
    assert body["expanded"] == [
        {"@type": "type.googleapis.com/svc.api.app.v1.App", "id": "app-github", "displayName": "GitHub"}
    ]
    assert {entry["appPath"] for entry in body["list"]} == {"$.expanded[0]"}


def test_resource_and_resource_type_paths(admin: httpx.Client, server: Server) -> None:
    from accessgov.storage import directory, entitlements

    app_id = "app-slack"
    with server.sessions.begin() as session:  # type: ignore[attr-defined]
        entitlements.insert_entitlements(
            session,
            app_id,
            [
                {"id": "zz-res-1", "appId": app_id, "displayName": "Channel admin", "appResourceId": "chan-1"},
                {"id": "zz-res-2", "appId": app_id, "displayName": "Channel member", "appResourceId": "chan-1"},
                {"id": "zz-res-3", "appId": app_id, "displayName": "Gone", "appResourceId": "chan-unknown"},
            ],
        )
        directory.put_document(session, "resource", {"id": "chan-1", "resourceTypeId": "channel"})
        directory.put_document(session, "resource_type", {"id": "channel", "displayName": "Channel"})
    body = admin.get(f"/api/v1/apps/{app_id}/entitlements", params={"page_size": 100}).json()
    items = {entry["appEntitlement"]["id"]: entry for entry in body["list"]}
    expanded = body["expanded"]
    assert [obj["@type"].rsplit(".", 1)[1] for obj in expanded] == ["App", "AppResource", "AppResourceType"]
    assert items["zz-res-1"]["appResourcePath"] == items["zz-res-2"]["appResourcePath"] == "$.expanded[1]"
    assert items["zz-res-1"]["appResourceTypePath"] == "$.expanded[2]" and expanded[2]["id"] == "channel"
    assert "appResourcePath" not in items["zz-res-3"] and "appResourceTypePath" not in items["zz-res-3"]
    assert items["zz-res-3"]["appPath"] == "$.expanded[0]"


def test_an_entitlement_changed_since_it_was_served_is_served_changed(admin: httpx.Client, server: Server) -> None:
    """Pages keep the documents they parsed: one whose stored text changed (another worker, the CLI) is read anew."""
    from sqlalchemy import update

    from accessgov.storage.schema import AppEntitlement

    url = "/api/v1/apps/app-okta/entitlements"
    before = [item["appEntitlement"] for item in admin.get(url, params={"page_size": 10}).json()["list"]]
    changed = {**before[1], "displayName": "Renamed elsewhere", "appResourceId": "res-new"}
    with server.sessions.begin() as session:  # type: ignore[attr-defined]
        session.execute(
            update(AppEntitlement)
            .where(AppEntitlement.app_id == "app-okta", AppEntitlement.id == changed["id"])
            .values(document=changed)
        )
    after = [item["appEntitlement"] for item in admin.get(url, params={"page_size": 10}).json()["list"]]
    assert after == [before[0], changed, *before[2:]]


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


def test_an_app_without_entitlements_has_an_empty_page_and_is_expanded(admin: httpx.Client, server: Server) -> None:
    from accessgov.storage.schema import App

    app = {"id": "app-empty", "displayName": "No entitlements yet"}
    with server.sessions.begin() as session:  # type: ignore[attr-defined]
        session.add(App(id=app["id"], document=app))
    body = admin.get("/api/v1/apps/app-empty/entitlements").json()
    assert body["list"] == [] and body["nextPageToken"] == ""
    assert body["expanded"] == [{"@type": "type.googleapis.com/svc.api.app.v1.App", **app}]


def test_an_app_changed_since_it_was_served_is_served_changed(admin: httpx.Client, server: Server) -> None:
    from sqlalchemy import update

    from accessgov.storage.schema import App

    url = "/api/v1/apps/app-jira/entitlements"
    before = admin.get(url, params={"page_size": 10}).json()["expanded"][0]
    changed = {key: value for key, value in before.items() if key != "@type"} | {"displayName": "Jira (renamed)"}
    with server.sessions.begin() as session:  # type: ignore[attr-defined]
        session.execute(update(App).where(App.id == "app-jira").values(document=changed))
    assert admin.get(url, params={"page_size": 10}).json()["expanded"][0] == {"@type": before["@type"], **changed}


def test_unknown_app_is_404(admin: httpx.Client) -> None:
    response = admin.get("/api/v1/apps/app-nope/entitlements")
    assert response.status_code == 404


def test_listing_needs_credentials(server: Server) -> None:
    assert loopback.get(server.base_url + URL).status_code == 401
