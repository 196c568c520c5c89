from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.actor_object_permissions import ActorObjectPermissions
    from ..models.task import Task


T = TypeVar("T", bound="TaskView")


@_attrs_define
class TaskView:
    """A task with the caller's permissions on it, and JSONPath expressions that locate its related objects in the
    response's `expanded` array. A path field is set only when the related object was requested in `expandMask` and
    exists; it then resolves against the response body (for example `$.expanded[0]`).

        Attributes:
            task (None | Task | Unset): The task.
            object_permissions (ActorObjectPermissions | None | Unset): What the caller may do with the task.
            access_review_path (str | Unset): JSONPath expression locating the access review in `expanded`.
            app_path (str | Unset): JSONPath expression locating the app in `expanded`.
            app_user_last_usage_path (str | Unset): JSONPath expression locating the app user's last usage in `expanded`.
            app_user_path (str | Unset): JSONPath expression locating the app user in `expanded`.
            approvers_path (str | Unset): JSONPath expression locating the users who approved or denied in `expanded`.
            created_by_user_path (str | Unset): JSONPath expression locating the user who created the task in `expanded`.
            entitlements_path (str | Unset): JSONPath expression locating the app entitlements in `expanded`.
            identity_user_path (str | Unset): JSONPath expression locating the identity user in `expanded`.
            insights_path (str | Unset): JSONPath expression locating the insights in `expanded`.
            principal_resource_path (str | Unset): JSONPath expression locating the resource under review for a resource-
                principal certify task in `expanded`.
            resource_bindings_path (str | Unset): JSONPath expression locating the entitlement scope bindings in `expanded`.
            role_resource_path (str | Unset): JSONPath expression locating the role resource of a scope-role action task in
                `expanded`.
            scope_resource_path (str | Unset): JSONPath expression locating the scope resource of a scope-role action task
                in `expanded`.
            step_approvers_path (str | Unset): JSONPath expression locating the users allowed to review the current step in
                `expanded`.
            user_path (str | Unset): JSONPath expression locating the target user in `expanded`.
    """

    task: None | Task | Unset = UNSET
    object_permissions: ActorObjectPermissions | None | Unset = UNSET
    access_review_path: str | Unset = UNSET
    app_path: str | Unset = UNSET
    app_user_last_usage_path: str | Unset = UNSET
    app_user_path: str | Unset = UNSET
    approvers_path: str | Unset = UNSET
    created_by_user_path: str | Unset = UNSET
    entitlements_path: str | Unset = UNSET
    identity_user_path: str | Unset = UNSET
    insights_path: str | Unset = UNSET
    principal_resource_path: str | Unset = UNSET
    resource_bindings_path: str | Unset = UNSET
    role_resource_path: str | Unset = UNSET
    scope_resource_path: str | Unset = UNSET
    step_approvers_path: str | Unset = UNSET
    user_path: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.actor_object_permissions import ActorObjectPermissions  # noqa: PLC0415
        from ..models.task import Task  # noqa: PLC0415

        task: dict[str, Any] | None | Unset
        if isinstance(self.task, Unset):
            task = UNSET
        elif isinstance(self.task, Task):
            task = self.task.to_dict()
        else:
            task = self.task

        object_permissions: dict[str, Any] | None | Unset
        if isinstance(self.object_permissions, Unset):
            object_permissions = UNSET
        elif isinstance(self.object_permissions, ActorObjectPermissions):
            object_permissions = self.object_permissions.to_dict()
        else:
            object_permissions = self.object_permissions

        access_review_path = self.access_review_path

        app_path = self.app_path

        app_user_last_usage_path = self.app_user_last_usage_path

        app_user_path = self.app_user_path

        approvers_path = self.approvers_path

        created_by_user_path = self.created_by_user_path

        entitlements_path = self.entitlements_path

        identity_user_path = self.identity_user_path

        insights_path = self.insights_path

        principal_resource_path = self.principal_resource_path

        resource_bindings_path = self.resource_bindings_path

        role_resource_path = self.role_resource_path

        scope_resource_path = self.scope_resource_path

        step_approvers_path = self.step_approvers_path

        user_path = self.user_path

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if task is not UNSET:
            field_dict["task"] = task
        if object_permissions is not UNSET:
            field_dict["objectPermissions"] = object_permissions
        if access_review_path is not UNSET:
            field_dict["accessReviewPath"] = access_review_path
        if app_path is not UNSET:
            field_dict["appPath"] = app_path
        if app_user_last_usage_path is not UNSET:
            field_dict["appUserLastUsagePath"] = app_user_last_usage_path
        if app_user_path is not UNSET:
            field_dict["appUserPath"] = app_user_path
        if approvers_path is not UNSET:
            field_dict["approversPath"] = approvers_path
        if created_by_user_path is not UNSET:
            field_dict["createdByUserPath"] = created_by_user_path
        if entitlements_path is not UNSET:
            field_dict["entitlementsPath"] = entitlements_path
        if identity_user_path is not UNSET:
            field_dict["identityUserPath"] = identity_user_path
        if insights_path is not UNSET:
            field_dict["insightsPath"] = insights_path
        if principal_resource_path is not UNSET:
            field_dict["principalResourcePath"] = principal_resource_path
        if resource_bindings_path is not UNSET:
            field_dict["resourceBindingsPath"] = resource_bindings_path
        if role_resource_path is not UNSET:
            field_dict["roleResourcePath"] = role_resource_path
        if scope_resource_path is not UNSET:
            field_dict["scopeResourcePath"] = scope_resource_path
        if step_approvers_path is not UNSET:
            field_dict["stepApproversPath"] = step_approvers_path
        if user_path is not UNSET:
            field_dict["userPath"] = user_path

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.actor_object_permissions import ActorObjectPermissions  # noqa: PLC0415
        from ..models.task import Task  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_task(data: object) -> None | Task | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                task_type_0 = Task.from_dict(data)

                return task_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Task | Unset, data)

        task = _parse_task(d.pop("task", UNSET))

        def _parse_object_permissions(data: object) -> ActorObjectPermissions | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                object_permissions_type_0 = ActorObjectPermissions.from_dict(data)

                return object_permissions_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ActorObjectPermissions | None | Unset, data)

        object_permissions = _parse_object_permissions(d.pop("objectPermissions", UNSET))

        access_review_path = d.pop("accessReviewPath", UNSET)

        app_path = d.pop("appPath", UNSET)

        app_user_last_usage_path = d.pop("appUserLastUsagePath", UNSET)

        app_user_path = d.pop("appUserPath", UNSET)

        approvers_path = d.pop("approversPath", UNSET)

        created_by_user_path = d.pop("createdByUserPath", UNSET)

        entitlements_path = d.pop("entitlementsPath", UNSET)

        identity_user_path = d.pop("identityUserPath", UNSET)

        insights_path = d.pop("insightsPath", UNSET)

        principal_resource_path = d.pop("principalResourcePath", UNSET)

        resource_bindings_path = d.pop("resourceBindingsPath", UNSET)

        role_resource_path = d.pop("roleResourcePath", UNSET)

        scope_resource_path = d.pop("scopeResourcePath", UNSET)

        step_approvers_path = d.pop("stepApproversPath", UNSET)

        user_path = d.pop("userPath", UNSET)

        task_view = cls(
            task=task,
            object_permissions=object_permissions,
            access_review_path=access_review_path,
            app_path=app_path,
            app_user_last_usage_path=app_user_last_usage_path,
            app_user_path=app_user_path,
            approvers_path=approvers_path,
            created_by_user_path=created_by_user_path,
            entitlements_path=entitlements_path,
            identity_user_path=identity_user_path,
            insights_path=insights_path,
            principal_resource_path=principal_resource_path,
            resource_bindings_path=resource_bindings_path,
            role_resource_path=role_resource_path,
            scope_resource_path=scope_resource_path,
            step_approvers_path=step_approvers_path,
            user_path=user_path,
        )

        task_view.additional_properties = d
        return task_view

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
