"""``ReadArchives``: file patterns in, one ``ArchiveRecord`` per archive record out.

Patterns are matched through Beam's FileSystems (local paths, gs://, s3:// with the matching
Beam extra; see ``matching``), each matched file is kept once, the files are reshuffled so that
they spread over workers, and each file is read whole or in ranges (``ranges.plan_reads``) by
the one reading loop (``reader``). A second output, ``files``, carries one ``FileStats`` per
file: how many records were read, and where and why reading stopped if the file is damaged.
"""

from __future__ import annotations

import logging
from typing import NamedTuple

import apache_beam as beam
from apache_beam.metrics import Metrics

from transforms.read.lists import stat_listed_bytes
from transforms.read.matching import OncePerFile, match_pattern
from transforms.read.ranges import DEFAULT_SPLIT_BYTES, FileRange, MergeRangeStats, plan_reads
from transforms.read.reader import DEFAULT_MAX_RECORD_BYTES, read_file, read_range
from transforms.records import FileStats

_LOG = logging.getLogger(__name__)

__all__ = ["ReadArchives", "ReadOutputs"]

FILES_TAG = "files"


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
    (see ``transforms.read.ranges``; 0 reads every file whole). ``listed`` are paths read as
    well, not matched as patterns: one that does not exist is an ``unreadable_file`` reject
    (see ``transforms.read.lists``).
    """

    def __init__(
        self,
        max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES,
        split_bytes: int = DEFAULT_SPLIT_BYTES,
        listed: list[str] | tuple[str, ...] = (),
    ):
        super().__init__()
        self._max_record_bytes = max_record_bytes
        self._split_bytes = split_bytes
        self._listed = list(listed)

    def expand(self, patterns):
        matched = patterns | "MatchFiles" >> beam.FlatMap(match_pattern)
        if self._listed:  # with the matched files before OncePerFile: each path is read once
            listed = (
                patterns.pipeline
                | "ListedPaths"
                >> beam.Create([path.encode("utf-8", "surrogateescape") for path in self._listed])
                | "StatListed" >> beam.Map(stat_listed_bytes)
            )
            matched = (matched, listed) | "MatchedAndListed" >> beam.Flatten()
        read = (
            matched
            | "OncePerFile" >> OncePerFile()
            | "Paths" >> beam.FlatMap(plan_reads, self._split_bytes)
            | "SpreadFiles" >> beam.Reshuffle()
            | "ReadRecords"
            >> beam.ParDo(_ReadArchiveFn(self._max_record_bytes)).with_outputs(
                FILES_TAG, main="records"
            )
        )
        return ReadOutputs(read.records, read.files | "MergeRangeStats" >> MergeRangeStats())
