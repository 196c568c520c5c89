"""The rule families; importing this package registers every rule (see `registry.rule`)."""

from . import (  # noqa: F401
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
