from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.admin_config import AdminConfig
    from ..models.bool_field import BoolField
    from ..models.file_field import FileField
    from ..models.int_64_field import Int64Field
    from ..models.oauth_2_field import Oauth2Field
    from ..models.shared_config import SharedConfig
    from ..models.string_field import StringField
    from ..models.string_map_field import StringMapField
    from ..models.string_slice_field import StringSliceField
    from ..models.user_config import UserConfig


T = TypeVar("T", bound="Field")


@_attrs_define
class Field:
    """A form field. Exactly one value-type member is set (`stringField`, `boolField`, `stringSliceField`, `int64Field`,
    `fileField`, `oauth2Field`, `stringMapField`) and exactly one provider-config member (`userConfig`, `adminConfig`,
    `sharedConfig`).

        Attributes:
            name (str | Unset): Name of the field, unique within its form.
            display_name (str | Unset): Display name.
            description (str | Unset): Description.
            required (bool | Unset): True when a value must be given.
            read_only (bool | Unset): True when the field is displayed but not editable.
            string_field (StringField | Unset): A string value. Exactly one view member is set: `textField`,
                `passwordField`, `selectField`, `pickerField` or `dateField`.
            bool_field (BoolField | Unset): A boolean value. Exactly one view member is set, `checkboxField` or
                `toggleField`.
            string_slice_field (StringSliceField | Unset): A list of strings. Exactly one view member is set, `chipsField`
                or `pickerField`.
            int_64_field (Int64Field | Unset): A 64-bit integer value, carried as a decimal string. Its view is
                `numberField`.
            file_field (FileField | Unset): An uploaded file. Its view is `fileInputField`.
            oauth_2_field (Oauth2Field | Unset): An OAuth2 credential obtained by connecting an account. Its view is
                `oauth2FieldView`.
            string_map_field (StringMapField | Unset): A map of string to string.
            user_config (UserConfig | Unset): The value is provided by the requesting user.
            admin_config (AdminConfig | Unset): The value is provided by an administrator.
            shared_config (SharedConfig | Unset): The value is provided by the administrator and the user together.
    """

    name: str | Unset = UNSET
    display_name: str | Unset = UNSET
    description: str | Unset = UNSET
    required: bool | Unset = UNSET
    read_only: bool | Unset = UNSET
    string_field: StringField | Unset = UNSET
    bool_field: BoolField | Unset = UNSET
    string_slice_field: StringSliceField | Unset = UNSET
    int_64_field: Int64Field | Unset = UNSET
    file_field: FileField | Unset = UNSET
    oauth_2_field: Oauth2Field | Unset = UNSET
    string_map_field: StringMapField | Unset = UNSET
    user_config: UserConfig | Unset = UNSET
    admin_config: AdminConfig | Unset = UNSET
    shared_config: SharedConfig | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        display_name = self.display_name

        description = self.description

        required = self.required

        read_only = self.read_only

        string_field: dict[str, Any] | Unset = UNSET
        if not isinstance(self.string_field, Unset):
            string_field = self.string_field.to_dict()

        bool_field: dict[str, Any] | Unset = UNSET
        if not isinstance(self.bool_field, Unset):
            bool_field = self.bool_field.to_dict()

        string_slice_field: dict[str, Any] | Unset = UNSET
        if not isinstance(self.string_slice_field, Unset):
            string_slice_field = self.string_slice_field.to_dict()

        int_64_field: dict[str, Any] | Unset = UNSET
        if not isinstance(self.int_64_field, Unset):
            int_64_field = self.int_64_field.to_dict()

        file_field: dict[str, Any] | Unset = UNSET
        if not isinstance(self.file_field, Unset):
            file_field = self.file_field.to_dict()

        oauth_2_field: dict[str, Any] | Unset = UNSET
        if not isinstance(self.oauth_2_field, Unset):
            oauth_2_field = self.oauth_2_field.to_dict()

        string_map_field: dict[str, Any] | Unset = UNSET
        if not isinstance(self.string_map_field, Unset):
            string_map_field = self.string_map_field.to_dict()

        user_config: dict[str, Any] | Unset = UNSET
        if not isinstance(self.user_config, Unset):
            user_config = self.user_config.to_dict()

        admin_config: dict[str, Any] | Unset = UNSET
        if not isinstance(self.admin_config, Unset):
            admin_config = self.admin_config.to_dict()

        shared_config: dict[str, Any] | Unset = UNSET
        if not isinstance(self.shared_config, Unset):
            shared_config = self.shared_config.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if name is not UNSET:
            field_dict["name"] = name
        if display_name is not UNSET:
            field_dict["displayName"] = display_name
        if description is not UNSET:
            field_dict["description"] = description
        if required is not UNSET:
            field_dict["required"] = required
        if read_only is not UNSET:
            field_dict["readOnly"] = read_only
        if string_field is not UNSET:
            field_dict["stringField"] = string_field
        if bool_field is not UNSET:
            field_dict["boolField"] = bool_field
        if string_slice_field is not UNSET:
            field_dict["stringSliceField"] = string_slice_field
        if int_64_field is not UNSET:
            field_dict["int64Field"] = int_64_field
        if file_field is not UNSET:
            field_dict["fileField"] = file_field
        if oauth_2_field is not UNSET:
            field_dict["oauth2Field"] = oauth_2_field
        if string_map_field is not UNSET:
            field_dict["stringMapField"] = string_map_field
        if user_config is not UNSET:
            field_dict["userConfig"] = user_config
        if admin_config is not UNSET:
            field_dict["adminConfig"] = admin_config
        if shared_config is not UNSET:
            field_dict["sharedConfig"] = shared_config

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.admin_config import AdminConfig  # noqa: PLC0415
        from ..models.bool_field import BoolField  # noqa: PLC0415
        from ..models.file_field import FileField  # noqa: PLC0415
        from ..models.int_64_field import Int64Field  # noqa: PLC0415
        from ..models.oauth_2_field import Oauth2Field  # noqa: PLC0415
        from ..models.shared_config import SharedConfig  # noqa: PLC0415
        from ..models.string_field import StringField  # noqa: PLC0415
        from ..models.string_map_field import StringMapField  # noqa: PLC0415
        from ..models.string_slice_field import StringSliceField  # noqa: PLC0415
        from ..models.user_config import UserConfig  # noqa: PLC0415

        d = dict(src_dict)
        name = d.pop("name", UNSET)

        display_name = d.pop("displayName", UNSET)

        description = d.pop("description", UNSET)

        required = d.pop("required", UNSET)

        read_only = d.pop("readOnly", UNSET)

        _string_field = d.pop("stringField", UNSET)
        string_field: StringField | Unset
        if isinstance(_string_field, Unset):
            string_field = UNSET
        else:
            string_field = StringField.from_dict(_string_field)

        _bool_field = d.pop("boolField", UNSET)
        bool_field: BoolField | Unset
        if isinstance(_bool_field, Unset):
            bool_field = UNSET
        else:
            bool_field = BoolField.from_dict(_bool_field)

        _string_slice_field = d.pop("stringSliceField", UNSET)
        string_slice_field: StringSliceField | Unset
        if isinstance(_string_slice_field, Unset):
            string_slice_field = UNSET
        else:
            string_slice_field = StringSliceField.from_dict(_string_slice_field)

        _int_64_field = d.pop("int64Field", UNSET)
        int_64_field: Int64Field | Unset
        if isinstance(_int_64_field, Unset):
            int_64_field = UNSET
        else:
            int_64_field = Int64Field.from_dict(_int_64_field)

        _file_field = d.pop("fileField", UNSET)
        file_field: FileField | Unset
        if isinstance(_file_field, Unset):
            file_field = UNSET
        else:
            file_field = FileField.from_dict(_file_field)

        _oauth_2_field = d.pop("oauth2Field", UNSET)
        oauth_2_field: Oauth2Field | Unset
        if isinstance(_oauth_2_field, Unset):
            oauth_2_field = UNSET
        else:
            oauth_2_field = Oauth2Field.from_dict(_oauth_2_field)

        _string_map_field = d.pop("stringMapField", UNSET)
        string_map_field: StringMapField | Unset
        if isinstance(_string_map_field, Unset):
            string_map_field = UNSET
        else:
            string_map_field = StringMapField.from_dict(_string_map_field)

        _user_config = d.pop("userConfig", UNSET)
        user_config: UserConfig | Unset
        if isinstance(_user_config, Unset):
            user_config = UNSET
        else:
            user_config = UserConfig.from_dict(_user_config)

        _admin_config = d.pop("adminConfig", UNSET)
        admin_config: AdminConfig | Unset
        if isinstance(_admin_config, Unset):
            admin_config = UNSET
        else:
            admin_config = AdminConfig.from_dict(_admin_config)

        _shared_config = d.pop("sharedConfig", UNSET)
        shared_config: SharedConfig | Unset
        if isinstance(_shared_config, Unset):
            shared_config = UNSET
        else:
            shared_config = SharedConfig.from_dict(_shared_config)

        field = cls(
            name=name,
            display_name=display_name,
            description=description,
            required=required,
            read_only=read_only,
            string_field=string_field,
            bool_field=bool_field,
            string_slice_field=string_slice_field,
            int_64_field=int_64_field,
            file_field=file_field,
            oauth_2_field=oauth_2_field,
            string_map_field=string_map_field,
            user_config=user_config,
            admin_config=admin_config,
            shared_config=shared_config,
        )

        field.additional_properties = d
        return field

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
