"""Property tests: the extractor never raises, returns strings, and is bounded by its input."""

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from transforms.extract import Extractor, extract
from transforms.extract.limits import squeeze_textless, strip_textless

TAGS = ["p", "div", "span", "a", "li", "ul", "table", "tr", "td", "pre", "br", "h1", "nav",
        "article", "main", "script", "style", "noscript", "title", "my-widget", "form"]  # fmt: skip

html_fragments = st.lists(
    st.one_of(
        st.sampled_from([f"<{t}>" for t in TAGS] + [f"</{t}>" for t in TAGS]),
        st.sampled_from(
            [
                "<div class='share'>",
                "<div hidden>",
                "<p style='display:none'>",
                "&amp;",
                "&#x1F600;",
                "&bogus;",
                "<!--",
                "-->",
                "<",
                ">",
                "\x00",
            ]
        ),
        st.text(max_size=20),
    ),
    max_size=40,
).map("".join)

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _check(result, n_chars: int) -> None:
    assert isinstance(result.title, str) and isinstance(result.text, str)
    # The text comes from the input: it cannot be (much) longer than it; " | " between table
    # cells and line breaks between blocks are the only additions.
    assert len(result.text) <= 3 * n_chars + 10


@SETTINGS
@given(st.text(max_size=300))
def test_never_raises_on_arbitrary_text(s):
    for mode in ("main", "full"):
        _check(extract(s, mode=mode), len(s))


@SETTINGS
@given(st.binary(max_size=300))
def test_never_raises_on_arbitrary_bytes(b):
    _check(extract(b), len(b))


@SETTINGS
@given(html_fragments)
def test_never_raises_on_tag_soup(s):
    for mode in ("main", "full"):
        _check(extract(s, mode=mode), len(s))


@SETTINGS
@given(html_fragments)
def test_caps_bound_the_work(s):
    result = Extractor(max_html_chars=50, max_nodes=5)(s)
    _check(result, min(len(s), 50))
    # Over the character cap, only markup that can carry text counts toward it.
    counted = squeeze_textless(s, 50) if len(s) > 50 else s
    assert result.truncated == (len(counted) > 50 or counted[:50].count("<") > 5)


# The definition strip_textless implements, as one regex (slow on scripts: 20 ns a character).
_TEXTLESS_ORACLE = re.compile(
    r"<!--.*?(?:-->|\Z)|<(script|style)\b[^>]*>.*?(?:</\1\s*>|\Z)",
    re.IGNORECASE | re.DOTALL | re.ASCII,
)
textless_fragments = st.lists(
    st.one_of(
        st.sampled_from(
            [
                "<script>",
                "<SCRIPT type=x>",
                "</script>",
                "</Script >",
                "<style>",
                "</STYLE\n>",
                "<scripts>",
                "<!--",
                "-->",
                "<!-->",
                "--",
                "<",
                ">",
                "</",
                "\u017fcript",
                "<\u017fcript>",
                "</\u017fcript>",
                "<style",
                "</style",
            ]
        ),  # fmt: skip
        st.text(max_size=8),
    ),
    max_size=30,
).map("".join)


@settings(max_examples=400, deadline=None)
@given(textless_fragments)
def test_strip_textless_is_the_one_regex(s):
    assert strip_textless(s) == _TEXTLESS_ORACLE.sub("", s)
