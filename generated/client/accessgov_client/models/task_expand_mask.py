from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.task_expand_mask_paths_type_0_item import TaskExpandMaskPathsType0Item
from ..types import UNSET, Unset

T = TypeVar("T", bound="TaskExpandMask")


@_attrs_define
class TaskExpandMask:
    """Related objects to return in the response's `expanded` array. `*` requests everything. Unknown values are rejected
    with 400, so a typo never silently returns less than asked for. Values match exactly: another letter case
    (`USER_ID`), surrounding whitespace or an empty string is an unknown value.

        Attributes:
            paths (list[TaskExpandMaskPathsType0Item] | None | Unset): The related objects to expand.
    """

    paths: list[TaskExpandMaskPathsType0Item] | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        paths: list[str] | None | Unset
        if isinstance(self.paths, Unset):
            paths = UNSET
        elif isinstance(self.paths, list):
            paths = []
            for paths_type_0_item_data in self.paths:
                paths_type_0_item = paths_type_0_item_data.value
                paths.append(paths_type_0_item)

        else:
            paths = self.paths

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if paths is not UNSET:
            field_dict["paths"] = paths

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_paths(data: object) -> list[TaskExpandMaskPathsType0Item] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                paths_type_0 = []
                _paths_type_0 = data
                for paths_type_0_item_data in _paths_type_0:
                    paths_type_0_item = TaskExpandMaskPathsType0Item(paths_type_0_item_data)

                    paths_type_0.append(paths_type_0_item)

                return paths_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[TaskExpandMaskPathsType0Item] | None | Unset, data)

        paths = _parse_paths(d.pop("paths", UNSET))

        task_expand_mask = cls(
            paths=paths,
        )

        task_expand_mask.additional_properties = d
        return task_expand_mask

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
