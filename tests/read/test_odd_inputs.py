"""Odd names, headers and dates that real crawls hold (issue 12): the readers turn each into a
valid record, a reject or a counted outcome, never a value that a later step cannot carry."""

from __future__ import annotations

import io
import os
import tarfile

import pytest

from tests.builders import page, raw_response_record
from transforms.read import FileRange, read_file, read_range
from transforms.records import ArchiveRecord, FileStats, valid_utf8

HTML = page("Odd", "A paragraph of text.").encode()
BAD_NAME = os.fsdecode(b"caf\xe9")  # how Python shows a latin-1 byte in a UTF-8 file system


def read_all(path) -> tuple[list[ArchiveRecord], FileStats]:
    items = list(read_file(str(path)))
    return items[:-1], items[-1]


def utf8_strings(item) -> list[str]:
    """Every str field of a record or stats, encoded strictly (raises on a lone surrogate)."""
    values = [v for v in item if isinstance(v, str)]
    for value in values:
        value.encode("utf-8")
    return values


def test_valid_utf8_replaces_lone_surrogates_only():
    assert valid_utf8(BAD_NAME + ".html") == "caf\ufffd.html"
    assert valid_utf8("\ud800x\udfff") == "\ufffdx\ufffd"
    assert valid_utf8("日本語 ok") == "日本語 ok"
    assert valid_utf8(None) is None


def _tar(name: str, pax: dict[str, str] | None = None) -> bytes:
    buffer = io.BytesIO()
    fmt = tarfile.PAX_FORMAT if pax else tarfile.GNU_FORMAT
    with tarfile.open(fileobj=buffer, mode="w", format=fmt) as archive:
        info = tarfile.TarInfo(name)
        info.size = len(HTML)
        if pax:
            info.pax_headers = pax
        archive.addfile(info, io.BytesIO(HTML))
    return buffer.getvalue()


def test_tar_member_name_with_a_latin1_byte_is_read_with_a_replacement_character(tmp_path):
    data = _tar(f"pages/{BAD_NAME}.html")
    assert b"caf\xe9.html" in data  # as GNU tar on a latin-1 system writes it
    path = tmp_path / "latin1.tar"
    path.write_bytes(data)
    records, stats = read_all(path)
    assert [r.record_id for r in records] == ["pages/caf\ufffd.html"]
    assert records[0].url == "pages/caf\ufffd.html" and records[0].payload == HTML
    assert all(utf8_strings(r) for r in records) and not stats.damaged


def test_tar_pax_url_with_a_non_utf8_byte_is_read_with_a_replacement_character(tmp_path):
    path = tmp_path / "pax.tar"
    path.write_bytes(_tar("page.html", {"url": f"https://{BAD_NAME}.example/"}))
    records, stats = read_all(path)
    assert records[0].url == "https://caf\ufffd.example/"
    assert all(utf8_strings(r) for r in records) and not stats.damaged


@pytest.mark.parametrize(
    "raw", ["café".encode("latin-1"), "привет".encode("cp1251"), "東京".encode("shift_jis")]
)
def test_input_file_name_that_is_not_utf8_is_read_under_a_valid_name(tmp_path, raw):
    name = os.fsdecode(raw + b".tar")
    path = tmp_path / name
    path.write_bytes(_tar("page.html"))
    records, stats = read_all(path)
    shown = str(tmp_path / valid_utf8(name))
    assert "\ufffd" in shown
    assert [r.source_file for r in records] == [shown] and stats.source_file == shown
    assert records[0].payload == HTML
    utf8_strings(stats)


def test_unreadable_file_with_a_non_utf8_name_is_a_reject_with_a_valid_name(tmp_path):
    path = tmp_path / f"{BAD_NAME}.warc"
    path.write_bytes(b"not an archive at all\n" * 20)
    records, stats = read_all(path)
    assert records[0].reject_reason == "unreadable_file"
    assert all(utf8_strings(item) for item in (*records, stats))


ARC_VERSION = b"1 0 test\nURL IP-address Archive-date Content-type Archive-length\n"
ARC_HEAD = b"filedesc://t.arc 0.0.0.0 20140216050221 text/plain %d\n" % len(ARC_VERSION)


def arc_file(dates: list[bytes]) -> bytes:
    """An ARC file with one HTML record per date, the date field written as given."""
    body = b"HTTP/1.0 200 OK\r\nContent-Type: text/html\r\n\r\n" + HTML
    records = [
        b"http://arc.example/%d 1.2.3.4 %s text/html %d\n" % (i, date, len(body)) + body + b"\n"
        for i, date in enumerate(dates)
    ]
    return ARC_HEAD + ARC_VERSION + b"\n" + b"".join(records)


def test_malformed_arc_dates_are_null_not_invented(tmp_path):
    path = tmp_path / "dates.arc"
    malformed = [b"2026", b"00000000000000", b"2026ab02030405", b"20261302030405"]
    path.write_bytes(arc_file([*malformed, b"20260102030405"]))
    records, stats = read_all(path)
    pages = [r for r in records if r.record_type == "response"]
    assert [r.warc_date for r in pages[:4]] == [None] * 4, [r.warc_date for r in pages]
    assert pages[4].warc_date.isoformat() == "2026-01-02T03:04:05+00:00"
    assert [r.record_type for r in records[:1]] == ["warcinfo"] and not stats.damaged


def warc_with_dates(dates: list[str]) -> bytes:
    records = []
    for i, date in enumerate(dates):
        head = (
            "WARC/1.1\r\nWARC-Type: resource\r\n"
            f"WARC-Record-ID: <urn:uuid:00000000-0000-4000-9000-{i:012d}>\r\n"
            f"WARC-Date: {date}\r\nWARC-Target-URI: https://dates.example/{i}\r\n"
            f"Content-Type: text/html\r\nContent-Length: {len(HTML)}\r\n\r\n"
        )
        records.append(head.encode() + HTML + b"\r\n\r\n")
    return b"".join(records)


OUT_OF_RANGE_DATES = [
    "0001-01-01T00:00:00+05:00",  # year 0 in UTC
    "9999-12-31T23:59:59-05:00",  # year 10000 in UTC
    "0000-01-01T00:00:00Z",
]


def test_warc_dates_outside_years_1_to_9999_utc_are_null(tmp_path):
    path = tmp_path / "dates.warc"
    path.write_bytes(warc_with_dates([*OUT_OF_RANGE_DATES, "2026-01-02T08:04:05+05:00"]))
    records, stats = read_all(path)
    assert [r.warc_date for r in records[:3]] == [None, None, None]
    assert records[3].warc_date.isoformat() == "2026-01-02T03:04:05+00:00"
    assert len(records) == 4 and not stats.damaged


def warc_record(i: int, url: str, *, gzip_it: bool) -> bytes:
    block = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n" + HTML
    return raw_response_record(i, url, block, gzip_it=gzip_it)


@pytest.mark.parametrize("gzip_it", [False, True], ids=["warc", "warc.gz"])
@pytest.mark.parametrize("long_at", [[0], [2], [2, 3], [6]], ids=str)
@pytest.mark.parametrize("uri_bytes", [40_000, 1_000_000])
def test_record_with_a_header_over_fastwarcs_limit_is_a_reject_and_the_rest_is_read(
    tmp_path, gzip_it, long_at, uri_bytes
):
    urls = [
        f"https://long.example/{i}" + ("?q=" + "a" * uri_bytes if i in long_at else "")
        for i in range(7)
    ]
    path = tmp_path / ("long.warc.gz" if gzip_it else "long.warc")
    path.write_bytes(b"".join(warc_record(i, url, gzip_it=gzip_it) for i, url in enumerate(urls)))
    records, stats = read_all(path)
    assert [r.url for r in records] == urls
    rejected = [i for i, r in enumerate(records) if r.reject_reason]
    assert rejected == long_at
    assert all(records[i].reject_reason == "header_too_large" for i in long_at)
    assert records[long_at[0]].record_id == f"<urn:uuid:00000000-0000-4000-9000-{long_at[0]:012d}>"
    assert all(r.payload.startswith(b"HTTP/1.1 200") for r in records if not r.reject_reason)
    assert not stats.damaged and stats.error is None and stats.records == 7
    data = path.read_bytes()
    if not gzip_it:  # each offset is where the record's "WARC/1.1" line starts
        assert all(data.startswith(b"WARC/1.1\r\n", r.offset) for r in records)
    else:  # ... or its gzip member
        assert all(data.startswith(b"\x1f\x8b", r.offset) for r in records)


def test_a_header_that_never_ends_is_still_damage(tmp_path):
    path = tmp_path / "endless.warc"
    good = warc_record(0, "https://ok.example/", gzip_it=False)
    path.write_bytes(good + b"WARC/1.1\r\nWARC-Type: response\r\n" + b"X-Junk: aaaa\r\n" * 400_000)
    records, stats = read_all(path)
    assert [r.url for r in records] == ["https://ok.example/"]
    assert stats.damaged and "header length" in stats.error


def test_a_range_that_starts_at_a_record_with_a_long_header_reads_it_as_a_reject(tmp_path):
    # a split WARC.gz can be cut right at such a record: it must not vanish from the range
    urls = [f"https://cut.example/{i}" for i in range(5)]
    urls[2] += "?q=" + "a" * 40_000
    members = [warc_record(i, url, gzip_it=True) for i, url in enumerate(urls)]
    path = tmp_path / "cut.warc.gz"
    path.write_bytes(b"".join(members))
    start = len(members[0]) + len(members[1])
    *records, stats = read_range(FileRange(str(path), start, path.stat().st_size))
    assert [r.url for r in records] == urls[2:]
    assert records[0].reject_reason == "header_too_large"
    assert stats.records == 3 and not stats.damaged
