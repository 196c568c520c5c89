"""Hypothesis strategies for client input the servers must never answer with a 5xx: JSON texts on which Python's
encoder and decoder (and orjson) disagree, `Prefer` values for the mock, and header sets.

JSON texts are built as text, not from Python values, so they can hold what no Python value round-trips to: lone
surrogate escapes, numbers no double holds (`1e400`, `1e-400`, `-0`, 100-digit integers), nesting near the
parsers' limits (orjson 254 levels written / 1,024 read, `json` ~1,000 by recursion) and duplicate keys.
"""

from __future__ import annotations

import json

from hypothesis import strategies as st

PREFERENCES = ("code", "example", "dynamic", "seed")

lone_surrogates = st.integers(min_value=0xD800, max_value=0xDFFF).map(lambda unit: f'"\\u{unit:04x}"')
surrogate_pairs = st.tuples(
    st.integers(min_value=0xD800, max_value=0xDBFF), st.integers(min_value=0xDC00, max_value=0xDFFF)
).map(lambda pair: f'"\\u{pair[0]:04x}\\u{pair[1]:04X}"')
string_texts = (
    st.text(max_size=12).map(lambda text: json.dumps(text, ensure_ascii=False))
    | st.text(max_size=12).map(json.dumps)
    | lone_surrogates
    | surrogate_pairs
    | st.tuples(st.text(max_size=4), lone_surrogates).map(lambda parts: json.dumps(parts[0])[:-1] + parts[1][1:])
)
number_texts = (
    st.sampled_from(["1e400", "-1e400", "1e-400", "-0", "-0.0", "0e0", "1E+308", "2.2250738585072014e-308", "5e-324"])
    | st.integers(min_value=10**18, max_value=10**100).map(str)
    | st.integers(min_value=-(10**100), max_value=-(10**18)).map(str)
    | st.floats(allow_nan=False, allow_infinity=False).map(repr)
    | st.integers().map(str)
)
scalar_texts = number_texts | string_texts | st.sampled_from(["true", "false", "null"])
key_texts = st.sampled_from(['"a"', '"a"', '"comment"', '"orderId"']) | string_texts  # duplicates on purpose


def _array(items: list[str]) -> str:
    return "[" + ",".join(items) + "]"


def _object(pairs: list[tuple[str, str]]) -> str:
    return "{" + ",".join(f"{key}:{value}" for key, value in pairs) + "}"


def _nested(depth: int, opener: str) -> str:
    if opener == "[":
        return "[" * depth + "]" * depth
    return '{"a":' * depth + "1" + "}" * depth


deep_texts = st.builds(
    _nested, st.sampled_from([253, 254, 255, 256, 999, 1000, 1024, 1025, 5000]), st.sampled_from("[{")
)
json_texts = (
    st.recursive(
        scalar_texts,
        lambda children: (
            st.lists(children, max_size=4).map(_array)
            | st.lists(st.tuples(key_texts, children), max_size=4).map(_object)
        ),
        max_leaves=12,
    )
    | deep_texts
)
# What a client may send in a restart body: an object whose members are any of those texts.
restart_texts = st.lists(
    st.tuples(st.sampled_from(['"comment"', '"expandMask"', '"policyStepId"']) | key_texts, json_texts), max_size=3
).map(_object)

# Printable latin-1: what an HTTP/1.1 header value can carry.
header_values = st.text(
    st.characters(codec="latin-1", min_codepoint=0x20, exclude_characters=[chr(c) for c in range(0x7F, 0xA0)]),
    max_size=60,
).map(str.strip)
header_names = st.sampled_from(
    ["accept", "authorization", "x-forwarded-for", "x-request-id", "prefer", "content-type", "webhook-timestamp"]
) | st.text("abcdefghijklmnopqrstuvwxyz0123456789-_.!#$%&'*+^`|~", min_size=1, max_size=20)
# Extra header lines (repeated names included) on top of a request's own; no framing headers (Host,
# Content-Length, Transfer-Encoding): those change what the bytes on the wire mean, not what the app sees.
header_sets = st.lists(st.tuples(header_names, header_values), max_size=8).map(
    lambda pairs: [
        (name, value)
        for name, value in pairs
        if name.lower() not in ("host", "content-length", "transfer-encoding", "connection", "expect", "upgrade")
    ]
)

# Any character but controls (what a header value may carry once encoded as UTF-8: bytes >= 0x80 are obs-text).
header_text = st.text(st.characters(exclude_categories=("Cc", "Cs")), max_size=8)
seed_values = (
    st.integers(min_value=-(10**30), max_value=10**30).map(str)
    | st.sampled_from(["--1", "-", "+1", "²", "١٢", "0x10", "1_000", " 1", "9" * 5000, "-" + "9" * 19, "1e3", ""])
    | header_text
)
prefer_values = st.sampled_from(["true", "false", "200", "404", "418", "lastPage", "nope", '"x"']) | header_text
prefer_tokens = (
    st.tuples(st.sampled_from(PREFERENCES), prefer_values).map("=".join)
    | st.tuples(st.just("seed"), seed_values).map("=".join)
    | st.tuples(header_text, header_text).map("=".join)
    | header_text
)
prefer_headers = (
    st.tuples(st.lists(prefer_tokens, min_size=1, max_size=4), st.sampled_from([", ", ",", "; ", ";"]))
    .map(lambda parts: parts[1].join(parts[0]).strip())
    .filter(bool)
)
