"""Bytes of an HTML document to text, recording which evidence chose the charset.

The chain, first match wins:

1. ``bom``: a UTF-8, UTF-16 or UTF-32 byte order mark (always trusted, as browsers do);
2. ``http``: the charset parameter of the transport Content-Type;
3. ``meta``: ``<meta charset>`` / ``<meta http-equiv=Content-Type content="...charset=...">`` or
   an XML declaration, found by a bounded scan of the first bytes;
4. ``detected``: strict UTF-8, UTF-16/32 by the NUL-byte pattern, "UTF-8 with a few stray
   bytes", then charset-normalizer on a bounded sample;
5. ``fallback``: UTF-8 with replacement characters.

Declared labels are mapped as the WHATWG Encoding standard does (``iso-8859-1`` means
windows-1252, ``gb2312`` means gb18030, ...); unknown labels are ignored, and a declared charset
that cannot decode the bytes is skipped in favour of the next step. A declared single-byte
charset (windows-1252, ...) on bytes that are valid UTF-8 with non-ASCII characters yields to
UTF-8, ``detected``: such pages are mis-declared, read as declared they are mojibake
("cafÃ©"), and legacy text is practically never valid UTF-8 by accident (a browser would
follow the declaration). Decoding never raises.
"""

from __future__ import annotations

import codecs
import re
from typing import NamedTuple

from charset_normalizer import from_bytes

__all__ = [
    "BOM",
    "HTTP",
    "META",
    "DETECTED",
    "FALLBACK",
    "META_SCAN_BYTES",
    "DETECT_SAMPLE_BYTES",
    "DecodedText",
    "decode_text",
    "normalize_label",
    "sniff_bom",
    "find_meta_charset",
    "guess_utf16_32",
    "detect_charset",
    "utf8_form",
]

BOM = "bom"
HTTP = "http"
META = "meta"
DETECTED = "detected"
FALLBACK = "fallback"

META_SCAN_BYTES = 8 * 1024
DETECT_SAMPLE_BYTES = 64 * 1024


class DecodedText(NamedTuple):
    text: str
    charset: str  # Python's canonical codec name, e.g. "utf-8", "cp1252", "gb18030"
    source: str  # one of BOM, HTTP, META, DETECTED, FALLBACK


# WHATWG encoding labels (https://encoding.spec.whatwg.org/#names-and-labels), grouped by the
# Python codec that decodes that encoding. Labels of the "replacement" encoding and
# x-user-defined are deliberately absent: they are treated as unknown.
_LABELS: dict[str, str] = {
    "utf-8": "unicode-1-1-utf-8 unicode11utf8 unicode20utf8 utf-8 utf8 x-unicode20utf8",
    "cp866": "866 cp866 csibm866 ibm866",
    "iso8859-2": "csisolatin2 iso-8859-2 iso-ir-101 iso8859-2 iso88592 iso_8859-2 "
    "iso_8859-2:1987 l2 latin2",
    "iso8859-3": "csisolatin3 iso-8859-3 iso-ir-109 iso8859-3 iso88593 iso_8859-3 "
    "iso_8859-3:1988 l3 latin3",
    "iso8859-4": "csisolatin4 iso-8859-4 iso-ir-110 iso8859-4 iso88594 iso_8859-4 "
    "iso_8859-4:1988 l4 latin4",
    "iso8859-5": "csisolatincyrillic cyrillic iso-8859-5 iso-ir-144 iso8859-5 iso88595 "
    "iso_8859-5 iso_8859-5:1988",
    "iso8859-6": "arabic asmo-708 csiso88596e csiso88596i csisolatinarabic ecma-114 "
    "iso-8859-6 iso-8859-6-e iso-8859-6-i iso-ir-127 iso8859-6 iso88596 iso_8859-6 "
    "iso_8859-6:1987",
    "iso8859-7": "csisolatingreek ecma-118 elot_928 greek greek8 iso-8859-7 iso-ir-126 "
    "iso8859-7 iso88597 iso_8859-7 iso_8859-7:1987 sun_eu_greek",
    "iso8859-8": "csiso88598e csisolatinhebrew hebrew iso-8859-8 iso-8859-8-e iso-ir-138 "
    "iso8859-8 iso88598 iso_8859-8 iso_8859-8:1988 visual csiso88598i iso-8859-8-i logical",
    "iso8859-10": "csisolatin6 iso-8859-10 iso-ir-157 iso8859-10 iso885910 l6 latin6",
    "iso8859-13": "iso-8859-13 iso8859-13 iso885913",
    "iso8859-14": "iso-8859-14 iso8859-14 iso885914",
    "iso8859-15": "csisolatin9 iso-8859-15 iso8859-15 iso885915 iso_8859-15 l9",
    "iso8859-16": "iso-8859-16",
    "koi8-r": "cskoi8r koi koi8 koi8-r koi8_r",
    "koi8-u": "koi8-ru koi8-u",
    "mac-roman": "csmacintosh mac macintosh x-mac-roman",
    "cp874": "dos-874 iso-8859-11 iso8859-11 iso885911 tis-620 windows-874",
    "cp1250": "cp1250 windows-1250 x-cp1250",
    "cp1251": "cp1251 windows-1251 x-cp1251",
    "cp1252": "ansi_x3.4-1968 ascii cp1252 cp819 csisolatin1 ibm819 iso-8859-1 iso-ir-100 "
    "iso8859-1 iso88591 iso_8859-1 iso_8859-1:1987 l1 latin1 us-ascii windows-1252 x-cp1252 latin-1",
    "cp1253": "cp1253 windows-1253 x-cp1253",
    "cp1254": "cp1254 csisolatin5 iso-8859-9 iso-ir-148 iso8859-9 iso88599 iso_8859-9 "
    "iso_8859-9:1989 l5 latin5 windows-1254 x-cp1254",
    "cp1255": "cp1255 windows-1255 x-cp1255",
    "cp1256": "cp1256 windows-1256 x-cp1256",
    "cp1257": "cp1257 windows-1257 x-cp1257",
    "cp1258": "cp1258 windows-1258 x-cp1258",
    "mac-cyrillic": "x-mac-cyrillic x-mac-ukrainian",
    "gb18030": "chinese csgb2312 csiso58gb231280 gb2312 gb_2312 gb_2312-80 gbk iso-ir-58 "
    "x-gbk gb18030",
    "big5hkscs": "big5 big5-hkscs cn-big5 csbig5 x-x-big5",
    "euc_jp": "cseucpkdfmtjapanese euc-jp x-euc-jp",
    "iso2022_jp": "csiso2022jp iso-2022-jp",
    "cp932": "csshiftjis ms932 ms_kanji shift-jis shift_jis sjis windows-31j x-sjis x-shift-jis",
    "cp949": "cseuckr csksc56011987 euc-kr iso-ir-149 korean ks_c_5601-1987 ks_c_5601-1989 "
    "ksc5601 ksc_5601 windows-949",
    "utf-16-be": "unicodefffe utf-16be",
    "utf-16-le": "csunicode iso-10646-ucs-2 ucs-2 unicode unicodefeff utf-16 utf-16le",
}


def _build_label_table() -> dict[str, str]:
    table: dict[str, str] = {}
    for codec, labels in _LABELS.items():
        name = codecs.lookup(codec).name
        # Python's own names for these codecs are accepted too (charset-normalizer uses them).
        for label in (*labels.split(), codec, name, name.replace("-", "_")):
            table[label] = name
    return table


_LABEL_TABLE = _build_label_table()
_UTF16 = frozenset({"utf-16-le", "utf-16-be"})
_MULTI_BYTE = frozenset(
    {
        "utf-8",
        "utf-16-le",
        "utf-16-be",
        "gb18030",
        "big5hkscs",
        "euc_jp",
        "iso2022_jp",
        "cp932",
        "cp949",
    }
)
_NON_ASCII = re.compile(r"[^\x00-\x7f]")

_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)

# ``[^>]{0,1024}?`` keeps the scan linear-ish on hostile input; a charset further into a tag
# than that is not worth finding.
_META_CHARSET = re.compile(
    rb"<meta\s[^>]{0,1024}?charset\s*=\s*[\"']?\s*([a-z0-9_.:\-]+)",
    re.I,
)
_XML_DECL = re.compile(rb"\s*<\?xml\s[^>]{0,256}?encoding\s*=\s*[\"']([a-z0-9_.:\-]+)", re.I)


def normalize_label(label: str | None) -> str | None:
    """Map a charset label to a Python codec name the WHATWG way, or None if unknown."""
    if not label:
        return None
    key = label.strip().strip("\"'").strip().lower()
    return _LABEL_TABLE.get(key) or _LABEL_TABLE.get(key.replace("_", "-"))


def sniff_bom(data: bytes) -> str | None:
    """The codec named by a byte order mark at the start of ``data``, if any."""
    for bom, name in _BOMS:
        if data.startswith(bom):
            return name
    return None


def _bom_length(codec: str) -> int:
    return next(len(bom) for bom, name in _BOMS if name == codec)


def find_meta_charset(data: bytes, limit: int = META_SCAN_BYTES) -> str | None:
    """The raw label of the first ``<meta>`` charset (or XML declaration) in ``data[:limit]``."""
    head = data[:limit]
    match = _XML_DECL.match(head) or _META_CHARSET.search(head)
    return match.group(1).decode("ascii") if match else None


def guess_utf16_32(data: bytes) -> str | None:
    """Recognise BOM-less UTF-16/UTF-32 by where the NUL bytes fall in the first 1 KB.

    Markup is mostly ASCII, so in UTF-16LE every odd byte of it is NUL and no even one is.
    """
    sample = data[:1024]
    sample = sample[: len(sample) - len(sample) % 4]
    if len(sample) < 16 or b"\x00" not in sample:
        return None
    quarter = len(sample) // 4
    nul = [sample[i::4].count(0) / quarter for i in range(4)]
    if nul[0] < 0.1 and nul[2] > 0.9 and nul[3] > 0.9:
        return "utf-32-le"
    if nul[3] < 0.1 and nul[0] > 0.9 and nul[1] > 0.9:
        return "utf-32-be"
    even, odd = (nul[0] + nul[2]) / 2, (nul[1] + nul[3]) / 2
    if odd > 0.25 and even < 0.02:
        return "utf-16-le"
    if even > 0.25 and odd < 0.02:
        return "utf-16-be"
    return None


def _strict(data: bytes, codec: str) -> str | None:
    """Decode strictly, forgiving only a multi-byte character cut off at the very end."""
    try:
        return data.decode(codec)
    except UnicodeDecodeError as err:
        if err.end == len(data) and err.start >= len(data) - 3:
            return data.decode(codec, "replace")
        return None
    except LookupError:
        return None


def _mostly_utf8(data: bytes) -> bool:
    """UTF-8 with a few stray bytes (a common mix-up) rather than a legacy single-byte text.

    In legacy encodings a high byte is rarely followed by a UTF-8 continuation byte, so valid
    multi-byte sequences vastly outnumber invalid ones only in (damaged) UTF-8.
    """
    text = data.decode("utf-8", "replace")
    bad = text.count("\ufffd")
    good = len(_NON_ASCII.findall(text)) - bad
    return good >= 8 and bad * 20 <= good


def _whole_sample(data: bytes, size: int) -> bytes:
    """``data[:size]`` cut back to an ASCII byte so no multi-byte character is split."""
    if len(data) <= size:
        return data
    sample = data[:size]
    for back in range(1, 65):
        if sample[-back] < 0x80:
            return sample[: len(sample) - back + 1]
    return sample


def detect_charset(data: bytes) -> str | None:
    """Guess the codec of undeclared bytes; None when nothing fits.

    UTF-16/32 by the NUL pattern comes first (ASCII in UTF-16 is also valid UTF-8), then strict
    UTF-8, then UTF-8 with a few stray bytes, then charset-normalizer on a bounded sample,
    keeping only its answers that are WHATWG encodings (and not UTF-16, which without the NUL
    pattern would be a misreading).
    """
    wide = guess_utf16_32(data)
    if wide is not None:
        return wide  # the NUL pattern is strong evidence, even if a few code units are broken
    if _strict(data, "utf-8") is not None:
        return "utf-8"
    if _mostly_utf8(data[:DETECT_SAMPLE_BYTES]):
        return "utf-8"
    sample = _whole_sample(data, DETECT_SAMPLE_BYTES)
    candidates = []
    for match in from_bytes(sample):
        codec = normalize_label(match.encoding)
        if codec is not None and codec not in _UTF16:
            candidates.append((codec, match))
    if not candidates:
        return None
    best, best_match = candidates[0]
    if best in _MULTI_BYTE or best == "cp1252":
        return best
    # charset-normalizer often names a sibling Latin code page for short Western text; prefer
    # windows-1252 (the web's usual legacy encoding) when it reads the sample the same way or
    # scored about as well.
    western = _strict(sample, "cp1252")
    if western is not None and (
        western == str(best_match)
        or any(c == "cp1252" and m.chaos <= best_match.chaos + 0.1 for c, m in candidates)
    ):
        return "cp1252"
    return best


# Codecs in which a text can hold U+0000 without a zero byte in its bytes: a NUL byte test on
# the bytes cannot stand in for a scan of the text (see ``_finish``).
_WIDE = frozenset({"utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"})


def _finish(text: str, codec: str, source: str, data: bytes) -> DecodedText:
    # In every other codec here U+0000 only ever comes from a zero byte, and the byte test is a
    # memchr: scanning the text instead costs more than decoding it when the text holds
    # non-Latin-1 characters (0.2 ms a page on the benchmark pages). replace() copies the page
    # even with no NUL, hence the test first.
    if (codec in _WIDE or b"\x00" in data) and "\x00" in text:
        text = text.replace("\x00", "")
    return DecodedText(text, codec, source)


def _declared(data: bytes, label: str | None, *, from_meta: bool) -> tuple[str, str] | None:
    codec = normalize_label(label)
    if codec is None:
        return None
    if codec in _UTF16:
        wide = guess_utf16_32(data)
        if wide in _UTF16:
            codec = wide  # trust the byte pattern over the label's endianness
        elif from_meta:
            codec = "utf-8"  # WHATWG: a meta found in ASCII-compatible bytes cannot mean UTF-16
        else:
            return None
    text = _strict(data, codec)
    return None if text is None else (text, codec)


def _utf8_declared_single_byte(data: bytes, codec: str) -> str | None:
    """The text of ``data`` if it is valid UTF-8 with non-ASCII characters although declared
    as the single-byte ``codec``, else None."""
    if codec in _MULTI_BYTE or data.isascii():
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def decode_text(data: bytes, http_charset: str | None = None) -> DecodedText:
    """Decode HTML bytes to text following the chain in the module docstring.

    Never raises; NUL characters are removed from the text, so ``len(text) <= len(data)``.
    """
    bom = sniff_bom(data)
    if bom is not None:
        text = data[_bom_length(bom) :].decode(bom, "replace")
        return _finish(text, bom, BOM, data)
    found, source = _declared(data, http_charset, from_meta=False), HTTP
    if found is None:
        found, source = _declared(data, find_meta_charset(data), from_meta=True), META
    if found is not None:
        text, codec = found
        utf8 = _utf8_declared_single_byte(data, codec)
        if utf8 is not None:
            return _finish(utf8, "utf-8", DETECTED, data)
        return _finish(text, codec, source, data)
    detected = detect_charset(data)
    if detected is not None:
        return _finish(data.decode(detected, "replace"), detected, DETECTED, data)
    return _finish(data.decode("utf-8", "replace"), "utf-8", FALLBACK, data)


def utf8_form(data: bytes, decoded: DecodedText) -> bytes | None:
    """``data`` when ``decoded.text == data.decode("utf-8")`` (strictly), else None: then
    a parser can take the bytes as they are instead of encoding the text back to them.

    A decoding with errors replaced would hold U+FFFD and one with NULs removed had a zero
    byte, so a text with neither, decoded as UTF-8 without a byte-order mark, is the strict
    decoding. A declared charset (``http``, ``meta``) is only used when the bytes decode
    strictly but for a character cut off at the very end, so there only the last character
    needs looking at, not the whole text. (A page that really holds U+FFFD only misses the
    shortcut.)
    """
    text, charset, source = decoded
    if charset != "utf-8" or source == BOM or b"\x00" in data:
        return None
    replaced = text.endswith("\ufffd") if source in (HTTP, META) else "\ufffd" in text
    return None if replaced else bytes(data)
