import gzip
import io
import tarfile

import pytest

from tests.builders import WarcEntry, http_response, page, write_tar, write_warc
from transforms import reasons
from transforms.read import read_file
from transforms.read.iterators import clean_url, parse_warc_date
from transforms.records import ArchiveRecord, FileStats

HTML = page("Hello", "First paragraph.").encode()


def crawl_entries():
    return [
        WarcEntry("warcinfo", "", b"software: test\r\n"),
        WarcEntry("request", "https://a.example/", b"GET / HTTP/1.1\r\n\r\n"),
        WarcEntry("response", "<https://a.example/>", http_response(HTML)),
        WarcEntry("metadata", "https://a.example/", b"x: y\r\n"),
        WarcEntry("resource", "https://a.example/doc.html", HTML, content_type="text/html"),
    ]


def read_all(path, **kwargs):
    items = list(read_file(str(path), **kwargs))
    assert isinstance(items[-1], FileStats)
    assert all(isinstance(item, ArchiveRecord) for item in items[:-1])
    return items[:-1], items[-1]


@pytest.mark.parametrize("gzip_records", [True, False])
def test_warc_records_in_order_with_payload_only_for_candidates(tmp_path, gzip_records):
    path = write_warc(tmp_path / "crawl.warc", crawl_entries(), gzip_records=gzip_records)
    records, stats = read_all(path)
    assert [r.record_type for r in records] == [
        "warcinfo",
        "request",
        "response",
        "metadata",
        "resource",
    ]
    response, resource = records[2], records[4]
    assert response.url == "https://a.example/"  # angle brackets unwrapped
    assert response.is_http and response.payload.startswith(b"HTTP/1.1 200 OK")
    assert response.warc_date.isoformat() == "2026-01-02T03:04:05+00:00"
    assert response.record_id == "<urn:uuid:00000000-0000-4000-8000-000000000002>"
    assert (
        not resource.is_http and resource.payload == HTML and resource.content_type == "text/html"
    )
    assert all(r.payload == b"" for r in records if r.record_type not in reasons.CANDIDATE_TYPES)
    assert stats.records == 5 and not stats.damaged and stats.error is None
    assert stats.format == ("warc/gzip" if gzip_records else "warc")


def test_warc_whole_file_gzip_and_misleading_name(tmp_path):
    plain = write_warc(tmp_path / "plain.warc", crawl_entries(), gzip_records=False)
    whole = tmp_path / "named-like-a.tar"
    whole.write_bytes(gzip.compress(plain.read_bytes()))
    records, stats = read_all(whole)
    assert len(records) == 5 and stats.format == "warc/gzip" and not stats.damaged


def test_oversized_record_is_a_too_large_reject_without_payload(tmp_path):
    path = write_warc(tmp_path / "c.warc.gz", crawl_entries())
    records, _ = read_all(path, max_record_bytes=100)
    response = records[2]
    assert response.reject_reason == reasons.TOO_LARGE and response.payload == b""


def test_truncated_file_keeps_records_before_the_cut(tmp_path):
    path = write_warc(tmp_path / "c.warc", crawl_entries() * 3, gzip_records=False)
    data = path.read_bytes()
    path.write_bytes(data[: int(len(data) * 0.8)])
    records, stats = read_all(path)
    assert 5 <= len(records) < 15
    assert stats.damaged and stats.error and stats.stopped_at > 0


@pytest.mark.parametrize("content", [b"", b"just some text", b"\x89PNG\r\n\x1a\n" + bytes(100)])
def test_file_that_is_no_archive_is_one_unreadable_reject(tmp_path, content):
    path = tmp_path / "x.warc.gz"
    path.write_bytes(content)
    records, stats = read_all(path)
    assert len(records) == 1 and records[0].reject_reason == reasons.UNREADABLE_FILE
    assert stats.damaged and stats.records == 0


def test_missing_file_is_unreadable(tmp_path):
    records, stats = read_all(tmp_path / "nope.warc")
    assert records[0].reject_reason == reasons.UNREADABLE_FILE and stats.damaged


def test_tar_members_at_any_depth_with_pax_url(tmp_path):
    path = write_tar(
        tmp_path / "pages.tgz",
        {"a/b/c/page.html": HTML, "top.HTM": HTML, "a/notes.txt": b"hi", "a/img.png": b"\x89PNG"},
        urls={"a/b/c/page.html": "https://a.example/page"},
    )
    records, stats = read_all(path)
    kinds = {r.record_id: r.record_type for r in records}
    assert kinds == {
        "a/b/c/page.html": "tar_member",
        "top.HTM": "tar_member",
        "a/notes.txt": "tar_other",
        "a/img.png": "tar_other",
    }
    by_id = {r.record_id: r for r in records}
    assert by_id["a/b/c/page.html"].url == "https://a.example/page"
    assert by_id["top.HTM"].url == "top.HTM" and by_id["top.HTM"].payload == HTML
    assert by_id["a/b/c/page.html"].warc_date is None
    assert stats.format == "tar/gzip" and stats.records == 4


def test_plain_tar(tmp_path):
    path = write_tar(tmp_path / "pages.tar", {"p.html": HTML}, compression=None)
    records, stats = read_all(path)
    assert [r.record_type for r in records] == ["tar_member"] and stats.format == "tar"


def test_tar_cut_mid_member_is_damaged(tmp_path):
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        for name in ("one.html", "two.html"):
            info = tarfile.TarInfo(name)
            info.size = 5000
            archive.addfile(info, io.BytesIO(b"x" * 5000))
    path = tmp_path / "cut.tar"
    path.write_bytes(buffer.getvalue()[:7000])
    records, stats = read_all(path)
    assert records[0].record_id == "one.html" and stats.damaged


ARC_VERSION_BLOCK = b"1 0 test\nURL IP-address Archive-date Content-type Archive-length\n"
ARC = (
    b"filedesc://test.arc 0.0.0.0 20140216050221 text/plain %d\n" % len(ARC_VERSION_BLOCK)
    + ARC_VERSION_BLOCK
    + b"\n"
)


def test_arc_records_read_as_http_responses(tmp_path):
    body = http_response(HTML)
    record = b"http://a.example/ 93.184.216.34 20140216050221 text/html %d\n" % len(body)
    path = tmp_path / "old.arc"
    path.write_bytes(ARC + record + body + b"\n")
    records, stats = read_all(path)
    assert [r.record_type for r in records] == ["warcinfo", "response"]
    response = records[1]
    assert response.is_http and b"First paragraph." in response.payload
    assert response.url == "http://a.example/" and response.record_id == f"offset:{response.offset}"
    assert response.warc_date.year == 2014 and stats.format == "arc"


@pytest.mark.parametrize(
    "raw, expected",
    [
        (" <https://a/b> ", "https://a/b"),
        ("https://a/b", "https://a/b"),
        ("<>", None),
        (None, None),
    ],
)
def test_clean_url(raw, expected):
    assert clean_url(raw) == expected


@pytest.mark.parametrize(
    "raw, iso",
    [
        ("2014-03-25T12:12:25Z", "2014-03-25T12:12:25+00:00"),
        ("2014-03-25T12:12:25.123456Z", "2014-03-25T12:12:25.123456+00:00"),
        ("20080430204825", "2008-04-30T20:48:25+00:00"),
        ("garbage", None),
        (None, None),
    ],
)
def test_parse_warc_date(raw, iso):
    parsed = parse_warc_date(raw)
    assert (parsed.isoformat() if parsed else None) == iso
