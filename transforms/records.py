"""The unit of work between the archive readers and ``CleanHtml``.

A reader turns every record of every input file into one ``ArchiveRecord``. Only candidate
records (see ``reasons.CANDIDATE_TYPES``) carry a payload; the rest travel with an empty
payload so that ``CleanHtml`` can count them by type.
"""

from __future__ import annotations

import datetime
import re
from typing import NamedTuple

__all__ = ["ArchiveRecord", "FileStats", "valid_utf8"]

# Python decodes undecodable bytes in file names and tar member names (``surrogateescape``) as
# lone surrogates; Beam's str coder, Parquet and JSON all refuse them.
_SURROGATE = re.compile("[\ud800-\udfff]")


def valid_utf8(text: str | None) -> str | None:
    """``text`` with every lone surrogate replaced by U+FFFD, so that it encodes as UTF-8.

    Applied where names and paths enter records (input paths, tar member names and PAX
    headers): one undecodable byte in a name then costs that character, not the run.
    """
    if text is None or text.isascii():
        return text
    return _SURROGATE.sub("\ufffd", text)


class ArchiveRecord(NamedTuple):
    source_file: str
    record_id: str
    record_type: str
    offset: int
    url: str | None = None
    warc_date: datetime.datetime | None = None
    payload: bytes = b""
    is_http: bool = False
    content_type: str | None = None
    truncated: bool = False
    reject_reason: str | None = None
    reject_detail: str | None = None


class FileStats(NamedTuple):
    """What a reader saw in one input file, for the summary."""

    source_file: str
    format: str
    records: int
    bytes_read: int
    damaged: bool
    stopped_at: int | None
    error: str | None
