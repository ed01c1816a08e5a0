"""One loop reads every file: a whole file, or a byte range of a large per-record gzip WARC.

``read_file`` and ``read_range`` yield a file's (or range's) ``ArchiveRecord``s and then its
``FileStats``. Both go through ``_read_span``: open the file at the span's start, bound it at
the span's end, sniff the head for the format (``formats.sniff_format``), hand the stream to that
format's iterator (``iterators``), through a decompressor when the iterator does not undo that
compression itself, and give every record its offset in the whole file.

A local path that is not a regular file (a FIFO, socket, device or folder) is not opened: a
FIFO without a writer would block the worker for ever and ``/dev/zero`` never ends.

An archive inside a tar (a WARC, ARC or tar member; ``iterators.NestedArchive``) is read on the
spot, streamed from the tar, as a file of its own named ``TAR!/MEMBER``: its records carry that
``source_file`` and the record ids and offsets they have in the member, and it gets its own
``FileStats``. Only one level deep: an archive inside that one is an ``unreadable_file`` reject.

Reading never raises for bad content. An unknown format, a truncated stream or a corrupt record
ends the span with the error in its stats, keeping the records read before it; in a per-record
gzip WARC, reading then resumes at the next intact record (``resume_after_damage``), so one bad
record costs that record, not the rest of the file. A record whose header is longer than
FastWARC reads becomes a ``header_too_large`` reject and reading goes on after it, in a plain
WARC too (``long_headers``). Both need to reopen the file, so inside a tar reading stops at the
damage and goes on with the next member. A whole file that yields nothing readable becomes one
``unreadable_file`` record, so that it is counted as a reject rather than vanishing.
"""

from __future__ import annotations

import io
import os
import stat
from collections.abc import Generator, Iterator
from typing import BinaryIO

from apache_beam.io.filesystem import CompressionTypes
from apache_beam.io.filesystems import FileSystems

from transforms import reasons
from transforms.paths import is_local
from transforms.read.formats import (
    ReplayStream,
    UnknownFormat,
    decompressed,
    read_head,
    sniff_format,
)
from transforms.read.iterators import NestedArchive, iter_arc, iter_tar, iter_warc
from transforms.read.long_headers import is_header_limit, read_long_header, record_end
from transforms.read.ranges import FileRange, find_record_start
from transforms.records import ArchiveRecord, FileStats, valid_utf8

__all__ = [
    "DEFAULT_MAX_RECORD_BYTES",
    "NotARegularFile",
    "check_regular_file",
    "read_file",
    "read_past_long_headers",
    "read_range",
    "resume_after_damage",
]

DEFAULT_MAX_RECORD_BYTES = 64 * 1024 * 1024
# Damaged parts a read passes before it stops: each costs a scan and a new open of the file.
MAX_RESUMES = 1000
_TO_THE_END = 1 << 62  # a span end past any file's end
_READERS = {"warc": iter_warc, "arc": iter_arc, "tar": iter_tar}


def _error_text(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"[:500]


class _BoundedReader(io.RawIOBase):
    """Reads at most ``length`` bytes of ``raw``."""

    def __init__(self, raw: BinaryIO, length: int):
        self._raw = raw
        self._left = length

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        if self._left <= 0:
            return 0
        chunk = self._raw.read(min(len(buffer), self._left))
        n = len(chunk)
        buffer[:n] = chunk
        self._left -= n
        return n


def _in_whole_file(record: ArchiveRecord, start: int) -> ArchiveRecord:
    """``record`` read from a span that starts at ``start``, with offsets in the whole file."""
    offset = record.offset + start
    record_id = record.record_id
    if record_id == f"offset:{record.offset}":  # records without an id are named by offset
        record_id = f"offset:{offset}"
    return record._replace(offset=offset, record_id=record_id)


class NotARegularFile(OSError):
    """A local path that is a FIFO, socket, device or folder: opening or reading it could block
    forever (a FIFO without a writer) or never end (``/dev/zero``)."""


_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


def check_regular_file(path: str) -> None:
    """Raise ``NotARegularFile`` unless the local ``path`` (a symbolic link followed) is a
    regular file; ``FileNotFoundError`` for a missing one. Object stores hold only objects:
    remote paths pass."""
    if not is_local(path):
        return
    mode = os.stat(path).st_mode
    if not stat.S_ISREG(mode):
        kind = next((name for test, name in _KINDS if test(mode)), "not a file")
        raise NotARegularFile(f"not a regular file but {kind}: not opened")


def _nested_name(item: NestedArchive, seen: set[str]) -> str:
    """The ``source_file`` of an archive inside a tar: ``TAR!/MEMBER``, with ``@OFFSET`` when
    the tar holds two members of that name (tar allows it)."""
    name = f"{item.source_file}!/{item.name}"
    if name in seen:
        name = f"{name}@{item.offset}"
    seen.add(name)
    return name


def _too_deep(item: NestedArchive) -> ArchiveRecord:
    """The reject for an archive inside an archive inside a tar: read one level deep only, so
    that a tar of tars (or a gzip quine) cannot make reading recurse without end."""
    what = f"a {item.detected.label}" if item.detected else "an archive by its name"
    return ArchiveRecord(
        source_file=item.source_file,
        record_id=item.name,
        record_type="file",
        offset=item.offset,
        url=item.name,
        reject_reason=reasons.UNREADABLE_FILE,
        reject_detail=(
            f"{what} nested two levels deep: archives inside a tar are read one level deep; "
            "unpack the outer tar to read it"
        ),
    )


def _unreadable(stats: FileStats) -> ArchiveRecord:
    """The one reject that stands for a file of which nothing could be read."""
    return ArchiveRecord(
        source_file=stats.source_file,
        record_id=stats.source_file,
        record_type="file",
        offset=0,
        reject_reason=reasons.UNREADABLE_FILE,
        reject_detail=stats.error,
    )


def _read_stream(
    source: BinaryIO, source_file: str, *, start: int, max_record_bytes: int, nested: bool
) -> Generator[ArchiveRecord | FileStats, None, tuple[FileStats, int | None]]:
    """Yield the records of the archive ``source`` holds until its end or a damage; return its
    ``FileStats`` and the offset of the last record (or archive inside it) read.

    ``start`` is where ``source`` begins in the file. An archive inside a tar is read right
    there (its records, then its own ``FileStats``) when ``nested`` is false, and is one
    ``unreadable_file`` reject when it is true (see ``_too_deep``)."""
    records, last = 0, None
    fmt = "unknown"
    error: str | None = None
    stream: ReplayStream | None = None
    seen: set[str] = set()
    try:
        head = read_head(source)
        stream = ReplayStream(head, source)
        detected = sniff_format(head)
        fmt = detected.label
        reader = _READERS[detected.container]
        items = reader(
            decompressed(stream, detected), source_file, max_record_bytes=max_record_bytes
        )
        for item in items:
            if isinstance(item, NestedArchive):
                last = item.offset
                if not nested:
                    yield from _read_nested(item, _nested_name(item, seen), max_record_bytes)
                    continue
                item = _too_deep(item)
            elif start:
                item = _in_whole_file(item, start)
            records += 1
            last = item.offset
            yield item
    except UnknownFormat as e:
        error = str(e)
    except (GeneratorExit, KeyboardInterrupt, SystemExit):
        raise
    except BaseException as e:  # damaged (a Rust reader's panic is a BaseException too)
        error = _error_text(e)
    bytes_read = stream.bytes_read if stream is not None else 0
    stats = FileStats(
        source_file=source_file,
        format=fmt,
        records=records,
        bytes_read=bytes_read,
        damaged=error is not None,
        stopped_at=start + bytes_read if error is not None else None,
        error=error,
    )
    return stats, last


def _read_nested(
    item: NestedArchive, source_file: str, max_record_bytes: int
) -> Iterator[ArchiveRecord | FileStats]:
    """An archive inside a tar, read like a file of its own named ``source_file``: its
    records (offsets in the member), an ``unreadable_file`` reject when nothing in it could be
    read, then its ``FileStats``."""
    stats, last = yield from _read_stream(
        item.stream, source_file, start=0, max_record_bytes=max_record_bytes, nested=True
    )
    if stats.damaged and last is None:
        yield _unreadable(stats)
    yield stats


def _read_span(
    span: FileRange, max_record_bytes: int
) -> Generator[ArchiveRecord | FileStats, None, tuple[FileStats, int | None]]:
    """Yield the records of ``span`` until its end or a damage; return its ``FileStats`` and
    the offset of the last record read."""
    source_file = valid_utf8(span.path)  # the name shown; ``span.path`` is what is opened
    try:
        check_regular_file(span.path)
        with FileSystems.open(span.path, compression_type=CompressionTypes.UNCOMPRESSED) as raw:
            source: BinaryIO = raw
            if span.start or span.end < _TO_THE_END:
                raw.seek(span.start)
                source = _BoundedReader(raw, span.end - span.start)
            return (
                yield from _read_stream(
                    source,
                    source_file,
                    start=span.start,
                    max_record_bytes=max_record_bytes,
                    nested=False,
                )
            )
    except (GeneratorExit, KeyboardInterrupt, SystemExit):
        raise
    except BaseException as e:  # it cannot be opened
        error = str(e) if isinstance(e, NotARegularFile) else _error_text(e)
        stats = FileStats(source_file, "unknown", 0, 0, True, span.start, error)
        return stats, None


def resume_after_damage(
    whole: FileRange, after: int, first: FileStats, *, max_record_bytes: int
) -> Generator[ArchiveRecord, None, FileStats]:
    """Read on past a damaged part of ``whole``, a per-record gzip WARC or a range of one.

    ``first`` is the stats of what was read of ``whole`` before the damage and ``after`` an
    offset past the last record read then. Reading resumes at the next gzip member holding a
    WARC record (``ranges.find_record_start``, as for the cuts) and goes on to ``whole.end``;
    each later damage is passed the same way. Every attempt starts past the last record already
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
        stats, last = yield from _read_span(
            FileRange(whole.path, start, whole.end), max_record_bytes
        )
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
    record is read as a reject (``long_headers.read_long_header``) and FastWARC goes on right
    after it; again at each later long header. Returns the stats of the whole read; the file
    is damaged only if something other than a long header stopped it.
    """
    records, stats, start, reach = first.records, first, 0, first.bytes_read
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
        if long.next_offset is None:  # the file ends with the long record
            stats = stats._replace(damaged=False, stopped_at=None, error=None)
            break
        start = long.next_offset
        stats, last = yield from _read_span(FileRange(path, start, _TO_THE_END), max_record_bytes)
        records += stats.records
        reach = start + stats.bytes_read
        if stats.records == 0:
            last = None  # the next long header, if any, starts where this piece did
    return first._replace(
        records=records,
        bytes_read=reach,
        damaged=stats.damaged,
        stopped_at=stats.stopped_at,
        error=stats.error,
    )


def _read_with_resume(
    span: FileRange, max_record_bytes: int
) -> Generator[ArchiveRecord | FileStats, None, tuple[FileStats, bool]]:
    """The records of ``span``, read on past damage and long headers; returns its stats and
    whether anything (a record, an archive inside a tar) was read.

    A resume starts at the span's start when nothing was read yet: the record there may be one
    whose header is over FastWARC's limit, which is then read as a reject, not skipped."""
    stats, last = yield from _read_span(span, max_record_bytes)
    read_any = last is not None
    if stats.damaged and stats.format == "warc/gzip":
        after = span.start if last is None else last + 1
        stats = yield from resume_after_damage(
            span, after, stats, max_record_bytes=max_record_bytes
        )
    elif stats.damaged and stats.format == "warc" and span.start == 0:
        # a plain WARC, always read whole: past a header over FastWARC's limit
        stats = yield from read_past_long_headers(
            span.path, last, stats, max_record_bytes=max_record_bytes
        )
    return stats, read_any or stats.records > 0


def read_range(
    rng: FileRange, *, max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES
) -> Iterator[ArchiveRecord | FileStats]:
    """Every record of one range, with offsets in the whole file, then the range's ``FileStats``."""
    stats, _ = yield from _read_with_resume(rng, max_record_bytes)
    yield stats


def read_file(
    path: str, *, max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES
) -> Iterator[ArchiveRecord | FileStats]:
    """Every record of the file at ``path``, then its ``FileStats``; an ``unreadable_file``
    record first when nothing in it could be read. An archive inside a tar adds its records
    and its own ``FileStats`` (named ``TAR!/MEMBER``) before the tar's."""
    stats, read_any = yield from _read_with_resume(
        FileRange(path, 0, _TO_THE_END), max_record_bytes
    )
    if stats.damaged and not read_any:
        yield _unreadable(stats)
    yield stats
