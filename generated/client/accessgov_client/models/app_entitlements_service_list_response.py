from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.app_entitlement_view import AppEntitlementView
    from ..models.typed_object import TypedObject


T = TypeVar("T", bound="AppEntitlementsServiceListResponse")


@_attrs_define
class AppEntitlementsServiceListResponse:
    """One page of an app's entitlements, following the list convention (`list` + `nextPageToken`).

    Attributes:
        list_ (list[AppEntitlementView]): The entitlements of this page, in a stable order.
        next_page_token (str): Pagination convention, response side. Non-empty when more results remain: pass it as
            `page_token` (query string for GET, body for POST) to get the next page. The empty string means the last page
            has been reached. The token is opaque: clients must not parse or build it, and it is only valid for the
            collection it came from.
        expanded (list[TypedObject] | None | Unset): Related objects of this page's entitlements (their app, app
            resource and resource type), each included once and located through the path fields of the items. Each object
            has a string `@type` and further arbitrary properties.
    """

    list_: list[AppEntitlementView]
    next_page_token: str
    expanded: list[TypedObject] | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        list_ = []
        for list_item_data in self.list_:
            list_item = list_item_data.to_dict()
            list_.append(list_item)

        next_page_token = self.next_page_token

        expanded: list[dict[str, Any]] | None | Unset
        if isinstance(self.expanded, Unset):
            expanded = UNSET
        elif isinstance(self.expanded, list):
            expanded = []
            for expanded_type_0_item_data in self.expanded:
                expanded_type_0_item = expanded_type_0_item_data.to_dict()
                expanded.append(expanded_type_0_item)

        else:
            expanded = self.expanded

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "list": list_,
                "nextPageToken": next_page_token,
            }
        )
        if expanded is not UNSET:
            field_dict["expanded"] = expanded

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.app_entitlement_view import AppEntitlementView  # noqa: PLC0415
        from ..models.typed_object import TypedObject  # noqa: PLC0415

        d = dict(src_dict)
        list_ = []
        _list_ = d.pop("list")
        for list_item_data in _list_:
            list_item = AppEntitlementView.from_dict(list_item_data)

            list_.append(list_item)

        next_page_token = d.pop("nextPageToken")

        def _parse_expanded(data: object) -> list[TypedObject] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                expanded_type_0 = []
                _expanded_type_0 = data
                for expanded_type_0_item_data in _expanded_type_0:
                    expanded_type_0_item = TypedObject.from_dict(expanded_type_0_item_data)

                    expanded_type_0.append(expanded_type_0_item)

                return expanded_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[TypedObject] | None | Unset, data)

        expanded = _parse_expanded(d.pop("expanded", UNSET))

        app_entitlements_service_list_response = cls(
            list_=list_,
            next_page_token=next_page_token,
            expanded=expanded,
        )

        app_entitlements_service_list_response.additional_properties = d
        return app_entitlements_service_list_response

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
