"""A page whose entitlements name no related object is expanded in one comprehension: the same items and
`expanded` array as the general path (`Expansion.view` per entitlement)."""

from __future__ import annotations

from typing import Any

import pytest

from accessgov.api.entitlements import (
    _entitlement,
    _expand,
    _expand_unrelated,
    _names_related,
    _nothing_related,
)
from accessgov.storage.statement_steps import drive

APP = {"id": "app-1", "displayName": "App"}
DOCUMENTS = [
    {"id": "e1", "appId": "app-1"},
    {"id": "e2", "appId": "app-2"},
    {"id": "e3"},
    {"id": "e4", "appId": "app-1", "appResourceId": "", "appResourceTypeId": None},
]


@pytest.mark.parametrize("app", [APP, None, {"displayName": "no id"}], ids=["app", "no-document", "no-id"])
def test_same_views_as_the_general_path(app: dict[str, Any] | None) -> None:
    assert not any(map(_names_related, DOCUMENTS))
    entitlements = [_entitlement(document) for document in DOCUMENTS]
    assert not any(entitlement.related for entitlement in entitlements)
    assert _expand_unrelated(app, entitlements) == drive(_expand(_nothing_related, app, DOCUMENTS), None)


@pytest.mark.parametrize(
    "document",
    [{"appResourceId": "r1"}, {"appResourceTypeId": "t1"}],
)
def test_a_named_related_object_takes_the_general_path(document: dict[str, Any]) -> None:
    assert _names_related(document)
    assert _entitlement(document).related
