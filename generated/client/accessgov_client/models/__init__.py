"""Contains all the data models used in inputs/outputs"""

from .accept_instance import AcceptInstance
from .accept_step import AcceptStep
from .action_instance import ActionInstance
from .action_outcome import ActionOutcome
from .action_step import ActionStep
from .action_step_instance import ActionStepInstance
from .actor_object_permissions import ActorObjectPermissions
from .actor_object_permissions_extra import ActorObjectPermissionsExtra
from .admin_config import AdminConfig
from .app_entitlement import AppEntitlement
from .app_entitlement_ref import AppEntitlementRef
from .app_entitlement_view import AppEntitlementView
from .app_entitlements_service_list_response import AppEntitlementsServiceListResponse
from .app_resource_ref import AppResourceRef
from .approval_instance import ApprovalInstance
from .approval_step import ApprovalStep
from .automation_run import AutomationRun
from .automation_run_status import AutomationRunStatus
from .bool_field import BoolField
from .certify_outcome import CertifyOutcome
from .checkbox_field import CheckboxField
from .chips_field import ChipsField
from .credential_issue_target import CredentialIssueTarget
from .date_field import DateField
from .dependent_on import DependentOn
from .empty_object import EmptyObject
from .error import Error
from .error_detail import ErrorDetail
from .external_ref import ExternalRef
from .external_ref_source import ExternalRefSource
from .field import Field
from .field_group import FieldGroup
from .field_relationship import FieldRelationship
from .field_rules import FieldRules
from .file_field import FileField
from .file_input_field import FileInputField
from .finding_outcome import FindingOutcome
from .finding_target import FindingTarget
from .form import Form
from .form_instance import FormInstance
from .form_step import FormStep
from .gated_tool_call_target import GatedToolCallTarget
from .grant_outcome import GrantOutcome
from .health_status import HealthStatus
from .insight_recommendation import InsightRecommendation
from .int_64_field import Int64Field
from .number_field import NumberField
from .o_auth_error import OAuthError
from .o_auth_token_request import OAuthTokenRequest
from .o_auth_token_request_grant_type import OAuthTokenRequestGrantType
from .o_auth_token_response import OAuthTokenResponse
from .oauth_2_field import Oauth2Field
from .oauth_2_field_view import Oauth2FieldView
from .offboarding_outcome import OffboardingOutcome
from .password_field import PasswordField
from .picker_field import PickerField
from .policy import Policy
from .policy_annotations import PolicyAnnotations
from .policy_instance import PolicyInstance
from .policy_policy_steps import PolicyPolicySteps
from .policy_post_actions import PolicyPostActions
from .policy_scope import PolicyScope
from .policy_step import PolicyStep
from .policy_step_instance import PolicyStepInstance
from .policy_step_state import PolicyStepState
from .policy_steps import PolicySteps
from .policy_type import PolicyType
from .provision_instance import ProvisionInstance
from .provision_step import ProvisionStep
from .readiness_status import ReadinessStatus
from .reject_instance import RejectInstance
from .reject_step import RejectStep
from .revoke_outcome import RevokeOutcome
from .rule import Rule
from .scope_role import ScopeRole
from .select_field import SelectField
from .shared_config import SharedConfig
from .string_field import StringField
from .string_map_field import StringMapField
from .string_map_field_default_value import StringMapFieldDefaultValue
from .string_slice_field import StringSliceField
from .task import Task
from .task_action_type import TaskActionType
from .task_actions_service_restart_request import TaskActionsServiceRestartRequest
from .task_actions_service_restart_response import TaskActionsServiceRestartResponse
from .task_data_type_0 import TaskDataType0
from .task_expand_mask import TaskExpandMask
from .task_expand_mask_paths_type_0_item import TaskExpandMaskPathsType0Item
from .task_grant_source import TaskGrantSource
from .task_origin import TaskOrigin
from .task_processing_type import TaskProcessingType
from .task_revocation_target import TaskRevocationTarget
from .task_revoke_source import TaskRevokeSource
from .task_state import TaskState
from .task_type import TaskType
from .task_type_action import TaskTypeAction
from .task_type_action_form_values_type_0 import TaskTypeActionFormValuesType0
from .task_type_action_type import TaskTypeActionType
from .task_type_certify import TaskTypeCertify
from .task_type_finding import TaskTypeFinding
from .task_type_grant import TaskTypeGrant
from .task_type_offboarding import TaskTypeOffboarding
from .task_type_revoke import TaskTypeRevoke
from .task_view import TaskView
from .text_field import TextField
from .toggle_field import ToggleField
from .typed_object import TypedObject
from .user_config import UserConfig
from .wait_instance import WaitInstance
from .wait_step import WaitStep
from .webhook_accepted_response import WebhookAcceptedResponse

__all__ = (
    "AcceptInstance",
    "AcceptStep",
    "ActionInstance",
    "ActionOutcome",
    "ActionStep",
    "ActionStepInstance",
    "ActorObjectPermissions",
    "ActorObjectPermissionsExtra",
    "AdminConfig",
    "AppEntitlement",
    "AppEntitlementRef",
    "AppEntitlementsServiceListResponse",
    "AppEntitlementView",
    "AppResourceRef",
    "ApprovalInstance",
    "ApprovalStep",
    "AutomationRun",
    "AutomationRunStatus",
    "BoolField",
    "CertifyOutcome",
    "CheckboxField",
    "ChipsField",
    "CredentialIssueTarget",
    "DateField",
    "DependentOn",
    "EmptyObject",
    "Error",
    "ErrorDetail",
    "ExternalRef",
    "ExternalRefSource",
    "Field",
    "FieldGroup",
    "FieldRelationship",
    "FieldRules",
    "FileField",
    "FileInputField",
    "FindingOutcome",
    "FindingTarget",
    "Form",
    "FormInstance",
    "FormStep",
    "GatedToolCallTarget",
    "GrantOutcome",
    "HealthStatus",
    "InsightRecommendation",
    "Int64Field",
    "NumberField",
    "Oauth2Field",
    "Oauth2FieldView",
    "OAuthError",
    "OAuthTokenRequest",
    "OAuthTokenRequestGrantType",
    "OAuthTokenResponse",
    "OffboardingOutcome",
    "PasswordField",
    "PickerField",
    "Policy",
    "PolicyAnnotations",
    "PolicyInstance",
    "PolicyPolicySteps",
    "PolicyPostActions",
    "PolicyScope",
    "PolicyStep",
    "PolicyStepInstance",
    "PolicySteps",
    "PolicyStepState",
    "PolicyType",
    "ProvisionInstance",
    "ProvisionStep",
    "ReadinessStatus",
    "RejectInstance",
    "RejectStep",
    "RevokeOutcome",
    "Rule",
    "ScopeRole",
    "SelectField",
    "SharedConfig",
    "StringField",
    "StringMapField",
    "StringMapFieldDefaultValue",
    "StringSliceField",
    "Task",
    "TaskActionsServiceRestartRequest",
    "TaskActionsServiceRestartResponse",
    "TaskActionType",
    "TaskDataType0",
    "TaskExpandMask",
    "TaskExpandMaskPathsType0Item",
    "TaskGrantSource",
    "TaskOrigin",
    "TaskProcessingType",
    "TaskRevocationTarget",
    "TaskRevokeSource",
    "TaskState",
    "TaskType",
    "TaskTypeAction",
    "TaskTypeActionFormValuesType0",
    "TaskTypeActionType",
    "TaskTypeCertify",
    "TaskTypeFinding",
    "TaskTypeGrant",
    "TaskTypeOffboarding",
    "TaskTypeRevoke",
    "TaskView",
    "TextField",
    "ToggleField",
    "TypedObject",
    "UserConfig",
    "WaitInstance",
    "WaitStep",
    "WebhookAcceptedResponse",
)
