"""The engine's query-string reading: what Starlette's `request.query_params` gives, for any query string."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from starlette.datastructures import QueryParams

from accessgov.http.engine import _query_parameters

# Characters that matter to the parser (separators, escapes) and some that do not, ASCII and Latin-1.
QUERY_TEXT = st.text(alphabet=st.sampled_from("ab=&%+;20zé~ \x7f"), max_size=24)


def starlette_reading(raw: bytes) -> dict[str, str]:
    params = QueryParams(raw)
    return {name: params[name] for name in params}  # the last of repeated names, as `params.get` returns


@given(QUERY_TEXT)
def test_matches_starlette_for_any_query_string(text: str) -> None:
    raw = text.encode("latin-1")
    assert _query_parameters({"query_string": raw}) == starlette_reading(raw)


def test_common_shapes() -> None:
    def read(raw: bytes) -> dict[str, str]:
        return _query_parameters({"query_string": raw})

    assert read(b"") == {}
    assert read(b"page_size=25&page_token=") == {"page_size": "25", "page_token": ""}
    assert read(b"page_size&&x=1=2") == {"page_size": "", "x": "1=2"}
    assert read(b"a=1&a=2") == {"a": "2"}
    assert read(b"a=%41+b") == {"a": "A b"}
