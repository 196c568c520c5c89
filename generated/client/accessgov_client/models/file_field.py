from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.file_input_field import FileInputField


T = TypeVar("T", bound="FileField")


@_attrs_define
class FileField:
    """An uploaded file. Its view is `fileInputField`.

    Attributes:
        accepted_file_types (list[str] | Unset): Accepted file types, as extensions or media types.
        max_file_size (None | str | Unset): Largest accepted file, in bytes, as a decimal string.
        file_input_field (FileInputField | Unset): View: a file upload input. Its fields are outside this contract: the
            object is open, clients must keep and ignore members they do not know, and servers may send any members.
    """

    accepted_file_types: list[str] | Unset = UNSET
    max_file_size: None | str | Unset = UNSET
    file_input_field: FileInputField | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        accepted_file_types: list[str] | Unset = UNSET
        if not isinstance(self.accepted_file_types, Unset):
            accepted_file_types = self.accepted_file_types

        max_file_size: None | str | Unset
        if isinstance(self.max_file_size, Unset):
            max_file_size = UNSET
        else:
            max_file_size = self.max_file_size

        file_input_field: dict[str, Any] | Unset = UNSET
        if not isinstance(self.file_input_field, Unset):
            file_input_field = self.file_input_field.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if accepted_file_types is not UNSET:
            field_dict["acceptedFileTypes"] = accepted_file_types
        if max_file_size is not UNSET:
            field_dict["maxFileSize"] = max_file_size
        if file_input_field is not UNSET:
            field_dict["fileInputField"] = file_input_field

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.file_input_field import FileInputField  # noqa: PLC0415

        d = dict(src_dict)
        accepted_file_types = cast(list[str], d.pop("acceptedFileTypes", UNSET))

        def _parse_max_file_size(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        max_file_size = _parse_max_file_size(d.pop("maxFileSize", UNSET))

        _file_input_field = d.pop("fileInputField", UNSET)
        file_input_field: FileInputField | Unset
        if isinstance(_file_input_field, Unset):
            file_input_field = UNSET
        else:
            file_input_field = FileInputField.from_dict(_file_input_field)

        file_field = cls(
            accepted_file_types=accepted_file_types,
            max_file_size=max_file_size,
            file_input_field=file_input_field,
        )

        file_field.additional_properties = d
        return file_field

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
