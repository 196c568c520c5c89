"""Probes of the paging mutants added for issue 37 (tests/conformance/selftest/mutants/paging.py): one request each on
which the mutant answers differently from the unchanged reference server."""

from __future__ import annotations

from typing import Any

from tests.conformance.selftest.probes.probing import Probe, Target

SMALL_APP = "app-okta"  # 12 entitlements: one page at 100, two at 10


def _status(**query: Any) -> Probe:
    return lambda t: t.page(**query).status_code


def _count(**query: Any) -> Probe:
    return lambda t: len(t.page(**query).json()["list"])


def _ids(t: Target) -> list[str]:
    return [item["appEntitlement"]["id"] for item in t.page(page_size=10).json()["list"]]


def _token(t: Target, app: str = "app-github") -> str:
    token: str = t.page(app, page_size=10).json()["nextPageToken"]
    return token


def _used_twice(t: Target) -> int:
    token = _token(t)
    t.page(page_size=10, page_token=token)
    return t.page(page_size=10, page_token=token).status_code


def _after_the_end(t: Target) -> int:
    token = _token(t, SMALL_APP)
    assert t.page(SMALL_APP, page_size=100).json()["nextPageToken"] == ""
    return t.page(SMALL_APP, page_size=10, page_token=token).status_code


def _other_caller(t: Target) -> int:
    viewer = {"Authorization": "Bearer demo-viewer-token"}
    return t.page(headers=viewer, page_size=10, page_token=_token(t)).status_code


PROBES: dict[str, Probe] = {
    "paging-zero-as-default": _count(page_size=0),
    "paging-zero-rejected": _status(page_size=-1),
    "paging-beyond-64-bits-rejected": _status(page_size=10**20),
    "paging-in-range-short": _count(page_size=37),
    "paging-fraction-truncated": _status(page_size="1.5"),
    "paging-exponent-accepted": _status(page_size="1e2"),
    "paging-word-as-default": _status(page_size="ten"),
    "paging-empty-size-as-default": _status(page_size=""),
    "paging-size-whitespace-trimmed": _status(page_size=" 10"),
    "paging-size-hexadecimal": _status(page_size="0x10"),
    "paging-size-separators": _status(page_size="1_0"),
    "paging-leading-zero-refused": _status(page_size="020"),
    "paging-plus-sign-refused": _status(page_size="+20"),
    "paging-last-token-null": lambda t: t.page(SMALL_APP, page_size=100).json()["nextPageToken"],
    "paging-list-renamed": lambda t: "list" in t.page().json(),
    "paging-other-app-items": lambda t: t.page().json()["list"][0]["appEntitlement"]["appId"],
    "paging-unstable-order": lambda t: (_ids(t), _ids(t)),
    "paging-empty-token-refused": _status(page_token=""),
    "paging-truncated-token-accepted": lambda t: t.page(page_token=_token(t)[:-4]).status_code,
    "paging-extended-token-accepted": lambda t: t.page(page_token=_token(t) + "AAAA").status_code,
    "paging-garbage-token-first-page": _status(page_token="not a page token!"),
    "paging-token-single-use": _used_twice,
    "paging-token-dies-at-end": _after_the_end,
    "paging-token-bound-to-caller": _other_caller,
    "paging-unknown-app-empty": lambda t: t.page("app-no-such-app").status_code,
}
