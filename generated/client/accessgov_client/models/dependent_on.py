from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="DependentOn")


@_attrs_define
class DependentOn:
    """The fields in `fieldNames` are valid only if all dependency fields are present.

    Attributes:
        dependency_field_names (list[str] | Unset): Names of the fields that must all be present.
    """

    dependency_field_names: list[str] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        dependency_field_names: list[str] | Unset = UNSET
        if not isinstance(self.dependency_field_names, Unset):
            dependency_field_names = self.dependency_field_names

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if dependency_field_names is not UNSET:
            field_dict["dependencyFieldNames"] = dependency_field_names

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        dependency_field_names = cast(list[str], d.pop("dependencyFieldNames", UNSET))

        dependent_on = cls(
            dependency_field_names=dependency_field_names,
        )

        dependent_on.additional_properties = d
        return dependent_on

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
