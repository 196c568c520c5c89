from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.app_entitlement_ref import AppEntitlementRef


T = TypeVar("T", bound="TaskRevocationTarget")


@_attrs_define
class TaskRevocationTarget:
    """An ancestor entitlement revoked together with the task's entitlement.

    Attributes:
        entitlement_ref (AppEntitlementRef | None | Unset): The entitlement to revoke.
    """

    entitlement_ref: AppEntitlementRef | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.app_entitlement_ref import AppEntitlementRef  # noqa: PLC0415

        entitlement_ref: dict[str, Any] | None | Unset
        if isinstance(self.entitlement_ref, Unset):
            entitlement_ref = UNSET
        elif isinstance(self.entitlement_ref, AppEntitlementRef):
            entitlement_ref = self.entitlement_ref.to_dict()
        else:
            entitlement_ref = self.entitlement_ref

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if entitlement_ref is not UNSET:
            field_dict["entitlementRef"] = entitlement_ref

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.app_entitlement_ref import AppEntitlementRef  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_entitlement_ref(data: object) -> AppEntitlementRef | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                entitlement_ref_type_0 = AppEntitlementRef.from_dict(data)

                return entitlement_ref_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AppEntitlementRef | None | Unset, data)

        entitlement_ref = _parse_entitlement_ref(d.pop("entitlementRef", UNSET))

        task_revocation_target = cls(
            entitlement_ref=entitlement_ref,
        )

        task_revocation_target.additional_properties = d
        return task_revocation_target

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
