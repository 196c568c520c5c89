"""A client library for accessing Access Governance API"""

from .client import AuthenticatedClient, Client
from .exceptions import (
    ApiError,
    AuthenticationError,
    BadRequestError,
    ClientError,
    ConflictError,
    DeadlineExceededError,
    NotFoundError,
    PayloadTooLargeError,
    PermissionDeniedError,
    RateLimitError,
    ResponseTooLargeError,
    ServerError,
    TransportBoundError,
    UndecodableResponseError,
)
from .oauth import ClientCredentials
from .paging import DEFAULT_MAX_PAGES, PageLimitError, PagingLoopError
from .retries import DEFAULT_RETRY, Retry
from .sdk import AccessGov, AsyncAccessGov
from .transport import DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_TIMEOUT
from .webhooks import WebhookSender

# The contract's info.version in PEP 440 spelling (tools/accessgov_tools/release/versions.py: 0.1.0-alpha -> 0.1.0a0).
__version__ = "0.1.0a0"

__all__ = (
    "__version__",
    "DEFAULT_MAX_PAGES",
    "DEFAULT_MAX_RESPONSE_BYTES",
    "DEFAULT_RETRY",
    "DEFAULT_TIMEOUT",
    "AccessGov",
    "ApiError",
    "AsyncAccessGov",
    "AuthenticatedClient",
    "AuthenticationError",
    "BadRequestError",
    "Client",
    "ClientCredentials",
    "ClientError",
    "ConflictError",
    "DeadlineExceededError",
    "NotFoundError",
    "PageLimitError",
    "PagingLoopError",
    "PayloadTooLargeError",
    "PermissionDeniedError",
    "RateLimitError",
    "ResponseTooLargeError",
    "Retry",
    "ServerError",
    "TransportBoundError",
    "UndecodableResponseError",
    "WebhookSender",
)
