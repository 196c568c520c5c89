from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.policy_step_state import PolicyStepState
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.accept_instance import AcceptInstance
    from ..models.action_step_instance import ActionStepInstance
    from ..models.approval_instance import ApprovalInstance
    from ..models.form_instance import FormInstance
    from ..models.provision_instance import ProvisionInstance
    from ..models.reject_instance import RejectInstance
    from ..models.wait_instance import WaitInstance


T = TypeVar("T", bound="PolicyStepInstance")


@_attrs_define
class PolicyStepInstance:
    """A policy step as it runs on a task. Exactly one of the members `approval`, `provision`, `accept`, `reject`, `wait`,
    `form` and `action` is set; an unset member is absent.

        Attributes:
            id (str | Unset): ID of the step instance. Many action-submission operations require it to say which step is
                being acted on.
            policy_generation_id (str | Unset): Version of the policy the step was created from.
            state (PolicyStepState | str | Unset): The state of a policy step instance. Open enumeration: the values below
                are the ones known to this version of the contract; the service may add values at any time, so clients must
                accept any other string (see `x-open-enum` in the document info).
            approval (ApprovalInstance | Unset): State of a running approval step. Its fields are outside this contract: the
                object is open, clients must keep and ignore members they do not know, and servers may send any members.
            provision (ProvisionInstance | Unset): State of a running provisioning step. Its fields are outside this
                contract: the object is open, clients must keep and ignore members they do not know, and servers may send any
                members.
            accept (AcceptInstance | Unset): State of a running accept step.
            reject (RejectInstance | Unset): State of a running reject step. Its fields are outside this contract: the
                object is open, clients must keep and ignore members they do not know, and servers may send any members.
            wait (WaitInstance | Unset): State of a running wait step. Its fields are outside this contract: the object is
                open, clients must keep and ignore members they do not know, and servers may send any members.
            form (FormInstance | Unset): State of a running form step. Its fields are outside this contract: the object is
                open, clients must keep and ignore members they do not know, and servers may send any members.
            action (ActionStepInstance | Unset): State of a running action step. Its fields are outside this contract: the
                object is open, clients must keep and ignore members they do not know, and servers may send any members.
    """

    id: str | Unset = UNSET
    policy_generation_id: str | Unset = UNSET
    state: PolicyStepState | str | Unset = UNSET
    approval: ApprovalInstance | Unset = UNSET
    provision: ProvisionInstance | Unset = UNSET
    accept: AcceptInstance | Unset = UNSET
    reject: RejectInstance | Unset = UNSET
    wait: WaitInstance | Unset = UNSET
    form: FormInstance | Unset = UNSET
    action: ActionStepInstance | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        policy_generation_id = self.policy_generation_id

        state: str | Unset
        if isinstance(self.state, Unset):
            state = UNSET
        elif isinstance(self.state, PolicyStepState):
            state = self.state.value
        else:
            state = self.state

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
        if id is not UNSET:
            field_dict["id"] = id
        if policy_generation_id is not UNSET:
            field_dict["policyGenerationId"] = policy_generation_id
        if state is not UNSET:
            field_dict["state"] = state
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
        from ..models.accept_instance import AcceptInstance  # noqa: PLC0415
        from ..models.action_step_instance import ActionStepInstance  # noqa: PLC0415
        from ..models.approval_instance import ApprovalInstance  # noqa: PLC0415
        from ..models.form_instance import FormInstance  # noqa: PLC0415
        from ..models.provision_instance import ProvisionInstance  # noqa: PLC0415
        from ..models.reject_instance import RejectInstance  # noqa: PLC0415
        from ..models.wait_instance import WaitInstance  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id", UNSET)

        policy_generation_id = d.pop("policyGenerationId", UNSET)

        def _parse_state(data: object) -> PolicyStepState | str | Unset:
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                componentsschemas_policy_step_state_type_0 = PolicyStepState(data)

                return componentsschemas_policy_step_state_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(PolicyStepState | str | Unset, data)

        state = _parse_state(d.pop("state", UNSET))

        _approval = d.pop("approval", UNSET)
        approval: ApprovalInstance | Unset
        if isinstance(_approval, Unset):
            approval = UNSET
        else:
            approval = ApprovalInstance.from_dict(_approval)

        _provision = d.pop("provision", UNSET)
        provision: ProvisionInstance | Unset
        if isinstance(_provision, Unset):
            provision = UNSET
        else:
            provision = ProvisionInstance.from_dict(_provision)

        _accept = d.pop("accept", UNSET)
        accept: AcceptInstance | Unset
        if isinstance(_accept, Unset):
            accept = UNSET
        else:
            accept = AcceptInstance.from_dict(_accept)

        _reject = d.pop("reject", UNSET)
        reject: RejectInstance | Unset
        if isinstance(_reject, Unset):
            reject = UNSET
        else:
            reject = RejectInstance.from_dict(_reject)

        _wait = d.pop("wait", UNSET)
        wait: WaitInstance | Unset
        if isinstance(_wait, Unset):
            wait = UNSET
        else:
            wait = WaitInstance.from_dict(_wait)

        _form = d.pop("form", UNSET)
        form: FormInstance | Unset
        if isinstance(_form, Unset):
            form = UNSET
        else:
            form = FormInstance.from_dict(_form)

        _action = d.pop("action", UNSET)
        action: ActionStepInstance | Unset
        if isinstance(_action, Unset):
            action = UNSET
        else:
            action = ActionStepInstance.from_dict(_action)

        policy_step_instance = cls(
            id=id,
            policy_generation_id=policy_generation_id,
            state=state,
            approval=approval,
            provision=provision,
            accept=accept,
            reject=reject,
            wait=wait,
            form=form,
            action=action,
        )

        policy_step_instance.additional_properties = d
        return policy_step_instance

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
