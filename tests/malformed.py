"""A corpus of malformed inputs, built in memory: every case of issue 4, each with what it must
end as.

``build_corpus(directory)`` writes one file per archive-level case, plus ``http.warc.gz`` and
``html.warc.gz`` holding one record per HTTP- and HTML-level case, and returns the expectations:
for each file, whether it is damaged and the outcome of each document (a row, or a reject
reason) keyed by URL. Tests run the whole job over the folder and compare.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import random
import socket
import tarfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import zstandard
from fastwarc.stream_io import Lz4Writer

from tests.bombs import ARTICLE, bomb_page, thin_reopening
from tests.builders import WarcEntry, http_response, page, raw_response_record, write_warc
from transforms import reasons

__all__ = [
    "BAD_FLAGS",
    "CJK_CASES",
    "CORPUS_PATTERNS",
    "DANGLING_LINK",
    "FOREIGN_FILES",
    "HELP_MUST_LIST",
    "MEMORY_CAP_MB",
    "ODD_OUTPUT_NAMES",
    "OUTPUT_OVERLAPS",
    "ROW",
    "SCRIPT_HREFS",
    "SHOWN_NAMES",
    "SPECIAL_FILES",
    "TEXT_SAFETY_CASES",
    "Expected",
    "build_corpus",
    "good_entries",
    "html_cases",
    "http_cases",
    "output_overlaps",
    "raw_warc",
]

ROW = "row"
MIB = 1 << 20
# The cleaning process's memory cap the job is given over this corpus (MB): low, so that the
# page built to pass it does so in a second.
MEMORY_CAP_MB = 512


@dataclass
class Expected:
    """What one input file must end as."""

    damaged: bool = False
    # URL (or tar member path) -> "row" or a reject reason, for documents whose outcome is fixed.
    outcomes: dict[str, str] = field(default_factory=dict)
    # Number of documents in the file (rows + rejects), when it is known exactly.
    documents: int | None = None
    # A substring of the file's error, when it is damaged.
    error: str | None = None
    # Archives inside this one (a WARC in a tar), by member path: each is a file of its own in
    # the summary, named ``FILE!/MEMBER``.
    inside: dict[str, Expected] = field(default_factory=dict)


def article(title: str, n: int = 3) -> bytes:
    sentences = [f"Paragraph {i} of {title} says something worth keeping." for i in range(n)]
    return page(title, *sentences).encode()


def good_entries(prefix: str, n: int = 3) -> list[WarcEntry]:
    return [
        WarcEntry(
            "response",
            f"https://{prefix}.example/{i}",
            http_response(article(f"{prefix} {i}")),
        )
        for i in range(n)
    ]


def _urls(prefix: str, indexes, outcome: str = ROW) -> dict[str, str]:
    return {f"https://{prefix}.example/{i}": outcome for i in indexes}


def _plain_warc(tmp: Path, prefix: str, n: int = 3) -> bytes:
    path = write_warc(tmp / f".{prefix}.warc", good_entries(prefix, n), gzip_records=False)
    data = path.read_bytes()
    path.unlink()
    return data


def _gzip_warc(tmp: Path, prefix: str, n: int = 3) -> bytes:
    path = write_warc(tmp / f".{prefix}.warc.gz", good_entries(prefix, n), gzip_records=True)
    data = path.read_bytes()
    path.unlink()
    return data


def _record_starts(data: bytes) -> list[int]:
    starts, pos = [], data.find(b"WARC/1.1\r\n")
    while pos != -1:
        starts.append(pos)
        pos = data.find(b"WARC/1.1\r\n", pos + 1)
    return starts


def _gzip_member_starts(data: bytes) -> list[int]:
    starts, pos = [], 0
    while pos < len(data):
        starts.append(pos)
        inflater = zlib.decompressobj(zlib.MAX_WBITS | 16)
        inflater.decompress(data[pos:])
        pos = len(data) - len(inflater.unused_data)
    return starts


def raw_warc(records: list[tuple[str, bytes]]) -> bytes:
    """Response records written byte for byte, one gzip member each: unlike warcio's writer, this
    does not parse (and so accepts) an HTTP block that is broken on purpose."""
    members = []
    for index, (url, block) in enumerate(records):
        head = (
            f"WARC/1.1\r\nWARC-Type: response\r\n"
            f"WARC-Record-ID: <urn:uuid:00000000-0000-4000-9000-{index:012d}>\r\n"
            f"WARC-Date: 2026-01-02T03:04:05Z\r\nWARC-Target-URI: {url}\r\n"
            "Content-Type: application/http; msgtype=response\r\n"
            f"Content-Length: {len(block)}\r\n\r\n"
        )
        members.append(gzip.compress(head.encode() + block + b"\r\n\r\n", compresslevel=1, mtime=0))
    return b"".join(members)


def _tar(
    members: dict[str, bytes], fmt: int = tarfile.USTAR_FORMAT, pax: dict[str, str] | None = None
) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=fmt) as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.pax_headers = dict(pax or {})
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


# A latin-1 byte as Python shows it in a name read from a UTF-8 file system or a tar header.
LATIN1_E = os.fsdecode(b"\xe9")


# --- archive-level cases: each builds one file and says what it must end as ------------------


def gzip_member_cut_mid_record(tmp: Path) -> tuple[bytes, Expected]:
    data = _gzip_warc(tmp, "gzcut")
    third = _gzip_member_starts(data)[2]
    return data[: third + (len(data) - third) // 2], Expected(
        damaged=True, outcomes=_urls("gzcut", [0, 1]), documents=2
    )


def gzip_member_corrupt_mid_file(tmp: Path) -> tuple[bytes, Expected]:
    """A corrupt member in the middle costs its record only: reading resumes at the next one."""
    data = _gzip_warc(tmp, "gzbad", n=4)
    second = _gzip_member_starts(data)[1]
    corrupt = bytes(b ^ 0xFF for b in data[second + 40 : second + 80])
    return data[: second + 40] + corrupt + data[second + 80 :], Expected(
        damaged=True, outcomes=_urls("gzbad", [0, 2, 3]), documents=3, error="read on from byte"
    )


def cut_inside_a_header(tmp: Path) -> tuple[bytes, Expected]:
    data = _plain_warc(tmp, "cuthead")
    third = _record_starts(data)[2]
    return data[: third + 60], Expected(
        damaged=True, outcomes=_urls("cuthead", [0, 1]), documents=2, error="Content-Length"
    )


def cut_inside_a_payload(tmp: Path) -> tuple[bytes, Expected]:
    """The cut record is kept (marked truncated): its text up to the cut is still a page."""
    data = _plain_warc(tmp, "cutbody")
    third = _record_starts(data)[2]
    return data[: third + (len(data) - third) * 3 // 4], Expected(
        damaged=True, outcomes=_urls("cutbody", [0, 1]), documents=3, error="file ends inside"
    )


def garbage_between_records(tmp: Path) -> tuple[bytes, Expected]:
    data = _plain_warc(tmp, "garbage")
    second = _record_starts(data)[1]
    junk = random.Random(4).randbytes(300)
    return data[:second] + junk + data[second:], Expected(
        damaged=True, outcomes=_urls("garbage", [0]), documents=1
    )


def content_length_too_long(tmp: Path) -> tuple[bytes, Expected]:
    data = _plain_warc(tmp, "cllong")
    length = len(good_entries("cllong")[0].block)
    bad = data.replace(
        b"Content-Length: %d\r\n" % length, b"Content-Length: %d\r\n" % (length + 40), 1
    )
    return bad, Expected(damaged=True, documents=1)


def content_length_too_short(tmp: Path) -> tuple[bytes, Expected]:
    data = _plain_warc(tmp, "clshort")
    length = len(good_entries("clshort")[0].block)
    bad = data.replace(
        b"Content-Length: %d\r\n" % length, b"Content-Length: %d\r\n" % (length - 40), 1
    )
    return bad, Expected(damaged=True, documents=1)


def one_gzip_stream_for_the_whole_file(tmp: Path) -> tuple[bytes, Expected]:
    return gzip.compress(_plain_warc(tmp, "wholegz"), mtime=0), Expected(
        outcomes=_urls("wholegz", range(3)), documents=3
    )


def empty_file(tmp: Path) -> tuple[bytes, Expected]:
    return b"", Expected(damaged=True, documents=1, error="empty file")


def zero_length_record(tmp: Path) -> tuple[bytes, Expected]:
    entries = [WarcEntry("response", "https://zero.example/empty", b"")] + good_entries("zero", 1)
    path = write_warc(tmp / ".zero.warc", entries, gzip_records=False)
    data = path.read_bytes()
    path.unlink()
    return data, Expected(
        outcomes={"https://zero.example/empty": reasons.BAD_HTTP, **_urls("zero", [0])},
        documents=2,
    )


def neither_warc_arc_nor_tar(tmp: Path) -> tuple[bytes, Expected]:
    return b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8, Expected(
        damaged=True, documents=1, error="not WARC, ARC or tar"
    )


def text_named_like_a_warc(tmp: Path) -> tuple[bytes, Expected]:
    return b"This is a README, not a crawl.\n" * 50, Expected(
        damaged=True, documents=1, error="not WARC, ARC or tar"
    )


def tar_with_truncated_member(tmp: Path) -> tuple[bytes, Expected]:
    """The cut member is kept, marked truncated, like a WARC record cut by the end of file."""
    data = _tar({"a.html": article("tar one"), "b.html": article("tar two", 200)})
    second = data.index(b"b.html")
    return data[: second + 512 + 9000], Expected(
        damaged=True, outcomes={"a.html": ROW, "b.html": ROW}, documents=2, error="b.html"
    )


def tar_with_corrupt_header(tmp: Path) -> tuple[bytes, Expected]:
    data = bytearray(_tar({"a.html": article("tar ok"), "b.html": article("tar lost")}))
    second = data.index(b"b.html")
    data[second + 148 : second + 156] = b"9999999\x00"  # the header checksum
    return bytes(data), Expected(
        damaged=True, outcomes={"a.html": ROW}, documents=1, error="invalid tar header"
    )


def zstd_warc(tmp: Path) -> tuple[bytes, Expected]:
    return zstandard.ZstdCompressor().compress(_plain_warc(tmp, "zstd")), Expected(
        outcomes=_urls("zstd", range(3)), documents=3
    )


def lz4_warc(tmp: Path) -> tuple[bytes, Expected]:
    path = tmp / ".lz4.warc.lz4"
    writer = Lz4Writer(str(path))
    writer.write(_plain_warc(tmp, "lz4"))
    writer.close()
    data = path.read_bytes()
    path.unlink()
    return data, Expected(outcomes=_urls("lz4", range(3)), documents=3)


def zstd_tar(tmp: Path) -> tuple[bytes, Expected]:
    """A compression tarfile does not read: decompressed on the way in, then read."""
    data = zstandard.ZstdCompressor().compress(_tar({"a.html": article("zstd tar")}))
    return data, Expected(outcomes={"a.html": ROW}, documents=1)


def endless_record_header(tmp: Path) -> tuple[bytes, Expected]:
    """8 MiB of header lines and no end: the reader's header-length limit stops it."""
    head = b"WARC/1.1\r\nWARC-Type: response\r\n" + b"X-Junk: " + b"a" * 56 + b"\r\n"
    return gzip.compress(head * (8 * MIB // len(head)), compresslevel=1, mtime=0), Expected(
        damaged=True, documents=1, error="header length"
    )


def tar_member_name_not_utf8(tmp: Path) -> tuple[bytes, Expected]:
    """GNU tar on a latin-1 system: the name is read, the byte shown as U+FFFD."""
    data = _tar({f"caf{LATIN1_E}.html": article("latin-1 name")}, fmt=tarfile.GNU_FORMAT)
    return data, Expected(outcomes={"caf\ufffd.html": ROW}, documents=1)


def tar_pax_url_not_utf8(tmp: Path) -> tuple[bytes, Expected]:
    url = f"https://caf{LATIN1_E}.example/page"
    data = _tar({"page.html": article("pax url")}, fmt=tarfile.PAX_FORMAT, pax={"url": url})
    return data, Expected(outcomes={"https://caf\ufffd.example/page": ROW}, documents=1)


def file_name_not_utf8(tmp: Path) -> tuple[bytes, Expected]:
    """Its name (``ARCHIVE_CASES`` key) holds a latin-1 byte: ``source_file`` shows U+FFFD."""
    return _gzip_warc(tmp, "latin1file"), Expected(
        outcomes=_urls("latin1file", range(3)), documents=3
    )


def _warc_dated(prefix: str, dates: list[str]) -> bytes:
    records = []
    for i, date in enumerate(dates):
        block = http_response(article(f"{prefix} {i}"))
        head = (
            "WARC/1.1\r\nWARC-Type: response\r\n"
            f"WARC-Record-ID: <urn:uuid:00000000-0000-4000-9000-{i:012d}>\r\n"
            f"WARC-Date: {date}\r\nWARC-Target-URI: https://{prefix}.example/{i}\r\n"
            "Content-Type: application/http; msgtype=response\r\n"
            f"Content-Length: {len(block)}\r\n\r\n"
        )
        records.append(head.encode() + block + b"\r\n\r\n")
    return b"".join(records)


# Valid ISO dates whose UTC instant is outside years 1-9999 (Arrow stores them; no Python
# reader can read them back), and one that is not a date at all; the last one is fine.
ODD_WARC_DATES = [
    "0001-01-01T00:00:00+05:00",
    "9999-12-31T23:59:59-05:00",
    "0000-01-01T00:00:00Z",
    "2026-01-02T08:04:05+05:00",
]
# ARC dates that warcio would pad into invented instants; the last one is fine.
ODD_ARC_DATES = [b"2026", b"00000000000000", b"2026ab02030405", b"20260102030405"]


def warc_dates_out_of_range(tmp: Path) -> tuple[bytes, Expected]:
    return _warc_dated("warcdate", ODD_WARC_DATES), Expected(
        outcomes=_urls("warcdate", range(4)), documents=4
    )


def arc_dates_malformed(tmp: Path) -> tuple[bytes, Expected]:
    version = b"1 0 test\nURL IP-address Archive-date Content-type Archive-length\n"
    head = b"filedesc://d.arc 0.0.0.0 20140216050221 text/plain %d\n" % len(version)
    records = []
    for i, date in enumerate(ODD_ARC_DATES):
        body = http_response(article(f"arc date {i}"))
        line = b"https://arcdate.example/%d 1.2.3.4 %s text/html %d\n" % (i, date, len(body))
        records.append(line + body + b"\n")
    return head + version + b"\n" + b"".join(records), Expected(
        outcomes=_urls("arcdate", range(4)), documents=4
    )


def _long_header_case(prefix: str, uri_bytes: int, *, gzip_records: bool):
    """Seven records, the third with a WARC-Target-URI of ``uri_bytes``: over FastWARC's
    32 KiB header limit, it is a ``header_too_large`` reject and every other record is read."""
    urls = [f"https://{prefix}.example/{i}" for i in range(7)]
    urls[2] += "?q=" + "a" * uri_bytes
    records = []
    for i, url in enumerate(urls):
        block = http_response(article(f"{prefix} {i}"))
        records.append(raw_response_record(i, url, block, gzip_it=gzip_records))
    outcomes = {url: ROW for url in urls}
    outcomes[urls[2]] = reasons.HEADER_TOO_LARGE
    return b"".join(records), Expected(outcomes=outcomes, documents=7)


def long_header_plain(tmp: Path) -> tuple[bytes, Expected]:
    return _long_header_case("longhead", 40_000, gzip_records=False)


def long_header_gzip(tmp: Path) -> tuple[bytes, Expected]:
    return _long_header_case("longheadgz", 1_000_000, gzip_records=True)


def headers_not_utf8(tmp: Path) -> tuple[bytes, Expected]:
    """Latin-1 bytes in a WARC-Target-URI, a WARC-Record-ID and the HTTP headers: read, each
    undecodable byte shown as U+FFFD."""
    block = (
        b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=\xff\r\nX-Caf\xe9: cr\xe8me\r\n\r\n"
        + article("latin-1 headers")
    )
    head = (
        b"WARC/1.1\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:caf\xe9>\r\n"
        b"WARC-Date: 2026-01-02T03:04:05Z\r\nWARC-Target-URI: https://caf\xe9.example/cr\xe8me\r\n"
        b"Content-Type: application/http; msgtype=response\r\n"
        b"Content-Length: %d\r\n\r\n" % len(block)
    )
    return head + block + b"\r\n\r\n", Expected(
        outcomes={"https://caf\ufffd.example/cr\ufffdme": ROW}, documents=1
    )


def named_like_a_pattern(tmp: Path) -> tuple[bytes, Expected]:
    """Named by ``--input 'in/page[1].warc.gz'``, which as a pattern matches no file."""
    return _gzip_warc(tmp, "literal"), Expected(outcomes=_urls("literal", range(3)), documents=3)


# --- inputs that hung the job or were skipped silently (issue 21) ------------------------------


def warcs_in_a_tar(tmp: Path) -> tuple[bytes, Expected]:
    """Crawls shipped in a tar: each WARC member is read as a file of its own."""
    data = _tar(
        {
            "crawl/a.warc.gz": _gzip_warc(tmp, "intargz", 2),
            "b.warc": _plain_warc(tmp, "intarplain", 2),
            "README.txt": b"two WARC files",
        }
    )
    return data, Expected(
        documents=0,
        inside={
            "crawl/a.warc.gz": Expected(outcomes=_urls("intargz", range(2)), documents=2),
            "b.warc": Expected(outcomes=_urls("intarplain", range(2)), documents=2),
        },
    )


def warcs_in_a_tgz(tmp: Path) -> tuple[bytes, Expected]:
    """A .tgz of WARCs compressed each their own way (zstd, bzip2)."""
    plain = _plain_warc(tmp, "intgz", 2)
    data = _tar(
        {
            "x.warc.zst": zstandard.ZstdCompressor().compress(plain),
            "y.warc.bz2": bz2.compress(plain),
        }
    )
    inner = Expected(outcomes=_urls("intgz", range(2)), documents=2)
    return gzip.compress(data, mtime=0), Expected(
        documents=0, inside={"x.warc.zst": inner, "y.warc.bz2": inner}
    )


def tar_of_tars_of_tars(tmp: Path) -> tuple[bytes, Expected]:
    """Read one level deep: the tar inside the inner tar is one unreadable_file reject."""
    deepest = _tar({"deepest.html": article("deepest")})
    inner = _tar({"inner.html": article("inner tar"), "deeper.tar": deepest})
    data = _tar({"top.html": article("top of the tars"), "inner.tar": inner})
    return data, Expected(
        outcomes={"top.html": ROW},
        documents=1,
        inside={
            "inner.tar": Expected(
                outcomes={"inner.html": ROW, "deeper.tar": reasons.UNREADABLE_FILE}, documents=2
            )
        },
    )


# A wget --mirror tree: pages named for their scripts and queries, a gzipped one, byte-order
# marks, UTF-16, comments and an XML declaration before the markup; then a JPEG named .html.
MIRROR_PAGES: dict[str, bytes] = {
    "site/index.php": article("mirror php"),
    "site/item.asp?id=3": article("mirror asp"),
    "site/list.html?p=2": article("mirror query"),
    "site/about": article("mirror no extension"),
    "site/feed.xhtml.gz": gzip.compress(article("mirror gzipped xhtml"), mtime=0),
    "site/bom": b"\xef\xbb\xbf" + article("mirror bom"),
    "site/utf16": b"\xff\xfe" + article("mirror utf16").decode().encode("utf-16-le"),
    "site/commented": b"\n  <!-- mirrored from a.example -->\n" + article("mirror comment"),
    "site/x.xhtml": b'<?xml version="1.0" encoding="utf-8"?>\n' + article("mirror xhtml"),
}


def wget_mirror_tarball(tmp: Path) -> tuple[bytes, Expected]:
    others = {
        "site/style.css": b"body { margin: 0 }",
        "site/logo.png": b"\x89PNG\r\n\x1a\n" + bytes(64),
        "site/sitemap.xml": b'<?xml version="1.0"?><urlset><url><loc>/</loc></url></urlset>',
    }
    photo = {"site/photo.html": b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + bytes(300)}
    data = _tar({**MIRROR_PAGES, **others, **photo})
    outcomes = {name: ROW for name in MIRROR_PAGES} | {"site/photo.html": reasons.NOT_HTML}
    return gzip.compress(data, mtime=0), Expected(outcomes=outcomes, documents=len(outcomes))


def damaged_warcs_in_a_tar(tmp: Path) -> tuple[bytes, Expected]:
    """A member WARC cut inside its third record keeps the two before it; one that is not a
    WARC at all is an unreadable_file reject; the tar reads on past both."""
    cut = _gzip_warc(tmp, "cutmember")
    data = _tar(
        {
            "cut.warc.gz": cut[:-60],
            "garbage.warc.gz": b"\x1f\x8b\x08\x00" + bytes(range(256)),
            "after.html": article("after the damage"),
        }
    )
    return data, Expected(
        outcomes={"after.html": ROW},
        documents=1,
        inside={
            "cut.warc.gz": Expected(damaged=True, outcomes=_urls("cutmember", [0, 1])),
            "garbage.warc.gz": Expected(damaged=True, documents=1, error="not WARC, ARC or tar"),
        },
    )


def bzip2_warc(tmp: Path) -> tuple[bytes, Expected]:
    return bz2.compress(_plain_warc(tmp, "bzip2")), Expected(
        outcomes=_urls("bzip2", range(3)), documents=3
    )


def xz_warc(tmp: Path) -> tuple[bytes, Expected]:
    return lzma.compress(_plain_warc(tmp, "xz")), Expected(
        outcomes=_urls("xz", range(3)), documents=3
    )


ARCHIVE_CASES: dict[str, Callable[[Path], tuple[bytes, Expected]]] = {
    "endless-header.warc.gz": endless_record_header,
    "gzip-member-cut.warc.gz": gzip_member_cut_mid_record,
    "gzip-member-corrupt.warc.gz": gzip_member_corrupt_mid_file,
    "cut-in-header.warc": cut_inside_a_header,
    "cut-in-payload.warc": cut_inside_a_payload,
    "garbage-between.warc": garbage_between_records,
    "content-length-long.warc": content_length_too_long,
    "content-length-short.warc": content_length_too_short,
    "one-gzip-stream.warc.gz": one_gzip_stream_for_the_whole_file,
    "empty.warc.gz": empty_file,
    "zero-length-record.warc": zero_length_record,
    "png.warc.gz": neither_warc_arc_nor_tar,
    "readme.warc": text_named_like_a_warc,
    "truncated-member.tar": tar_with_truncated_member,
    "corrupt-header.tar": tar_with_corrupt_header,
    "zstd.warc.zst": zstd_warc,
    "lz4.warc.lz4": lz4_warc,
    "zstd.tar.zst": zstd_tar,
    "latin1-member-name.tar": tar_member_name_not_utf8,
    "latin1-pax-url.tar": tar_pax_url_not_utf8,
    f"caf{LATIN1_E}-name.warc.gz": file_name_not_utf8,
    "dates-out-of-range.warc": warc_dates_out_of_range,
    "dates-malformed.arc": arc_dates_malformed,
    "page[1].warc.gz": named_like_a_pattern,
    "latin1-headers.warc": headers_not_utf8,
    "long-header-40kb.warc": long_header_plain,
    "long-header-1mb.warc.gz": long_header_gzip,
    "warcs.tar": warcs_in_a_tar,
    "warcs.tgz": warcs_in_a_tgz,
    "tar-of-tars.tar": tar_of_tars_of_tars,
    "mirror.tar.gz": wget_mirror_tarball,
    "damaged-members.tar": damaged_warcs_in_a_tar,
    "crawl.warc.bz2": bzip2_warc,
    "crawl.warc.xz": xz_warc,
}
# The --input patterns (relative to the corpus folder) the job is run with: every file, the tar
# files a second time, one file named literally and a folder named as it is (its files are
# read, as FOLDER/ reads them); each file must still be read once.
CORPUS_PATTERNS = ["*", "*.tar", "page[1].warc.gz", "a-folder"]
DANGLING_LINK = "dangling-link.warc.gz"
# Paths that are not regular files, in the corpus folder and in the folder named as a pattern:
# each is one unreadable_file reject, at once (a FIFO without a writer hung the job).
SPECIAL_FILES = {
    "fifo.warc.gz": "a FIFO",
    "link-to-fifo.warc": "a FIFO",
    "socket.warc": "a socket",
    "dev-zero.warc.gz": "a character device",
    "a-folder/pipe.warc.gz": "a FIFO",
}
# The names the summary shows for them (U+FFFD for an undecodable byte).
SHOWN_NAMES = {
    name.encode("utf-8", "surrogateescape").decode("utf-8", "replace"): name
    for name in ARCHIVE_CASES
}


def _special_files(directory: Path, expected: dict[str, Expected]) -> None:
    """The folder named as a pattern (a WARC in it, a subfolder that is not read) and the
    ``SPECIAL_FILES``."""
    folder = directory / "a-folder"
    (folder / "not-read").mkdir(parents=True)
    (folder / "f.warc.gz").write_bytes(_gzip_warc(directory, "infolder", 2))
    (folder / "not-read" / "g.warc.gz").write_bytes(_gzip_warc(directory, "notread", 1))
    expected["a-folder/f.warc.gz"] = Expected(outcomes=_urls("infolder", range(2)), documents=2)
    os.mkfifo(directory / "a-fifo")
    for name, kind in SPECIAL_FILES.items():
        path = directory / name
        if name == "link-to-fifo.warc":
            path.symlink_to(directory / "a-fifo")
        elif kind == "a FIFO":
            os.mkfifo(path)
        elif kind == "a socket":
            with socket.socket(socket.AF_UNIX) as server:
                server.bind(str(path))  # the socket file stays after the socket is closed
        else:
            path.symlink_to("/dev/zero")
        expected[name] = Expected(damaged=True, documents=1, error=f"not a regular file but {kind}")
    expected["a-fifo"] = expected["fifo.warc.gz"]


# --- HTTP- and HTML-level cases: one WARC record each ------------------------------------------


def _gzip_bomb(total: int) -> bytes:
    from tests.conftest import make_gzip_bomb

    return make_gzip_bomb(total)


def _brotli_bomb(total: int) -> bytes:
    from tests.conftest import make_brotli_bomb

    return make_brotli_bomb(total)


def _raw_response(head: str, body: bytes) -> bytes:
    return head.replace("\n", "\r\n").encode("latin-1") + b"\r\n" + body


def http_cases() -> dict[str, tuple[bytes, str]]:
    """Case name -> (the HTTP bytes of a response record, its outcome)."""
    html = article("http case")
    return {
        "no-status-line": (b"Content-Type: text/html\r\n\r\n" + html, reasons.BAD_HTTP),
        "broken-chunk-sizes": (
            _raw_response(
                "HTTP/1.1 200 OK\nContent-Type: text/html\nTransfer-Encoding: chunked\n",
                b"64\r\n" + html[:100] + b"\r\nzz-not-a-size\r\n" + html[100:] + b"\r\n0\r\n\r\n",
            ),
            reasons.BAD_HTTP,
        ),
        # Some crawlers keep the header on a body they stored de-chunked: read as plain.
        "chunked-header-on-a-plain-body": (
            _raw_response(
                "HTTP/1.1 200 OK\nContent-Type: text/html\nTransfer-Encoding: chunked\n", html
            ),
            ROW,
        ),
        "lying-content-encoding": (
            _raw_response(
                "HTTP/1.1 200 OK\nContent-Type: text/html\nContent-Encoding: gzip\n", html
            ),
            ROW,
        ),
        "unknown-content-encoding": (
            _raw_response(
                "HTTP/1.1 200 OK\nContent-Type: text/html\nContent-Encoding: x-snappy\n",
                b"\x00\x01\x02" + zlib.compress(html),
            ),
            reasons.BAD_ENCODING,
        ),
        "corrupt-gzip-body": (
            _raw_response(
                "HTTP/1.1 200 OK\nContent-Type: text/html\nContent-Encoding: gzip\n",
                gzip.compress(html)[:40] + b"\xff" * 200,
            ),
            reasons.BAD_ENCODING,
        ),
        "gzip-bomb-1gib": (
            _raw_response(
                "HTTP/1.1 200 OK\nContent-Type: text/html\nContent-Encoding: gzip\n",
                _gzip_bomb(1 << 30),
            ),
            reasons.TOO_LARGE,
        ),
        # Gzip bytes that no Content-Encoding announces: inflated under the same cap.
        "gzip-body-without-content-encoding": (
            _raw_response("HTTP/1.1 200 OK\nContent-Type: text/html\n", gzip.compress(html)),
            ROW,
        ),
        "gzip-bomb-without-content-encoding": (
            _raw_response("HTTP/1.1 200 OK\nContent-Type: text/html\n", _gzip_bomb(1 << 30)),
            reasons.TOO_LARGE,
        ),
        "brotli-bomb-1gib": (
            _raw_response(
                "HTTP/1.1 200 OK\nContent-Type: text/html\nContent-Encoding: br\n",
                _brotli_bomb(1 << 30),
            ),
            reasons.TOO_LARGE,
        ),
    }


def _nested(depth: int) -> bytes:
    return b"<html><body>" + b"<div>" * depth + b"deep text at the bottom" + b"</div>" * depth


def _before_main(filler: bytes) -> bytes:
    return article("textless filler").replace(b"<main>", filler + b"<main>")


JAPANESE = "日本語のウェブページです。東京は日本の首都です。今日は良い天気ですね。" * 8
CHINESE = "这是一个中文网页。北京是中国的首都。今天天气很好。我们一起去公园散步吧。" * 8
KOREAN = "한국어 웹 페이지입니다. 서울은 한국의 수도입니다. 오늘은 날씨가 좋습니다. " * 8


def _cjk_page(title: str, text: str, codec: str) -> bytes:
    return page(title, text, charset=None).encode(codec)


# Pages in the older CJK encodings (issue 21): case -> (the text a row must hold, its charset).
CJK_CASES = {
    "iso-2022-jp-without-a-label": (JAPANESE, "iso2022_jp"),
    "euc-jp-labelled-shift-jis": (JAPANESE, "euc_jp"),
    "utf16-cjk-without-bom": (CHINESE, "utf-16-le"),
    "hz-gb-2312": (CHINESE, "hz"),
    "iso-2022-kr": (KOREAN, "iso2022_kr"),
}


# Text safe to render and clean to train on (issue 21): characters no reader wants, in an ASCII
# title and paragraph too, the extractor's own marker characters, and links a Markdown renderer
# would make live, however spelled. All are rows; what they hold is checked by the job tests.
UNWANTED_IN_PAGE = (
    "Donau\u00addampf Kraft\u200bfahr&#8203;zeug user\u202egnp.exe tag\U000e0041s "
    "non\ufdefchar\U0010ffff a\ufdd1b&#xFDD2;c \u2066isolate\u2069 wave\u200d\U0001f44b"
)
SCRIPT_HREFS = (
    "JavaScript:alert(1)",
    "JAVASCRIPT:alert(1)",
    "&#x4A;avascript:alert(1)",
    "java&Tab;script:alert(1)",
    "java&#10;script:alert(1)",
    "&#1;javascript&colon;alert(1)",
    "vbscript:msgbox(1)",
    "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
    "VBScript&#58;x",
)
TEXT_SAFETY_CASES = ("invisible-characters", "ascii-controls", "script-links", "unparsable-link")


def _text_safety_pages() -> dict[str, bytes]:
    items = "".join(
        f'<li>Offer {i}: <a href="{href}">item {i}</a> today.</li>'
        for i, href in enumerate(SCRIPT_HREFS)
    )
    links = (
        "Nine script links in a list and a quote, as a crawl of spam pages would have them, "
        f"among sentences long enough to be read as the article's prose.</p><ul>{items}</ul>"
        f"<blockquote>Quoted <a href='{SCRIPT_HREFS[0]}'>link</a> and a <a href='relative/"
        "page.html'>relative one</a>, in a quote with words enough to be prose.</blockquote><p>"
    )
    return {
        "invisible-characters": page(f"Tit\u00adle {UNWANTED_IN_PAGE}", UNWANTED_IN_PAGE),
        "ascii-controls": page(
            "Bell\x07 title \x1b[31mred", "A bell\x07 and \x1b[1mbold\x1b[0m text."
        ),
        "script-links": page("Script links", links).replace(
            "<head>", '<head><base href="https://base.example/root/">'
        ),
        "unparsable-link": page("Bad URL", "<a href='http://[::1/x'>broken</a> and more words."),
    }


def html_cases() -> dict[str, tuple[bytes, str, str]]:
    """Case name -> (body, Content-Type header, outcome)."""
    html_type = "text/html"
    words = " ".join(f"word{i}" for i in range(1000))
    one_line = page("One line", *([words] * 700)).encode()  # about 5 MB, no newline
    assert b"\n" not in one_line and len(one_line) > 5_000_000
    big = page("Fifty megabytes", *([words] * 7000)).encode()
    assert len(big) > 50 * MIB * 0.95
    return {
        "page-50mb": (big, html_type, reasons.TOO_LARGE),
        "nesting-100000": (_nested(100_000), html_type, ROW),
        "nul-bytes": (article("nul").replace(b"worth", b"wo\x00rth\x00"), html_type, ROW),
        "invalid-utf8": (
            article("invalid").replace(b"worth", b"w\xc3\x28rth \xff\xfe"),
            "text/html; charset=utf-8",
            ROW,
        ),
        "utf16-with-bom": (
            b"\xff\xfe" + page("UTF-16 page", "Texte en fran\u00e7ais ici.").encode("utf-16-le"),
            html_type,
            ROW,
        ),
        "utf16-without-bom": (
            page("UTF-16 no BOM", "Texte sans marque ici.", charset=None).encode("utf-16-le"),
            html_type,
            ROW,
        ),
        "iso-2022-jp-without-a-label": (
            _cjk_page("ISO-2022-JP", JAPANESE, "iso2022_jp"),
            html_type,
            ROW,
        ),
        "euc-jp-labelled-shift-jis": (
            _cjk_page("EUC-JP", JAPANESE, "euc_jp"),
            "text/html; charset=shift_jis",
            ROW,
        ),
        "utf16-cjk-without-bom": (
            _cjk_page("UTF-16", CHINESE, "utf-16-le"),
            "text/html; charset=utf-16",
            ROW,
        ),
        "hz-gb-2312": (_cjk_page("HZ", CHINESE, "hz"), "text/html; charset=hz-gb-2312", ROW),
        "iso-2022-kr": (
            _cjk_page("ISO-2022-KR", KOREAN, "iso2022_kr"),
            "text/html; charset=iso-2022-kr",
            ROW,
        ),
        "lying-meta-charset": (
            page("Lying meta", "Caf\u00e9 cr\u00e8me br\u00fbl\u00e9e.", charset="utf-16").encode(
                "utf-8"
            ),
            html_type,
            ROW,
        ),
        "binary-junk-as-html": (
            random.Random(7).randbytes(20_000),
            html_type,
            reasons.NOT_HTML,
        ),
        "one-line-5mb": (one_line, html_type, ROW),
        "huge-attribute-1mb": (
            article("huge attribute").replace(b"<main>", b'<main data-x="' + b"a" * MIB + b'">'),
            html_type,
            ROW,
        ),
        # Past the extractor's 5M-character cap, what follows the attribute is not read: the
        # row keeps what came before it (the page header) and is flagged truncated.
        "huge-attribute-8mb-before-the-text": (
            article("huge attribute").replace(
                b"<main>", b'<main data-x="' + b"a" * (8 * MIB) + b'">'
            ),
            html_type,
            ROW,
        ),
        # 6 MB that carries no text before the article: over the 5M-character cap, but only
        # markup that can carry text counts toward it, so the article is a row, not cut.
        "script-6mb-before-the-text": (
            _before_main(
                b'<script type="application/json">{"s": "'
                + b"v<a>" * (3 * MIB // 2)
                + b'"}</script>'
            ),
            html_type,
            ROW,
        ),
        "comment-6mb-before-the-text": (
            _before_main(b"<!-- " + b"old <p>markup</p> " * (MIB // 3) + b" -->"),
            html_type,
            ROW,
        ),
        "whitespace-6mb-before-the-text": (_before_main(b" \n\t" * (2 * MIB)), html_type, ROW),
        "thousands-of-titles": (
            article("titles").replace(b"<head>", b"<head>" + b"<title>t</title>" * 5000),
            html_type,
            ROW,
        ),
        **{name: (body.encode(), html_type, ROW) for name, body in _text_safety_pages().items()},
        # Pages built to take the parser's memory or time (tests/bombs.py): bounded before
        # parsing, they are rows in a fraction of a second.
        "formatting-elements-opened-again": (
            bomb_page("<p>" + "".join(f"<b x={i}>" for i in range(1000)) + "<p>x" * 1000),
            html_type,
            ROW,
        ),
        "anchor-with-100kb-href-opened-again": (
            bomb_page("<p><a href='/" + "x" * 100_000 + "'>link" + "<p>x" * 10_000),
            html_type,
            ROW,
        ),
        "100000-attributes-on-one-element": (
            bomb_page("<div " + " ".join(f"a{i}=1" for i in range(100_000)) + ">x</div>"),
            html_type,
            ROW,
        ),
        "90000-div-with-stray-span-end-tag": (bomb_page("<div></span>" * 90_000), html_type, ROW),
        "select-with-100000-options": (
            bomb_page("<select>" + "<option>x" * 100_000 + "</select>"),
            html_type,
            ROW,
        ),
        "title-5mb": (bomb_page("", title="Bees " * 1_000_000), html_type, ROW),
        "data-image-6mb-before-the-text": (
            bomb_page("<img src='data:image/png;base64," + "iVBORw0K" * 750_000 + "'>"),
            html_type,
            ROW,
        ),
        "svg-sprite-6mb-before-the-text": (
            bomb_page(
                "<svg style='display:none'>"
                + ("<symbol id='s'><path d='" + "M1,1L2,2" * 1000 + "'/></symbol>") * 800
                + "</svg>"
            ),
            html_type,
            ROW,
        ),
        "article-in-a-declarative-shadow-root": (
            bomb_page("").replace(
                ARTICLE.encode(),
                f"<x-app><template shadowrootmode='open'>{ARTICLE}</template></x-app>".encode(),
            ),
            html_type,
            ROW,
        ),
        # Too thin in tags for the bound: the cleaning process's memory cap stops it
        # (MEMORY_CAP_MB, which the job is given over this corpus).
        "formatting-elements-spread-thin": (thin_reopening(), html_type, reasons.TOO_LARGE),
    }


def build_corpus(directory: Path) -> dict[str, Expected]:
    """Write the whole malformed corpus into ``directory``; file name as shown -> ``Expected``."""
    directory.mkdir(parents=True, exist_ok=True)
    expected: dict[str, Expected] = {}
    for shown, name in SHOWN_NAMES.items():
        data, outcome = ARCHIVE_CASES[name](directory)
        (directory / name).write_bytes(data)
        expected[shown] = outcome
    # A symbolic link whose target is gone: one unreadable_file reject, not a silent gap.
    (directory / DANGLING_LINK).symlink_to(directory / "deleted-target.warc.gz")
    expected[DANGLING_LINK] = Expected(damaged=True, documents=1, error="No such file")
    for name, expectation in list(expected.items()):
        for member, inner in expectation.inside.items():
            expected[f"{name}!/{member}"] = inner
    _special_files(directory, expected)
    http = http_cases()
    (directory / "http.warc.gz").write_bytes(
        raw_warc([(f"https://http.example/{name}", block) for name, (block, _) in http.items()])
    )
    expected["http.warc.gz"] = Expected(
        outcomes={f"https://http.example/{name}": outcome for name, (_, outcome) in http.items()},
        documents=len(http),
    )
    html = html_cases()
    (directory / "html.warc.gz").write_bytes(
        raw_warc(
            [
                (
                    f"https://html.example/{name}",
                    http_response(body, headers=[("Content-Type", content_type)]),
                )
                for name, (body, content_type, _) in html.items()
            ]
        )
    )
    expected["html.warc.gz"] = Expected(
        outcomes={f"https://html.example/{name}": outcome for name, (*_, outcome) in html.items()},
        documents=len(html),
    )
    return expected


# --- command-line cases: flags and output paths a new user types ------------------------------

# Flags -> the message of the one line the job exits 2 with, before any work.
BAD_FLAGS: dict[str, tuple[list[str], str]] = {
    "nan-ratio": (["--max_reject_ratio", "nan"], "--max_reject_ratio: 'nan' is out of range"),
    "negative-ratio": (
        ["--max_reject_ratio", "-0.1"],
        "--max_reject_ratio: '-0.1' is out of range",
    ),
    "zero-record-cap": (["--max_record_bytes", "0"], "--max_record_bytes: '0' is out of range"),
    "negative-decoded-cap": (
        ["--max_decoded_bytes", "-1"],
        "--max_decoded_bytes: '-1' is out of range",
    ),
    "zero-timeout": (["--extract_timeout_s", "0"], "--extract_timeout_s: '0' is out of range"),
    "nan-timeout": (["--extract_timeout_s", "nan"], "--extract_timeout_s: 'nan' is out of range"),
    "memory-cap-under-the-process-itself": (
        ["--extract_memory_mb", "100"],
        "--extract_memory_mb: '100' is out of range",
    ),
    "negative-split": (
        ["--split_archive_bytes", "-5"],
        "--split_archive_bytes: '-5' is out of range",
    ),
    "not-a-number": (["--max_record_bytes", "lots"], "'lots' is not a number"),
    "misspelled-ratio": (
        ["--max_reject_ration", "0.0"],
        "unknown flag --max_reject_ration; did you mean",
    ),
    "misspelled-mode": (["--mdoe", "full"], "unknown flag --mdoe; did you mean --mode"),
    "bad-mode": (["--mode=fulll"], "invalid choice: 'fulll'"),
    "language-score-over-one": (
        ["--min_language_score", "1.5"],
        "--min_language_score: '1.5' is out of range",
    ),
    "bad-format": (["--format", "html"], "invalid choice: 'html'"),
    # Codes no row can carry made every row a language reject.
    "language-name": (["--languages", "english"], "code 'english' (did you mean en?)"),
    "language-unknown": (["--languages", "zz"], "unknown language code 'zz': use the codes"),
    "language-639-3": (["--languages", "de,eng"], "code 'eng' (did you mean en?)"),
    "language-locale": (["--languages=en_US"], "code 'en_US' (did you mean en?)"),
}

# The job's own flags, which --help must list with their defaults.
HELP_MUST_LIST = (
    "--input",
    "--output",
    "--config",
    "--mode",
    "--max_record_bytes",
    "--max_decoded_bytes",
    "--split_archive_bytes",
    "--max_reject_ratio",
    "--extract_guard",
    "--extract_timeout_s",
    "--extract_memory_mb",
    "--input_list",
    "--input_prefix",
    "--format",
    "--markdown_links",
    "--languages",
    "--min_language_score",
)

# Output folder names that Beam's delete would read as patterns: the output is written anyway.
ODD_OUTPUT_NAMES = ["out [1]", "out?", "out*x", "o[ut"]


# --- output folders a careless operator points the job at -------------------------------------


def _crawl_folder(folder: Path, name: str = "c.warc.gz") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    return write_warc(folder / name, good_entries("out"))


def output_overlaps(root: Path) -> dict[str, tuple[list[str], str]]:
    """Inputs inside ``--output``, or reaching into it: name -> (arguments, what the one line
    the job exits 2 with says). Builds the crawl under ``root``; the issue's case first."""
    crawl = root / "crawl"
    _crawl_folder(crawl / "data")
    _crawl_folder(crawl, "top.warc.gz")
    (root / "link").symlink_to(crawl)
    (root / "elsewhere").mkdir()
    (root / "elsewhere" / "linked.warc.gz").symlink_to(crawl / "top.warc.gz")
    (root / "list.txt").write_text(f"{crawl / 'data' / 'c.warc.gz'}\n")
    c, inside, reaches = str(crawl), "inside --output", "reaches into --output"
    return {
        "crawl-data-under-output": (["--input", f"{c}/data/*.warc.gz", "--output", c], inside),
        "inputs-at-the-top-of-the-output": (["--input", f"{c}/*.warc.gz", "--output", c], inside),
        "output-through-a-symlink": (
            ["--input", f"{c}/*.warc.gz", "--output", str(root / "link")],
            inside,
        ),
        "input-symlink-into-the-output": (
            ["--input", str(root / "elsewhere" / "*.warc.gz"), "--output", c],
            inside,
        ),
        "input-list-names-a-file-inside": (
            ["--input_list", str(root / "list.txt"), "--output", c],
            "--input_list names",
        ),
        "folder-input-with-slash": (["--input", f"{c}/", "--output", f"{c}/clean"], reaches),
        "folder-input-without-slash": (["--input", c, "--output", f"{c}/clean"], reaches),
        "double-star": (["--input", f"{c}/**", "--output", f"{c}/clean"], reaches),
        "pattern-matching-the-summary": (
            ["--input", f"{c}/*/*", "--output", f"{c}/clean"],
            reaches,
        ),
    }


OUTPUT_OVERLAPS = [
    "crawl-data-under-output",
    "inputs-at-the-top-of-the-output",
    "output-through-a-symlink",
    "input-symlink-into-the-output",
    "input-list-names-a-file-inside",
    "folder-input-with-slash",
    "folder-input-without-slash",
    "double-star",
    "pattern-matching-the-summary",
]


def _text_file(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _folder_in_data(out: Path) -> Path:
    _text_file(out / "data" / "old" / "keep.parquet", "PAR1")
    return out / "data" / "old"


def _link_named_like_a_shard(out: Path) -> Path:
    path = out / "data" / "part-00000-of-00004.parquet"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.symlink_to(_text_file(out / "precious.txt", "precious"))
    return path


def _other_tools_parquet(out: Path) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = out / "data" / "part-00000-of-00003.parquet"
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.table({"id": [1, 2], "value": ["a", "b"]}), path)
    return path


# Files in OUT/data or OUT/rejects the job did not write: name -> builder, returning the path
# that the job's one line must name and leave in place.
FOREIGN_FILES: dict[str, Callable[[Path], Path]] = {
    "notes-in-data": lambda out: _text_file(out / "data" / "notes.txt", "my notes"),
    "todo-in-rejects": lambda out: _text_file(out / "rejects" / "todo.md", "- look at these"),
    "a-folder-in-data": _folder_in_data,
    "a-symlink-named-like-a-shard": _link_named_like_a_shard,
    "not-parquet-named-like-a-shard": lambda out: _text_file(
        out / "data" / "part-00000-of-00002.parquet", "someone else's bytes"
    ),
    "other-parquet-named-like-a-shard": _other_tools_parquet,
    "a-file-in-a-temp-folder": lambda out: _text_file(
        out / "data" / f".temp-{'a' * 32}" / "mine.txt", "not a shard"
    ),
}
