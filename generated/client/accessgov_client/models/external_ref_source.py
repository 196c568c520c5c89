from enum import StrEnum


class ExternalRefSource(StrEnum):
    JIRA = "JIRA"
    UNSPECIFIED = "UNSPECIFIED"

    def __str__(self) -> str:
        return str(self.value)
