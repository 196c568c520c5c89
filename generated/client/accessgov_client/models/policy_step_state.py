from enum import StrEnum


class PolicyStepState(StrEnum):
    POLICY_STEP_STATE_ACTIVE = "POLICY_STEP_STATE_ACTIVE"
    POLICY_STEP_STATE_DONE = "POLICY_STEP_STATE_DONE"
    POLICY_STEP_STATE_UNSPECIFIED = "POLICY_STEP_STATE_UNSPECIFIED"

    def __str__(self) -> str:
        return str(self.value)
