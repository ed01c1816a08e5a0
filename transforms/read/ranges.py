"""Split a large WARC.gz into byte ranges that workers read in parallel.

A crawl WARC.gz is a series of gzip members, one per record, so a reader can start at any
member. A file larger than ``split_bytes`` is cut into ranges of about that size: each cut is
moved forward to the next gzip member that decompresses to a WARC record header (``WARC/``),
so every record belongs to exactly one range and no record is read twice. Files that cannot be
cut this way (plain WARC, one gzip stream for the whole file, ARC, tar) are read whole.

Finding the cuts reads a few KB at each cut, not the file. Each range reports its own
``FileStats``; ``MergeRangeStats`` folds them back into one per file, so the summary counts a
split file exactly like a whole one.

The same search gets a read past a damaged gzip member (``reader.resume_after_damage``).
"""

from __future__ import annotations

import itertools
import zlib
from collections.abc import Iterator
from typing import BinaryIO, NamedTuple

import apache_beam as beam
from apache_beam.io.filesystem import CompressionTypes
from apache_beam.io.filesystems import FileSystems

from transforms.read.formats import GZIP_MAGIC, HEAD_BYTES, sniff_format
from transforms.records import FileStats

__all__ = [
    "DEFAULT_SPLIT_BYTES",
    "FileRange",
    "MergeRangeStats",
    "find_record_start",
    "merge_stats",
    "plan_reads",
]

# 256 MiB ranges: a 1 GB crawl file becomes four pieces of work, enough to keep workers busy at
# the end of a run without making each piece so small that its fixed costs show.
DEFAULT_SPLIT_BYTES = 256 * 1024 * 1024
# A gzip member begins with the magic and the deflate method (the only one gzip defines).
MEMBER_START = GZIP_MAGIC + b"\x08"
SCAN_CHUNK = 1 << 20
# How far past a nominal cut to look for a record start before giving up on that cut.
MAX_SCAN_BYTES = 64 * 1024 * 1024


class FileRange(NamedTuple):
    """Bytes ``[start, end)`` of ``path``, beginning at a record's gzip member."""

    path: str
    start: int
    end: int


def _is_record_start(data: bytes) -> bool:
    """True when ``data`` begins a gzip member whose content begins a WARC record."""
    try:
        head = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(data, 8)
    except zlib.error:
        return False
    return head.startswith(b"WARC/")


def find_record_start(stream: BinaryIO, offset: int, limit: int = MAX_SCAN_BYTES) -> int | None:
    """The first offset at or after ``offset`` where a gzip member holding a WARC record begins.

    Scans at most ``limit`` bytes; None when there is none (end of file, or not per-record gzip).
    """
    position = offset
    carry = b""
    while position - offset < limit:
        stream.seek(position)
        chunk = stream.read(SCAN_CHUNK)
        if not chunk:
            return None
        data = carry + chunk
        base = position - len(carry)
        found = data.find(MEMBER_START)
        while found != -1:
            candidate = base + found
            if candidate >= offset:
                stream.seek(candidate)
                if _is_record_start(stream.read(64 * 1024)):
                    return candidate
            found = data.find(MEMBER_START, found + 1)
        carry = data[-(len(MEMBER_START) - 1) :]
        position += len(chunk)
    return None


def plan_reads(metadata, split_bytes: int = DEFAULT_SPLIT_BYTES) -> Iterator[object]:
    """What to read of one matched file: its ``metadata`` (read it whole), or ``FileRange``s
    when it is worth splitting.

    ``metadata`` is a Beam ``FileMetadata`` (path and size). It is passed on rather than its
    path: Beam pickles it, where a bare str path that holds undecodable bytes (a lone
    surrogate) would stop its coder. Never raises: a file that cannot be opened or sniffed is
    read whole, and its reader reports the problem.
    """
    path, size = metadata.path, metadata.size_in_bytes
    if split_bytes <= 0 or size <= split_bytes * 3 // 2:
        yield metadata
        return
    try:
        with FileSystems.open(path, compression_type=CompressionTypes.UNCOMPRESSED) as stream:
            detected = sniff_format(stream.read(HEAD_BYTES))
            if (detected.container, detected.compression) != ("warc", "gzip"):
                yield metadata
                return
            cuts = [0]
            for nominal in range(split_bytes, size - split_bytes // 2, split_bytes):
                if nominal <= cuts[-1]:
                    continue
                cut = find_record_start(stream, nominal)
                if cut is None or cut >= size:
                    break
                cuts.append(cut)
    except Exception:  # the reader will open it again and report why it cannot be read
        yield metadata
        return
    if len(cuts) == 1:
        yield metadata
        return
    for start, end in itertools.pairwise([*cuts, size]):
        yield FileRange(path, start, end)


def merge_stats(stats: list[FileStats]) -> FileStats:
    """One file's ``FileStats`` from those of its ranges (a whole file's comes back as is)."""
    if len(stats) == 1:
        return stats[0]
    damaged = [s for s in stats if s.damaged]
    first_damage = min(damaged, key=lambda s: s.stopped_at or 0) if damaged else None
    return FileStats(
        source_file=stats[0].source_file,
        format=stats[0].format,
        records=sum(s.records for s in stats),
        bytes_read=sum(s.bytes_read for s in stats),
        damaged=first_damage is not None,
        stopped_at=first_damage.stopped_at if first_damage else None,
        error=first_damage.error if first_damage else None,
    )


class MergeRangeStats(beam.PTransform):
    """``FileStats`` per range in, one ``FileStats`` per file out."""

    def expand(self, stats):
        return (
            stats
            | "KeyByFile" >> beam.Map(lambda s: (s.source_file, s))
            | "GroupByFile" >> beam.GroupByKey()
            | "Merge" >> beam.MapTuple(lambda _path, parts: merge_stats(list(parts)))
        )
