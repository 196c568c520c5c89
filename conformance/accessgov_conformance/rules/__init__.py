"""The rule families; importing this package registers every rule (see `registry.rule`)."""

from ..registry import RULES, Rule
from . import (  # noqa: F401  (each family registers its rules on import)
    auth,
    callers,
    errors,
    ignored,
    lengths,
    lifetimes,
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
    authentications), then the lifetimes (what the run was given early, used again late), then Schemathesis, then
    the evidence over everything the run sent."""
    last = {"lifetimes": 1, "schema": 2, "evidence": 3}
    return sorted(RULES.values(), key=lambda item: last.get(item.family, 0))
