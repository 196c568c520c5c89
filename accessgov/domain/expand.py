"""`expandMask` for tasks: related objects in `expanded`, located by JSONPath fields of the TaskView."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from accessgov.errors import ErrorCode, InvalidRequest

TYPE_PREFIX = "type.googleapis.com/svc.api"
# expand path -> (TaskView path field, kind of object, how to find the ids in a task)
Finder = Callable[[Mapping[str, Any]], list[str]]


def _member(task: Mapping[str, Any]) -> Mapping[str, Any]:
    kind = task.get("type") or {}
    return next(iter(kind.values()), {}) if isinstance(kind, Mapping) else {}


def _field(name: str) -> Finder:
    return lambda task: [v] if (v := _member(task).get(name)) else []


def _task_field(name: str) -> Finder:
    def find(task: Mapping[str, Any]) -> list[str]:
        value = task.get(name)
        if isinstance(value, list):
            return [v for v in value if v]
        return [value] if value else []

    return find


def _entitlements(task: Mapping[str, Any]) -> list[str]:
    member = _member(task)
    ids = [member["appEntitlementId"]] if member.get("appEntitlementId") else []
    return ids + list(member.get("createdAppEntitlementIds") or [])


def _scope_role(part: str) -> Finder:
    return lambda task: [v] if (v := (_member(task).get("scopeRole") or {}).get(part)) else []


def _resource(task: Mapping[str, Any]) -> list[str]:
    resource = _member(task).get("resource") or {}
    return [resource["resourceId"]] if resource.get("resourceId") else []


EXPANSIONS: dict[str, list[tuple[str, str, Finder]]] = {
    "access_review_id": [("accessReviewPath", "access_review", _field("accessReviewId"))],
    "user_id": [("userPath", "user", _task_field("userId"))],
    "created_by_user_id": [("createdByUserPath", "user", _task_field("createdByUserId"))],
    "app_id": [("appPath", "app", _field("appId"))],
    "app_user_id": [("appUserPath", "app_user", _field("appUserId"))],
    "app_entitlement_ids": [("entitlementsPath", "app_entitlement", _entitlements)],
    "step_approver_ids": [("stepApproversPath", "user", _task_field("stepApproverIds"))],
    "approver_ids": [("approversPath", "user", _task_field("approverIds"))],
    "identity_user_id": [("identityUserPath", "user", _field("identityUserId"))],
    "insight_ids": [("insightsPath", "insight", _task_field("insightIds"))],
    "app_user_last_usage": [("appUserLastUsagePath", "app_user_last_usage", _field("appUserId"))],
    "entitlement_scope_bindings": [("resourceBindingsPath", "scope_binding", _field("appEntitlementId"))],
    "scope_role_resources": [
        ("roleResourcePath", "resource", _scope_role("roleId")),
        ("scopeResourcePath", "resource", _scope_role("scopeId")),
    ],
    "resource": [("principalResourcePath", "resource", _resource)],
}
TYPE_NAMES = {
    "access_review": "accessreview.v1.AccessReview",
    "user": "user.v1.User",
    "app": "app.v1.App",
    "app_user": "app.v1.AppUser",
    "app_entitlement": "app.v1.AppEntitlement",
    "insight": "insight.v1.Insight",
    "app_user_last_usage": "app.v1.AppUserLastUsage",
    "scope_binding": "app.v1.EntitlementScopeBinding",
    "resource": "app.v1.AppResource",
}

Lookup = Callable[[str, str, Mapping[str, Any]], Mapping[str, Any] | None]


def normalise_paths(paths: Iterable[str] | None) -> list[str]:
    """The expand paths asked for, `*` meaning all of them; unknown paths are a 400."""
    wanted: list[str] = []
    for path in paths or []:
        if path == "*":
            return list(EXPANSIONS)
        if path not in EXPANSIONS:
            raise InvalidRequest(
                ErrorCode.INVALID_EXPAND_PATH,
                f"unknown expand path {path!r}",
                location="body",
                name="/expandMask/paths",
            )
        if path not in wanted:
            wanted.append(path)
    return wanted


def expand(
    task: Mapping[str, Any], paths: Iterable[str] | None, lookup: Lookup
) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """Related objects for `paths` and the TaskView path fields that locate them in `expanded`.

    An object reached by several paths is included once; a path field is set only when something was found.
    """
    expanded: list[dict[str, Any]] = []
    position: dict[tuple[str, str], int] = {}
    fields: dict[str, str] = {}
    for path in normalise_paths(paths):
        for field, kind, find in EXPANSIONS[path]:
            indexes = []
            for object_id in find(task):
                key = (kind, object_id)
                if key not in position:
                    found = lookup(kind, object_id, task)
                    if found is None:
                        continue
                    position[key] = len(expanded)
                    expanded.append({"@type": f"{TYPE_PREFIX}.{TYPE_NAMES[kind]}", **found})
                indexes.append(position[key])
            if indexes:
                fields[field] = f"$.expanded[{','.join(map(str, indexes))}]"
    return expanded, fields
