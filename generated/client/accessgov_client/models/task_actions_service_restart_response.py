from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.task_view import TaskView
    from ..models.typed_object import TypedObject


T = TypeVar("T", bound="TaskActionsServiceRestartResponse")


@_attrs_define
class TaskActionsServiceRestartResponse:
    """The task after restarting.

    Attributes:
        task_view (None | TaskView | Unset): The restarted task.
        expanded (list[TypedObject] | None | Unset): Related objects requested with `expandMask`, located through the
            path fields of `taskView`. Each object has a string `@type` and further arbitrary properties.
        ticket_action_id (str | Unset): ID of the restart action this request created. Unique per request.
    """

    task_view: None | TaskView | Unset = UNSET
    expanded: list[TypedObject] | None | Unset = UNSET
    ticket_action_id: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.task_view import TaskView  # noqa: PLC0415

        task_view: dict[str, Any] | None | Unset
        if isinstance(self.task_view, Unset):
            task_view = UNSET
        elif isinstance(self.task_view, TaskView):
            task_view = self.task_view.to_dict()
        else:
            task_view = self.task_view

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

        ticket_action_id = self.ticket_action_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if task_view is not UNSET:
            field_dict["taskView"] = task_view
        if expanded is not UNSET:
            field_dict["expanded"] = expanded
        if ticket_action_id is not UNSET:
            field_dict["ticketActionId"] = ticket_action_id

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.task_view import TaskView  # noqa: PLC0415
        from ..models.typed_object import TypedObject  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_task_view(data: object) -> None | TaskView | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                task_view_type_0 = TaskView.from_dict(data)

                return task_view_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TaskView | Unset, data)

        task_view = _parse_task_view(d.pop("taskView", UNSET))

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

        ticket_action_id = d.pop("ticketActionId", UNSET)

        task_actions_service_restart_response = cls(
            task_view=task_view,
            expanded=expanded,
            ticket_action_id=ticket_action_id,
        )

        task_actions_service_restart_response.additional_properties = d
        return task_actions_service_restart_response

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
