"""Where a request goes on the upstream: the client's path under the upstream's base path, never outside it.

The proxy forwards a path that no upstream can read otherwise than the proxy did (docs/mock.md, "Paths"):
- percent-encoded dots (`%2e`, any case) are decoded (RFC 3986 section 6.2.2.2: `.` is unreserved, so `%2E` is
  the same character), then dot segments are removed (RFC 3986 section 5.2.4). A `..` that would climb above the
  client's root, and so out of the upstream's base path, is refused where the RFC would drop it silently.
- Refused outright, because upstreams disagree on what they mean: an encoded `/` or `\\` (`%2F`, `%5C`), a raw
  `\\` (a separator on some servers), an empty segment (`//`: collapsed by some, an authority to others), a dot
  segment with parameters (`..;x`, which Tomcat-like servers read as `..`), a double encoding of `%` before a
  dot, slash or backslash (`%252e`: an upstream that decodes twice would see a dot segment), percent-encoded
  bytes that are not UTF-8 (overlong forms of `.` and `/`, `%c0%ae`), a segment that reads as a dot segment once
  Unicode-normalised (fullwidth dots, `%EF%BC%8E`), an encoded NUL (`%00`, where C-based servers end a string),
  an invalid percent escape (`%zz`, a cut `%2`, IIS's `%u002e`), a raw byte RFC 3986 does not allow in a path
  (controls, space, non-ASCII), and a target that is not a path (`*`). An absolute-form target (`http://host/x`)
  is read as its path.
- A trailing slash, and the one a trailing dot segment leaves (`/a/b/..` is `/a/`), are kept.

The query string is not this module's: the proxy forwards it untouched.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Final
from urllib.parse import unquote, unquote_to_bytes, urlsplit

_ENCODED_DOT: Final = re.compile(rb"%2e", re.IGNORECASE)
_ENCODED_SEPARATOR: Final = re.compile(rb"%(?:2f|5c)", re.IGNORECASE)
_DOUBLE_ENCODED: Final = re.compile(rb"%(?:25)+(?:2e|2f|5c)", re.IGNORECASE)
_ENCODED_NUL: Final = re.compile(rb"%00")
# A `%` not followed by two hex digits: `%zz`, a cut `%2`, IIS's `%u002e` (a dot to IIS, three bytes to others).
_INVALID_ESCAPE: Final = re.compile(rb"%(?![0-9A-Fa-f]{2})")
# Bytes RFC 3986 does not allow raw in a path: controls, space, non-ASCII (as sent, before any decoding).
_RAW_NOT_ALLOWED: Final = re.compile(rb"[\x00-\x20\x7f-\xff\"<>^`{|}]")
_DOTS: Final = (b".", b"..")


class PathRefused(ValueError):
    """A request path the proxy does not forward; the message says why (it becomes the 400's `message`)."""


def _origin_form(target: bytes) -> bytes:
    """The path of a request target: as it came, or an absolute-form target's path (RFC 9112 section 3.2.2: a
    server accepts it; the httptools parser hands the app that path already, h11 the whole URL)."""
    if target.startswith(b"/"):
        return target
    parts = urlsplit(target)
    if parts.scheme.lower() not in (b"http", b"https") or not parts.netloc:
        raise PathRefused("the request target must be a path starting with / (origin-form) or an http(s) URL")
    return parts.path or b"/"


def _refuse_ambiguous(raw_path: bytes) -> None:
    if _INVALID_ESCAPE.search(raw_path):
        raise PathRefused("the path has an invalid percent escape (% not followed by two hex digits: %zz, %u002e)")
    if _RAW_NOT_ALLOWED.search(raw_path):
        raise PathRefused("the path has a byte a URI path cannot hold raw (a control, a space, non-ASCII)")
    if b"\\" in raw_path:
        raise PathRefused("the path contains a backslash, which some servers read as a /")
    if _ENCODED_SEPARATOR.search(raw_path):
        raise PathRefused("the path contains an encoded / or \\ (%2F, %5C)")
    if _ENCODED_NUL.search(raw_path):
        raise PathRefused("the path contains an encoded NUL (%00), where some servers end it")
    if _DOUBLE_ENCODED.search(raw_path):
        raise PathRefused("the path contains a double-encoded ., / or \\ (%252E, %252F, %255C)")
    if b"%" not in raw_path:
        return
    try:
        unquote_to_bytes(raw_path).decode("utf-8")
    except UnicodeDecodeError:
        message = "the path's percent-encoded bytes are not UTF-8 (overlong forms of . and / among them)"
        raise PathRefused(message) from None


def _reads_as_dots(segment: bytes) -> bool:
    """Whether a segment that is not `.` or `..` still reads as one: with parameters, or once NFKC-normalised."""
    if b"%" not in segment and b";" not in segment:
        return False  # plain ASCII: NFKC leaves it as it is
    text = unquote(segment.decode("ascii", "replace"))
    return segment.split(b";", 1)[0] in _DOTS or unicodedata.normalize("NFKC", text).split(";", 1)[0] in (".", "..")


def normalised(raw_path: bytes) -> bytes:
    """`raw_path` (the request target's path, as sent) without dot segments, or `PathRefused`."""
    raw_path = _origin_form(raw_path)
    _refuse_ambiguous(raw_path)
    segments = raw_path[1:].split(b"/")
    encoded = b"%" in raw_path
    kept: list[bytes] = []
    for index, raw in enumerate(segments):
        last = index == len(segments) - 1
        segment = _ENCODED_DOT.sub(b".", raw) if encoded else raw
        if segment in _DOTS:
            if segment == b"..":
                if not kept:
                    raise PathRefused("the path climbs above its root with .. (out of the upstream's base path)")
                kept.pop()
            if last:
                kept.append(b"")  # `/a/b/..` is `/a/`
            continue
        if not segment and not last:
            raise PathRefused("the path has an empty segment (//)")
        if _reads_as_dots(segment):
            raise PathRefused("the path has a segment that reads as a dot segment (..;, fullwidth dots)")
        kept.append(segment)
    return b"/" + b"/".join(kept)


def decoded(path: bytes) -> str:
    """A normalised path as an ASGI server decodes `scope["path"]` (what the contract's routes are matched on)."""
    return unquote(path.decode("ascii", "surrogateescape"))
