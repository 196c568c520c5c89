from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="AdminConfig")


@_attrs_define
class AdminConfig:
    """The value is provided by an administrator.

    Attributes:
        default_value_cel (str | Unset): CEL expression computing the default value.
        show_to_user (bool | Unset): True to show the value to the requesting user.
    """

    default_value_cel: str | Unset = UNSET
    show_to_user: bool | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        default_value_cel = self.default_value_cel

        show_to_user = self.show_to_user

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if default_value_cel is not UNSET:
            field_dict["defaultValueCel"] = default_value_cel
        if show_to_user is not UNSET:
            field_dict["showToUser"] = show_to_user

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        default_value_cel = d.pop("defaultValueCel", UNSET)

        show_to_user = d.pop("showToUser", UNSET)

        admin_config = cls(
            default_value_cel=default_value_cel,
            show_to_user=show_to_user,
        )

        admin_config.additional_properties = d
        return admin_config

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
