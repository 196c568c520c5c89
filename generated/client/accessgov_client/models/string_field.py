from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.date_field import DateField
    from ..models.field_rules import FieldRules
    from ..models.password_field import PasswordField
    from ..models.picker_field import PickerField
    from ..models.select_field import SelectField
    from ..models.text_field import TextField


T = TypeVar("T", bound="StringField")


@_attrs_define
class StringField:
    """A string value. Exactly one view member is set: `textField`, `passwordField`, `selectField`, `pickerField` or
    `dateField`.

        Attributes:
            default_value (str | Unset): Default value.
            placeholder (str | Unset): Placeholder text.
            rules (FieldRules | Unset): Validation rules of a form field value. Its fields are outside this contract: the
                object is open, clients must keep and ignore members they do not know, and servers may send any members.
            text_field (TextField | Unset): View: a single-line text input. Its fields are outside this contract: the object
                is open, clients must keep and ignore members they do not know, and servers may send any members.
            password_field (PasswordField | Unset): View: a masked text input. Its fields are outside this contract: the
                object is open, clients must keep and ignore members they do not know, and servers may send any members.
            select_field (SelectField | Unset): View: a choice among fixed options. Its fields are outside this contract:
                the object is open, clients must keep and ignore members they do not know, and servers may send any members.
            picker_field (PickerField | Unset): View: a picker over objects of the service. Its fields are outside this
                contract: the object is open, clients must keep and ignore members they do not know, and servers may send any
                members.
            date_field (DateField | Unset): View: a date input. Its fields are outside this contract: the object is open,
                clients must keep and ignore members they do not know, and servers may send any members.
    """

    default_value: str | Unset = UNSET
    placeholder: str | Unset = UNSET
    rules: FieldRules | Unset = UNSET
    text_field: TextField | Unset = UNSET
    password_field: PasswordField | Unset = UNSET
    select_field: SelectField | Unset = UNSET
    picker_field: PickerField | Unset = UNSET
    date_field: DateField | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        default_value = self.default_value

        placeholder = self.placeholder

        rules: dict[str, Any] | Unset = UNSET
        if not isinstance(self.rules, Unset):
            rules = self.rules.to_dict()

        text_field: dict[str, Any] | Unset = UNSET
        if not isinstance(self.text_field, Unset):
            text_field = self.text_field.to_dict()

        password_field: dict[str, Any] | Unset = UNSET
        if not isinstance(self.password_field, Unset):
            password_field = self.password_field.to_dict()

        select_field: dict[str, Any] | Unset = UNSET
        if not isinstance(self.select_field, Unset):
            select_field = self.select_field.to_dict()

        picker_field: dict[str, Any] | Unset = UNSET
        if not isinstance(self.picker_field, Unset):
            picker_field = self.picker_field.to_dict()

        date_field: dict[str, Any] | Unset = UNSET
        if not isinstance(self.date_field, Unset):
            date_field = self.date_field.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if default_value is not UNSET:
            field_dict["defaultValue"] = default_value
        if placeholder is not UNSET:
            field_dict["placeholder"] = placeholder
        if rules is not UNSET:
            field_dict["rules"] = rules
        if text_field is not UNSET:
            field_dict["textField"] = text_field
        if password_field is not UNSET:
            field_dict["passwordField"] = password_field
        if select_field is not UNSET:
            field_dict["selectField"] = select_field
        if picker_field is not UNSET:
            field_dict["pickerField"] = picker_field
        if date_field is not UNSET:
            field_dict["dateField"] = date_field

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.date_field import DateField  # noqa: PLC0415
        from ..models.field_rules import FieldRules  # noqa: PLC0415
        from ..models.password_field import PasswordField  # noqa: PLC0415
        from ..models.picker_field import PickerField  # noqa: PLC0415
        from ..models.select_field import SelectField  # noqa: PLC0415
        from ..models.text_field import TextField  # noqa: PLC0415

        d = dict(src_dict)
        default_value = d.pop("defaultValue", UNSET)

        placeholder = d.pop("placeholder", UNSET)

        _rules = d.pop("rules", UNSET)
        rules: FieldRules | Unset
        if isinstance(_rules, Unset):
            rules = UNSET
        else:
            rules = FieldRules.from_dict(_rules)

        _text_field = d.pop("textField", UNSET)
        text_field: TextField | Unset
        if isinstance(_text_field, Unset):
            text_field = UNSET
        else:
            text_field = TextField.from_dict(_text_field)

        _password_field = d.pop("passwordField", UNSET)
        password_field: PasswordField | Unset
        if isinstance(_password_field, Unset):
            password_field = UNSET
        else:
            password_field = PasswordField.from_dict(_password_field)

        _select_field = d.pop("selectField", UNSET)
        select_field: SelectField | Unset
        if isinstance(_select_field, Unset):
            select_field = UNSET
        else:
            select_field = SelectField.from_dict(_select_field)

        _picker_field = d.pop("pickerField", UNSET)
        picker_field: PickerField | Unset
        if isinstance(_picker_field, Unset):
            picker_field = UNSET
        else:
            picker_field = PickerField.from_dict(_picker_field)

        _date_field = d.pop("dateField", UNSET)
        date_field: DateField | Unset
        if isinstance(_date_field, Unset):
            date_field = UNSET
        else:
            date_field = DateField.from_dict(_date_field)

        string_field = cls(
            default_value=default_value,
            placeholder=placeholder,
            rules=rules,
            text_field=text_field,
            password_field=password_field,
            select_field=select_field,
            picker_field=picker_field,
            date_field=date_field,
        )

        string_field.additional_properties = d
        return string_field

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
