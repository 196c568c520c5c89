"""A client library for accessing Access Governance API"""

from .client import AuthenticatedClient, Client
from .exceptions import (
    ApiError,
    AuthenticationError,
    BadRequestError,
    ClientError,
    ConflictError,
    NotFoundError,
    PayloadTooLargeError,
    PermissionDeniedError,
    RateLimitError,
    ServerError,
)
from .oauth import ClientCredentials
from .paging import PagingLoopError
from .retries import DEFAULT_RETRY, DEFAULT_TIMEOUT, Retry
from .sdk import AccessGov, AsyncAccessGov
from .webhooks import WebhookSender

# The contract's info.version in PEP 440 spelling (tools/accessgov_tools/release/versions.py: 0.1.0-alpha -> 0.1.0a0).
__version__ = "0.1.0a0"

__all__ = (
    "__version__",
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
    "NotFoundError",
    "PagingLoopError",
    "PayloadTooLargeError",
    "PermissionDeniedError",
    "RateLimitError",
    "Retry",
    "ServerError",
    "WebhookSender",
)
