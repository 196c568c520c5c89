from enum import StrEnum


class TaskState(StrEnum):
    TASK_STATE_CLOSED = "TASK_STATE_CLOSED"
    TASK_STATE_OPEN = "TASK_STATE_OPEN"
    TASK_STATE_UNSPECIFIED = "TASK_STATE_UNSPECIFIED"

    def __str__(self) -> str:
        return str(self.value)
