"""``ReadArchives``: file patterns in, one ``ArchiveRecord`` per archive record out.

Patterns are matched through Beam's FileSystems (local paths, gs://, s3:// with the matching
Beam extra; see ``transforms.read.matching``), each matched file is kept once, the files are
reshuffled so that they spread over workers, and each file is read by the reader its first
bytes call for. A second output, ``files``, carries one
``FileStats`` per file: how many records were read, and where and why reading stopped if the
file is damaged. A file that yields nothing readable becomes one ``unreadable_file`` record, so
that it is counted as a reject rather than vanishing.
"""

from __future__ import annotations

import logging
from typing import NamedTuple

import apache_beam as beam
from apache_beam.io.filesystem import CompressionTypes
from apache_beam.io.filesystems import FileSystems
from apache_beam.metrics import Metrics

from transforms import reasons
from transforms.read.formats import (
    HEAD_BYTES,
    ReplayStream,
    UnknownFormat,
    check_readable,
    sniff_format,
)
from transforms.read.iterators import iter_arc, iter_tar, iter_warc
from transforms.read.matching import OncePerFile, match_pattern
from transforms.read.ranges import (
    DEFAULT_SPLIT_BYTES,
    FileRange,
    MergeRangeStats,
    plan_reads,
    read_past_long_headers,
    read_range,
    resume_after_damage,
)
from transforms.records import ArchiveRecord, FileStats, valid_utf8

_LOG = logging.getLogger(__name__)

__all__ = ["DEFAULT_MAX_RECORD_BYTES", "ReadArchives", "read_file"]

DEFAULT_MAX_RECORD_BYTES = 64 * 1024 * 1024
FILES_TAG = "files"
_TO_THE_END = 1 << 62  # a range end past any file's end

_READERS = {"warc": iter_warc, "arc": iter_arc, "tar": iter_tar}


def _error_text(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"[:500]


def read_file(path: str, *, max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES):
    """Yield every ``ArchiveRecord`` of the file at ``path``, then its ``FileStats`` last.

    Never raises for bad content: an unknown format, a truncated stream or a corrupt record ends
    reading with the error in the stats, keeping the records read before it. In a per-record
    gzip WARC, reading then resumes at the next intact record (``resume_after_damage``).
    """
    source_file = valid_utf8(path)  # the name shown; ``path`` is what is opened
    records = 0
    last: int | None = None  # offset of the last record read
    fmt = "unknown"
    error: str | None = None
    stream: ReplayStream | None = None
    try:
        with FileSystems.open(path, compression_type=CompressionTypes.UNCOMPRESSED) as raw:
            head = raw.read(HEAD_BYTES)
            stream = ReplayStream(head, raw)
            detected = sniff_format(head)
            fmt = detected.container if detected.compression == "none" else "/".join(detected)
            check_readable(detected)
            reader = _READERS[detected.container]
            for record in reader(stream, source_file, max_record_bytes=max_record_bytes):
                records += 1
                last = record.offset
                yield record
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
        stopped_at=bytes_read if error is not None else None,
        error=error,
    )
    if error is not None and fmt == "warc/gzip":  # read on past a damaged gzip member
        after = 0 if last is None else last + 1
        whole = FileRange(path, 0, _TO_THE_END)
        stats = yield from resume_after_damage(
            whole, after, stats, max_record_bytes=max_record_bytes
        )
    elif error is not None and fmt == "warc":  # read on past a header over FastWARC's limit
        stats = yield from read_past_long_headers(
            path, last, stats, max_record_bytes=max_record_bytes
        )
    if stats.damaged and stats.records == 0:
        yield ArchiveRecord(
            source_file=source_file,
            record_id=source_file,
            record_type="file",
            offset=0,
            reject_reason=reasons.UNREADABLE_FILE,
            reject_detail=stats.error,
        )
    yield stats


class _ReadArchiveFn(beam.DoFn):
    def __init__(self, max_record_bytes: int):
        self._max_record_bytes = max_record_bytes
        self._files = Metrics.counter("read_archives", "files")
        self._damaged = Metrics.counter("read_archives", "damaged_files")
        self._records = Metrics.counter("read_archives", "records")

    def process(self, what):
        if isinstance(what, FileRange):  # a piece of a large file (transforms.read.ranges)
            items = read_range(what, max_record_bytes=self._max_record_bytes)
        else:  # a whole file's FileMetadata
            items = read_file(what.path, max_record_bytes=self._max_record_bytes)
        for item in items:
            if isinstance(item, FileStats):
                self._files.inc()
                if item.damaged:
                    self._damaged.inc()
                    _LOG.warning(
                        "%s: damaged, %d records read: %s",
                        item.source_file,
                        item.records,
                        item.error,
                    )
                yield beam.pvalue.TaggedOutput(FILES_TAG, item)
            else:
                self._records.inc()
                yield item


class ReadOutputs(NamedTuple):
    records: beam.PCollection
    files: beam.PCollection


class ReadArchives(beam.PTransform):
    """Read WARC, ARC and tar archives matching file patterns.

    Returns ``ReadOutputs``: ``.records`` is the ``ArchiveRecord``s, ``.files`` the
    ``FileStats`` of each file. Files over ``split_bytes`` are read in ranges by several workers
    (see ``transforms.read.ranges``; 0 reads every file whole).
    """

    def __init__(
        self,
        max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES,
        split_bytes: int = DEFAULT_SPLIT_BYTES,
    ):
        super().__init__()
        self._max_record_bytes = max_record_bytes
        self._split_bytes = split_bytes

    def expand(self, patterns):
        read = (
            patterns
            | "MatchFiles" >> beam.FlatMap(match_pattern)
            | "OncePerFile" >> OncePerFile()
            | "Paths" >> beam.FlatMap(plan_reads, self._split_bytes)
            | "SpreadFiles" >> beam.Reshuffle()
            | "ReadRecords"
            >> beam.ParDo(_ReadArchiveFn(self._max_record_bytes)).with_outputs(
                FILES_TAG, main="records"
            )
        )
        return ReadOutputs(read.records, read.files | "MergeRangeStats" >> MergeRangeStats())
