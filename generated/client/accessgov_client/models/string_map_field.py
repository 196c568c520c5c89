from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.field_rules import FieldRules
    from ..models.string_map_field_default_value import StringMapFieldDefaultValue


T = TypeVar("T", bound="StringMapField")


@_attrs_define
class StringMapField:
    """A map of string to string.

    Attributes:
        default_value (StringMapFieldDefaultValue | Unset): Default value.
        rules (FieldRules | Unset): Validation rules of a form field value. Its fields are outside this contract: the
            object is open, clients must keep and ignore members they do not know, and servers may send any members.
    """

    default_value: StringMapFieldDefaultValue | Unset = UNSET
    rules: FieldRules | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        default_value: dict[str, Any] | Unset = UNSET
        if not isinstance(self.default_value, Unset):
            default_value = self.default_value.to_dict()

        rules: dict[str, Any] | Unset = UNSET
        if not isinstance(self.rules, Unset):
            rules = self.rules.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if default_value is not UNSET:
            field_dict["defaultValue"] = default_value
        if rules is not UNSET:
            field_dict["rules"] = rules

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.field_rules import FieldRules  # noqa: PLC0415
        from ..models.string_map_field_default_value import StringMapFieldDefaultValue  # noqa: PLC0415

        d = dict(src_dict)
        _default_value = d.pop("defaultValue", UNSET)
        default_value: StringMapFieldDefaultValue | Unset
        if isinstance(_default_value, Unset):
            default_value = UNSET
        else:
            default_value = StringMapFieldDefaultValue.from_dict(_default_value)

        _rules = d.pop("rules", UNSET)
        rules: FieldRules | Unset
        if isinstance(_rules, Unset):
            rules = UNSET
        else:
            rules = FieldRules.from_dict(_rules)

        string_map_field = cls(
            default_value=default_value,
            rules=rules,
        )

        string_map_field.additional_properties = d
        return string_map_field

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
