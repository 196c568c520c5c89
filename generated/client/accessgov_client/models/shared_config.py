from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="SharedConfig")


@_attrs_define
class SharedConfig:
    """The value is provided by the administrator and the user together.

    Attributes:
        default_value_cel (str | Unset): CEL expression computing the default value.
        input_transformation_cel (str | Unset): CEL expression transforming the user's input.
        lock_default_values (bool | Unset): True to keep the user from changing the default values.
    """

    default_value_cel: str | Unset = UNSET
    input_transformation_cel: str | Unset = UNSET
    lock_default_values: bool | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        default_value_cel = self.default_value_cel

        input_transformation_cel = self.input_transformation_cel

        lock_default_values = self.lock_default_values

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if default_value_cel is not UNSET:
            field_dict["defaultValueCel"] = default_value_cel
        if input_transformation_cel is not UNSET:
            field_dict["inputTransformationCel"] = input_transformation_cel
        if lock_default_values is not UNSET:
            field_dict["lockDefaultValues"] = lock_default_values

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        default_value_cel = d.pop("defaultValueCel", UNSET)

        input_transformation_cel = d.pop("inputTransformationCel", UNSET)

        lock_default_values = d.pop("lockDefaultValues", UNSET)

        shared_config = cls(
            default_value_cel=default_value_cel,
            input_transformation_cel=input_transformation_cel,
            lock_default_values=lock_default_values,
        )

        shared_config.additional_properties = d
        return shared_config

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
