"""The validation proxy stays inside its upstream's base path (issue 44, item 8): `accessgov proxy --upstream
http://host/tenant-a` forwards a path without dot segments, under `/tenant-a/`, and refuses with 400 `INVALID_PATH`
(the contract's `Error`, nothing forwarded) a path that would leave it or that upstreams read in different ways.

Real HTTP on loopback, behind the repository's edge with each parser: the client sends the request target byte for
byte (an HTTP client would normalise it first), and a recording upstream says which target arrived."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from accessgov.http.engine import load_bundle
from accessgov.proxy import create_proxy
from accessgov.proxy.paths import PathRefused, normalised
from tests.support.harness import serve

pytestmark = pytest.mark.slow

BUNDLE = load_bundle()
ERROR = Draft202012Validator({"$ref": "#/components/schemas/Error", "components": BUNDLE["components"]})
BASE = "/tenant-a"
PARSERS = ["h11", "httptools"]

# Sent -> what reaches the upstream (under BASE): dot segments removed after decoding %2E, the rest as sent.
FORWARDED = {
    "/x": "/x",
    "/a/./b": "/a/b",
    "/a/b/../c": "/a/c",
    "/a/%2e%2e/c": "/c",
    "/a/%2E%2E/c": "/c",
    "/a/.%2E/c": "/c",
    "/a/%2e./c": "/c",
    "/a/%2e/b": "/a/b",
    "/a/b/..": "/a/",  # a trailing dot segment leaves the trailing slash (RFC 3986 5.2.4)
    "/a/b/%2E%2E": "/a/",
    "/a/b/.": "/a/b/",
    "/a/": "/a/",
    "/": "/",
    "/.": "/",
    "/a/..": "/",
    "/a/file%2Etxt": "/a/file.txt",  # %2E is the unreserved ".": the same character decoded
    "/api/v1/apps/app%2Dgithub/entitlements": "/api/v1/apps/app%2Dgithub/entitlements",  # other encodings as sent
    "/a/%7Euser/%C3%A9": "/a/%7Euser/%C3%A9",
    "/a/../b?x=../../y&z=%2e%2e%2f&w=%2F": "/b?x=../../y&z=%2e%2e%2f&w=%2F",  # the query untouched
    "/a/.../b": "/a/.../b",  # three dots are a name, not a dot segment
    "/a/..b/c.": "/a/..b/c.",
    "http://elsewhere.example/a/../x": "/x",  # absolute-form: its path, whatever the parser
}

# Sent -> refused: 400 INVALID_PATH, nothing forwarded.
REFUSED = {
    "/../tenant-b/x": "climbs above its root",
    "/%2e%2e/tenant-b/x": "climbs above its root",
    "/%2E%2e/tenant-b/x": "climbs above its root",
    "/.%2E/tenant-b/x": "climbs above its root",
    "/%2e./tenant-b/x": "climbs above its root",
    "/a/../../tenant-b/x": "climbs above its root",
    "/..": "climbs above its root",
    "/a/%2e%2e/%2e%2e": "climbs above its root",
    "/..%2ftenant-b/x": "an encoded / or \\",
    "/..%2Ftenant-b/x": "an encoded / or \\",
    "/%2e%2e%2ftenant-b%2fx": "an encoded / or \\",
    "/a%2fb": "an encoded / or \\",
    "/..%5ctenant-b/x": "an encoded / or \\",
    "/a%5Cb": "an encoded / or \\",
    "/..\\tenant-b/x": "a backslash",
    "/a\\..\\..\\tenant-b": "a backslash",
    "//tenant-b/x": "an empty segment",
    "//../tenant-b/x": "an empty segment",
    "/a//b": "an empty segment",
    "/%252e%252e/tenant-b/x": "double-encoded",  # decided: refused, an upstream decoding twice would climb
    "/%252E%252E/tenant-b/x": "double-encoded",
    "/%25252e%25252e/x": "double-encoded",
    "/a%252fb": "double-encoded",
    "/a%255cb": "double-encoded",
    "/..;/tenant-b/x": "reads as a dot segment",
    "/.;x/y": "reads as a dot segment",
    "/%2e%2e;jsessionid=1/tenant-b": "reads as a dot segment",
    "/%ef%bc%8e%ef%bc%8e/tenant-b/x": "reads as a dot segment",  # fullwidth full stops (NFKC: "..")
    "/%e2%80%a5/tenant-b/x": "reads as a dot segment",  # TWO DOT LEADER (NFKC: "..")
    "/%c0%ae%c0%ae/tenant-b/x": "not UTF-8",  # overlong "."
    "/%c0%af": "not UTF-8",  # overlong "/"
    "/a%00/../x": "an encoded NUL",
    "/a/%zz/b": "an invalid percent escape",
    "/a/%2/b": "an invalid percent escape",
    "/a/b%": "an invalid percent escape",
    "/%u002e%u002e/tenant-b/x": "an invalid percent escape",  # IIS's %u form of "."
    "/%U002E%U002E/tenant-b/x": "an invalid percent escape",
    "/a/%%32%65%%32%65/x": "an invalid percent escape",  # %%32%65: a "%2e" to a server that decodes twice
    "/%c0%ae%c0%ae%c0%af/tenant-b": "not UTF-8",
    "/%e0%80%ae/x": "not UTF-8",  # a three-byte overlong "."
    "*": "must be a path",
}


class Recorder:
    """The upstream: records every request target that reaches it, answers 404 (no route is needed)."""

    def __init__(self) -> None:
        self.targets: list[str] = []

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        query = b"?" + scope["query_string"] if scope["query_string"] else b""
        self.targets.append((scope["raw_path"] + query).decode("ascii"))
        body = json.dumps({"code": "NOT_FOUND", "message": "recorded"}).encode()
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
        await send({"type": "http.response.start", "status": 404, "headers": headers})
        await send({"type": "http.response.body", "body": body})


@pytest.fixture(scope="module")
def upstream() -> Iterator[tuple[str, Recorder]]:
    recorder = Recorder()
    with serve(recorder) as base_url:
        yield base_url, recorder


@pytest.fixture(scope="module", params=PARSERS)
def proxy(request: pytest.FixtureRequest, upstream: tuple[str, Recorder]) -> Iterator[str]:
    with serve(create_proxy(upstream[0] + BASE, report_token=""), edge=request.param) as base_url:
        yield base_url


def send(base_url: str, target: str, method: str = "GET") -> tuple[int, dict[str, str], bytes]:
    """`method target` as sent, byte for byte; the status, headers and body of the answer."""
    host, port = base_url.removeprefix("http://").rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        sock.sendall(f"{method} {target} HTTP/1.1\r\nHost: proxy\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.lower().split(": ", 1) for line in lines[1:])
    return int(lines[0].split()[1]), headers, body


@pytest.mark.parametrize("target", FORWARDED)
def test_a_path_reaches_the_upstream_under_its_base_without_dot_segments(
    proxy: str, upstream: tuple[str, Recorder], target: str
) -> None:
    recorder = upstream[1]
    recorder.targets.clear()
    status, _, body = send(proxy, target)
    assert (status, json.loads(body)["message"]) == (404, "recorded")  # the upstream's answer, relayed
    assert recorder.targets == [BASE + FORWARDED[target]]


@pytest.mark.parametrize("target", REFUSED)
def test_a_path_that_could_leave_the_base_is_refused_and_not_forwarded(
    proxy: str, upstream: tuple[str, Recorder], target: str
) -> None:
    recorder = upstream[1]
    recorder.targets.clear()
    status, headers, body = send(proxy, target, "OPTIONS" if target == "*" else "GET")
    error = json.loads(body)
    assert status == 400 and not list(ERROR.iter_errors(error)), body
    assert error["code"] == "INVALID_PATH" and REFUSED[target] in error["message"], error
    assert error["details"] == [{"location": "path", "reason": error["message"]}]
    assert headers["content-type"] == "application/json" and headers["x-request-id"]
    assert recorder.targets == []


def test_a_refused_post_is_not_forwarded_and_its_body_not_read(proxy: str, upstream: tuple[str, Recorder]) -> None:
    recorder = upstream[1]
    recorder.targets.clear()
    status, headers, body = send(proxy, "/../api/v1/webhooks/incoming/wh_1", "POST")
    assert status == 400 and json.loads(body)["code"] == "INVALID_PATH"
    assert headers["connection"] == "close" and recorder.targets == []


def test_the_contract_is_checked_on_the_path_the_upstream_gets(upstream: tuple[str, Recorder]) -> None:
    """`/x/../api/v1/...` is checked as the operation the upstream serves: its missing token is a request problem."""
    app = create_proxy(upstream[0] + BASE, report_token="")
    with serve(app, edge="h11") as base_url:
        send(base_url, "/x/../api/v1/apps/app-github/entitlements")
    assert app.violations.by_kind["request.security"] == 1, app.violations.report()


@pytest.mark.parametrize("raw", [b"/a/b c", b"/a/\x7f", b"/a/\x00", b"/a/<script>", b"/a/\xc3\xa9", b"/a/{x}", b"/a|b"])
def test_a_raw_byte_no_uri_path_holds_is_refused_whatever_the_edge_let_through(raw: bytes) -> None:
    with pytest.raises(PathRefused, match="a byte a URI path cannot hold raw"):
        normalised(raw)
