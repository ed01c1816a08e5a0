"""Inputs that hung the reader or were silently skipped (issue 21): paths that are not regular
files, archives inside a tar, pages told by their content, and every container in every
compression. Each ends as records, a reject with a reason, or a counted skip, at once."""

from __future__ import annotations

import bz2
import contextlib
import gzip
import io
import lzma
import os
import signal
import socket
import tarfile
import tracemalloc
import zlib
from pathlib import Path

import pytest
import zstandard

from tests.builders import WarcEntry, http_response, page, write_warc
from transforms import reasons
from transforms.read import read_file
from transforms.records import ArchiveRecord, FileStats

HTML = page("Unclear", "A paragraph of text that a reader keeps.").encode()
LATIN1_E = os.fsdecode(b"\xe9")


@contextlib.contextmanager
def within(seconds: int):
    """Fail, rather than hang the suite, when the body blocks (a FIFO open without a writer)."""

    def stop(*_):
        raise TimeoutError(f"blocked for {seconds} s")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def read_all(path) -> list[ArchiveRecord | FileStats]:
    with within(20):
        return list(read_file(str(path)))


def by_file(items) -> dict[str, tuple[list[ArchiveRecord], FileStats]]:
    """The records and stats of each file read, archives inside a tar included."""
    out: dict[str, tuple[list[ArchiveRecord], FileStats]] = {}
    pending: dict[str, list[ArchiveRecord]] = {}
    for item in items:
        if isinstance(item, FileStats):
            assert item.source_file not in out, item.source_file
            out[item.source_file] = (pending.pop(item.source_file, []), item)
        else:
            pending.setdefault(item.source_file, []).append(item)
    assert not pending, pending  # every record is followed by its file's stats
    return out


def warc_bytes(tmp: Path, prefix: str, n: int = 2, *, gzip_records: bool = True) -> bytes:
    entries = [
        WarcEntry("response", f"https://{prefix}.example/{i}", http_response(HTML))
        for i in range(n)
    ]
    path = write_warc(tmp / f".{prefix}.warc", entries, gzip_records=gzip_records)
    data = path.read_bytes()
    path.unlink()
    return data


def tar_bytes(members: dict[str, bytes], fmt: int = tarfile.PAX_FORMAT) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=fmt) as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def urls(records) -> list[str]:
    return [r.url for r in records]


# --- paths that are not regular files ----------------------------------------------------------


def _unreadable_at_once(path: Path, kind: str) -> None:
    items = read_all(path)
    assert len(items) == 2, items
    reject, stats = items
    said = f"not a regular file but {kind}"
    assert reject.reject_reason == reasons.UNREADABLE_FILE and said in reject.reject_detail
    assert stats.damaged and stats.records == 0 and said in stats.error


def test_a_fifo_is_one_unreadable_reject_at_once(tmp_path):
    fifo = tmp_path / "crawl.warc.gz"
    os.mkfifo(fifo)
    _unreadable_at_once(fifo, "a FIFO")


def test_a_symbolic_link_to_a_fifo_is_one_unreadable_reject_at_once(tmp_path):
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "link.warc").symlink_to(tmp_path / "pipe")
    _unreadable_at_once(tmp_path / "link.warc", "a FIFO")


def test_a_socket_is_one_unreadable_reject(tmp_path):
    path = tmp_path / "s.warc"
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))
        _unreadable_at_once(path, "a socket")


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/null", "/dev/urandom"])
def test_a_device_is_one_unreadable_reject(tmp_path, device):
    """``/dev/zero`` would be read for ever; a link to it named like a crawl alike."""
    if not os.path.exists(device):
        pytest.skip(f"no {device}")
    (tmp_path / "dev.warc.gz").symlink_to(device)
    _unreadable_at_once(tmp_path / "dev.warc.gz", "a character device")


def test_a_folder_read_as_a_file_is_one_unreadable_reject(tmp_path):
    (tmp_path / "sub.warc").mkdir()
    _unreadable_at_once(tmp_path / "sub.warc", "a folder")


# --- every container in every compression ------------------------------------------------------


def _lz4(data: bytes) -> bytes:
    import lz4.frame

    return lz4.frame.compress(data)


COMPRESSIONS = {
    "bzip2": bz2.compress,
    "xz": lzma.compress,
    "zstd": lambda data: zstandard.ZstdCompressor().compress(data),
    "lz4": _lz4,
}


@pytest.mark.parametrize("compression", sorted(COMPRESSIONS))
@pytest.mark.parametrize("container", ["warc", "tar"])
def test_every_container_is_read_in_every_compression(tmp_path, container, compression):
    plain = (
        warc_bytes(tmp_path, "cmp", 3, gzip_records=False)
        if container == "warc"
        else tar_bytes({f"p{i}.html": HTML for i in range(3)})
    )
    path = tmp_path / f"x.{container}.{compression}"
    path.write_bytes(COMPRESSIONS[compression](plain))
    files = by_file(read_all(path))
    records, stats = files[str(path)]
    assert len(records) == 3 and not stats.damaged, stats
    assert stats.format == f"{container}/{compression}"
    assert all(r.payload for r in records)


def test_an_arc_in_bzip2_is_read(tmp_path):
    version = b"1 0 t\nURL IP-address Archive-date Content-type Archive-length\n"
    body = http_response(HTML)
    arc = (
        b"filedesc://t.arc 0.0.0.0 20140216050221 text/plain %d\n" % len(version)
        + version
        + b"\n"
        + b"http://a.example/ 1.2.3.4 20140216050221 text/html %d\n" % len(body)
        + body
        + b"\n"
    )
    path = tmp_path / "t.arc.bz2"
    path.write_bytes(bz2.compress(arc))
    records, stats = by_file(read_all(path))[str(path)]
    assert [r.url for r in records if r.payload] == ["http://a.example/"]
    assert stats.format == "arc/bzip2" and not stats.damaged


# --- archives inside a tar ---------------------------------------------------------------------


def test_warcs_inside_a_tar_are_read_as_files_of_their_own(tmp_path):
    gz = warc_bytes(tmp_path, "ingz", 3)
    plain = warc_bytes(tmp_path, "inplain", 2, gzip_records=False)
    path = tmp_path / "crawl.tar"
    path.write_bytes(tar_bytes({"crawl/a.warc.gz": gz, "b.warc": plain, "readme.txt": b"a crawl"}))
    files = by_file(read_all(path))
    assert sorted(files) == [str(path), f"{path}!/b.warc", f"{path}!/crawl/a.warc.gz"]
    records, stats = files[f"{path}!/crawl/a.warc.gz"]
    assert urls(records) == [f"https://ingz.example/{i}" for i in range(3)]
    assert stats.format == "warc/gzip" and stats.records == 3 and not stats.damaged
    # record_id and record_offset are those of the record in the member, as for a WARC file
    for record in records:
        assert record.record_id.startswith("<urn:uuid:")
        inflated = zlib.decompressobj(zlib.MAX_WBITS | 16).decompress(gz[record.offset :])
        assert inflated.startswith(b"WARC/1.") and record.record_id.encode() in inflated[:300]
    records, stats = files[f"{path}!/b.warc"]
    assert urls(records) == [f"https://inplain.example/{i}" for i in range(2)]
    assert plain[records[1].offset :].startswith(b"WARC/1.")
    outer_records, outer = files[str(path)]
    assert [r.record_type for r in outer_records] == ["tar_other"]  # the readme
    assert outer.records == 1 and not outer.damaged


@pytest.mark.parametrize("compression", ["gzip", "bzip2", "xz", "zstd", "lz4"])
def test_a_tgz_of_warcs_in_any_compression(tmp_path, compression):
    """A compressed tar of WARCs whose members are compressed in their own way too."""
    plain = warc_bytes(tmp_path, "tgz", 2, gzip_records=False)
    member = gzip.compress(plain) if compression == "gzip" else COMPRESSIONS[compression](plain)
    path = tmp_path / "crawl.tgz"
    path.write_bytes(gzip.compress(tar_bytes({"x.warc.any": member})))
    files = by_file(read_all(path))
    records, stats = files[f"{path}!/x.warc.any"]
    assert urls(records) == ["https://tgz.example/0", "https://tgz.example/1"]
    assert stats.format == f"warc/{compression}" and not stats.damaged
    assert files[str(path)][1].format == "tar/gzip"


def test_a_tar_of_tars_is_read_one_level_deep_and_the_second_level_is_a_reject(tmp_path):
    deepest = tar_bytes({"deep.html": HTML})
    inner = tar_bytes({"inner.html": HTML, "deeper.tar": deepest, "w.warc.gz": b""})
    path = tmp_path / "outer.tar"
    path.write_bytes(tar_bytes({"top.html": HTML, "inner.tar": inner}))
    files = by_file(read_all(path))
    assert sorted(files) == [str(path), f"{path}!/inner.tar"]
    records, stats = files[f"{path}!/inner.tar"]
    by_id = {r.record_id: r for r in records}
    assert by_id["inner.html"].payload == HTML
    for name, what in (("deeper.tar", "a tar nested"), ("w.warc.gz", "archive by its name")):
        reject = by_id[name]
        assert reject.reject_reason == reasons.UNREADABLE_FILE
        assert what in reject.reject_detail and "one level deep" in reject.reject_detail
    assert stats.records == 3 and not stats.damaged
    assert [r.record_id for r in files[str(path)][0]] == ["top.html"]


def test_a_damaged_warc_inside_a_tar_keeps_what_came_before_and_the_tar_goes_on(tmp_path):
    gz = warc_bytes(tmp_path, "cut", 3)
    path = tmp_path / "t.tar"
    path.write_bytes(
        tar_bytes(
            {
                "cut.warc.gz": gz[:-100],  # inside the third record
                "garbage.warc.gz": b"\x1f\x8b\x08" + bytes(range(200)),
                "after.html": HTML,
            }
        )
    )
    files = by_file(read_all(path))
    records, stats = files[f"{path}!/cut.warc.gz"]
    assert urls(records)[:2] == ["https://cut.example/0", "https://cut.example/1"]
    assert stats.damaged and stats.error
    records, stats = files[f"{path}!/garbage.warc.gz"]
    assert [r.reject_reason for r in records] == [reasons.UNREADABLE_FILE]
    assert stats.damaged and "not WARC, ARC or tar" in stats.error
    outer_records, outer = files[str(path)]
    assert [r.record_id for r in outer_records] == ["after.html"] and not outer.damaged


def test_a_tar_cut_inside_a_member_warc_is_damaged_with_both_reported(tmp_path):
    """The member's records before the cut are read (but for the last 64 KiB before it: in
    stream mode a read that hits the end of a cut file loses its bytes)."""
    gz = warc_bytes(tmp_path, "outercut", 400)
    starts = [
        r.offset
        for r in by_file(read_all(_write(tmp_path / "whole.warc.gz", gz)))[
            str(tmp_path / "whole.warc.gz")
        ][0]
    ]
    cut = len(gz) // 2
    path = _write(tmp_path / "cut.tar", tar_bytes({"a.warc.gz": gz})[: 512 + cut])
    files = by_file(read_all(path))
    records, stats = files[f"{path}!/a.warc.gz"]
    assert stats.damaged
    assert urls(records)[:1] == ["https://outercut.example/0"]
    assert len(records) >= sum(1 for start in starts if start < cut - (64 << 10) - 600)
    outer_records, outer = files[str(path)]
    assert outer.damaged and "a.warc.gz" in outer.error and outer_records == []


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def test_nested_names_with_odd_bytes_dot_dot_absolute_and_duplicates(tmp_path):
    warc = warc_bytes(tmp_path, "odd", 1)
    path = tmp_path / "odd.tar"
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.GNU_FORMAT) as archive:
        for name in (f"caf{LATIN1_E}.warc.gz", "../up.warc.gz", "/abs/x.warc.gz", "d.warc.gz"):
            for _ in range(2 if name == "d.warc.gz" else 1):
                info = tarfile.TarInfo(name)
                info.size = len(warc)
                archive.addfile(info, io.BytesIO(warc))
    path.write_bytes(buffer.getvalue())
    files = by_file(read_all(path))
    names = sorted(files)
    assert f"{path}!/caf\ufffd.warc.gz" in names
    assert f"{path}!/../up.warc.gz" in names
    assert f"{path}!//abs/x.warc.gz" in names
    twice = [n for n in names if "d.warc.gz" in n]
    assert len(twice) == 2 and twice[0] != twice[1]  # the second named by its offset too
    for name in names:
        name.encode("utf-8")
        if name != str(path):
            assert urls(files[name][0]) == ["https://odd.example/0"]


def test_a_large_member_warc_is_streamed_not_held_in_memory(tmp_path):
    """A 24 MB WARC member, one record over the cap: Python's peak allocation stays a small
    fraction of it (the member is read through, never into a buffer of its size)."""
    big = http_response(b"<html><body><p>" + b"x" * (20 << 20) + b"</p></body></html>")
    entries = [WarcEntry("response", "https://big.example/huge", big)]
    entries += [
        WarcEntry("response", f"https://big.example/{i}", http_response(HTML)) for i in range(2)
    ]
    member = write_warc(tmp_path / "big.warc", entries, gzip_records=False).read_bytes()
    path = tmp_path / "big.tar"
    path.write_bytes(tar_bytes({"big.warc": member}))
    tracemalloc.start()
    try:
        items = list(read_file(str(path), max_record_bytes=1 << 20))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    records, stats = by_file(items)[f"{path}!/big.warc"]
    assert [r.reject_reason for r in records] == [reasons.TOO_LARGE, None, None]
    assert not stats.damaged
    assert peak < 6 << 20, peak


def test_zero_padding_after_a_tars_end_is_not_inflated_for_ever(tmp_path):
    """A tar.gz whose end is followed by 256 MiB of zeros (256 KiB compressed): the padding is
    checked up to a bound, not inflated to its end."""
    zeros = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    parts = [zeros.compress(tar_bytes({"a.html": HTML}))]
    block = bytes(1 << 20)
    parts += [zeros.compress(block) for _ in range(256)]
    parts.append(zeros.flush())
    path = tmp_path / "padded.tar.gz"
    path.write_bytes(b"".join(parts))
    records, stats = by_file(read_all(path))[str(path)]
    assert [r.record_id for r in records] == ["a.html"] and not stats.damaged
    assert stats.bytes_read < path.stat().st_size // 2


# --- pages told by their content ---------------------------------------------------------------

MIRROR_PAGES = {
    "site/index.php": HTML,
    "site/item.asp?id=3": HTML,
    "site/list.html?p=2": HTML,
    "site/about": HTML,
    "site/feed.xhtml.gz": gzip.compress(HTML),
    "site/bom.htm5": b"\xef\xbb\xbf" + HTML,
    "site/utf16.page": "\ufeff".encode("utf-16-le") + HTML.decode().encode("utf-16-le"),
    "site/spaced": b"\n\n   \t" + HTML,
    "site/commented": b"<!-- saved by wget -->\n<!-- mirror -->" + HTML,
    "site/x.xhtml": b'<?xml version="1.0" encoding="utf-8"?>\n'
    b'<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" '
    b'"http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd">\n'
    b'<html xmlns="http://www.w3.org/1999/xhtml"><head><title>X</title></head>'
    b"<body><p>XHTML page.</p></body></html>",
}
MIRROR_OTHERS = {
    "site/style.css": b"body { color: red }",
    "site/app.js": b"var x = 1;",
    "site/logo.png": b"\x89PNG\r\n\x1a\n" + bytes(100),
    "site/robots.txt": b"User-agent: *\nDisallow:\n",
    "site/sitemap.xml": b'<?xml version="1.0"?><urlset><url><loc>x</loc></url></urlset>',
    "site/data.json": b'{"html": "<p>not a page</p>"}',
}


def test_a_wget_mirror_tarball_is_read_by_content(tmp_path):
    path = tmp_path / "mirror.tar.gz"
    fake = {"site/photo.html": b"\xff\xd8\xff\xe0\x00\x10JFIF" + bytes(200)}
    path.write_bytes(gzip.compress(tar_bytes({**MIRROR_PAGES, **MIRROR_OTHERS, **fake})))
    records, stats = by_file(read_all(path))[str(path)]
    kinds = {r.record_id: r.record_type for r in records}
    assert {n for n, k in kinds.items() if k == "tar_member"} == {*MIRROR_PAGES, *fake}
    assert {n for n, k in kinds.items() if k == "tar_other"} == set(MIRROR_OTHERS)
    payloads = {r.record_id: r.payload for r in records}
    assert all(payloads[name] == data for name, data in MIRROR_PAGES.items())
    assert not stats.damaged


# --- a folder named as --input -----------------------------------------------------------------


def test_a_folder_named_as_a_pattern_is_the_files_in_it(tmp_path):
    """As ``DIR/`` matches them: files, FIFOs and dangling links (each read or rejected), not
    the subfolders; a folder name that holds wildcard characters is taken as written."""
    from transforms.read.matching import folder_contents, match_pattern

    crawl = tmp_path / "crawl [1]"
    (crawl / "sub").mkdir(parents=True)
    (crawl / "a.warc.gz").write_bytes(b"x" * 10)
    (crawl / "sub" / "deeper.warc.gz").write_bytes(b"y")
    os.mkfifo(crawl / "pipe.warc")
    (crawl / "gone.warc").symlink_to(crawl / "missing")
    (crawl / "linked-folder").symlink_to(crawl / "sub")
    want = [str(crawl / name) for name in ("a.warc.gz", "gone.warc", "pipe.warc")]
    for pattern in (str(crawl), str(crawl) + "/"):
        found = match_pattern(pattern)
        assert sorted(m.path for m in found) == want
        assert {m.path.rsplit("/", 1)[-1]: m.size_in_bytes for m in found}["a.warc.gz"] == 10
    files, folders = folder_contents(str(crawl))
    assert [Path(p).name for p in folders] == ["linked-folder", "sub"]
    assert folder_contents(str(crawl / "a.warc.gz")) is None
