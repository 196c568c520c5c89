from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.app_entitlement_view import AppEntitlementView


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
    """

    list_: list[AppEntitlementView]
    next_page_token: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        list_ = []
        for list_item_data in self.list_:
            list_item = list_item_data.to_dict()
            list_.append(list_item)

        next_page_token = self.next_page_token

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "list": list_,
                "nextPageToken": next_page_token,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.app_entitlement_view import AppEntitlementView  # noqa: PLC0415

        d = dict(src_dict)
        list_ = []
        _list_ = d.pop("list")
        for list_item_data in _list_:
            list_item = AppEntitlementView.from_dict(list_item_data)

            list_.append(list_item)

        next_page_token = d.pop("nextPageToken")

        app_entitlements_service_list_response = cls(
            list_=list_,
            next_page_token=next_page_token,
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
