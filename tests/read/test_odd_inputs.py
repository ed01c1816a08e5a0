"""Odd names, headers and dates that real crawls hold (issue 12): the readers turn each into a
valid record, a reject or a counted outcome, never a value that a later step cannot carry."""

from __future__ import annotations

import io
import os
import tarfile

from tests.builders import page
from transforms.read import read_file
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


def test_input_file_name_that_is_not_utf8_is_read_under_a_valid_name(tmp_path):
    path = tmp_path / f"{BAD_NAME}.tar"
    path.write_bytes(_tar("page.html"))
    records, stats = read_all(path)
    shown = str(tmp_path / "caf\ufffd.tar")
    assert [r.source_file for r in records] == [shown] and stats.source_file == shown
    assert records[0].payload == HTML
    utf8_strings(stats)


def test_unreadable_file_with_a_non_utf8_name_is_a_reject_with_a_valid_name(tmp_path):
    path = tmp_path / f"{BAD_NAME}.warc"
    path.write_bytes(b"not an archive at all\n" * 20)
    records, stats = read_all(path)
    assert records[0].reject_reason == "unreadable_file"
    assert all(utf8_strings(item) for item in (*records, stats))
