"""The unit of work between the archive readers and ``CleanHtml``.

A reader turns every record of every input file into one ``ArchiveRecord``. Only candidate
records (see ``reasons.CANDIDATE_TYPES``) carry a payload; the rest travel with an empty
payload so that ``CleanHtml`` can count them by type.
"""

from __future__ import annotations

import datetime
from typing import NamedTuple


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
