"""The job's two outputs, each column spelled once: its name, its Arrow type and its value.

A kept document becomes a row of ``ROW_SCHEMA`` (``data/*.parquet``); a candidate record that is
not kept becomes a row of ``REJECT_SCHEMA`` (``rejects/*.parquet``). Both start with the same
provenance, so a reject can be traced to its record as exactly as a row. ``document_row`` and
``reject_row`` build the dicts that the writers turn into Arrow batches; a test checks that their
keys are the schemas' names, so a column cannot be added in one place and forgotten in another.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pyarrow as pa

from transforms.records import ArchiveRecord

if TYPE_CHECKING:  # only for annotations: this module must not import the decoding stage
    from transforms.decode import Decoded

__all__ = ["REJECT_SCHEMA", "ROW_SCHEMA", "document_row", "reject_row"]

MAX_DETAIL_CHARS = 1000

_PROVENANCE = [
    pa.field("source_file", pa.string()),
    pa.field("record_id", pa.string()),
    pa.field("record_offset", pa.int64()),
]

ROW_SCHEMA = pa.schema(
    [
        pa.field("url", pa.string()),
        pa.field("title", pa.string()),
        pa.field("text", pa.string()),
        *_PROVENANCE,
        pa.field("warc_date", pa.timestamp("us", tz="UTC")),
        pa.field("http_status", pa.int32()),
        pa.field("content_type", pa.string()),
        pa.field("charset", pa.string()),
        pa.field("charset_source", pa.string()),
        pa.field("html_bytes", pa.int64()),
        pa.field("truncated", pa.bool_()),
    ]
)

REJECT_SCHEMA = pa.schema(
    [
        *_PROVENANCE,
        pa.field("url", pa.string()),
        pa.field("reason", pa.string()),
        pa.field("detail", pa.string()),
    ]
)


def _provenance(record: ArchiveRecord) -> dict[str, Any]:
    return {
        "url": record.url,
        "source_file": record.source_file,
        "record_id": record.record_id,
        "record_offset": record.offset,
    }


def document_row(
    record: ArchiveRecord, decoded: Decoded, *, title: str, text: str, truncated: bool
) -> dict[str, Any]:
    """The ``ROW_SCHEMA`` row of a kept document."""
    return {
        **_provenance(record),
        "title": title,
        "text": text,
        "warc_date": record.warc_date,
        "http_status": decoded.http_status,
        "content_type": decoded.content_type,
        "charset": decoded.charset,
        "charset_source": decoded.charset_source,
        "html_bytes": decoded.html_bytes,
        "truncated": truncated,
    }


def reject_row(record: ArchiveRecord, reason: str, detail: str) -> dict[str, Any]:
    """The ``REJECT_SCHEMA`` row of a candidate record that was not kept, and why."""
    return {**_provenance(record), "reason": reason, "detail": detail[:MAX_DETAIL_CHARS]}
