"""Split a large WARC.gz into byte ranges that workers read in parallel.

A crawl WARC.gz is a series of gzip members, one per record, so a reader can start at any
member. A file larger than ``split_bytes`` is cut into ranges of about that size: each cut is
moved forward to the next gzip member that decompresses to a WARC record header (``WARC/``),
so every record belongs to exactly one range and no record is read twice. Files that cannot be
cut this way (plain WARC, one gzip stream for the whole file, ARC, tar) are read whole.

Finding the cuts reads a few KB at each cut, not the file. Each range reports its own
``FileStats``; ``MergeRangeStats`` folds them back into one per file, so the summary counts a
split file exactly like a whole one.

The same search gets a read past a damaged gzip member (a corrupt or cut record in the middle
of a file): reading resumes at the next member that holds a record, so one bad record costs that
record, not the rest of the file. The file is still reported as damaged, with where it resumed.
"""

from __future__ import annotations

import io
import itertools
import zlib
from collections.abc import Generator, Iterator
from typing import BinaryIO, NamedTuple

import apache_beam as beam
from apache_beam.io.filesystem import CompressionTypes
from apache_beam.io.filesystems import FileSystems

from transforms.read.formats import HEAD_BYTES, sniff_format
from transforms.read.iterators import iter_warc
from transforms.read.long_headers import is_header_limit, read_long_header, record_end
from transforms.records import ArchiveRecord, FileStats, valid_utf8

__all__ = [
    "DEFAULT_SPLIT_BYTES",
    "FileRange",
    "MergeRangeStats",
    "find_record_start",
    "merge_stats",
    "plan_reads",
    "read_past_long_headers",
    "read_range",
    "resume_after_damage",
]

# 256 MiB ranges: a 1 GB crawl file becomes four pieces of work, enough to keep workers busy at
# the end of a run without making each piece so small that its fixed costs show.
DEFAULT_SPLIT_BYTES = 256 * 1024 * 1024
GZIP_MAGIC = b"\x1f\x8b\x08"
SCAN_CHUNK = 1 << 20
# How far past a nominal cut to look for a record start before giving up on that cut.
MAX_SCAN_BYTES = 64 * 1024 * 1024
# Damaged parts a read passes before it stops: each costs a scan and a new open of the file.
MAX_RESUMES = 1000
_TO_THE_END = 1 << 62  # a range end past any file's end


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
        found = data.find(GZIP_MAGIC)
        while found != -1:
            candidate = base + found
            if candidate >= offset:
                stream.seek(candidate)
                if _is_record_start(stream.read(64 * 1024)):
                    return candidate
            found = data.find(GZIP_MAGIC, found + 1)
        carry = data[-(len(GZIP_MAGIC) - 1) :]
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


class _BoundedReader(io.RawIOBase):
    """Reads at most ``length`` bytes of ``raw``; positions are relative to where it started."""

    def __init__(self, raw: BinaryIO, length: int):
        self._raw = raw
        self._left = length
        self.bytes_read = 0

    def readable(self) -> bool:
        return True

    def tell(self) -> int:
        return self.bytes_read

    def readinto(self, buffer) -> int:
        if self._left <= 0:
            return 0
        chunk = self._raw.read(min(len(buffer), self._left))
        n = len(chunk)
        buffer[:n] = chunk
        self._left -= n
        self.bytes_read += n
        return n


def _read_piece(
    rng: FileRange, max_record_bytes: int
) -> Generator[ArchiveRecord, None, tuple[FileStats, int | None]]:
    """Yield the records of ``rng`` (offsets in the whole file) until its end or a damage;
    return its ``FileStats`` and the offset of the last record read."""
    source_file = valid_utf8(rng.path)
    records, last = 0, None
    error: str | None = None
    reader: _BoundedReader | None = None
    try:
        with FileSystems.open(rng.path, compression_type=CompressionTypes.UNCOMPRESSED) as raw:
            raw.seek(rng.start)
            reader = _BoundedReader(raw, rng.end - rng.start)
            for record in iter_warc(reader, source_file, max_record_bytes=max_record_bytes):
                records += 1
                last = offset = record.offset + rng.start
                record_id = record.record_id
                if record_id == f"offset:{record.offset}":
                    record_id = f"offset:{offset}"
                yield record._replace(offset=offset, record_id=record_id)
    except (GeneratorExit, KeyboardInterrupt, SystemExit):
        raise
    except BaseException as e:  # damaged (a Rust reader's panic is a BaseException too)
        error = f"{type(e).__name__}: {e}"[:500]
    bytes_read = reader.bytes_read if reader is not None else 0
    stats = FileStats(
        source_file=source_file,
        format="warc/gzip",
        records=records,
        bytes_read=bytes_read,
        damaged=error is not None,
        stopped_at=rng.start + bytes_read if error is not None else None,
        error=error,
    )
    return stats, last


def resume_after_damage(
    whole: FileRange, after: int, first: FileStats, *, max_record_bytes: int
) -> Generator[ArchiveRecord, None, FileStats]:
    """Read on past a damaged part of ``whole``, a per-record gzip WARC or a range of one.

    ``first`` is the stats of what was read of ``whole`` before the damage and ``after`` an
    offset past the last record read then. Reading resumes at the next gzip member holding a
    WARC record (``find_record_start``, as for the cuts) and goes on to ``whole.end``; each
    later damage is passed the same way. Every attempt starts past the last record already
    read, so no record is read twice and the loop ends. Yields the records found; returns the
    stats of the whole read: every record, the first damage, where reading resumed and found
    records (in ``error``) and, as ``bytes_read``, how far into ``whole`` reading got.
    """
    records, reach, resumed = first.records, whole.start + first.bytes_read, []
    # A header over FastWARC's limit is not damage once its record is read as a reject.
    damage = None if is_header_limit(first.error) else first
    for _ in range(MAX_RESUMES):
        with FileSystems.open(whole.path, compression_type=CompressionTypes.UNCOMPRESSED) as f:
            start = find_record_start(f, after)
        if start is None or start >= whole.end:
            break
        piece = FileRange(whole.path, start, whole.end)
        stats, last = yield from _read_piece(piece, max_record_bytes)
        records += stats.records
        reach = max(reach, start + stats.bytes_read)
        if stats.records:
            resumed.append(start)
        if not stats.damaged:
            break
        if not is_header_limit(stats.error):
            damage = damage or stats
        elif not stats.records:  # the long header starts this member: read it as a reject
            long = read_long_header(whole.path, stats.source_file, start, gzip=True)
            if long is not None:
                yield long.record
                records += 1
                after = start + 1
                continue
            damage = damage or stats
        # else the next attempt starts at the member with the long header
        after = (start if last is None else last) + 1
    if damage is None:  # only long headers, each read as a record
        return first._replace(
            records=records,
            bytes_read=reach - whole.start,
            damaged=False,
            stopped_at=None,
            error=None,
        )
    error = damage.error
    if resumed:
        shown = ", ".join(str(offset) for offset in resumed[:5])
        more = f" and {len(resumed) - 5} more" if len(resumed) > 5 else ""
        error = f"{error}; read on from byte {shown}{more}"
    return first._replace(
        records=records,
        bytes_read=reach - whole.start,
        stopped_at=damage.stopped_at,
        error=error,
    )


def read_past_long_headers(
    path: str, last: int | None, first: FileStats, *, max_record_bytes: int
) -> Generator[ArchiveRecord, None, FileStats]:
    """Read on in a plain WARC that FastWARC stopped at a header over its limit.

    ``last`` is the offset of the last record read before it (None: none was). The long
    record is read as a reject (``read_long_header``) and FastWARC goes on right after it;
    again at each later long header. Returns the stats of the whole read; the file is damaged
    only if something other than a long header stopped it.
    """
    records, stats, start = first.records, first, 0
    for _ in range(MAX_RESUMES):
        if not is_header_limit(stats.error):
            break
        if last is not None:
            with FileSystems.open(path, compression_type=CompressionTypes.UNCOMPRESSED) as f:
                start = record_end(f, last)
        long = (
            None if start is None else read_long_header(path, first.source_file, start, gzip=False)
        )
        if long is None:
            break
        yield long.record
        records += 1
        start = long.next_offset
        stats, last = yield from _read_piece(FileRange(path, start, _TO_THE_END), max_record_bytes)
        records += stats.records
        if stats.records == 0:
            last = None  # the next long header, if any, starts where this piece did
    if stats is first:
        return first
    return first._replace(
        records=records,
        bytes_read=start + stats.bytes_read,
        damaged=stats.damaged,
        stopped_at=stats.stopped_at,
        error=stats.error,
    )


def read_range(rng: FileRange, *, max_record_bytes: int) -> Iterator[ArchiveRecord | FileStats]:
    """Every record of one range, with offsets in the whole file, then the range's ``FileStats``.

    Like ``read_file``, never raises for bad content: the error goes into the stats, and the
    records after a damaged gzip member are read all the same (``resume_after_damage``).
    """
    stats, last = yield from _read_piece(rng, max_record_bytes)
    if stats.damaged:
        after = (rng.start if last is None else last) + 1
        stats = yield from resume_after_damage(rng, after, stats, max_record_bytes=max_record_bytes)
    yield stats


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
