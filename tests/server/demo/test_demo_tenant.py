"""The demo tenant agrees with itself: an entitlement id names one entitlement, in one app, wherever it appears
(a listing, a task, a restart's `expanded`)."""

from __future__ import annotations

from accessgov.demo.tenant import PAGING_APP_ID, build, related_objects


def test_an_entitlement_id_names_one_entitlement_across_apps() -> None:
    tenant = build()
    owner: dict[str, str] = {}
    for app in tenant.apps:
        for entitlement in tenant.entitlements(app["id"]):
            assert owner.setdefault(entitlement["id"], app["id"]) == app["id"], entitlement
    assert owner["ent-0000009"] == PAGING_APP_ID  # the README's and the spec examples' ids are the paging app's


def test_every_task_names_an_entitlement_of_its_own_app() -> None:
    tenant = build()
    named = 0
    for task in tenant.tasks:
        member = next(iter(task["type"].values()))
        if member.get("appEntitlementId"):
            ids = {entitlement["id"] for entitlement in tenant.entitlements(member["appId"])}
            assert member["appEntitlementId"] in ids, (task["id"], member)
            named += 1
    assert named > 50
    bindings = related_objects(tenant)["scope_binding"]
    for binding in bindings:
        ids = {entitlement["id"] for entitlement in tenant.entitlements(binding["appId"])}
        assert binding["id"] in ids, binding
