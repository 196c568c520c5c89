from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.field_rules import FieldRules
    from ..models.number_field import NumberField


T = TypeVar("T", bound="Int64Field")


@_attrs_define
class Int64Field:
    """A 64-bit integer value, carried as a decimal string. Its view is `numberField`.

    Attributes:
        default_value (None | str | Unset): Default value, as a decimal string.
        placeholder (str | Unset): Placeholder text.
        rules (FieldRules | Unset): Validation rules of a form field value. Its fields are outside this contract: the
            object is open, clients must keep and ignore members they do not know, and servers may send any members.
        number_field (NumberField | Unset): View: a number input. Its fields are outside this contract: the object is
            open, clients must keep and ignore members they do not know, and servers may send any members.
    """

    default_value: None | str | Unset = UNSET
    placeholder: str | Unset = UNSET
    rules: FieldRules | Unset = UNSET
    number_field: NumberField | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        default_value: None | str | Unset
        if isinstance(self.default_value, Unset):
            default_value = UNSET
        else:
            default_value = self.default_value

        placeholder = self.placeholder

        rules: dict[str, Any] | Unset = UNSET
        if not isinstance(self.rules, Unset):
            rules = self.rules.to_dict()

        number_field: dict[str, Any] | Unset = UNSET
        if not isinstance(self.number_field, Unset):
            number_field = self.number_field.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if default_value is not UNSET:
            field_dict["defaultValue"] = default_value
        if placeholder is not UNSET:
            field_dict["placeholder"] = placeholder
        if rules is not UNSET:
            field_dict["rules"] = rules
        if number_field is not UNSET:
            field_dict["numberField"] = number_field

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.field_rules import FieldRules  # noqa: PLC0415
        from ..models.number_field import NumberField  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_default_value(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        default_value = _parse_default_value(d.pop("defaultValue", UNSET))

        placeholder = d.pop("placeholder", UNSET)

        _rules = d.pop("rules", UNSET)
        rules: FieldRules | Unset
        if isinstance(_rules, Unset):
            rules = UNSET
        else:
            rules = FieldRules.from_dict(_rules)

        _number_field = d.pop("numberField", UNSET)
        number_field: NumberField | Unset
        if isinstance(_number_field, Unset):
            number_field = UNSET
        else:
            number_field = NumberField.from_dict(_number_field)

        int_64_field = cls(
            default_value=default_value,
            placeholder=placeholder,
            rules=rules,
            number_field=number_field,
        )

        int_64_field.additional_properties = d
        return int_64_field

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
