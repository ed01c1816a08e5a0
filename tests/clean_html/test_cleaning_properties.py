"""Property tests of extraction and of the whole per-record cleaning: whatever the bytes, they
never raise, always give text, and what they give is bounded by what they were given.

Decoding has its own property tests (tests/decode/test_decode.py, test_charset.py,
test_http_response.py); these cover the extractor and ``clean_record`` end to end.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from transforms import reasons
from transforms.clean_html import clean_record
from transforms.extract import Extractor
from transforms.records import ArchiveRecord

# Bounded in the suite; ``make fuzz`` raises it through FUZZ_EXAMPLES.
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "150"))
SETTINGS = settings(
    max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
EXTRACTORS = {mode: Extractor(mode) for mode in ("main", "full")}

TAGS = [
    "html",
    "head",
    "body",
    "title",
    "p",
    "div",
    "article",
    "main",
    "nav",
    "script",
    "style",
    "pre",
    "table",
    "tr",
    "td",
    "ul",
    "li",
    "br",
    "h1",
    "a",
    "span",
    "meta",
    "svg",
    "template",
]
# Markup-shaped text: tags (opened, closed, self-closed, unclosed), attributes, entities and
# words, in any order and nesting, so that the parser's odd corners are reached quickly.
PIECES = st.one_of(
    st.sampled_from(TAGS).map(lambda t: f"<{t}>"),
    st.sampled_from(TAGS).map(lambda t: f"</{t}>"),
    st.sampled_from(TAGS).map(lambda t: f'<{t} class="x" id=y lang=en charset="utf-16">'),
    st.sampled_from(["&amp;", "&lt;", "&#0;", "&#x110000;", "&nbsp;", "&bogus;", "&"]),
    st.sampled_from(["<!--", "-->", "<![CDATA[", "]]>", "<!DOCTYPE html>", "<", ">", "\x00"]),
    st.text(max_size=20),
)
MARKUP = st.lists(PIECES, max_size=60).map("".join)


@SETTINGS
@given(html=st.one_of(MARKUP, st.text(max_size=500)), mode=st.sampled_from(["main", "full"]))
def test_extract_never_raises_and_is_bounded_by_its_input(html, mode):
    result = EXTRACTORS[mode](html, "https://a.example/page")
    assert isinstance(result.title, str) and isinstance(result.text, str)
    assert len(result.text) <= len(html)
    assert len(result.title) <= len(html)


@SETTINGS
@given(data=st.binary(max_size=2000))
def test_extract_accepts_any_bytes(data):
    result = EXTRACTORS["main"](data, None)
    assert isinstance(result.text, str) and len(result.text) <= len(data)


def _record(payload: bytes, is_http: bool, content_type: str | None) -> ArchiveRecord:
    return ArchiveRecord(
        source_file="f.warc.gz",
        record_id="<urn:uuid:1>",
        record_type="response" if is_http else "resource",
        offset=0,
        url="https://a.example/",
        payload=payload,
        is_http=is_http,
        content_type=content_type,
    )


HTTP_HEADS = st.sampled_from(
    [
        b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-16\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nContent-Encoding: br\r\nContent-Type: text/html\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
        b"HTTP/1.0 200\n\n",
        b"",
    ]
)


@SETTINGS
@given(
    head=HTTP_HEADS,
    body=st.one_of(
        MARKUP.map(lambda s: s.encode("utf-8", "surrogatepass")), st.binary(max_size=800)
    ),
    is_http=st.booleans(),
    content_type=st.sampled_from([None, "text/html", "application/octet-stream", "text/plain"]),
)
def test_clean_record_always_gives_a_row_or_a_known_reject(head, body, is_http, content_type):
    payload = head + body if is_http else body
    outcome, value = clean_record(_record(payload, is_http, content_type), EXTRACTORS["main"])
    if outcome == "reject":
        assert value["reason"] in reasons.REJECT_REASONS and isinstance(value["detail"], str)
    else:
        assert outcome == "row" and value["text"].strip()
        assert (
            len(value["text"]) <= value["html_bytes"] and len(value["title"]) <= value["html_bytes"]
        )
