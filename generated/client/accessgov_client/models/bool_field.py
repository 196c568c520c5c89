from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.checkbox_field import CheckboxField
    from ..models.field_rules import FieldRules
    from ..models.toggle_field import ToggleField


T = TypeVar("T", bound="BoolField")


@_attrs_define
class BoolField:
    """A boolean value. Exactly one view member is set, `checkboxField` or `toggleField`.

    Attributes:
        default_value (bool | Unset): Default value.
        rules (FieldRules | Unset): Validation rules of a form field value. Its fields are outside this contract: the
            object is open, clients must keep and ignore members they do not know, and servers may send any members.
        checkbox_field (CheckboxField | Unset): View: a checkbox. Its fields are outside this contract: the object is
            open, clients must keep and ignore members they do not know, and servers may send any members.
        toggle_field (ToggleField | Unset): View: a toggle switch. Its fields are outside this contract: the object is
            open, clients must keep and ignore members they do not know, and servers may send any members.
    """

    default_value: bool | Unset = UNSET
    rules: FieldRules | Unset = UNSET
    checkbox_field: CheckboxField | Unset = UNSET
    toggle_field: ToggleField | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        default_value = self.default_value

        rules: dict[str, Any] | Unset = UNSET
        if not isinstance(self.rules, Unset):
            rules = self.rules.to_dict()

        checkbox_field: dict[str, Any] | Unset = UNSET
        if not isinstance(self.checkbox_field, Unset):
            checkbox_field = self.checkbox_field.to_dict()

        toggle_field: dict[str, Any] | Unset = UNSET
        if not isinstance(self.toggle_field, Unset):
            toggle_field = self.toggle_field.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if default_value is not UNSET:
            field_dict["defaultValue"] = default_value
        if rules is not UNSET:
            field_dict["rules"] = rules
        if checkbox_field is not UNSET:
            field_dict["checkboxField"] = checkbox_field
        if toggle_field is not UNSET:
            field_dict["toggleField"] = toggle_field

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.checkbox_field import CheckboxField  # noqa: PLC0415
        from ..models.field_rules import FieldRules  # noqa: PLC0415
        from ..models.toggle_field import ToggleField  # noqa: PLC0415

        d = dict(src_dict)
        default_value = d.pop("defaultValue", UNSET)

        _rules = d.pop("rules", UNSET)
        rules: FieldRules | Unset
        if isinstance(_rules, Unset):
            rules = UNSET
        else:
            rules = FieldRules.from_dict(_rules)

        _checkbox_field = d.pop("checkboxField", UNSET)
        checkbox_field: CheckboxField | Unset
        if isinstance(_checkbox_field, Unset):
            checkbox_field = UNSET
        else:
            checkbox_field = CheckboxField.from_dict(_checkbox_field)

        _toggle_field = d.pop("toggleField", UNSET)
        toggle_field: ToggleField | Unset
        if isinstance(_toggle_field, Unset):
            toggle_field = UNSET
        else:
            toggle_field = ToggleField.from_dict(_toggle_field)

        bool_field = cls(
            default_value=default_value,
            rules=rules,
            checkbox_field=checkbox_field,
            toggle_field=toggle_field,
        )

        bool_field.additional_properties = d
        return bool_field

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
