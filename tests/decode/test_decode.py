from __future__ import annotations

import dataclasses
import gzip
import pickle

import brotli
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from transforms import reasons
from transforms.decode import DEFAULT_MAX_BYTES, Decoded, Reject, decode_document, is_2xx
from transforms.decode import document as decode
from transforms.decode import reject as errors

RUSSIAN = (
    "<html><body><p>Привет, мир! Съешь же ещё этих мягких французских булок.</p></body></html>"
)
PAGE = b"<!doctype html><html><head><title>t</title></head><body><p>Hello</p></body></html>"


def http(body: bytes, *headers: str, status: str = "200 OK") -> bytes:
    head = "\r\n".join([f"HTTP/1.1 {status}", *headers]).encode("latin-1")
    return head + b"\r\n\r\n" + body


def rejected(payload: bytes, **kwargs) -> Reject:
    with pytest.raises(Reject) as info:
        decode_document(payload, **kwargs)
    return info.value


def test_reject_is_reexported_and_pickles() -> None:
    assert decode.Reject is errors.Reject
    err = pickle.loads(pickle.dumps(Reject(reasons.NOT_HTML, "image/png")))
    assert (err.reason, err.detail, str(err)) == (
        reasons.NOT_HTML,
        "image/png",
        "not_html: image/png",
    )


def test_defaults() -> None:
    assert DEFAULT_MAX_BYTES == 32 * 1024 * 1024
    assert is_2xx(200) and is_2xx(299) and not is_2xx(304) and not is_2xx(199)


def test_http_response_end_to_end() -> None:
    payload = http(
        gzip.compress(RUSSIAN.encode("cp1251")),
        "Content-Type: text/html; charset=windows-1251",
        "Content-Encoding: gzip",
    )
    result = decode_document(payload, is_http=True)
    assert result == Decoded(
        text=RUSSIAN,
        http_status=200,
        content_type="text/html",
        charset="cp1251",
        charset_source="http",
        html_bytes=len(RUSSIAN.encode("cp1251")),
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.html = ""  # type: ignore[misc]


def test_http_ignores_the_record_content_type() -> None:
    payload = http(PAGE, "Content-Type: text/html")
    assert (
        decode_document(
            payload, is_http=True, content_type="application/http; msgtype=response"
        ).content_type
        == "text/html"
    )


def test_http_without_content_type_is_sniffed() -> None:
    result = decode_document(http(PAGE), is_http=True)
    assert (result.content_type, result.charset, result.charset_source) == (
        "text/html",
        "utf-8",
        "detected",
    )


def test_http_meta_charset_and_brotli() -> None:
    body = b'<meta charset="gb2312"><p>' + "中文网页，简体中文。".encode("gb2312")
    result = decode_document(
        http(brotli.compress(body), "Content-Type: text/html", "Content-Encoding: br"), is_http=True
    )
    assert (result.charset, result.charset_source) == ("gb18030", "meta")
    assert "中文网页" in result.html


def test_common_crawl_style_record() -> None:
    payload = http(
        PAGE,
        "Content-Type: text/html; charset=UTF-8",
        "X-Crawler-Content-Encoding: gzip",
        "X-Crawler-Transfer-Encoding: chunked",
    )
    assert decode_document(payload, is_http=True).html == PAGE.decode()


@pytest.mark.parametrize(
    ("status", "detail"),
    [
        ("404 Not Found", "404 Not Found"),
        ("301 Moved", "301 Moved Permanently"),
        ("500", "500 Internal Server Error"),
        ("799 Odd", "799 Odd"),
    ],
)
def test_status_not_accepted(status: str, detail: str) -> None:
    err = rejected(http(PAGE, "Content-Type: text/html", status=status), is_http=True)
    assert (err.reason, err.detail) == (reasons.HTTP_STATUS, detail)


def test_custom_status_filter() -> None:
    payload = http(PAGE, "Content-Type: text/html", status="404 Not Found")
    assert (
        decode_document(payload, is_http=True, accept_status=lambda s: s < 500).http_status == 404
    )


def test_bad_http() -> None:
    assert rejected(PAGE, is_http=True).reason == reasons.BAD_HTTP
    broken = http(b"5\r\nHello\r\nxyz\r\n", "Content-Type: text/html", "Transfer-Encoding: chunked")
    assert rejected(broken, is_http=True).reason == reasons.BAD_HTTP


def test_bad_encoding() -> None:
    err = rejected(
        http(PAGE, "Content-Type: text/html", "Content-Encoding: compress"), is_http=True
    )
    assert err.reason == reasons.BAD_ENCODING
    err = rejected(
        http(b"\x1f\x8b\x08\x00" + bytes(range(256)), "Content-Encoding: gzip"), is_http=True
    )
    assert err.reason == reasons.BAD_ENCODING


def test_not_html() -> None:
    err = rejected(http(b"\x89PNG\r\n\x1a\n", "Content-Type: image/png"), is_http=True)
    assert (err.reason, err.detail) == (reasons.NOT_HTML, "image/png")
    err = rejected(b"%PDF-1.4 ...", is_http=False)
    assert (err.reason, err.detail) == (reasons.NOT_HTML, "no content type, not sniffed as HTML")


def test_payload_over_cap() -> None:
    err = rejected(PAGE, is_http=False, max_bytes=10)
    assert err.reason == reasons.TOO_LARGE and "over 10 bytes" in err.detail


def test_decompressed_body_over_cap() -> None:
    body = gzip.compress(b"<p>" + b"a" * 5000)
    err = rejected(
        http(body, "Content-Type: text/html", "Content-Encoding: gzip"),
        is_http=True,
        max_bytes=4096,
    )
    assert err.reason == reasons.TOO_LARGE


def test_gzip_bomb_through_entry_point(gzip_bomb: bytes) -> None:
    payload = http(gzip_bomb, "Content-Type: text/html", "Content-Encoding: gzip")
    assert rejected(payload, is_http=True, max_bytes=2 * 1024 * 1024).reason == reasons.TOO_LARGE


def test_resource_record_with_warc_content_type() -> None:
    result = decode_document(
        RUSSIAN.encode("koi8-r"), is_http=False, content_type="text/html; charset=koi8-r"
    )
    assert result == Decoded(
        RUSSIAN, None, "text/html", "koi8-r", "http", len(RUSSIAN.encode("koi8-r"))
    )


def test_tar_member_is_sniffed() -> None:
    result = decode_document(PAGE, is_http=False)
    assert (result.http_status, result.content_type) == (None, "text/html")


def test_tar_member_in_utf16_with_bom() -> None:
    data = "\ufeff<html><body><p>Привет</p>".encode("utf-16-le")
    result = decode_document(data, is_http=False)
    assert (result.html, result.charset, result.charset_source) == (
        "<html><body><p>Привет</p>",
        "utf-16-le",
        "bom",
    )


def test_nul_bytes_and_invalid_utf8() -> None:
    result = decode_document(
        b"<html><p>a\x00b \xff\xfe end", is_http=False, content_type="text/html"
    )
    assert "\x00" not in result.html and result.html.startswith("<html><p>ab ")


def test_xhtml_served_as_xml() -> None:
    data = b'<?xml version="1.0" encoding="utf-8"?><html xmlns="http://www.w3.org/1999/xhtml"><p>x</p></html>'
    assert (
        decode_document(data, is_http=False, content_type="application/xml").content_type
        == "application/xml"
    )


KNOWN_REASONS = set(reasons.REJECT_REASONS)


def _check(payload: bytes, **kwargs) -> None:
    try:
        result = decode_document(payload, **kwargs)
    except Reject as err:
        assert err.reason in KNOWN_REASONS
        assert isinstance(err.detail, str) and len(err.detail) <= 200
    else:
        assert isinstance(result, Decoded)
        assert len(result.html) <= result.html_bytes <= kwargs.get("max_bytes", DEFAULT_MAX_BYTES)
        if result.utf8 is not None:  # the parser is given these bytes instead of the text
            assert result.utf8.decode("utf-8") == result.html


CONTENT_TYPES = st.sampled_from(
    [
        None,
        "",
        "text/html",
        "text/html; charset=utf-16",
        "application/octet-stream",
        "text/xml",
        "image/png",
        "text/html; charset=shift_jis",
    ]
)
SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(payload=st.binary(max_size=4096), is_http=st.booleans(), content_type=CONTENT_TYPES)
def test_arbitrary_bytes_decode_or_reject(
    payload: bytes, is_http: bool, content_type: str | None
) -> None:
    _check(payload, is_http=is_http, content_type=content_type, max_bytes=2048)


HEADER_LINES = st.lists(
    st.sampled_from(
        [
            "Content-Type: text/html",
            "Content-Type: text/html; charset=windows-1251",
            "Content-Type: application/octet-stream",
            "Content-Encoding: gzip",
            "Content-Encoding: br",
            "Content-Encoding: deflate",
            "Content-Encoding: zstd",
            "Content-Encoding: gzip, br",
            "Transfer-Encoding: chunked",
            "X-Crawler-Content-Encoding: gzip",
        ]
    ),
    max_size=4,
)


@SETTINGS
@given(
    status=st.sampled_from(["200 OK", "204", "404 Not Found", "100 Continue"]),
    headers=HEADER_LINES,
    body=st.binary(max_size=2048) | st.builds(lambda b: gzip.compress(b), st.binary(max_size=2048)),
    eol=st.sampled_from([b"\r\n", b"\n"]),
)
def test_http_shaped_bytes_decode_or_reject(
    status: str, headers: list[str], body: bytes, eol: bytes
) -> None:
    head = eol.join([f"HTTP/1.1 {status}".encode(), *(h.encode() for h in headers)])
    _check(head + eol + eol + body, is_http=True, max_bytes=8192)


def test_utf8_form_only_when_the_text_is_its_strict_decoding() -> None:
    ct = "Content-Type: text/html; charset=utf-8"
    plain = RUSSIAN.encode("utf-8")
    assert decode_document(http(plain, ct), is_http=True).utf8 == plain
    undeclared = decode_document(plain, is_http=False)
    assert undeclared.charset_source == "detected" and undeclared.utf8 == plain
    for body, headers in [
        (b"\xef\xbb\xbf" + plain, [ct]),  # a byte-order mark is not part of the text
        (plain + "é".encode()[:1], [ct]),  # a character cut at the end is replaced
        (plain.replace(b"<p>", b"<p>\x00"), [ct]),  # NULs are removed
        (plain + b"\xff", [ct]),  # a stray byte
        (RUSSIAN.encode("cp1251"), ["Content-Type: text/html; charset=windows-1251"]),
    ]:
        decoded = decode_document(http(body, *headers), is_http=True)
        assert decoded.utf8 is None, body[-20:]


@pytest.mark.parametrize("content_type", ["Content-Type: text/html", None])
def test_gzip_body_without_content_encoding_is_inflated(content_type) -> None:
    headers = [content_type] if content_type else []
    decoded = decode_document(http(gzip.compress(PAGE, mtime=0), *headers), is_http=True)
    assert "<p>Hello</p>" in decoded.html and decoded.content_type == "text/html"
    assert decoded.html_bytes == len(PAGE)
    # A tar member or resource record stored gzipped without saying so, too.
    assert "<p>Hello</p>" in decode_document(gzip.compress(PAGE), is_http=False).html


def test_gzip_body_without_content_encoding_keeps_the_cap(gzip_bomb: bytes) -> None:
    payload = http(gzip_bomb, "Content-Type: text/html")
    err = rejected(payload, is_http=True, max_bytes=2 * 1024 * 1024)
    assert err.reason == reasons.TOO_LARGE and "inflates past" in err.detail


def test_gzip_magic_that_is_not_gzip_is_still_not_html() -> None:
    payload = http(b"\x1f\x8b" + bytes(range(256)) * 4, "Content-Type: text/html")
    assert rejected(payload, is_http=True).reason == reasons.NOT_HTML
    gzipped_png = gzip.compress(b"\x89PNG\r\n\x1a\n" + bytes(300))
    assert rejected(http(gzipped_png), is_http=True).reason == reasons.NOT_HTML
