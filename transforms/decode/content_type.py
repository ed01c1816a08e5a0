"""Is this document HTML? Content-Type parsing plus byte sniffing for missing or generic types.

A declared ``text/html`` or ``application/xhtml+xml`` is trusted. ``application/xml`` and
``text/xml`` count only when the bytes are an XHTML/HTML document. A missing or generic type
(``application/octet-stream``, ``text/plain``, ...) is decided by sniffing the first bytes the
way browsers do (WHATWG MIME Sniffing, "identifying a resource with an unknown MIME type"),
slightly extended to skip comments, an XML declaration and a doctype before the first tag.
"""

from __future__ import annotations

import re

from transforms import reasons
from transforms.decode.charset import guess_utf16_32, sniff_bom
from transforms.decode.reject import Reject

__all__ = [
    "HTML_TYPES",
    "XML_TYPES",
    "GENERIC_TYPES",
    "SNIFF_BYTES",
    "parse_content_type",
    "looks_binary",
    "sniff_html",
    "sniff_xhtml",
    "is_html",
    "require_html",
]

HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
XML_TYPES = frozenset({"application/xml", "text/xml"})
GENERIC_TYPES = frozenset(
    {
        "",
        "application/octet-stream",
        "binary/octet-stream",
        "application/unknown",
        "unknown/unknown",
        "application/x-unknown-content-type",
        "text/plain",
        "unknown",
        "*/*",
    }
)
SNIFF_BYTES = 1024

_MIME = re.compile(r"^[!#$%&'*+.^_`|~0-9a-z-]+/[!#$%&'*+.^_`|~0-9a-z-]+$")
_CHARSET_PARAM = re.compile(r"""charset\s*=\s*["']?\s*([^"';,\s]+)""", re.I)

# Tags WHATWG sniffs as HTML, plus a few that open real-world fragments. Each must be followed
# by a tag-terminating byte so that "<p" does not match "<pre-rendered" text and "<a" not "<abc".
_HTML_TAG = re.compile(
    rb"<(?:!doctype\s+html|html|head|body|title|meta|link|script|style|iframe|noscript|"
    rb"h[1-6]|div|span|p|a|b|br|font|table|center|form|ul|ol|img|header|nav|main|section)"
    rb"[\s>/]",
    re.I,
)
# Anywhere in the window, for pages with junk (PHP warnings, stray text) before the markup.
_HTML_ANYWHERE = re.compile(rb"<(?:!doctype\s+html|html)[\s>]", re.I)
_XHTML = re.compile(rb"<(?:!doctype\s+html|html)[\s>]|http://www\.w3\.org/1999/xhtml", re.I)
_PROLOGUE = re.compile(
    rb"(?:\s+|<!--.*?(?:-->|$)|<\?.*?(?:\?>|$)|<!(?!doctype\s+html)[^>]*>)", re.I | re.S
)

_MAGIC_NUMBERS = (
    b"GIF87a",
    b"GIF89a",
    b"\x89PNG\r\n\x1a\n",
    b"\xff\xd8\xff",  # JPEG
    b"RIFF",  # WebP, WAV, AVI
    b"%PDF-",
    b"PK\x03\x04",  # zip, docx, jar
    b"\x1f\x8b",  # gzip
    b"BZh",
    b"\xfd7zXZ\x00",
    b"7z\xbc\xaf\x27\x1c",
    b"Rar!",
    b"\x00\x00\x01\x00",  # ICO
    b"wOFF",
    b"wOF2",
    b"OggS",
    b"ID3",
    b"\x7fELF",
    b"%!PS",
    b"\xd0\xcf\x11\xe0",  # OLE2: doc, xls
)
# Control bytes that text does not hold; ESC, SO and SI are ISO-2022's escapes and shifts.
_BINARY_CONTROLS = bytes(b for b in range(32) if b not in b"\t\n\r\x0c\x1b\x0e\x0f")


def _count_controls(head: bytes) -> int:
    """How many bytes of ``head`` are controls that text does not hold (counted in C)."""
    return len(head) - len(head.translate(None, _BINARY_CONTROLS))


def parse_content_type(value: str | None) -> tuple[str, str | None]:
    """Split a Content-Type header into (lower-case mime essence, charset parameter or None).

    An unparsable or missing header gives ``("", None)``. When several comma-separated types
    are given the first valid one is used, taking its charset or, failing that, the charset of
    a later entry of the same type.
    """
    if not value:
        return "", None
    mime, charset = "", None
    for part in value.split(","):
        # The first token, so that "text/html charset=utf-8" (no semicolon) still parses.
        tokens = part.split(";", 1)[0].split()
        essence = tokens[0].strip("\"'").lower() if tokens else ""
        if not _MIME.match(essence):
            continue
        match = _CHARSET_PARAM.search(part)
        found = match.group(1) if match else None
        if not mime:
            mime, charset = essence, found
        elif essence == mime and charset is None:
            charset = found
    return mime, charset


def _sniff_window(data: bytes) -> bytes:
    """The first bytes as ASCII-compatible markup: BOM dropped, UTF-16/32 narrowed."""
    wide = sniff_bom(data) or guess_utf16_32(data)
    if wide and wide != "utf-8":
        text = data[: SNIFF_BYTES * 4].decode(wide, "ignore").lstrip("\ufeff")
        return text.encode("ascii", "replace")[:SNIFF_BYTES]
    if wide == "utf-8":
        data = data[3:]
    return data[:SNIFF_BYTES]


def looks_binary(data: bytes) -> bool:
    """True for image/archive/font magic numbers, NUL bytes or many control bytes in the head.

    UTF-16/32 text (with or without a BOM) is not binary.
    """
    if data.startswith(_MAGIC_NUMBERS):
        return True
    if sniff_bom(data) or guess_utf16_32(data):
        return False
    head = data[:SNIFF_BYTES]
    if b"\x00" in head:
        return True
    controls = _count_controls(head)
    return controls * 20 > len(head)


def _after_prologue(window: bytes) -> bytes:
    pos = 0
    while match := _PROLOGUE.match(window, pos):
        if match.end() == pos:
            break
        pos = match.end()
    return window[pos:]


def sniff_html(data: bytes) -> bool:
    """True when the first bytes are HTML markup.

    Leading whitespace, comments, processing instructions (``<?xml ...?>``) and non-HTML
    doctypes are skipped; the first tag must then be a known HTML tag. A window that holds only
    comments counts as HTML (as in WHATWG, where ``<!--`` sniffs as HTML). ``<html`` or
    ``<!doctype html`` anywhere in the window also counts, for pages with junk before them.
    """
    if looks_binary(data):
        return False
    window = _sniff_window(data)
    rest = _after_prologue(window)
    if _HTML_TAG.match(rest):
        return True
    if not rest.strip() and b"<!--" in window:
        return True
    return bool(_HTML_ANYWHERE.search(window))


def sniff_xhtml(data: bytes) -> bool:
    """True when XML bytes are an (X)HTML document: an html doctype or root, or the XHTML namespace."""
    return not looks_binary(data) and bool(_XHTML.search(_sniff_window(data)))


def binary_under_html_label(data: bytes) -> bool:
    """True when bytes declared as HTML are evidently not text: an image/archive magic number,
    or control and NUL bytes making up over 5% of the head (random bytes: about 12%; a
    couple of stray ones are tolerated in a tiny document).

    More tolerant than ``looks_binary``, which rejects on one NUL: a page that *says* it is HTML
    keeps the benefit of the doubt for a few stray NULs. UTF-16/32 text is not binary.
    """
    if data.startswith(_MAGIC_NUMBERS):
        return True
    if sniff_bom(data) or guess_utf16_32(data):
        return False
    head = data[:SNIFF_BYTES]
    controls = _count_controls(head)
    return controls > max(2, len(head) // 20)


def is_html(mime: str, data: bytes) -> bool:
    """Whether a document of declared ``mime`` (essence, lower case) with these bytes is HTML."""
    if mime in HTML_TYPES:
        return not binary_under_html_label(data)
    if mime in XML_TYPES:
        return sniff_xhtml(data)
    if mime in GENERIC_TYPES:
        return sniff_html(data)
    return False


def require_html(mime: str, data: bytes) -> str:
    """The content type to record for an HTML document, or ``Reject(NOT_HTML)``.

    Declared HTML/XHTML/XML types are kept as declared; a missing or generic type that sniffs
    as HTML is recorded as ``text/html``.
    """
    if not is_html(mime, data):
        sniffed = mime in GENERIC_TYPES or mime in XML_TYPES
        suffix = ", not sniffed as HTML" if sniffed else ""
        if mime in HTML_TYPES:
            suffix = ", but the bytes are binary"
        raise Reject(reasons.NOT_HTML, f"{mime[:80] or 'no content type'}{suffix}")
    return "text/html" if mime in GENERIC_TYPES else mime
