"""The plain UTF-8 shortcut: ``plain_utf8`` against Python's own decoder, and ``utf8_source``
against the charset chain it stands in for (``decode_text`` then ``utf8_form``)."""

from __future__ import annotations

import codecs
import gzip
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from transforms.decode.utf8 import plain_utf8

from transforms.decode.charset import HTTP, decode_text, utf8_form, utf8_source

SHARED = Path(__file__).resolve().parents[3] / "shared"


def _plain(data: bytes) -> bool:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return "\x00" not in text and "\ufffd" not in text


# Every boundary of the table of well-formed sequences, each byte either side of it, cut short
# and at every offset of a 32-byte block and of the 8-byte word after it (ASCII runs are read
# 32 bytes, then a word, at a time).
_EDGES = [
    bytes(seq)
    for seq in [
        [0x7F], [0x80], [0xBF], [0xC0, 0x80], [0xC1, 0xBF], [0xC2, 0x80], [0xDF, 0xBF],
        [0xE0, 0x9F, 0x80], [0xE0, 0xA0, 0x80], [0xEC, 0xBF, 0xBF], [0xED, 0x9F, 0xBF],
        [0xED, 0xA0, 0x80], [0xED, 0xBF, 0xBF], [0xEE, 0x80, 0x80], [0xEF, 0xBF, 0xBD],
        [0xEF, 0xBF, 0xBC], [0xEF, 0xBF, 0xBF], [0xF0, 0x8F, 0xBF, 0xBF], [0xF0, 0x90, 0x80, 0x80],
        [0xF4, 0x8F, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xFF],
        [0xE2, 0x82], [0xF0, 0x9F, 0x98], [0xC3], [0xC3, 0x41], [0xE2, 0x41, 0x82], [0x00],
    ]
]  # fmt: skip


@pytest.mark.parametrize("edge", _EDGES, ids=lambda e: e.hex())
def test_plain_utf8_reads_each_boundary_as_pythons_decoder(edge):
    for offset in range(41):
        for data in (b"a" * offset + edge, b"a" * offset + edge + b"b" * 9):
            assert plain_utf8(data) == _plain(data), data


def test_plain_utf8_finds_a_zero_byte_before_or_after_a_non_ascii_one_in_a_word():
    # (an 8-byte word is read up to its first non-ASCII byte: a zero anywhere still counts)
    for zero in range(44):
        for wide in range(43):
            data = bytearray(b"a" * 46)
            data[wide : wide + 2] = "é".encode()
            if zero not in (wide, wide + 1):
                data[zero] = 0
            assert plain_utf8(bytes(data)) == _plain(bytes(data)), bytes(data)


@given(
    st.lists(
        st.one_of(
            st.text(max_size=12).map(lambda t: t.encode("utf-8", "surrogatepass")),
            st.binary(max_size=4),
            st.sampled_from(_EDGES),
            st.just(b"<p>plain ascii text</p>"),
        ),
        max_size=12,
    ).map(b"".join)
)
@example(b"\x00")
@example(b"\xef\xbf\xbd")
@settings(max_examples=2000, deadline=None)
def test_plain_utf8_is_a_strict_decoding_without_nul_and_replacement(data):
    assert plain_utf8(data) == _plain(data)
    assert plain_utf8(bytearray(data)) == _plain(data)


_PAGES = st.tuples(
    st.sampled_from(["", '<meta charset="utf-8">', "<meta charset=windows-1252>",
                     '<meta http-equiv="Content-Type" content="text/html; charset=UTF-8">',
                     "<meta charset=shift_jis>", "<meta charset=bogus>",
                     '<?xml version="1.0" encoding="utf-16"?>']),
    st.text(max_size=40),
    st.sampled_from([b"", b"\xef\xbb\xbf", b"\x1b$B", b"\xff\xfe", b"\x00", b"\xe9"]),
    st.sampled_from([None, "utf-8", "UTF8", "iso-8859-1", "utf-16", "bogus", "gbk"]),
)  # fmt: skip


def _agrees(data: bytes, http: str | None) -> None:
    """``utf8_source`` is None, or what the chain says, charset and bytes alike."""
    source = utf8_source(data, http)
    if source is not None:
        decoded = decode_text(data, http)
        assert (decoded.charset, decoded.source) == ("utf-8", source)
        assert utf8_form(data, decoded) == data


@given(_PAGES)
@settings(max_examples=1500, deadline=None)
def test_utf8_source_says_what_the_charset_chain_says(page):
    head, body, odd, http = page
    for data in (
        f"{head}<p>{body}</p>".encode("utf-8", "surrogatepass"),
        odd + f"{head}<p>{body}</p>".encode("utf-8", "surrogatepass"),
        f"{head}<p>{body}</p>".encode("utf-8", "surrogatepass") + odd,
    ):
        _agrees(data, http)


def test_the_common_page_takes_the_shortcut():
    page = "<html><head><meta charset=utf-8></head><p>Grüße, 世界</p>".encode()
    assert utf8_source(page) == "meta"
    assert utf8_source(page, "utf-8") == HTTP
    assert utf8_source(page.replace(b"<meta charset=utf-8>", b"")) == "detected"
    assert utf8_source(page, "windows-1252") is None  # the chain decides (it reads UTF-8 here)
    assert utf8_source(codecs.BOM_UTF8 + page) is None


def _corpus_pages():
    for folder in sorted((SHARED / "corpus").glob("*/html")):
        for path in sorted(folder.iterdir()):
            data = path.read_bytes()
            yield gzip.decompress(data) if path.suffix == ".gz" else data


@pytest.mark.skipif(not (SHARED / "corpus").is_dir(), reason="no shared corpora here")
def test_utf8_source_agrees_with_the_chain_on_every_corpus_page():
    shortcut = 0
    for data in _corpus_pages():
        _agrees(data, None)
        shortcut += utf8_source(data) is not None
    assert shortcut > 1000  # the common page does take it
