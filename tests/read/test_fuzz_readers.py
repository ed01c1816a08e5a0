"""Fuzz the archive readers with mutated WARC, ARC and tar bytes: whatever the damage,
``read_file`` never raises, always ends with the file's stats, and its counts add up.

Bounded in the suite (``FUZZ_EXAMPLES``, default 300 per format); ``make fuzz`` runs many more.
"""

from __future__ import annotations

import bz2
import gzip
import io
import os
import tarfile
from pathlib import Path

import pytest
import zstandard
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.builders import WarcEntry, http_response, page, write_warc
from transforms import reasons
from transforms.read import read_file
from transforms.records import ArchiveRecord, FileStats

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "300"))
MAX_RECORD_BYTES = 1 << 20
HTML = page("Fuzz", "A paragraph to carry through the damage.").encode()


def _warc(tmp: Path, gzip_records: bool) -> bytes:
    entries = [
        WarcEntry("warcinfo", "", b"software: fuzz\r\n"),
        WarcEntry("request", "https://f.example/", b"GET / HTTP/1.1\r\n\r\n"),
        WarcEntry("response", "https://f.example/", http_response(HTML)),
        WarcEntry("resource", "https://f.example/r.html", HTML, content_type="text/html"),
        WarcEntry("response", "https://f.example/gz", http_response(HTML, content_encoding="gzip")),
    ]
    path = write_warc(tmp / "seed.warc", entries, gzip_records=gzip_records)
    return path.read_bytes()


def _arc_records() -> list[bytes]:
    version = b"1 0 fuzz\nURL IP-address Archive-date Content-type Archive-length\n"
    head = b"filedesc://fuzz.arc 0.0.0.0 20140216050221 text/plain %d\n" % len(version)
    body = http_response(HTML)
    record = b"http://f.example/ 1.2.3.4 20140216050221 text/html %d\n" % len(body)
    return [head + version + b"\n", record + body + b"\n", record + body + b"\n"]


def _arc() -> bytes:
    return b"".join(_arc_records())


def _arc_gz() -> bytes:
    """ARC.gz as crawlers write it: one gzip member per record."""
    return b"".join(gzip.compress(record, mtime=0) for record in _arc_records())


def _tar(members: dict[str, bytes] | None = None) -> bytes:
    buffer = io.BytesIO()
    members = members or {"a.html": HTML, "d/b.htm": HTML, "c.txt": b"note"}
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.pax_headers = {"url": f"https://f.example/{name}"}
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def _tar_of_archives(tmp: Path) -> bytes:
    """A tar holding WARCs, a tar holding a tar, and a page: archives inside archives."""
    inner = _tar({"in.html": HTML, "deeper.tar": _tar()})
    return _tar(
        {
            "w.warc.gz": _warc(tmp, gzip_records=True),
            "w.warc": _warc(tmp, gzip_records=False),
            "inner.tar": inner,
            "page": HTML,
        }
    )


@pytest.fixture(scope="module")
def seeds(tmp_path_factory) -> dict[str, bytes]:
    tmp = tmp_path_factory.mktemp("seeds")
    plain = _warc(tmp, gzip_records=False)
    return {
        "warc": plain,
        "warc.gz": _warc(tmp, gzip_records=True),
        "warc-whole.gz": gzip.compress(plain, mtime=0),
        "warc.zst": zstandard.ZstdCompressor().compress(plain),
        "arc": _arc(),
        "arc.gz": _arc_gz(),
        "tar": _tar(),
        "tar.gz": gzip.compress(_tar(), mtime=0),
        "tar-of-archives": _tar_of_archives(tmp),
        "tgz-of-archives": gzip.compress(_tar_of_archives(tmp), mtime=0),
        "warc.bz2": bz2.compress(plain),
        "tar.zst": zstandard.ZstdCompressor().compress(_tar()),
    }


# A mutation: (kind, relative position in [0, 1), a number for its size or value).
MUTATIONS = st.lists(
    st.tuples(
        st.sampled_from(["cut", "flip", "set", "insert", "delete", "duplicate", "zero"]),
        st.floats(0, 1, exclude_max=True),
        st.integers(0, 4096),
    ),
    min_size=1,
    max_size=4,
)


def mutate(data: bytes, mutations) -> bytes:
    buf = bytearray(data)
    for kind, where, n in mutations:
        if not buf:
            break
        at = int(where * len(buf))
        if kind == "cut":
            del buf[at:]
        elif kind == "flip":
            buf[at] ^= 1 << (n % 8)
        elif kind == "set":
            buf[at] = n % 256
        elif kind == "insert":
            buf[at:at] = bytes((n * 7 + i) % 256 for i in range(n % 300))
        elif kind == "delete":
            del buf[at : at + 1 + n % 300]
        elif kind == "duplicate":
            buf[at:at] = buf[at : at + 1 + n]
        elif kind == "zero":
            buf[at : at + 1 + n % 64] = bytes(len(buf[at : at + 1 + n % 64]))
    return bytes(buf)


def _check_file(stats: FileStats, records: list[ArchiveRecord], size: int | None) -> None:
    """``size``: the file's, None for an archive inside it (a member, maybe inflated)."""
    assert stats.damaged == (stats.error is not None)
    assert stats.damaged == (stats.stopped_at is not None)
    assert 0 <= stats.bytes_read <= (size if size is not None else stats.bytes_read)
    unreadable = [
        r for r in records if r.reject_reason == reasons.UNREADABLE_FILE and r.record_type == "file"
    ]
    if unreadable and unreadable[0].record_id == stats.source_file:
        assert records == unreadable and len(records) == 1
        assert stats.damaged and stats.records == 0
    else:
        assert stats.records == len(records)
    for record in records:
        assert len(record.payload) <= MAX_RECORD_BYTES
        assert record.source_file == stats.source_file


def check_read(path: Path, size: int) -> None:
    """The file's stats come last; an archive inside it has its records, then its own stats,
    named ``PATH!/MEMBER``; every record belongs to the file whose stats follow it."""
    items = list(read_file(str(path), max_record_bytes=MAX_RECORD_BYTES))
    assert isinstance(items[-1], FileStats) and items[-1].source_file == str(path)
    pending: dict[str, list[ArchiveRecord]] = {}
    for item in items:
        if isinstance(item, FileStats):
            inner = item.source_file != str(path)
            assert not inner or item.source_file.startswith(f"{path}!/")
            _check_file(item, pending.pop(item.source_file, []), None if inner else size)
        else:
            assert isinstance(item, ArchiveRecord)
            pending.setdefault(item.source_file, []).append(item)
    assert not pending


@pytest.mark.parametrize(
    "fmt",
    [
        "warc",
        "warc.gz",
        "warc-whole.gz",
        "warc.zst",
        "warc.bz2",
        "arc",
        "arc.gz",
        "tar",
        "tar.gz",
        "tar.zst",
        "tar-of-archives",
        "tgz-of-archives",
    ],
)
def test_mutated_archives_never_crash_the_reader(seeds, tmp_path, fmt):
    path = tmp_path / f"fuzzed.{fmt}"

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    )
    @given(mutations=MUTATIONS)
    def fuzz(mutations):
        data = mutate(seeds[fmt], mutations)
        path.write_bytes(data)
        check_read(path, len(data))

    fuzz()


def test_unmutated_seeds_read_cleanly(seeds, tmp_path):
    for fmt, data in seeds.items():
        path = tmp_path / f"seed.{fmt}"
        path.write_bytes(data)
        items = list(read_file(str(path)))
        assert not any(item.damaged for item in items if isinstance(item, FileStats)), fmt
        assert sum(isinstance(item, ArchiveRecord) for item in items) >= 2, fmt
