"""The job's two outputs, each column spelled once: its name, its Arrow type and its value.

A kept document becomes a row of ``ROW_SCHEMA`` (``data/*.parquet``); a candidate record that is
not kept becomes a row of ``REJECT_SCHEMA`` (``rejects/*.parquet``). Both start with the same
provenance, so a reject can be traced to its record as exactly as a row. ``document_row`` and
``reject_row`` build the dicts that the writers turn into Arrow batches; a test checks that their
keys are the schemas' names, so a column cannot be added in one place and forgotten in another.

A row ends with its signals (``transforms.signals``): ``text_hash``, the exact-duplicate key,
always; the quality signals that Gopher's, C4's and FineWeb's filters test when the job is
asked for them (``--quality_signals``), null otherwise, so that the schema is one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pyarrow as pa

from transforms.records import ArchiveRecord
from transforms.signals import row_signals

if TYPE_CHECKING:  # only for annotations: this module must not import the decoding stage
    from transforms.decode import Decoded

__all__ = ["REJECT_SCHEMA", "ROW_SCHEMA", "document_row", "reject_row"]

MAX_DETAIL_CHARS = 1000

_PROVENANCE = [
    pa.field("source_file", pa.string()),
    pa.field("record_id", pa.string()),
    pa.field("record_offset", pa.int64()),
]

# float64: a ratio such as 3/10 lines must compare equal to a rule's 0.3, which float32 cannot
_FRACTION = pa.float64()
# transforms.signals: what each measures and the rule it serves
_SIGNALS = [
    pa.field("text_hash", pa.string()),
    pa.field("words", pa.int32()),
    pa.field("mean_word_length", _FRACTION),
    pa.field("symbol_word_ratio", _FRACTION),
    pa.field("lines", pa.int32()),
    pa.field("bullet_line_fraction", _FRACTION),
    pa.field("ellipsis_line_fraction", _FRACTION),
    pa.field("punctuation_line_fraction", _FRACTION),
    pa.field("short_line_fraction", _FRACTION),
    pa.field("alpha_word_fraction", _FRACTION),
    pa.field("stop_words", pa.int32()),
    pa.field("duplicate_line_fraction", _FRACTION),
    pa.field("duplicate_line_char_fraction", _FRACTION),
    pa.field("duplicate_paragraph_fraction", _FRACTION),
    pa.field("duplicate_paragraph_char_fraction", _FRACTION),
    *(pa.field(f"top_{n}gram_char_fraction", _FRACTION) for n in (2, 3, 4)),
    *(pa.field(f"duplicate_{n}gram_char_fraction", _FRACTION) for n in range(5, 11)),
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
        pa.field("language", pa.string()),  # transforms.language: the model's code
        pa.field("language_score", pa.float32()),
        pa.field("comments", pa.string()),  # a comment thread apart from the text; "" if none
        *_SIGNALS,
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
    record: ArchiveRecord,
    decoded: Decoded,
    *,
    title: str,
    text: str,
    truncated: bool,
    language: str = "",
    language_score: float = 0.0,
    comments: str = "",
    quality_signals: bool = False,
) -> dict[str, Any]:
    """The ``ROW_SCHEMA`` row of a kept document; its signals are computed here, the quality
    ones only with ``quality_signals``."""
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
        "language": language,
        "language_score": language_score,
        "comments": comments,
        **row_signals(text, language, quality=quality_signals),
    }


def reject_row(record: ArchiveRecord, reason: str, detail: str) -> dict[str, Any]:
    """The ``REJECT_SCHEMA`` row of a candidate record that was not kept, and why."""
    return {**_provenance(record), "reason": reason, "detail": detail[:MAX_DETAIL_CHARS]}
