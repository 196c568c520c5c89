from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.automation_run import AutomationRun


T = TypeVar("T", bound="WebhookAcceptedResponse")


@_attrs_define
class WebhookAcceptedResponse:
    """The event was authenticated and recorded, and the listener's automation was triggered: its run is queued in the same
    transaction as the event record and executes after the response (`automationRun.status` is
    `AUTOMATION_RUN_STATUS_QUEUED`). The automation runs only when it is published and its trigger is enabled; otherwise
    `automationRun.status` says it was skipped and why. A replay of the same event ID is answered with 409 instead.

        Attributes:
            event_id (UUID): The `Webhook-Event-Id` of the accepted event.
            automation_run (AutomationRun): One run of a listener's automation, triggered by an accepted event.
    """

    event_id: UUID
    automation_run: AutomationRun
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        event_id = str(self.event_id)

        automation_run = self.automation_run.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "eventId": event_id,
                "automationRun": automation_run,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.automation_run import AutomationRun  # noqa: PLC0415

        d = dict(src_dict)
        event_id = UUID(d.pop("eventId"))

        automation_run = AutomationRun.from_dict(d.pop("automationRun"))

        webhook_accepted_response = cls(
            event_id=event_id,
            automation_run=automation_run,
        )

        webhook_accepted_response.additional_properties = d
        return webhook_accepted_response

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
