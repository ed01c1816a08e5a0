"""Read: file patterns in, one ``ArchiveRecord`` per archive record out, plus per-file stats."""

from transforms.read.formats import Format, UnknownFormat, sniff_format
from transforms.read.iterators import iter_arc, iter_tar, iter_warc
from transforms.read.ranges import DEFAULT_SPLIT_BYTES, FileRange, plan_reads
from transforms.read.reader import DEFAULT_MAX_RECORD_BYTES, read_file, read_range
from transforms.read.transform import ReadArchives

__all__ = [
    "DEFAULT_MAX_RECORD_BYTES",
    "DEFAULT_SPLIT_BYTES",
    "FileRange",
    "Format",
    "ReadArchives",
    "UnknownFormat",
    "iter_arc",
    "iter_tar",
    "iter_warc",
    "plan_reads",
    "read_file",
    "read_range",
    "sniff_format",
]
