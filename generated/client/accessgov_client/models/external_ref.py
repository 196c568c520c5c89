from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.external_ref_source import ExternalRefSource
from ..types import UNSET, Unset

T = TypeVar("T", bound="ExternalRef")


@_attrs_define
class ExternalRef:
    """A reference to an object in an external system. All fields are read-only.

    Attributes:
        external_ref_source (ExternalRefSource | str | Unset): The system an external reference points into. Open
            enumeration: the values below are the ones known to this version of the contract; the service may add values at
            any time, so clients must accept any other string (see `x-open-enum` in the document info).
        name (str | Unset): Name of the external object.
        url (str | Unset): Address of the external object.
    """

    external_ref_source: ExternalRefSource | str | Unset = UNSET
    name: str | Unset = UNSET
    url: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        external_ref_source: str | Unset
        if isinstance(self.external_ref_source, Unset):
            external_ref_source = UNSET
        elif isinstance(self.external_ref_source, ExternalRefSource):
            external_ref_source = self.external_ref_source.value
        else:
            external_ref_source = self.external_ref_source

        name = self.name

        url = self.url

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if external_ref_source is not UNSET:
            field_dict["externalRefSource"] = external_ref_source
        if name is not UNSET:
            field_dict["name"] = name
        if url is not UNSET:
            field_dict["url"] = url

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_external_ref_source(data: object) -> ExternalRefSource | str | Unset:
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                componentsschemas_external_ref_source_type_0 = ExternalRefSource(data)

                return componentsschemas_external_ref_source_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ExternalRefSource | str | Unset, data)

        external_ref_source = _parse_external_ref_source(d.pop("externalRefSource", UNSET))

        name = d.pop("name", UNSET)

        url = d.pop("url", UNSET)

        external_ref = cls(
            external_ref_source=external_ref_source,
            name=name,
            url=url,
        )

        external_ref.additional_properties = d
        return external_ref

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
