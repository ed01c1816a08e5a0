from __future__ import annotations

import gzip
import tracemalloc
import zlib

import brotli
import pytest
import zstandard
from hypothesis import given, settings
from hypothesis import strategies as st

from transforms import reasons
from transforms.decode import Reject
from transforms.decode.http import (
    Headers,
    dechunk,
    decode_body,
    decode_content,
    parse_response,
    status_text,
)

HTML = b"<!doctype html><html><head><title>t</title></head><body><p>Hello, world.</p></body></html>"
MIB = 1 << 20
CAP = 4 * MIB  # the decompression cap the bomb tests use


def response(
    headers: dict[str, str] | list[tuple[str, str]], body: bytes, eol: bytes = b"\r\n"
) -> bytes:
    items = headers.items() if isinstance(headers, dict) else headers
    head = eol.join([b"HTTP/1.1 200 OK"] + [f"{k}: {v}".encode() for k, v in items])
    return head + eol + eol + body


def body_of(block: bytes, max_bytes: int = 32 * MIB) -> bytes:
    return decode_body(parse_response(block), max_bytes=max_bytes)


def reject_of(fn, *args, **kwargs) -> Reject:
    with pytest.raises(Reject) as info:
        fn(*args, **kwargs)
    return info.value


# --- status line and headers -------------------------------------------------------------


def test_parse_crlf_response() -> None:
    r = parse_response(response({"Content-Type": "text/html"}, HTML))
    assert (r.version, r.status, r.reason) == ("1.1", 200, "OK")
    assert r.headers.get("content-type") == "text/html"
    assert r.body == HTML


def test_parse_bare_lf_and_http10_without_reason() -> None:
    r = parse_response(b"HTTP/1.0 404\nServer: x\n\nnot here")
    assert (r.version, r.status, r.reason) == ("1.0", 404, "")
    assert r.headers.get("SERVER") == "x"
    assert r.body == b"not here"


def test_mixed_line_endings_and_blank_lines_before_status() -> None:
    r = parse_response(b"\r\nHTTP/1.1 200 OK\nA: 1\r\n\nbody\r\n\r\nmore")
    assert r.status == 200
    assert r.body == b"body\r\n\r\nmore"


def test_headers_case_insensitive_first_wins_and_repeats_kept() -> None:
    r = parse_response(response([("Set-Cookie", "a=1"), ("set-cookie", "b=2"), ("X", "y")], b""))
    assert r.headers.get("SET-COOKIE") == "a=1"
    assert r.headers.get_all("Set-Cookie") == ["a=1", "b=2"]
    assert "x" in r.headers
    assert r.headers.get("missing") is None
    assert len(r.headers) == 3


def test_folded_and_junk_header_lines() -> None:
    r = parse_response(b"HTTP/1.1 200 OK\r\nX-Long: a\r\n  b\r\njunk line\r\nA: 1\r\n\r\n")
    assert r.headers.get("x-long") == "a b"
    assert r.headers.items() == [("X-Long", "a b"), ("A", "1")]


def test_interim_100_continue_is_skipped() -> None:
    r = parse_response(b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nA: 1\r\n\r\nok")
    assert (r.status, r.body) == (201, b"ok")


def test_head_only_record_has_empty_body() -> None:
    r = parse_response(b"HTTP/1.1 200 OK\r\nContent-Type: text/html")
    assert r.body == b""
    assert r.headers.get("content-type") == "text/html"


@pytest.mark.parametrize(
    "block",
    [
        b"",
        b"<html><body>HTTP/0.9 style</body></html>",
        b"FTP/1.0 200 OK\r\n\r\n",
        b"HTTP/1.1 abc\r\n\r\n",
    ],
)
def test_no_status_line_is_bad_http(block: bytes) -> None:
    err = reject_of(parse_response, block)
    assert err.reason == reasons.BAD_HTTP
    assert "status line" in err.detail


def test_head_over_cap_is_bad_http() -> None:
    block = b"HTTP/1.1 200 OK\r\n" + b"X-Pad: " + b"a" * 70_000 + b"\r\n\r\nbody"
    err = reject_of(parse_response, block)
    assert err.reason == reasons.BAD_HTTP and "head over" in err.detail
    # ...also when the head never ends.
    assert reject_of(parse_response, block[:-8]).reason == reasons.BAD_HTTP
    assert parse_response(block, max_head=100_000).body == b"body"


def test_status_text() -> None:
    assert status_text(404, "whatever") == "404 Not Found"
    assert status_text(599, "Custom Thing") == "599 Custom Thing"
    assert status_text(599) == "599"


def test_headers_object() -> None:
    h = Headers([("A", "1")])
    h.add("a", "2")
    assert list(h) == [("A", "1"), ("a", "2")]
    assert 1 not in h
    assert "Headers" in repr(h)


# --- chunked -----------------------------------------------------------------------------


def test_dechunk_with_extensions_and_trailers() -> None:
    body = b"5;name=val\r\nHello\r\n7\r\n, world\r\n0\r\nTrailer: x\r\n\r\n"
    assert dechunk(body) == b"Hello, world"


def test_dechunk_bare_lf_missing_final_chunk_and_truncated_chunk() -> None:
    assert dechunk(b"5\nHello\n7\n, world\n") == b"Hello, world"
    assert dechunk(b"5\r\nHello\r\nff\r\n, wor") == b"Hello, wor"


def test_dechunk_uppercase_hex_and_stray_blank_line() -> None:
    assert dechunk(b"A\r\n0123456789\r\n\r\n1\r\nx\r\n0\r\n\r\n") == b"0123456789x"


def test_dechunk_not_chunked_at_all_returns_raw_body() -> None:
    assert dechunk(HTML) == HTML


def test_dechunk_broken_after_first_chunk_is_bad_http() -> None:
    err = reject_of(dechunk, b"5\r\nHello\r\nzz\r\nmore\r\n0\r\n\r\n")
    assert err.reason == reasons.BAD_HTTP and "chunk" in err.detail


def test_chunked_transfer_encoding_in_response() -> None:
    block = response({"Transfer-Encoding": "chunked"}, b"4\r\n<p>x\r\n0\r\n\r\n")
    assert body_of(block) == b"<p>x"


def test_chunked_then_gzip_content_encoding() -> None:
    gz = gzip.compress(HTML)
    chunked = b"%x\r\n%s\r\n0\r\n\r\n" % (len(gz), gz)
    block = response({"Transfer-Encoding": "chunked", "Content-Encoding": "gzip"}, chunked)
    assert body_of(block) == HTML


def test_gzip_transfer_coding_before_chunked() -> None:
    gz = gzip.compress(HTML)
    chunked = b"%x\r\n%s\r\n0\r\n\r\n" % (len(gz), gz)
    assert body_of(response({"Transfer-Encoding": "gzip, chunked"}, chunked)) == HTML


# --- content encodings -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("coding", "compress"),
    [
        ("gzip", gzip.compress),
        ("x-gzip", gzip.compress),
        ("GZIP", gzip.compress),
        ("deflate", zlib.compress),
        ("br", brotli.compress),
        ("zstd", zstandard.ZstdCompressor().compress),
        ("identity", lambda d: d),
    ],
)
def test_content_encodings(coding: str, compress) -> None:
    assert body_of(response({"Content-Encoding": coding}, compress(HTML))) == HTML


def test_raw_deflate() -> None:
    comp = zlib.compressobj(wbits=-15)
    raw = comp.compress(HTML) + comp.flush()
    assert decode_content(raw, ["deflate"], max_bytes=MIB) == HTML


def test_stacked_encodings_are_undone_in_reverse() -> None:
    body = brotli.compress(gzip.compress(HTML))
    assert body_of(response({"Content-Encoding": "gzip, br"}, body)) == HTML
    # The same list spread over repeated headers.
    assert (
        body_of(response([("Content-Encoding", "gzip"), ("Content-Encoding", "br")], body)) == HTML
    )


def test_concatenated_gzip_members_and_trailing_garbage() -> None:
    body = gzip.compress(HTML[:10]) + gzip.compress(HTML[10:]) + b"\x00\x00junk"
    assert decode_content(body, ["gzip"], max_bytes=MIB) == HTML


def test_truncated_gzip_keeps_what_inflates() -> None:
    big = HTML * 200
    gz = gzip.compress(big)
    out = decode_content(gz[: len(gz) // 2], ["gzip"], max_bytes=MIB)
    assert 0 < len(out) < len(big) and big.startswith(out)


def test_gzip_header_that_lies_body_is_plain() -> None:
    assert body_of(response({"Content-Encoding": "gzip"}, HTML)) == HTML
    assert body_of(response({"Content-Encoding": "br"}, HTML)) == HTML
    assert body_of(response({"Content-Encoding": "deflate"}, HTML)) == HTML
    assert body_of(response({"Content-Encoding": "zstd"}, HTML)) == HTML


def test_common_crawl_renamed_headers_mean_plain_body() -> None:
    headers = {
        "X-Crawler-Content-Encoding": "gzip",
        "X-Crawler-Transfer-Encoding": "chunked",
        "Content-Length": str(len(HTML)),
    }
    assert body_of(response(headers, HTML)) == HTML
    # A plain body starting with something hex-like is not de-chunked either.
    assert body_of(response(headers, b"abc\r\ndef")) == b"abc\r\ndef"


def test_empty_body_with_encoding() -> None:
    assert body_of(response({"Content-Encoding": "gzip"}, b"")) == b""


@pytest.mark.parametrize("coding", ["compress", "x-bzip2", "sdch", "utf-8"])
def test_unknown_encoding_is_bad_encoding(coding: str) -> None:
    err = reject_of(body_of, response({"Content-Encoding": coding}, HTML))
    assert err.reason == reasons.BAD_ENCODING and coding in err.detail


@pytest.mark.parametrize(
    ("coding", "body"),
    [
        ("gzip", b"\x1f\x8b\x08\x00" + bytes(range(256)) * 4),
        ("br", bytes(range(256)) * 4),
        ("zstd", b"\x28\xb5\x2f\xfd" + bytes(range(256)) * 4),
        ("deflate", b"\xff" * 10 + bytes(range(256))),
    ],
)
def test_corrupt_compressed_body_is_bad_encoding(coding: str, body: bytes) -> None:
    err = reject_of(decode_content, body, [coding], max_bytes=MIB)
    assert err.reason == reasons.BAD_ENCODING and coding in err.detail


# --- size caps ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("coding", "compress"),
    [
        ("gzip", gzip.compress),
        ("deflate", zlib.compress),
        ("br", brotli.compress),
        ("zstd", zstandard.ZstdCompressor().compress),
    ],
)
def test_output_over_cap_is_too_large(coding: str, compress) -> None:
    data = b"a" * (MIB + 1)
    err = reject_of(decode_content, compress(data), [coding], max_bytes=MIB)
    assert err.reason == reasons.TOO_LARGE
    assert decode_content(compress(data), [coding], max_bytes=MIB + 1) == data


def _peak_while(fn) -> int:
    tracemalloc.start()
    try:
        fn()
    except Reject as err:
        assert err.reason == reasons.TOO_LARGE
    else:
        raise AssertionError("the bomb was not rejected")
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    return peak


def test_gzip_bomb_stops_at_cap_with_flat_memory(gzip_bomb: bytes) -> None:
    assert len(gzip_bomb) < 1_100_000  # inflates to 1 GiB
    block = response({"Content-Encoding": "gzip"}, gzip_bomb)
    peak = _peak_while(lambda: body_of(block, max_bytes=CAP))
    assert peak < 3 * CAP  # flat: nowhere near the 1 GiB the bomb inflates to


def test_double_gzip_bomb_of_a_few_kb(gzip_bomb: bytes) -> None:
    bomb = gzip.compress(gzip_bomb, 9)
    assert len(bomb) < 10_000  # a few KB that would inflate to 1 GiB
    block = response({"Content-Encoding": "gzip, gzip"}, bomb)
    peak = _peak_while(lambda: body_of(block, max_bytes=CAP))
    assert peak < 3 * CAP  # flat: nowhere near the 1 GiB the bomb inflates to


def test_brotli_bomb_stops_at_cap_with_flat_memory(brotli_bomb: bytes) -> None:
    assert len(brotli_bomb) < 256_000  # inflates to 1 GiB
    block = response({"Content-Encoding": "br"}, brotli_bomb)
    peak = _peak_while(lambda: body_of(block, max_bytes=CAP))
    assert peak < 3 * CAP  # flat: nowhere near the 1 GiB the bomb inflates to


def test_zstd_bomb_stops_at_cap() -> None:
    comp = zstandard.ZstdCompressor(level=1).compressobj()
    zeros = bytes(MIB)
    bomb = b"".join(comp.compress(zeros) for _ in range(256)) + comp.flush()
    peak = _peak_while(lambda: decode_content(bomb, ["zstd"], max_bytes=CAP))
    assert peak < 3 * CAP  # flat: nowhere near the 1 GiB the bomb inflates to


def test_truncated_brotli_keeps_what_decodes() -> None:
    big = bytes(range(256)) * 4000
    br = brotli.compress(big)
    out = decode_content(br[: len(br) // 2], ["br"], max_bytes=MIB)
    assert 0 < len(out) < len(big) and big.startswith(out)


@pytest.mark.parametrize("body", [b"9", b'{ZUq<cmY9@E2"', b"<p>x"])
def test_plain_text_that_parses_as_a_stream_is_kept(body: bytes) -> None:
    # Each of these is a valid (tiny) brotli or raw deflate stream, or the start of one.
    assert decode_content(body, ["deflate"], max_bytes=MIB) == body
    assert decode_content(body, ["br"], max_bytes=MIB) == body


@settings(max_examples=200, deadline=None)
@given(
    text=st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=500),
    coding=st.sampled_from(["gzip", "deflate", "br", "zstd", "gzip, br"]),
)
def test_html_under_a_lying_header_is_kept(text: str, coding: str) -> None:
    body = ("<html>" + text).encode()
    assert decode_content(body, [coding], max_bytes=MIB) == body


@pytest.mark.parametrize("value", ["identity", "none", "", "identity, identity"])
def test_identity_codings(value: str) -> None:
    assert body_of(response({"Content-Encoding": value}, HTML)) == HTML


def test_unknown_transfer_coding_is_bad_encoding() -> None:
    err = reject_of(
        body_of, response({"Transfer-Encoding": "bogus, chunked"}, b"4\r\n<p>x\r\n0\r\n\r\n")
    )
    assert err.reason == reasons.BAD_ENCODING and "bogus" in err.detail
