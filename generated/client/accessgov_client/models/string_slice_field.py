from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.chips_field import ChipsField
    from ..models.field_rules import FieldRules
    from ..models.picker_field import PickerField


T = TypeVar("T", bound="StringSliceField")


@_attrs_define
class StringSliceField:
    """A list of strings. Exactly one view member is set, `chipsField` or `pickerField`.

    Attributes:
        default_values (list[str] | Unset): Default values.
        placeholder (str | Unset): Placeholder text.
        rules (FieldRules | Unset): Validation rules of a form field value. Its fields are outside this contract: the
            object is open, clients must keep and ignore members they do not know, and servers may send any members.
        chips_field (ChipsField | Unset): View: a list of chips. Its fields are outside this contract: the object is
            open, clients must keep and ignore members they do not know, and servers may send any members.
        picker_field (PickerField | Unset): View: a picker over objects of the service. Its fields are outside this
            contract: the object is open, clients must keep and ignore members they do not know, and servers may send any
            members.
    """

    default_values: list[str] | Unset = UNSET
    placeholder: str | Unset = UNSET
    rules: FieldRules | Unset = UNSET
    chips_field: ChipsField | Unset = UNSET
    picker_field: PickerField | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        default_values: list[str] | Unset = UNSET
        if not isinstance(self.default_values, Unset):
            default_values = self.default_values

        placeholder = self.placeholder

        rules: dict[str, Any] | Unset = UNSET
        if not isinstance(self.rules, Unset):
            rules = self.rules.to_dict()

        chips_field: dict[str, Any] | Unset = UNSET
        if not isinstance(self.chips_field, Unset):
            chips_field = self.chips_field.to_dict()

        picker_field: dict[str, Any] | Unset = UNSET
        if not isinstance(self.picker_field, Unset):
            picker_field = self.picker_field.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if default_values is not UNSET:
            field_dict["defaultValues"] = default_values
        if placeholder is not UNSET:
            field_dict["placeholder"] = placeholder
        if rules is not UNSET:
            field_dict["rules"] = rules
        if chips_field is not UNSET:
            field_dict["chipsField"] = chips_field
        if picker_field is not UNSET:
            field_dict["pickerField"] = picker_field

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.chips_field import ChipsField  # noqa: PLC0415
        from ..models.field_rules import FieldRules  # noqa: PLC0415
        from ..models.picker_field import PickerField  # noqa: PLC0415

        d = dict(src_dict)
        default_values = cast(list[str], d.pop("defaultValues", UNSET))

        placeholder = d.pop("placeholder", UNSET)

        _rules = d.pop("rules", UNSET)
        rules: FieldRules | Unset
        if isinstance(_rules, Unset):
            rules = UNSET
        else:
            rules = FieldRules.from_dict(_rules)

        _chips_field = d.pop("chipsField", UNSET)
        chips_field: ChipsField | Unset
        if isinstance(_chips_field, Unset):
            chips_field = UNSET
        else:
            chips_field = ChipsField.from_dict(_chips_field)

        _picker_field = d.pop("pickerField", UNSET)
        picker_field: PickerField | Unset
        if isinstance(_picker_field, Unset):
            picker_field = UNSET
        else:
            picker_field = PickerField.from_dict(_picker_field)

        string_slice_field = cls(
            default_values=default_values,
            placeholder=placeholder,
            rules=rules,
            chips_field=chips_field,
            picker_field=picker_field,
        )

        string_slice_field.additional_properties = d
        return string_slice_field

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
