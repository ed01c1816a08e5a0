from __future__ import annotations

import codecs

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from transforms.decode import charset as charset_module
from transforms.decode.charset import (
    BOM,
    DETECTED,
    FALLBACK,
    HTTP,
    META,
    decode_text,
    detect_charset,
    find_meta_charset,
    guess_utf16_32,
    normalize_label,
    sniff_bom,
)

RUSSIAN = (
    "<p>Привет, мир! Это проверка кодировки: съешь же ещё этих мягких французских булок.</p>" * 3
)
CHINESE = "<p>中文网页，简体中文编码测试。这是一个段落，用来检测字符集。我们的网站欢迎您。</p>" * 3
JAPANESE = (
    "<p>日本語のウェブページです。文字コードのテストをしています。よろしくお願いします。</p>" * 3
)
FRENCH = "<p>Le café est très apprécié à Noël ; déjà vu, naïve façon, où êtes-vous ?</p>" * 3


@pytest.mark.parametrize(
    ("label", "codec"),
    [
        ("utf-8", "utf-8"),
        ("UTF8", "utf-8"),
        (" 'ISO-8859-1' ", "cp1252"),
        ("latin1", "cp1252"),
        ("us-ascii", "cp1252"),
        ("iso-8859-9", "cp1254"),
        ("gb2312", "gb18030"),
        ("GBK", "gb18030"),
        ("shift_jis", "cp932"),
        ("x-sjis", "cp932"),
        ("Shift-JIS", "cp932"),
        ("windows-31j", "cp932"),
        ("euc-kr", "cp949"),
        ("big5", "big5hkscs"),
        ("windows-1251", "cp1251"),
        ("koi8-r", "koi8-r"),
        ("utf-16", "utf-16-le"),
        ("unicode", "utf-16-le"),
        ("utf-16be", "utf-16-be"),
        ("euc_kr", "cp949"),
        ("iso8859_5", "iso8859-5"),
    ],
)
def test_normalize_label_whatwg(label: str, codec: str) -> None:
    assert normalize_label(label) == codec


@pytest.mark.parametrize(
    "label",
    [
        None,
        "",
        "x-user-defined",
        "iso-2022-cn",
        "replacement",
        "utf-7",
        "base64",
        "rot13",
        "nonsense",
    ],
)
def test_unknown_and_unsafe_labels_are_none(label: str | None) -> None:
    assert normalize_label(label) is None


@pytest.mark.parametrize(
    ("encoded", "codec"),
    [
        (codecs.BOM_UTF8 + "<p>é".encode(), "utf-8"),
        (codecs.BOM_UTF16_LE + "<p>é".encode("utf-16-le"), "utf-16-le"),
        (codecs.BOM_UTF16_BE + "<p>é".encode("utf-16-be"), "utf-16-be"),
        (codecs.BOM_UTF32_LE + "<p>é".encode("utf-32-le"), "utf-32-le"),
        (codecs.BOM_UTF32_BE + "<p>é".encode("utf-32-be"), "utf-32-be"),
    ],
)
def test_bom_wins_over_everything(encoded: bytes, codec: str) -> None:
    assert sniff_bom(encoded) == codec
    result = decode_text(encoded, http_charset="windows-1251")
    assert result == ("<p>é", codec, BOM)


def test_http_charset() -> None:
    result = decode_text(RUSSIAN.encode("cp1251"), "windows-1251")
    assert result == (RUSSIAN, "cp1251", HTTP)


def test_http_latin1_means_windows_1252() -> None:
    data = "<p>“quoted” café</p>".encode("cp1252")
    assert decode_text(data, "ISO-8859-1") == ("<p>“quoted” café</p>", "cp1252", HTTP)


@pytest.mark.parametrize("http", [None, "iso-8859-1", "windows-1251"])
def test_utf8_declared_as_a_single_byte_charset_is_read_as_utf8(http: str | None) -> None:
    data = '<meta charset="iso-8859-1"><p>Café – naïve – Привет</p>'.encode()
    assert decode_text(data, http) == (data.decode("utf-8"), "utf-8", DETECTED)


def test_a_declared_single_byte_charset_holds_for_ascii_and_for_invalid_utf8() -> None:
    ascii_page = b'<meta charset="windows-1252"><p>plain</p>'
    assert decode_text(ascii_page)[1:] == ("cp1252", META)
    western = '<meta charset="iso-8859-1"><p>Café “quoted”</p>'.encode("cp1252")
    assert decode_text(western) == (western.decode("cp1252"), "cp1252", META)


def test_unknown_http_label_is_skipped() -> None:
    data = b'<meta charset="koi8-r">' + RUSSIAN.encode("koi8-r")
    assert decode_text(data, "x-bogus").source == META


@pytest.mark.parametrize(
    "tag",
    [
        b'<meta charset="windows-1251">',
        b"<META CHARSET=windows-1251>",
        b"<meta charset='cp1251' />",
        b'<meta http-equiv="Content-Type" content="text/html; charset=windows-1251">',
        b'<meta content="text/html;charset=windows-1251" http-equiv="content-type">',
    ],
)
def test_meta_charset(tag: bytes) -> None:
    data = b"<html><head>" + tag + b"</head><body>" + RUSSIAN.encode("cp1251")
    assert decode_text(data) == (data.decode("cp1251"), "cp1251", META)


def test_xml_declaration_encoding() -> None:
    data = b'<?xml version="1.0" encoding="ISO-8859-2"?><html>' + "zażółć".encode("iso8859-2")
    assert decode_text(data)[1:] == ("iso8859-2", META)


def test_meta_scan_is_bounded() -> None:
    data = b"<p>" + b"x" * 10_000 + b'<meta charset="koi8-r">'
    assert find_meta_charset(data) is None
    assert find_meta_charset(data, limit=20_000) == "koi8-r"


def test_lying_meta_charset_is_skipped() -> None:
    # Claims Shift_JIS but is UTF-8 with Cyrillic, which is not valid Shift_JIS.
    data = b'<meta charset="shift_jis">' + RUSSIAN.encode("utf-8")
    assert decode_text(data) == (data.decode("utf-8"), "utf-8", DETECTED)


def test_lying_http_charset_falls_through_to_meta() -> None:
    data = b'<meta charset="gb2312">' + CHINESE.encode("gb2312")
    assert decode_text(data, "utf-8") == (data.decode("gb18030"), "gb18030", META)


def test_meta_utf16_on_ascii_page_means_utf8() -> None:
    data = b'<meta charset="utf-16"><p>' + "café".encode()
    assert decode_text(data) == ('<meta charset="utf-16"><p>café', "utf-8", META)


def test_http_utf16_on_ascii_page_is_skipped() -> None:
    data = b"<p>" + "café".encode()
    assert decode_text(data, "utf-16").source == DETECTED


def test_http_utf16_label_trusts_byte_order() -> None:
    data = ("<p>" + RUSSIAN).encode("utf-16-be")
    assert decode_text(data, "utf-16") == ("<p>" + RUSSIAN, "utf-16-be", HTTP)


@pytest.mark.parametrize(
    ("text", "encoding", "codec"),
    [
        (RUSSIAN, "cp1251", "cp1251"),
        (CHINESE, "gb2312", "gb18030"),
        (JAPANESE, "shift_jis", "cp932"),
        (RUSSIAN, "utf-8", "utf-8"),
        ("<p>plain ascii</p>", "ascii", "utf-8"),
    ],
)
def test_detection(text: str, encoding: str, codec: str) -> None:
    assert decode_text(text.encode(encoding)) == (text, codec, DETECTED)


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"])
def test_wide_encodings_without_bom(codec: str) -> None:
    data = ("<html>" + RUSSIAN).encode(codec)
    assert guess_utf16_32(data) == codec
    assert decode_text(data) == ("<html>" + RUSSIAN, codec, DETECTED)


def test_utf16_without_bom_with_a_broken_code_unit() -> None:
    data = ("<html>" + RUSSIAN).encode("utf-16-le") + b"\x00\xd8" + "<p>end".encode("utf-16-le")
    result = decode_text(data)
    assert (result.charset, result.source) == ("utf-16-le", DETECTED)
    assert result.text.endswith("\ufffd<p>end")


def test_guess_utf16_32_ignores_narrow_text() -> None:
    assert guess_utf16_32(RUSSIAN.encode("cp1251")) is None
    assert guess_utf16_32(b"\x00" * 3) is None


def test_mostly_utf8_with_a_stray_byte() -> None:
    data = FRENCH.encode("utf-8") + b" \xe9 " + FRENCH.encode("utf-8")
    result = decode_text(data, "utf-8")
    assert result.charset == "utf-8" and result.source == DETECTED
    assert result.text.count("\ufffd") == 1


@pytest.mark.parametrize("text", [FRENCH, "<p>Größe und Übermaß, schön</p>"])
def test_western_text_is_windows_1252(text: str) -> None:
    assert detect_charset(text.encode("cp1252")) == "cp1252"


def test_polish_is_not_forced_to_windows_1252() -> None:
    text = (
        "<p>Wszyscy ludzie rodzą się wolni i równi pod względem swej godności i swych praw. "
        "Są oni obdarzeni rozumem i sumieniem i powinni postępować wobec innych w duchu "
        "braterstwa. Każdy człowiek posiada wszystkie prawa i wolności zawarte w Deklaracji.</p>"
    )
    assert detect_charset(text.encode("cp1250")) == "cp1250"


def test_truncated_multibyte_tail_keeps_declared_charset() -> None:
    data = "<p>Привет".encode()[:-1]
    result = decode_text(data, "utf-8")
    assert result.source == HTTP and result.text.endswith("\ufffd")


def test_nul_bytes_are_removed() -> None:
    assert decode_text(b"<p>a\x00b</p>", "utf-8") == ("<p>ab</p>", "utf-8", HTTP)


def test_invalid_utf8_binary_falls_back_without_raising() -> None:
    result = decode_text(bytes(range(0x80, 0x100)) * 2)
    assert result.source in (DETECTED, FALLBACK)
    assert len(result.text) <= 256


def test_empty_input() -> None:
    assert decode_text(b"") == ("", "utf-8", DETECTED)


LABELS = st.sampled_from(
    [None, "utf-8", "utf-16", "utf-16be", "shift_jis", "gb2312", "iso-8859-1", "bogus", "big5"]
)


@settings(max_examples=300, deadline=None)
@given(data=st.binary(max_size=2048), label=LABELS)
def test_decoding_never_raises_and_is_bounded(data: bytes, label: str | None) -> None:
    result = decode_text(data, label)
    assert isinstance(result.text, str)
    assert len(result.text) <= len(data)
    assert "\x00" not in result.text
    assert codecs.lookup(result.charset).name == result.charset
    assert result.source in (BOM, HTTP, META, DETECTED, FALLBACK)


@settings(max_examples=100, deadline=None)
@given(text=st.text(max_size=300))
def test_meta_declared_utf8_round_trips(text: str) -> None:
    page = "<meta charset=utf-8>" + text
    assert decode_text(page.encode("utf-8")) == (page.replace("\x00", ""), "utf-8", META)


def test_only_wide_codecs_make_nul_characters_from_non_zero_bytes():
    """decode_text checks the bytes for a zero byte instead of scanning the text for U+0000:
    exact only if no other codec decodes bytes without a zero to a text with a NUL."""
    from transforms.decode.charset import _LABEL_TABLE, _WIDE

    pairs = bytes(b for a in range(1, 256) for c in range(1, 256) for b in (a, c))
    for codec in set(_LABEL_TABLE.values()) - _WIDE:
        assert "\x00" not in pairs.decode(codec, "replace"), codec
        for a in range(1, 256):  # each lead byte with every follower, in step
            assert "\x00" not in bytes([a]).join(bytes([c]) for c in range(1, 256)).decode(
                codec, "replace"
            ), codec
    assert decode_text(b"<p>a\x00b</p>", "utf-8").text == "<p>ab</p>"
    assert decode_text("<p>a\x00b</p>".encode("utf-16-le"), "utf-16le").text == "<p>ab</p>"


# --- the encodings of issue 21: what a crawl of older CJK pages holds --------------------------

CJK_PAGE = (
    "<html><head><title>中文网页</title></head><body><p>"
    + "这是一个中文网页。北京是中国的首都。今天天气很好。我们一起去公园散步吧。" * 20
    + "</p></body></html>"
)
JAPANESE_PAGE = f"<html><head><title>日本語</title></head><body>{JAPANESE}</body></html>"


def test_iso_2022_jp_without_a_label_is_read_by_its_escapes() -> None:
    data = JAPANESE_PAGE.encode("iso2022_jp")
    assert data.isascii() and b"\x1b$B" in data  # also valid UTF-8: ESC sequences as text
    assert decode_text(data) == (JAPANESE_PAGE, "iso2022_jp", DETECTED)


def test_iso_2022_kr_without_a_label_is_read_by_its_escapes() -> None:
    korean = "<p>한국어 문장입니다. 서울은 한국의 수도입니다.</p>"
    assert decode_text(korean.encode("iso2022_kr")) == (korean, "iso2022_kr", DETECTED)


@pytest.mark.parametrize("label", ["shift_jis", "iso-2022-jp"])
def test_euc_jp_under_another_japanese_label_is_read_as_euc_jp(label: str) -> None:
    """The declared encoding fails to decode: the page's language still holds (a statistical
    detector read this page as Chinese)."""
    data = JAPANESE_PAGE.encode("euc_jp")
    assert decode_text(data, label) == (JAPANESE_PAGE, "euc_jp", HTTP)
    meta = JAPANESE_PAGE.replace("<head>", f'<head><meta charset="{label}">').encode("euc_jp")
    assert decode_text(meta).charset == "euc_jp"


def test_euc_jp_that_decodes_as_shift_jis_is_read_as_euc_jp() -> None:
    text = "<p>ｱｲｳ カタカナとひらがなの文章です。</p>"
    data = text.encode("euc_jp")
    assert data.decode("cp932")  # valid Shift_JIS too: half-width katakana soup
    assert decode_text(data, "shift_jis") == (text, "euc_jp", HTTP)


def test_shift_jis_with_some_half_width_katakana_stays_shift_jis() -> None:
    text = "<p>ｶﾀｶﾅ はんかく の もじ を すこし つかう ぶんしょう です。</p>"
    assert decode_text(text.encode("cp932"), "shift_jis") == (text, "cp932", HTTP)


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
@pytest.mark.parametrize("label", [None, "utf-16"])
def test_cjk_heavy_utf16_without_a_bom_is_recognised(codec: str, label: str | None) -> None:
    data = CJK_PAGE.encode(codec)
    assert data[:1024].count(0) < 100  # few NUL bytes: CJK code units have none
    assert guess_utf16_32(data) == codec
    assert decode_text(data, label) == (CJK_PAGE, codec, HTTP if label else DETECTED)


@pytest.mark.parametrize(
    ("label", "codec", "encode"),
    [("hz-gb-2312", "hz", "hz"), ("iso-2022-kr", "iso2022_kr", "iso2022_kr")],
)
def test_replacement_labels_python_can_decode_are_decoded(label, codec, encode) -> None:
    """WHATWG maps these to its "replacement" encoding (browsers refuse to decode 7-bit
    encodings that could hide markup); read as ASCII they are rows of "~{" or escapes."""
    text = CJK_PAGE if codec == "hz" else "<p>한국어 문장입니다. 서울은 한국의 수도입니다.</p>"
    assert normalize_label(label) == codec
    assert decode_text(text.encode(encode), label) == (text, codec, HTTP)


# --- sparse Western text: windows-1252 without charset-normalizer -----------------------------


@pytest.mark.parametrize(
    "text",
    [
        "<p>It’s “quoted” – and © 2006 • all rights.</p>",
        "<p>A café naïve façade — déjà vu</p>",
        "<p>Don´t panic</p>",
        "<p>Price: 5 ½ lbs ± 1</p>",
    ],
)
def test_sparse_western_text_is_windows_1252(text: str) -> None:
    data = text.encode("cp1252")
    assert charset_module._sparse_western(data)
    assert decode_text(data) == (text, "cp1252", DETECTED)


@pytest.mark.parametrize(
    ("text", "codec"),
    [
        ("<p>Siła i rodzą się</p>", "cp1250"),  # "³" and "¹" inside words
        ("<p>Privet: привет</p>", "cp1251"),  # a run of letters
        ("<p>Çok güzel bir şehir</p>", "cp1254"),  # ş reads as Icelandic þ
        ("<p>" + "café " * 17 + "</p>", "cp1252"),  # more letters than SPARSE_BYTES
    ],
)
def test_text_with_evidence_for_a_code_page_is_not_sparse_western(text: str, codec: str):
    assert not charset_module._sparse_western(text.encode(codec))


def _mostly_utf8_by_decoding(data: bytes) -> bool:
    text = data.decode("utf-8", "replace")
    bad = text.count("\ufffd")
    good = sum(1 for c in text if ord(c) > 0x7F) - bad
    return good >= 8 and bad * 20 <= good


@given(
    st.lists(
        st.sampled_from([b"a", b" ", b"\xc3\xa9", b"\xe2\x80\x99", b"\xf0\x9f\x98\x80", b"\xe9",
                         b"\x92", b"\xc3", b"\x80", b"\xf4\x8f\xbf\xbf", b"\xc2\xa0"]),
        max_size=120,
    ).map(b"".join)
)  # fmt: skip
@settings(max_examples=500, deadline=None)
def test_mostly_utf8_counts_as_decoding_with_replacements(data: bytes) -> None:
    assert charset_module._mostly_utf8(data) == _mostly_utf8_by_decoding(data)
