"""The convention's limits and the cursor type shared by the paging modules."""

from __future__ import annotations

MIN_PAGE_SIZE = 10
MAX_PAGE_SIZE = 100
DEFAULT_PAGE_SIZE = 25
DEFAULT_MAX_AGE_SECONDS = 24 * 3600
TOKEN_VERSION = 1
# Longest token `decode` looks at; anything longer is rejected before any decoding work.
MAX_TOKEN_CHARS = 2048

CursorValue = str | int
Cursor = tuple[CursorValue, ...]
