from enum import StrEnum


class TaskExpandMaskPathsType0Item(StrEnum):
    ACCESS_REVIEW_ID = "access_review_id"
    APPROVER_IDS = "approver_ids"
    APP_ENTITLEMENT_IDS = "app_entitlement_ids"
    APP_ID = "app_id"
    APP_USER_ID = "app_user_id"
    APP_USER_LAST_USAGE = "app_user_last_usage"
    CREATED_BY_USER_ID = "created_by_user_id"
    ENTITLEMENT_SCOPE_BINDINGS = "entitlement_scope_bindings"
    IDENTITY_USER_ID = "identity_user_id"
    INSIGHT_IDS = "insight_ids"
    RESOURCE = "resource"
    SCOPE_ROLE_RESOURCES = "scope_role_resources"
    STEP_APPROVER_IDS = "step_approver_ids"
    USER_ID = "user_id"
    VALUE_0 = "*"

    def __str__(self) -> str:
        return str(self.value)
