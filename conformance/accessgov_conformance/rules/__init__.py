"""The rule families; importing this package registers every rule (see `registry.rule`)."""

from ..registry import RULES, Rule
from . import (  # noqa: F401  (each family registers its rules on import)
    auth,
    errors,
    paging,
    restart,
    schema,
    shapes,
    webhook_common,
    webhook_hmac,
    webhook_jwt,
)


def all_rules() -> list[Rule]:
    """Every registered rule, in a stable order: the behavioural rules first (few requests, few failed
    authentications), then Schemathesis, then the evidence over everything the run sent."""
    last = {"schema": 1, "evidence": 2}
    return sorted(RULES.values(), key=lambda item: last.get(item.family, 0))
