from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.accept_step import AcceptStep
    from ..models.action_step import ActionStep
    from ..models.approval_step import ApprovalStep
    from ..models.form_step import FormStep
    from ..models.provision_step import ProvisionStep
    from ..models.reject_step import RejectStep
    from ..models.wait_step import WaitStep


T = TypeVar("T", bound="PolicyStep")


@_attrs_define
class PolicyStep:
    """A policy step definition. Exactly one of the members `approval`, `provision`, `accept`, `reject`, `wait`, `form` and
    `action` is set; an unset member is absent.

        Attributes:
            approval (ApprovalStep | Unset): Definition of an approval step. Its fields are outside this contract: the
                object is open, clients must keep and ignore members they do not know, and servers may send any members.
            provision (ProvisionStep | Unset): Definition of a provisioning step. Its fields are outside this contract: the
                object is open, clients must keep and ignore members they do not know, and servers may send any members.
            accept (AcceptStep | Unset): Definition of an accept step. Its fields are outside this contract: the object is
                open, clients must keep and ignore members they do not know, and servers may send any members.
            reject (RejectStep | Unset): Definition of a reject step. Its fields are outside this contract: the object is
                open, clients must keep and ignore members they do not know, and servers may send any members.
            wait (WaitStep | Unset): Definition of a wait step. Its fields are outside this contract: the object is open,
                clients must keep and ignore members they do not know, and servers may send any members.
            form (FormStep | Unset): Definition of a form step. Its fields are outside this contract: the object is open,
                clients must keep and ignore members they do not know, and servers may send any members.
            action (ActionStep | Unset): Definition of an action step. Its fields are outside this contract: the object is
                open, clients must keep and ignore members they do not know, and servers may send any members.
    """

    approval: ApprovalStep | Unset = UNSET
    provision: ProvisionStep | Unset = UNSET
    accept: AcceptStep | Unset = UNSET
    reject: RejectStep | Unset = UNSET
    wait: WaitStep | Unset = UNSET
    form: FormStep | Unset = UNSET
    action: ActionStep | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        approval: dict[str, Any] | Unset = UNSET
        if not isinstance(self.approval, Unset):
            approval = self.approval.to_dict()

        provision: dict[str, Any] | Unset = UNSET
        if not isinstance(self.provision, Unset):
            provision = self.provision.to_dict()

        accept: dict[str, Any] | Unset = UNSET
        if not isinstance(self.accept, Unset):
            accept = self.accept.to_dict()

        reject: dict[str, Any] | Unset = UNSET
        if not isinstance(self.reject, Unset):
            reject = self.reject.to_dict()

        wait: dict[str, Any] | Unset = UNSET
        if not isinstance(self.wait, Unset):
            wait = self.wait.to_dict()

        form: dict[str, Any] | Unset = UNSET
        if not isinstance(self.form, Unset):
            form = self.form.to_dict()

        action: dict[str, Any] | Unset = UNSET
        if not isinstance(self.action, Unset):
            action = self.action.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if approval is not UNSET:
            field_dict["approval"] = approval
        if provision is not UNSET:
            field_dict["provision"] = provision
        if accept is not UNSET:
            field_dict["accept"] = accept
        if reject is not UNSET:
            field_dict["reject"] = reject
        if wait is not UNSET:
            field_dict["wait"] = wait
        if form is not UNSET:
            field_dict["form"] = form
        if action is not UNSET:
            field_dict["action"] = action

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.accept_step import AcceptStep  # noqa: PLC0415
        from ..models.action_step import ActionStep  # noqa: PLC0415
        from ..models.approval_step import ApprovalStep  # noqa: PLC0415
        from ..models.form_step import FormStep  # noqa: PLC0415
        from ..models.provision_step import ProvisionStep  # noqa: PLC0415
        from ..models.reject_step import RejectStep  # noqa: PLC0415
        from ..models.wait_step import WaitStep  # noqa: PLC0415

        d = dict(src_dict)
        _approval = d.pop("approval", UNSET)
        approval: ApprovalStep | Unset
        if isinstance(_approval, Unset):
            approval = UNSET
        else:
            approval = ApprovalStep.from_dict(_approval)

        _provision = d.pop("provision", UNSET)
        provision: ProvisionStep | Unset
        if isinstance(_provision, Unset):
            provision = UNSET
        else:
            provision = ProvisionStep.from_dict(_provision)

        _accept = d.pop("accept", UNSET)
        accept: AcceptStep | Unset
        if isinstance(_accept, Unset):
            accept = UNSET
        else:
            accept = AcceptStep.from_dict(_accept)

        _reject = d.pop("reject", UNSET)
        reject: RejectStep | Unset
        if isinstance(_reject, Unset):
            reject = UNSET
        else:
            reject = RejectStep.from_dict(_reject)

        _wait = d.pop("wait", UNSET)
        wait: WaitStep | Unset
        if isinstance(_wait, Unset):
            wait = UNSET
        else:
            wait = WaitStep.from_dict(_wait)

        _form = d.pop("form", UNSET)
        form: FormStep | Unset
        if isinstance(_form, Unset):
            form = UNSET
        else:
            form = FormStep.from_dict(_form)

        _action = d.pop("action", UNSET)
        action: ActionStep | Unset
        if isinstance(_action, Unset):
            action = UNSET
        else:
            action = ActionStep.from_dict(_action)

        policy_step = cls(
            approval=approval,
            provision=provision,
            accept=accept,
            reject=reject,
            wait=wait,
            form=form,
            action=action,
        )

        policy_step.additional_properties = d
        return policy_step

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
