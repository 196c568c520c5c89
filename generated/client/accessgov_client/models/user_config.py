from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="UserConfig")


@_attrs_define
class UserConfig:
    """The value is provided by the requesting user.

    Attributes:
        input_transformation_cel (str | Unset): CEL expression transforming the user's input.
    """

    input_transformation_cel: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        input_transformation_cel = self.input_transformation_cel

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if input_transformation_cel is not UNSET:
            field_dict["inputTransformationCel"] = input_transformation_cel

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        input_transformation_cel = d.pop("inputTransformationCel", UNSET)

        user_config = cls(
            input_transformation_cel=input_transformation_cel,
        )

        user_config.additional_properties = d
        return user_config

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
