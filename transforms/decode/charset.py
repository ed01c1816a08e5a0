"""Bytes of an HTML document to text, recording which evidence chose the charset.

The chain, first match wins:

1. ``bom``: a UTF-8, UTF-16 or UTF-32 byte order mark (always trusted, as browsers do);
2. ``http``: the charset parameter of the transport Content-Type;
3. ``meta``: ``<meta charset>`` / ``<meta http-equiv=Content-Type content="...charset=...">`` or
   an XML declaration, found by a bounded scan of the first bytes;
4. ``detected``: UTF-16/32 by where the NUL bytes and the markup fall, ISO-2022-JP and
   ISO-2022-KR by their escape sequences, strict UTF-8, "UTF-8 with a few stray bytes", sparse
   Western text (below), then charset-normalizer on a bounded sample;
5. ``fallback``: UTF-8 with replacement characters.

Declared labels are mapped as the WHATWG Encoding standard does (``iso-8859-1`` means
windows-1252, ``gb2312`` means gb18030, ...); unknown labels are ignored, and a declared charset
that cannot decode the bytes is skipped in favour of the next step: first the other encodings of
the same language (a page labelled Shift_JIS that is EUC-JP is still Japanese; a statistical
detector reads it as Chinese), then the rest of the chain. A page labelled Shift_JIS whose
decoding is mostly half-width katakana, and that is valid EUC-JP, is EUC-JP: that is how
EUC-JP reads in Shift_JIS when it happens to decode. ``hz-gb-2312`` and ``iso-2022-kr``, which
WHATWG maps to its "replacement" encoding (browsers refuse 7-bit encodings that can hide
markup), are decoded with Python's codecs: text extraction has nothing to protect.

A declared single-byte charset (windows-1252, ...) on bytes that are valid UTF-8 with
non-ASCII characters yields to UTF-8, ``detected``: such pages are mis-declared, read as
declared they are mojibake ("cafÃ©"), and legacy text is practically never valid UTF-8 by
accident (a browser would follow the declaration).

Sparse Western text: undeclared pages of the 2000s are mostly ASCII with a few typographic
characters in windows-1252 (curly quotes, dashes, "©", an "é"). Every Windows code page reads
those punctuation bytes alike (``_SAME_IN_WINDOWS_CODE_PAGES``), so they say nothing about
which one was meant; only the other non-ASCII bytes do. When there are at most
``SPARSE_BYTES`` of those and no two of them are side by side (the words of Cyrillic, Greek,
Hebrew, Arabic and Thai text and CJK's double bytes always put them together), there is no
evidence for another code page and the page is windows-1252, the web's legacy default, as
charset-normalizer also concludes on such pages after several milliseconds. Decoding never
raises.
"""

from __future__ import annotations

import codecs
import re
from typing import NamedTuple

from charset_normalizer import from_bytes

from transforms.decode.utf8 import plain_utf8

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
    "utf8_source",
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
# Python codec that decodes that encoding. Of the labels WHATWG maps to its "replacement"
# encoding, those Python can decode (hz-gb-2312, iso-2022-kr) are decoded; the others
# (iso-2022-cn, replacement) and x-user-defined are absent: they are treated as unknown.
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
    "iso2022_kr": "csiso2022kr iso-2022-kr",
    "hz": "hz-gb-2312",
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
        "iso2022_kr",
        "hz",
        "cp932",
        "cp949",
    }
)
# The encodings of one language, in the order to try when a declared one fails to decode.
_SIBLINGS = {
    "cp932": ("euc_jp", "iso2022_jp"),
    "euc_jp": ("cp932", "iso2022_jp"),
    "iso2022_jp": ("euc_jp", "cp932"),
    "gb18030": ("big5hkscs",),
    "big5hkscs": ("gb18030",),
}
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
    return _utf16_by_markup(sample)


# "<", ">" and "/" as UTF-16 code units: a NUL byte beside each, on its side of the pair
_MARKUP = frozenset(b"<>/")
MARKUP_UNITS = 4


def _utf16_by_markup(sample: bytes) -> str | None:
    """UTF-16 whose text is mostly CJK: few NUL bytes (a CJK character has none), but its
    markup characters are code units with a NUL byte, all on one side of the pairs.

    At least ``MARKUP_UNITS`` of them on one side, none on the other: narrow text has no NUL
    beside a "<", and random bytes seldom put one there."""
    low, high = sample[0::2], sample[1::2]
    le = sum(1 for a, b in zip(low, high, strict=True) if b == 0 and a in _MARKUP)
    be = sum(1 for a, b in zip(low, high, strict=True) if a == 0 and b in _MARKUP)
    if le >= MARKUP_UNITS and not be:
        return "utf-16-le"
    if be >= MARKUP_UNITS and not le:
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


_NOT_UTF8_LEADS = bytes(b for b in range(256) if not 0xC2 <= b <= 0xF4)


def _mostly_utf8(data: bytes) -> bool:
    """UTF-8 with a few stray bytes (a common mix-up) rather than a legacy single-byte text.

    In legacy encodings a high byte is rarely followed by a UTF-8 continuation byte, so valid
    multi-byte sequences vastly outnumber invalid ones only in (damaged) UTF-8.

    Each valid sequence starts with a lead byte (0xC2-0xF4): with fewer than eight of those
    there cannot be eight good characters, and the decoding with replacements (slow: a call
    of the error handler per bad byte) is not needed.
    """
    if len(data.translate(None, _NOT_UTF8_LEADS)) < 8:
        return False
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
    """Guess the codec of undeclared bytes; None when nothing fits (see ``_detect``)."""
    found = _detect(data)
    return None if found is None else found[0]


# ISO-2022-JP's and ISO-2022-KR's designations (ESC $ B, ESC ( J, ...; ESC $ ) C): an escape
# byte is never text, so these name the encoding.
_ISO2022 = (
    (re.compile(rb"\x1b(?:\$[@B]|\([BJ])"), "iso2022_jp"),
    (re.compile(rb"\x1b\$\)C"), "iso2022_kr"),
)
_ASCII = bytes(range(0x80))
# The bytes every Windows code page (1250-1258) reads as the same character: typographic
# punctuation and symbols (’ “ ” – — … • ™ © ® « » ° NBSP, ...).
_SAME_IN_WINDOWS_CODE_PAGES = bytes(
    b
    for b in range(0x80, 0x100)
    if len({bytes([b]).decode(f"cp{page}", "replace") for page in range(1250, 1259)}) == 1
    and bytes([b]).decode("cp1252", "replace") != "\ufffd"
)
_NOT_TELLING = _ASCII + _SAME_IN_WINDOWS_CODE_PAGES
# windows-1252's letters (its Icelandic ones, ð þ ý, are how Turkish and Baltic letters read in
# it: a page holding one is not taken for sparse Western text)
_WESTERN_LETTERS = (frozenset(range(0xC0, 0x100)) - frozenset(b"\xd7\xf7")) | frozenset(
    b"\x8a\x8c\x8e\x9a\x9c\x9e\x9f"
)
# undefined in windows-1252, and Icelandic's letters
_NEVER_SPARSE_WESTERN = frozenset(b"\x81\x8d\x8f\x90\x9d\xd0\xde\xdd\xf0\xfe\xfd")
_ACUTE = 0xB4  # "´", written for an apostrophe inside words
SPARSE_BYTES = 16  # non-ASCII bytes, other than punctuation, of sparse Western text


def _is_ascii_letter(byte: int) -> bool:
    return 0x61 <= (byte | 0x20) <= 0x7A


def _sparse_western(sample: bytes) -> bool:
    """Whether ``sample`` is sparse Western text (module docstring): at most ``SPARSE_BYTES``
    non-ASCII bytes that the Windows code pages read differently, each a windows-1252 letter
    (not an Icelandic one) or a symbol standing apart from ASCII letters ("si³a", "¿e" are
    Polish read in the wrong code page), and no two of them in one run of non-ASCII bytes."""
    telling = sample.translate(None, _NOT_TELLING)
    if len(telling) > SPARSE_BYTES or not _NEVER_SPARSE_WESTERN.isdisjoint(telling):
        return False
    for byte in set(telling):
        symbol = byte not in _WESTERN_LETTERS and byte != _ACUTE
        pos = sample.find(byte)
        while pos >= 0:
            for step in (-1, 1):  # the rest of its run of non-ASCII bytes, both ways
                at = pos + step
                while 0 <= at < len(sample) and sample[at] >= 0x80:
                    if sample[at] not in _SAME_IN_WINDOWS_CODE_PAGES:
                        return False
                    at += step
                beside = 0 <= at < len(sample) and at == pos + step and sample[at]
                if symbol and beside and _is_ascii_letter(beside):
                    return False
            pos = sample.find(byte, pos + 1)
    return True


def _detect(data: bytes) -> tuple[str, str | None] | None:
    """The codec of undeclared bytes, with their strict decoding when that was needed to
    choose it (else None); None when nothing fits.

    UTF-16/32 by the NUL pattern comes first (ASCII in UTF-16 is also valid UTF-8), then the
    7-bit ISO-2022 encodings by their escapes (also valid UTF-8), strict UTF-8, UTF-8 with a
    few stray bytes, sparse Western text, then charset-normalizer on a bounded sample,
    keeping only its answers that are WHATWG encodings (and not UTF-16, which without the NUL
    pattern would be a misreading).
    """
    wide = guess_utf16_32(data)
    if wide is not None:
        return wide, None  # the NUL pattern is strong evidence, even if a few units are broken
    if b"\x1b" in data:
        for escapes, codec in _ISO2022:
            if escapes.search(data, 0, DETECT_SAMPLE_BYTES):
                text = _strict(data, codec)
                if text is not None:
                    return codec, text
    text = _strict(data, "utf-8")
    if text is not None:
        return "utf-8", text
    if _mostly_utf8(data[:DETECT_SAMPLE_BYTES]):
        return "utf-8", None
    sample = _whole_sample(data, DETECT_SAMPLE_BYTES)
    if _sparse_western(sample):
        return "cp1252", None
    candidates = []
    for match in from_bytes(sample):
        codec = normalize_label(match.encoding)
        if codec is not None and codec not in _UTF16:
            candidates.append((codec, match))
    if not candidates:
        return None
    best, best_match = candidates[0]
    if best in _MULTI_BYTE or best == "cp1252":
        return best, None
    # charset-normalizer often names a sibling Latin code page for short Western text; prefer
    # windows-1252 (the web's usual legacy encoding) when it reads the sample the same way or
    # scored about as well.
    western = _strict(sample, "cp1252")
    if western is not None and (
        western == str(best_match)
        or any(c == "cp1252" and m.chaos <= best_match.chaos + 0.1 for c, m in candidates)
    ):
        return "cp1252", None
    return best, None


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
    for candidate in (codec, *_SIBLINGS.get(codec, ())):
        text = _strict(data, candidate)
        if text is not None:
            if candidate == "cp932" and (euc := _euc_jp_read_as_shift_jis(data, text)):
                return euc, "euc_jp"
            return text, candidate
    return None


_HALF_WIDTH_KANA = re.compile("[\uff61-\uff9f]")


def _euc_jp_read_as_shift_jis(data: bytes, text: str) -> str | None:
    """``data`` decoded as EUC-JP if ``text``, its decoding as Shift_JIS, is EUC-JP read so:
    half-width katakana (EUC-JP's bytes 0xA1-0xDF, one character each in Shift_JIS) are over
    a third of its non-ASCII characters, where Japanese text has few, and ``data`` is valid
    EUC-JP. Else None."""
    kana = len(_HALF_WIDTH_KANA.findall(text))
    if not kana or kana * 3 <= len(text) - len(text.encode("ascii", "ignore")):
        return None
    return _strict(data, "euc_jp")


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
    detected = _detect(data)
    if detected is not None:
        codec, text = detected
        if text is None:
            text = data.decode(codec, "replace")
        return _finish(text, codec, DETECTED, data)
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


def utf8_source(data: bytes, http_charset: str | None = None) -> str | None:
    """The source ``decode_text(data, http_charset)`` would give when it reads ``data`` as
    strict UTF-8 that ``utf8_form`` passes through as it is (``http``, ``meta`` or
    ``detected``), told without making the text; None when that is not so, or not certain
    without the text: then ``decode_text`` is the answer, as ever.

    The common page of a crawl, declared UTF-8 or declaring nothing and valid, is parsed as its
    bytes: its text is made only if something needs it (``transforms.extract.limits``), which
    saves a decoding of the whole page (5-10% of an extraction). Certain means: no byte-order
    mark, valid UTF-8 without NUL or U+FFFD (which ``utf8_form`` refuses: ``utf8.plain_utf8``),
    and a declaration that names UTF-8, or none at all and no escape byte
    (ISO-2022 is tried before UTF-8). A page declared in another charset goes the whole way
    (the chain may still read it as UTF-8)."""
    if sniff_bom(data) is not None or not plain_utf8(data):
        return None
    declared = normalize_label(http_charset)
    if declared is not None:
        return HTTP if declared == "utf-8" else None
    declared = normalize_label(find_meta_charset(data))
    if declared is not None:
        return META if declared == "utf-8" else None
    return None if b"\x1b" in data else DETECTED
