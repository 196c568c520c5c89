from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="FieldGroup")


@_attrs_define
class FieldGroup:
    """A named group of form fields.

    Attributes:
        name (str | Unset): Name of the group.
        display_name (str | Unset): Display name.
        help_text (str | Unset): Help text shown with the group.
        default (bool | Unset): True for the default group.
        fields (list[str] | Unset): Names of the fields in the group.
    """

    name: str | Unset = UNSET
    display_name: str | Unset = UNSET
    help_text: str | Unset = UNSET
    default: bool | Unset = UNSET
    fields: list[str] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        display_name = self.display_name

        help_text = self.help_text

        default = self.default

        fields: list[str] | Unset = UNSET
        if not isinstance(self.fields, Unset):
            fields = self.fields

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if name is not UNSET:
            field_dict["name"] = name
        if display_name is not UNSET:
            field_dict["displayName"] = display_name
        if help_text is not UNSET:
            field_dict["helpText"] = help_text
        if default is not UNSET:
            field_dict["default"] = default
        if fields is not UNSET:
            field_dict["fields"] = fields

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        name = d.pop("name", UNSET)

        display_name = d.pop("displayName", UNSET)

        help_text = d.pop("helpText", UNSET)

        default = d.pop("default", UNSET)

        fields = cast(list[str], d.pop("fields", UNSET))

        field_group = cls(
            name=name,
            display_name=display_name,
            help_text=help_text,
            default=default,
            fields=fields,
        )

        field_group.additional_properties = d
        return field_group

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
