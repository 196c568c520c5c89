from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.insight_recommendation import InsightRecommendation
from ..models.task_action_type import TaskActionType
from ..models.task_origin import TaskOrigin
from ..models.task_processing_type import TaskProcessingType
from ..models.task_state import TaskState
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.external_ref import ExternalRef
    from ..models.form import Form
    from ..models.policy_instance import PolicyInstance
    from ..models.task_data_type_0 import TaskDataType0
    from ..models.task_revocation_target import TaskRevocationTarget
    from ..models.task_type import TaskType
    from ..models.typed_object import TypedObject


T = TypeVar("T", bound="Task")


@_attrs_define
class Task:
    """A unit of access work: a grant, revoke, certify, offboarding, action or finding. A task is processed by a policy
    instance, a workflow of steps. Read-only fields are set by the service and ignored when sent.

        Attributes:
            id (str | Unset): Task ID.
            numeric_id (str | Unset): Human-usable numeric ID, as a decimal string. May replace the full task ID in path
                parameters, but not in search queries.
            display_name (str | Unset): Display name.
            description (str | Unset): Description of the task, also called its justification.
            state (str | TaskState | Unset): The lifecycle state of a task. Open enumeration: the values below are the ones
                known to this version of the contract; the service may add values at any time, so clients must accept any other
                string (see `x-open-enum` in the document info).
            processing (str | TaskProcessingType | Unset): Where the task is in its processing: being processed, waiting
                (for example on an approver), or done. Open enumeration: the values below are the ones known to this version of
                the contract; the service may add values at any time, so clients must accept any other string (see `x-open-enum`
                in the document info).
            origin (str | TaskOrigin | Unset): Where the task was created from. Open enumeration: the values below are the
                ones known to this version of the contract; the service may add values at any time, so clients must accept any
                other string (see `x-open-enum` in the document info).
            type_ (None | TaskType | Unset): Kind-specific details of the task.
            policy (None | PolicyInstance | Unset): Current policy workflow state.
            policy_generation_id (str | Unset): Current policy generation. It changes when the policy on the task is
                changed.
            form (Form | None | Unset): Form collected for the task.
            actions (list[str | TaskActionType] | None | Unset): Actions the calling user can perform on the task.
            analysis_id (str | Unset): ID of the analysis object, set by an analysis workflow when the analysis feature is
                enabled.
            annotations (list[TypedObject] | None | Unset): Annotations on the task. Each object has a string `@type` plus
                arbitrary further properties.
            approver_ids (list[str] | None | Unset): IDs of identity users who approved or denied any step.
            step_approver_ids (list[str] | None | Unset): IDs of identity users allowed to review the current step.
            comment_count (int | Unset): Count of comments.
            created_at (datetime.datetime | None | Unset): When the task was created.
            updated_at (datetime.datetime | None | Unset): When the task was last updated.
            deleted_at (datetime.datetime | None | Unset): When the task was deleted, if it was.
            created_by_user_id (str | Unset): Creator of the task. May differ from `userId`.
            user_id (str | Unset): Target user of the task. May be empty when the target is an app user with no known
                identity user.
            data (None | TaskDataType0 | Unset): Arbitrary properties.
            emergency_access (bool | Unset): True when the task was created through, or escalated to, an emergency access
                flow.
            external_refs (list[ExternalRef] | None | Unset): References into external systems. Currently unused.
            insight_ids (list[str] | None | Unset): IDs of insights.
            recommendation (InsightRecommendation | str | Unset): The recommendation derived from the task's insights. Open
                enumeration: the values below are the ones known to this version of the contract; the service may add values at
                any time, so clients must accept any other string (see `x-open-enum` in the document info).
            revocation_targets (list[TaskRevocationTarget] | None | Unset): Ancestor entitlements also revoked when a revoke
                task is approved. Populated at creation for inherited grant revocations.
    """

    id: str | Unset = UNSET
    numeric_id: str | Unset = UNSET
    display_name: str | Unset = UNSET
    description: str | Unset = UNSET
    state: str | TaskState | Unset = UNSET
    processing: str | TaskProcessingType | Unset = UNSET
    origin: str | TaskOrigin | Unset = UNSET
    type_: None | TaskType | Unset = UNSET
    policy: None | PolicyInstance | Unset = UNSET
    policy_generation_id: str | Unset = UNSET
    form: Form | None | Unset = UNSET
    actions: list[str | TaskActionType] | None | Unset = UNSET
    analysis_id: str | Unset = UNSET
    annotations: list[TypedObject] | None | Unset = UNSET
    approver_ids: list[str] | None | Unset = UNSET
    step_approver_ids: list[str] | None | Unset = UNSET
    comment_count: int | Unset = UNSET
    created_at: datetime.datetime | None | Unset = UNSET
    updated_at: datetime.datetime | None | Unset = UNSET
    deleted_at: datetime.datetime | None | Unset = UNSET
    created_by_user_id: str | Unset = UNSET
    user_id: str | Unset = UNSET
    data: None | TaskDataType0 | Unset = UNSET
    emergency_access: bool | Unset = UNSET
    external_refs: list[ExternalRef] | None | Unset = UNSET
    insight_ids: list[str] | None | Unset = UNSET
    recommendation: InsightRecommendation | str | Unset = UNSET
    revocation_targets: list[TaskRevocationTarget] | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.form import Form  # noqa: PLC0415
        from ..models.policy_instance import PolicyInstance  # noqa: PLC0415
        from ..models.task_data_type_0 import TaskDataType0  # noqa: PLC0415
        from ..models.task_type import TaskType  # noqa: PLC0415

        id = self.id

        numeric_id = self.numeric_id

        display_name = self.display_name

        description = self.description

        state: str | Unset
        if isinstance(self.state, Unset):
            state = UNSET
        elif isinstance(self.state, TaskState):
            state = self.state.value
        else:
            state = self.state

        processing: str | Unset
        if isinstance(self.processing, Unset):
            processing = UNSET
        elif isinstance(self.processing, TaskProcessingType):
            processing = self.processing.value
        else:
            processing = self.processing

        origin: str | Unset
        if isinstance(self.origin, Unset):
            origin = UNSET
        elif isinstance(self.origin, TaskOrigin):
            origin = self.origin.value
        else:
            origin = self.origin

        type_: dict[str, Any] | None | Unset
        if isinstance(self.type_, Unset):
            type_ = UNSET
        elif isinstance(self.type_, TaskType):
            type_ = self.type_.to_dict()
        else:
            type_ = self.type_

        policy: dict[str, Any] | None | Unset
        if isinstance(self.policy, Unset):
            policy = UNSET
        elif isinstance(self.policy, PolicyInstance):
            policy = self.policy.to_dict()
        else:
            policy = self.policy

        policy_generation_id = self.policy_generation_id

        form: dict[str, Any] | None | Unset
        if isinstance(self.form, Unset):
            form = UNSET
        elif isinstance(self.form, Form):
            form = self.form.to_dict()
        else:
            form = self.form

        actions: list[str] | None | Unset
        if isinstance(self.actions, Unset):
            actions = UNSET
        elif isinstance(self.actions, list):
            actions = []
            for actions_type_0_item_data in self.actions:
                actions_type_0_item: str
                if isinstance(actions_type_0_item_data, TaskActionType):
                    actions_type_0_item = actions_type_0_item_data.value
                else:
                    actions_type_0_item = actions_type_0_item_data
                actions.append(actions_type_0_item)

        else:
            actions = self.actions

        analysis_id = self.analysis_id

        annotations: list[dict[str, Any]] | None | Unset
        if isinstance(self.annotations, Unset):
            annotations = UNSET
        elif isinstance(self.annotations, list):
            annotations = []
            for annotations_type_0_item_data in self.annotations:
                annotations_type_0_item = annotations_type_0_item_data.to_dict()
                annotations.append(annotations_type_0_item)

        else:
            annotations = self.annotations

        approver_ids: list[str] | None | Unset
        if isinstance(self.approver_ids, Unset):
            approver_ids = UNSET
        elif isinstance(self.approver_ids, list):
            approver_ids = self.approver_ids

        else:
            approver_ids = self.approver_ids

        step_approver_ids: list[str] | None | Unset
        if isinstance(self.step_approver_ids, Unset):
            step_approver_ids = UNSET
        elif isinstance(self.step_approver_ids, list):
            step_approver_ids = self.step_approver_ids

        else:
            step_approver_ids = self.step_approver_ids

        comment_count = self.comment_count

        created_at: None | str | Unset
        if isinstance(self.created_at, Unset):
            created_at = UNSET
        elif isinstance(self.created_at, datetime.datetime):
            created_at = self.created_at.isoformat()
        else:
            created_at = self.created_at

        updated_at: None | str | Unset
        if isinstance(self.updated_at, Unset):
            updated_at = UNSET
        elif isinstance(self.updated_at, datetime.datetime):
            updated_at = self.updated_at.isoformat()
        else:
            updated_at = self.updated_at

        deleted_at: None | str | Unset
        if isinstance(self.deleted_at, Unset):
            deleted_at = UNSET
        elif isinstance(self.deleted_at, datetime.datetime):
            deleted_at = self.deleted_at.isoformat()
        else:
            deleted_at = self.deleted_at

        created_by_user_id = self.created_by_user_id

        user_id = self.user_id

        data: dict[str, Any] | None | Unset
        if isinstance(self.data, Unset):
            data = UNSET
        elif isinstance(self.data, TaskDataType0):
            data = self.data.to_dict()
        else:
            data = self.data

        emergency_access = self.emergency_access

        external_refs: list[dict[str, Any]] | None | Unset
        if isinstance(self.external_refs, Unset):
            external_refs = UNSET
        elif isinstance(self.external_refs, list):
            external_refs = []
            for external_refs_type_0_item_data in self.external_refs:
                external_refs_type_0_item = external_refs_type_0_item_data.to_dict()
                external_refs.append(external_refs_type_0_item)

        else:
            external_refs = self.external_refs

        insight_ids: list[str] | None | Unset
        if isinstance(self.insight_ids, Unset):
            insight_ids = UNSET
        elif isinstance(self.insight_ids, list):
            insight_ids = self.insight_ids

        else:
            insight_ids = self.insight_ids

        recommendation: str | Unset
        if isinstance(self.recommendation, Unset):
            recommendation = UNSET
        elif isinstance(self.recommendation, InsightRecommendation):
            recommendation = self.recommendation.value
        else:
            recommendation = self.recommendation

        revocation_targets: list[dict[str, Any]] | None | Unset
        if isinstance(self.revocation_targets, Unset):
            revocation_targets = UNSET
        elif isinstance(self.revocation_targets, list):
            revocation_targets = []
            for revocation_targets_type_0_item_data in self.revocation_targets:
                revocation_targets_type_0_item = revocation_targets_type_0_item_data.to_dict()
                revocation_targets.append(revocation_targets_type_0_item)

        else:
            revocation_targets = self.revocation_targets

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if id is not UNSET:
            field_dict["id"] = id
        if numeric_id is not UNSET:
            field_dict["numericId"] = numeric_id
        if display_name is not UNSET:
            field_dict["displayName"] = display_name
        if description is not UNSET:
            field_dict["description"] = description
        if state is not UNSET:
            field_dict["state"] = state
        if processing is not UNSET:
            field_dict["processing"] = processing
        if origin is not UNSET:
            field_dict["origin"] = origin
        if type_ is not UNSET:
            field_dict["type"] = type_
        if policy is not UNSET:
            field_dict["policy"] = policy
        if policy_generation_id is not UNSET:
            field_dict["policyGenerationId"] = policy_generation_id
        if form is not UNSET:
            field_dict["form"] = form
        if actions is not UNSET:
            field_dict["actions"] = actions
        if analysis_id is not UNSET:
            field_dict["analysisId"] = analysis_id
        if annotations is not UNSET:
            field_dict["annotations"] = annotations
        if approver_ids is not UNSET:
            field_dict["approverIds"] = approver_ids
        if step_approver_ids is not UNSET:
            field_dict["stepApproverIds"] = step_approver_ids
        if comment_count is not UNSET:
            field_dict["commentCount"] = comment_count
        if created_at is not UNSET:
            field_dict["createdAt"] = created_at
        if updated_at is not UNSET:
            field_dict["updatedAt"] = updated_at
        if deleted_at is not UNSET:
            field_dict["deletedAt"] = deleted_at
        if created_by_user_id is not UNSET:
            field_dict["createdByUserId"] = created_by_user_id
        if user_id is not UNSET:
            field_dict["userId"] = user_id
        if data is not UNSET:
            field_dict["data"] = data
        if emergency_access is not UNSET:
            field_dict["emergencyAccess"] = emergency_access
        if external_refs is not UNSET:
            field_dict["externalRefs"] = external_refs
        if insight_ids is not UNSET:
            field_dict["insightIds"] = insight_ids
        if recommendation is not UNSET:
            field_dict["recommendation"] = recommendation
        if revocation_targets is not UNSET:
            field_dict["revocationTargets"] = revocation_targets

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.external_ref import ExternalRef  # noqa: PLC0415
        from ..models.form import Form  # noqa: PLC0415
        from ..models.policy_instance import PolicyInstance  # noqa: PLC0415
        from ..models.task_data_type_0 import TaskDataType0  # noqa: PLC0415
        from ..models.task_revocation_target import TaskRevocationTarget  # noqa: PLC0415
        from ..models.task_type import TaskType  # noqa: PLC0415
        from ..models.typed_object import TypedObject  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id", UNSET)

        numeric_id = d.pop("numericId", UNSET)

        display_name = d.pop("displayName", UNSET)

        description = d.pop("description", UNSET)

        def _parse_state(data: object) -> str | TaskState | Unset:
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                componentsschemas_task_state_type_0 = TaskState(data)

                return componentsschemas_task_state_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(str | TaskState | Unset, data)

        state = _parse_state(d.pop("state", UNSET))

        def _parse_processing(data: object) -> str | TaskProcessingType | Unset:
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                componentsschemas_task_processing_type_type_0 = TaskProcessingType(data)

                return componentsschemas_task_processing_type_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(str | TaskProcessingType | Unset, data)

        processing = _parse_processing(d.pop("processing", UNSET))

        def _parse_origin(data: object) -> str | TaskOrigin | Unset:
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                componentsschemas_task_origin_type_0 = TaskOrigin(data)

                return componentsschemas_task_origin_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(str | TaskOrigin | Unset, data)

        origin = _parse_origin(d.pop("origin", UNSET))

        def _parse_type_(data: object) -> None | TaskType | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                type_type_0 = TaskType.from_dict(data)

                return type_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TaskType | Unset, data)

        type_ = _parse_type_(d.pop("type", UNSET))

        def _parse_policy(data: object) -> None | PolicyInstance | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                policy_type_0 = PolicyInstance.from_dict(data)

                return policy_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PolicyInstance | Unset, data)

        policy = _parse_policy(d.pop("policy", UNSET))

        policy_generation_id = d.pop("policyGenerationId", UNSET)

        def _parse_form(data: object) -> Form | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                form_type_0 = Form.from_dict(data)

                return form_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Form | None | Unset, data)

        form = _parse_form(d.pop("form", UNSET))

        def _parse_actions(data: object) -> list[str | TaskActionType] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                actions_type_0 = []
                _actions_type_0 = data
                for actions_type_0_item_data in _actions_type_0:

                    def _parse_actions_type_0_item(data: object) -> str | TaskActionType:
                        try:
                            if not isinstance(data, str):
                                raise TypeError()
                            componentsschemas_task_action_type_type_0 = TaskActionType(data)

                            return componentsschemas_task_action_type_type_0
                        except (TypeError, ValueError, AttributeError, KeyError):
                            pass
                        return cast(str | TaskActionType, data)

                    actions_type_0_item = _parse_actions_type_0_item(actions_type_0_item_data)

                    actions_type_0.append(actions_type_0_item)

                return actions_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str | TaskActionType] | None | Unset, data)

        actions = _parse_actions(d.pop("actions", UNSET))

        analysis_id = d.pop("analysisId", UNSET)

        def _parse_annotations(data: object) -> list[TypedObject] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                annotations_type_0 = []
                _annotations_type_0 = data
                for annotations_type_0_item_data in _annotations_type_0:
                    annotations_type_0_item = TypedObject.from_dict(annotations_type_0_item_data)

                    annotations_type_0.append(annotations_type_0_item)

                return annotations_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[TypedObject] | None | Unset, data)

        annotations = _parse_annotations(d.pop("annotations", UNSET))

        def _parse_approver_ids(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                approver_ids_type_0 = cast(list[str], data)

                return approver_ids_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        approver_ids = _parse_approver_ids(d.pop("approverIds", UNSET))

        def _parse_step_approver_ids(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                step_approver_ids_type_0 = cast(list[str], data)

                return step_approver_ids_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        step_approver_ids = _parse_step_approver_ids(d.pop("stepApproverIds", UNSET))

        comment_count = d.pop("commentCount", UNSET)

        def _parse_created_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                created_at_type_0 = datetime.datetime.fromisoformat(data)

                return created_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        created_at = _parse_created_at(d.pop("createdAt", UNSET))

        def _parse_updated_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                updated_at_type_0 = datetime.datetime.fromisoformat(data)

                return updated_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        updated_at = _parse_updated_at(d.pop("updatedAt", UNSET))

        def _parse_deleted_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                deleted_at_type_0 = datetime.datetime.fromisoformat(data)

                return deleted_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        deleted_at = _parse_deleted_at(d.pop("deletedAt", UNSET))

        created_by_user_id = d.pop("createdByUserId", UNSET)

        user_id = d.pop("userId", UNSET)

        def _parse_data(data: object) -> None | TaskDataType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                data_type_0 = TaskDataType0.from_dict(data)

                return data_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TaskDataType0 | Unset, data)

        data = _parse_data(d.pop("data", UNSET))

        emergency_access = d.pop("emergencyAccess", UNSET)

        def _parse_external_refs(data: object) -> list[ExternalRef] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                external_refs_type_0 = []
                _external_refs_type_0 = data
                for external_refs_type_0_item_data in _external_refs_type_0:
                    external_refs_type_0_item = ExternalRef.from_dict(external_refs_type_0_item_data)

                    external_refs_type_0.append(external_refs_type_0_item)

                return external_refs_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[ExternalRef] | None | Unset, data)

        external_refs = _parse_external_refs(d.pop("externalRefs", UNSET))

        def _parse_insight_ids(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                insight_ids_type_0 = cast(list[str], data)

                return insight_ids_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        insight_ids = _parse_insight_ids(d.pop("insightIds", UNSET))

        def _parse_recommendation(data: object) -> InsightRecommendation | str | Unset:
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                componentsschemas_insight_recommendation_type_0 = InsightRecommendation(data)

                return componentsschemas_insight_recommendation_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(InsightRecommendation | str | Unset, data)

        recommendation = _parse_recommendation(d.pop("recommendation", UNSET))

        def _parse_revocation_targets(data: object) -> list[TaskRevocationTarget] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                revocation_targets_type_0 = []
                _revocation_targets_type_0 = data
                for revocation_targets_type_0_item_data in _revocation_targets_type_0:
                    revocation_targets_type_0_item = TaskRevocationTarget.from_dict(revocation_targets_type_0_item_data)

                    revocation_targets_type_0.append(revocation_targets_type_0_item)

                return revocation_targets_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[TaskRevocationTarget] | None | Unset, data)

        revocation_targets = _parse_revocation_targets(d.pop("revocationTargets", UNSET))

        task = cls(
            id=id,
            numeric_id=numeric_id,
            display_name=display_name,
            description=description,
            state=state,
            processing=processing,
            origin=origin,
            type_=type_,
            policy=policy,
            policy_generation_id=policy_generation_id,
            form=form,
            actions=actions,
            analysis_id=analysis_id,
            annotations=annotations,
            approver_ids=approver_ids,
            step_approver_ids=step_approver_ids,
            comment_count=comment_count,
            created_at=created_at,
            updated_at=updated_at,
            deleted_at=deleted_at,
            created_by_user_id=created_by_user_id,
            user_id=user_id,
            data=data,
            emergency_access=emergency_access,
            external_refs=external_refs,
            insight_ids=insight_ids,
            recommendation=recommendation,
            revocation_targets=revocation_targets,
        )

        task.additional_properties = d
        return task

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
