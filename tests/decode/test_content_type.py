from __future__ import annotations

import codecs

import pytest

from transforms import reasons
from transforms.decode import Reject
from transforms.decode.content_type import (
    is_html,
    looks_binary,
    parse_content_type,
    require_html,
    sniff_html,
    sniff_xhtml,
)

PAGE = b"<!DOCTYPE html>\n<html><head><title>x</title></head><body><p>hi</p></body></html>"


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (None, ("", None)),
        ("", ("", None)),
        ("text/html", ("text/html", None)),
        ("Text/HTML; Charset=UTF-8", ("text/html", "UTF-8")),
        ('text/html; charset="windows-1251"', ("text/html", "windows-1251")),
        ("text/html;charset='gbk';foo=bar", ("text/html", "gbk")),
        ("text/html; foo=bar; charset = koi8-r ", ("text/html", "koi8-r")),
        ("text/html, text/html; charset=big5", ("text/html", "big5")),
        ("text/html; charset=utf-8, application/json", ("text/html", "utf-8")),
        ("html", ("", None)),
        ("text/html charset=gbk", ("text/html", "gbk")),
        ('"text/html"', ("text/html", None)),
        ("; charset=utf-8", ("", None)),
        ("application/xhtml+xml; charset=utf-8", ("application/xhtml+xml", "utf-8")),
    ],
)
def test_parse_content_type(header: str | None, expected: tuple[str, str | None]) -> None:
    assert parse_content_type(header) == expected


@pytest.mark.parametrize(
    "head",
    [
        PAGE,
        b"<html lang=en>",
        b"  \r\n\t<HEAD><title>x</title>",
        b"<body>",
        b"<title>x</title>",
        b"<div class=x>",
        b"<p>para",
        b"<script>var a</script>",
        b"<meta charset=utf-8>",
        b"<table>",
        b'<a href="/">home</a>',
        b"<br/>",
        b"<!-- generated --><html>",
        b"<!-- only a comment -->",
        b'<?xml version="1.0"?>\n<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0//EN"><html>',
        codecs.BOM_UTF8 + b"<!doctype html>",
        codecs.BOM_UTF16_LE + "<html><p>x".encode("utf-16-le"),
        "<html><p>x</p></html>".encode("utf-16-be"),
        b"Warning: include(x.php) failed in /var/www/index.php on line 3\n<html><body>",
    ],
)
def test_sniffs_as_html(head: bytes) -> None:
    assert sniff_html(head)
    assert is_html("application/octet-stream", head)
    assert require_html("", head) == "text/html"


@pytest.mark.parametrize(
    "head",
    [
        b"",
        b"just some plain text, no markup at all",
        b"User-agent: *\nDisallow: /",
        b'{"json": true}',
        b"<abc>not html</abc>",
        b"<pre-rendered> text",
        b'<?xml version="1.0"?><rss version="2.0"><channel>',
        b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR<html>",
        b"GIF89a<html>",
        b"\xff\xd8\xff\xe0<html>",
        b"%PDF-1.4 <html>",
        b"PK\x03\x04<html>",
        b"<html>\x00\x00\x00binary",
        bytes(range(1, 32)) * 4 + b"<html>",
    ],
)
def test_does_not_sniff_as_html(head: bytes) -> None:
    assert not sniff_html(head)
    with pytest.raises(Reject) as info:
        require_html("application/octet-stream", head)
    assert info.value.reason == reasons.NOT_HTML
    assert info.value.detail == "application/octet-stream, not sniffed as HTML"


@pytest.mark.parametrize("mime", ["text/html", "application/xhtml+xml"])
def test_declared_html_is_trusted(mime: str) -> None:
    assert is_html(mime, b"anything")
    assert require_html(mime, b"anything") == mime


@pytest.mark.parametrize("mime", ["application/xml", "text/xml"])
def test_xml_counts_only_when_xhtml(mime: str) -> None:
    xhtml = b'<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><body>'
    assert sniff_xhtml(xhtml)
    assert require_html(mime, xhtml) == mime
    assert require_html(mime, b"<!DOCTYPE html><html>") == mime
    assert not is_html(mime, b'<?xml version="1.0"?><rss><channel><a href="x">')
    with pytest.raises(Reject) as info:
        require_html(mime, b"<?xml version='1.0'?><feed/>")
    assert info.value.detail == f"{mime}, not sniffed as HTML"


@pytest.mark.parametrize(
    "mime",
    ["text/plain", "binary/octet-stream", "application/octet-stream", "unknown/unknown", ""],
)
def test_generic_types_are_sniffed(mime: str) -> None:
    assert is_html(mime, PAGE)
    assert not is_html(mime, b"plain text")


@pytest.mark.parametrize("mime", ["image/png", "application/json", "text/css", "application/pdf"])
def test_specific_non_html_types_are_rejected_without_sniffing(mime: str) -> None:
    assert not is_html(mime, PAGE)
    with pytest.raises(Reject) as info:
        require_html(mime, PAGE)
    assert (info.value.reason, info.value.detail) == (reasons.NOT_HTML, mime)


def test_missing_type_detail() -> None:
    with pytest.raises(Reject) as info:
        require_html("", b"\x00\x01")
    assert info.value.detail == "no content type, not sniffed as HTML"


def test_looks_binary() -> None:
    assert looks_binary(b"\x00\x00\x00\x01")
    assert not looks_binary(b"plain text\twith\ttabs\r\n")
    assert not looks_binary("<html><body>".encode("utf-16-le"))


CJK_HEAVY = (
    "<html><head><title>中文网页</title></head><body><p>"
    + "这是一个中文网页。北京是中国的首都。今天天气很好。我们一起去公园散步吧。" * 20
    + "</p></body></html>"
)


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
@pytest.mark.parametrize("header", ["text/html; charset=utf-16", "text/html", None])
def test_cjk_heavy_utf16_without_a_bom_is_html(codec: str, header: str | None) -> None:
    """Few NUL bytes (CJK code units have none): its markup's code units tell it from binary."""
    data = CJK_HEAVY.encode(codec)
    mime, _ = parse_content_type(header)
    assert require_html(mime, data) == "text/html"


def test_iso_2022_kr_shifts_are_not_binary() -> None:
    """ISO-2022-KR switches to Korean and back with SO and SI (0x0E, 0x0F) around every run."""
    data = ("<p>" + "한국어 문장입니다. 서울은 한국의 수도입니다. " * 10 + "</p>").encode(
        "iso2022_kr"
    )
    assert require_html("text/html", data) == "text/html"
