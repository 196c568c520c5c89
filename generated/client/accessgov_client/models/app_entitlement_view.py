from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.app_entitlement import AppEntitlement


T = TypeVar("T", bound="AppEntitlementView")


@_attrs_define
class AppEntitlementView:
    """One item of an entitlement list: the entitlement, and JSONPath expressions that locate its related objects in the
    response's `expanded` array. A path field is set only when the related object exists; it then resolves against the
    response body (for example `$.expanded[0]`).

        Attributes:
            app_entitlement (AppEntitlement | None | Unset): The entitlement.
            app_path (str | Unset): JSONPath expression locating the entitlement's app in `expanded`.
            app_resource_path (str | Unset): JSONPath expression locating the app resource the entitlement belongs to in
                `expanded`.
            app_resource_type_path (str | Unset): JSONPath expression locating that resource's type in `expanded`.
    """

    app_entitlement: AppEntitlement | None | Unset = UNSET
    app_path: str | Unset = UNSET
    app_resource_path: str | Unset = UNSET
    app_resource_type_path: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.app_entitlement import AppEntitlement  # noqa: PLC0415

        app_entitlement: dict[str, Any] | None | Unset
        if isinstance(self.app_entitlement, Unset):
            app_entitlement = UNSET
        elif isinstance(self.app_entitlement, AppEntitlement):
            app_entitlement = self.app_entitlement.to_dict()
        else:
            app_entitlement = self.app_entitlement

        app_path = self.app_path

        app_resource_path = self.app_resource_path

        app_resource_type_path = self.app_resource_type_path

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if app_entitlement is not UNSET:
            field_dict["appEntitlement"] = app_entitlement
        if app_path is not UNSET:
            field_dict["appPath"] = app_path
        if app_resource_path is not UNSET:
            field_dict["appResourcePath"] = app_resource_path
        if app_resource_type_path is not UNSET:
            field_dict["appResourceTypePath"] = app_resource_type_path

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.app_entitlement import AppEntitlement  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_app_entitlement(data: object) -> AppEntitlement | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                app_entitlement_type_0 = AppEntitlement.from_dict(data)

                return app_entitlement_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AppEntitlement | None | Unset, data)

        app_entitlement = _parse_app_entitlement(d.pop("appEntitlement", UNSET))

        app_path = d.pop("appPath", UNSET)

        app_resource_path = d.pop("appResourcePath", UNSET)

        app_resource_type_path = d.pop("appResourceTypePath", UNSET)

        app_entitlement_view = cls(
            app_entitlement=app_entitlement,
            app_path=app_path,
            app_resource_path=app_resource_path,
            app_resource_type_path=app_resource_type_path,
        )

        app_entitlement_view.additional_properties = d
        return app_entitlement_view

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
