"""Reading a large WARC.gz in byte ranges gives the same records and stats as reading it whole."""

from __future__ import annotations

import gzip
import io
from pathlib import Path

from apache_beam.io.filesystem import FileMetadata

from beam_jobs.clean_html import run
from tests.builders import WarcEntry, http_response, page, write_warc
from tests.conftest import read_output
from transforms.read import read_file, read_range
from transforms.read.ranges import (
    FileRange,
    find_record_start,
    merge_stats,
    plan_reads,
)
from transforms.records import ArchiveRecord, FileStats


def _entries(count: int) -> list[WarcEntry]:
    entries = [WarcEntry("warcinfo", "", b"software: test\r\n")]
    for i in range(count):
        url = f"https://example.com/page/{i}"
        body = page(f"Page {i}", f"Paragraph {i} " * 40, f"More text for page {i}.").encode()
        entries += [
            WarcEntry("request", url, f"GET /page/{i} HTTP/1.1\r\n\r\n".encode()),
            WarcEntry("response", url, http_response(body, content_encoding="gzip" * (i % 2))),
        ]
    return entries


def _metadata(path: Path) -> FileMetadata:
    return FileMetadata(str(path), path.stat().st_size)


def _read_all(path: Path, split_bytes: int) -> tuple[list[ArchiveRecord], list[FileStats]]:
    records, stats = [], []
    for item in plan_reads(_metadata(path), split_bytes):
        source = (
            read_range(item, max_record_bytes=1 << 20)
            if isinstance(item, FileRange)
            else read_file(item.path, max_record_bytes=1 << 20)
        )
        for out in source:
            (stats if isinstance(out, FileStats) else records).append(out)
    return records, stats


def test_ranges_read_every_record_once_with_whole_file_offsets(tmp_path: Path) -> None:
    path = write_warc(tmp_path / "big.warc.gz", _entries(60))
    size = path.stat().st_size
    plan = list(plan_reads(_metadata(path), size // 5))
    assert len(plan) >= 4 and all(isinstance(p, FileRange) for p in plan)
    assert plan[0].start == 0 and plan[-1].end == size
    assert all(a.end == b.start for a, b in zip(plan, plan[1:], strict=False))

    whole, whole_stats = _read_all(path, 0)
    split, split_stats = _read_all(path, size // 5)
    assert split == whole  # same records, same offsets and ids, same order
    merged = merge_stats(split_stats)
    assert merged.records == whole_stats[0].records == len(whole)
    assert merged.bytes_read == size and not merged.damaged


def test_small_and_unsplittable_files_are_read_whole(tmp_path: Path) -> None:
    path = write_warc(tmp_path / "one-stream.warc", _entries(30), gzip_records=False)
    single = tmp_path / "one-stream.warc.gz"  # one gzip stream for the whole file
    single.write_bytes(gzip.compress(path.read_bytes()))
    for candidate in (path, single):
        assert list(plan_reads(_metadata(candidate), 1000)) == [_metadata(candidate)]
    small = write_warc(tmp_path / "small.warc.gz", _entries(3))
    assert list(plan_reads(_metadata(small), 1 << 20)) == [_metadata(small)]


def test_record_start_skips_gzip_magic_that_is_not_a_warc_record(tmp_path: Path) -> None:
    path = write_warc(tmp_path / "r.warc.gz", _entries(2))
    other = gzip.compress(b"not a warc record")
    junk = b"junk\x1f\x8b\x08junk"  # gzip magic, but no valid member behind it
    data = junk + other + path.read_bytes()
    assert find_record_start(io.BytesIO(data), 0) == len(junk) + len(other)
    assert find_record_start(io.BytesIO(b"no member here" * 100), 0) is None


def test_job_with_split_files_matches_the_job_without(tmp_path: Path) -> None:
    (tmp_path / "in").mkdir()
    path = write_warc(tmp_path / "in" / "big.warc.gz", _entries(40))
    size = path.stat().st_size
    outputs = {}
    for name, split in (("whole", 0), ("split", size // 4)):
        out = tmp_path / name
        run(["--input", str(path), "--output", str(out), "--split_archive_bytes", str(split)])
        rows, rejects, summary = read_output(out)
        outputs[name] = (sorted((r["record_offset"], r["url"], r["text"]) for r in rows), summary)
    assert outputs["split"][0] == outputs["whole"][0]
    whole, split = outputs["whole"][1], outputs["split"][1]
    assert split["files"] == whole["files"]
    assert split["rows"] == whole["rows"] == 40


def _damaged_copies(path: Path, tmp_path: Path) -> tuple[int, dict[str, Path]]:
    """The offset of a response record in the middle of ``path``, and copies of the file in
    which that record's gzip member is corrupt, cut short, or followed by garbage."""
    records, _ = _read_all(path, 0)
    responses = [r for r in records if r.record_type == "response"]
    victim = responses[len(responses) // 2]
    after = min(r.offset for r in records if r.offset > victim.offset)
    data = path.read_bytes()
    at = victim.offset
    flipped = bytes(b ^ 0xFF for b in data[at + 40 : at + 80])
    damaged = {
        "corrupt": data[: at + 40] + flipped + data[at + 80 :],
        "cut": data[: at + (after - at) // 2] + data[after:],
        "garbage": data[:at] + b"\x1f\x8b\x08 garbage " * 50 + data[at:],
    }
    copies = {}
    for name, content in damaged.items():
        copies[name] = tmp_path / f"{name}.warc.gz"
        copies[name].write_bytes(content)
    return victim.offset, copies


def test_reading_resumes_after_a_damaged_member(tmp_path: Path) -> None:
    path = write_warc(tmp_path / "r.warc.gz", _entries(12))
    intact, _ = _read_all(path, 0)
    victim, copies = _damaged_copies(path, tmp_path)
    victim_url = next(r.url for r in intact if r.offset == victim)
    for name, copy in copies.items():
        for split in (0, copy.stat().st_size // 3):  # whole, and in ranges
            records, stats = _read_all(copy, split)
            merged = merge_stats(stats)
            urls = [r.url for r in records if r.record_type == "response"]
            expected = [r.url for r in intact if r.record_type == "response"]
            if name != "garbage":  # the damaged record itself is lost
                expected.remove(victim_url)
            assert urls == expected, (name, split)
            assert len({r.offset for r in records}) == len(records) == merged.records
            assert merged.damaged and "read on from byte" in merged.error, (name, split)
            assert merged.bytes_read <= copy.stat().st_size
