"""``CleanHtml``: archive records in, Parquet-ready rows and rejects out.

Every record meets exactly one outcome, each with its own counter in the ``clean_html``
namespace: ``rows`` (kept), ``rejected:<reason>`` (a candidate document not kept, see
``transforms.reasons``) or ``skipped:<record type>`` (a record that is not a document, such as a
WARC request). ``documents`` counts the candidates, so ``documents == rows + rejected:*``.
"""

from __future__ import annotations

import logging
import time
from typing import Any

import apache_beam as beam
from apache_beam.metrics import Metrics

from transforms import reasons
from transforms.decode import DEFAULT_MAX_BYTES, Reject, decode_document
from transforms.extract import Extractor
from transforms.records import ArchiveRecord
from transforms.text_repair import repair_text

_LOG = logging.getLogger(__name__)

__all__ = ["CleanHtml", "REJECTS_TAG", "SKIPPED_TAG", "clean_record"]

REJECTS_TAG = "rejects"
SKIPPED_TAG = "skipped"
NAMESPACE = "clean_html"
PROGRESS_EVERY_SECONDS = 10.0


def _reject(record: ArchiveRecord, reason: str, detail: str) -> dict[str, Any]:
    return {
        "source_file": record.source_file,
        "record_id": record.record_id,
        "record_offset": record.offset,
        "url": record.url,
        "reason": reason,
        "detail": detail[:1000],
    }


def clean_record(
    record: ArchiveRecord, extractor: Extractor, *, max_decoded_bytes: int = DEFAULT_MAX_BYTES
) -> tuple[str, dict[str, Any]]:
    """Decode and extract one candidate record: ``("row", row)`` or ``("reject", reject)``.

    Pure apart from the extractor's own state; the DoFn below adds counters and logging.
    """
    if record.reject_reason:
        return "reject", _reject(record, record.reject_reason, record.reject_detail or "")
    try:
        decoded = decode_document(
            record.payload,
            is_http=record.is_http,
            content_type=record.content_type,
            max_bytes=max_decoded_bytes,
        )
    except Reject as r:
        return "reject", _reject(record, r.reason, r.detail)
    try:
        extracted = extractor(decoded.html, record.url)
    except Exception as e:
        return "reject", _reject(record, reasons.EXTRACT_ERROR, f"{type(e).__name__}: {e}")
    text = repair_text(extracted.text)
    if not text.strip():
        return "reject", _reject(record, reasons.NO_TEXT, f"{decoded.html_bytes} bytes of HTML")
    return "row", {
        "url": record.url,
        "title": repair_text(extracted.title),
        "text": text,
        "source_file": record.source_file,
        "record_id": record.record_id,
        "record_offset": record.offset,
        "warc_date": record.warc_date,
        "http_status": decoded.http_status,
        "content_type": decoded.content_type,
        "charset": decoded.charset,
        "charset_source": decoded.charset_source,
        "html_bytes": decoded.html_bytes,
        "truncated": bool(record.truncated or extracted.truncated),
    }


class _CleanHtmlFn(beam.DoFn):
    """Counts and routes each record; the extractor is built once per worker in ``setup``."""

    def __init__(self, mode: str, max_decoded_bytes: int):
        self._mode = mode
        self._max_decoded_bytes = max_decoded_bytes
        self._counters: dict[str, Any] = {}
        self._html_bytes = Metrics.distribution(NAMESPACE, "html_bytes")
        self._text_chars = Metrics.distribution(NAMESPACE, "text_chars")

    def setup(self):
        self._extractor = Extractor(mode=self._mode)
        self._done = 0
        self._started = self._last_log = time.monotonic()

    def _count(self, name: str) -> None:
        counter = self._counters.get(name)
        if counter is None:
            counter = self._counters[name] = Metrics.counter(NAMESPACE, name)
        counter.inc()

    def _log_progress(self) -> None:
        self._done += 1
        now = time.monotonic()
        if now - self._last_log >= PROGRESS_EVERY_SECONDS:
            self._last_log = now
            rate = self._done / (now - self._started)
            _LOG.info("%d documents done, %.0f documents/s", self._done, rate)

    def process(self, record):
        if record.reject_reason is None and record.record_type not in reasons.CANDIDATE_TYPES:
            self._count(f"skipped:{record.record_type}")
            yield beam.pvalue.TaggedOutput(SKIPPED_TAG, (record.source_file, record.record_type))
            return
        self._count("documents")
        outcome, value = clean_record(
            record, self._extractor, max_decoded_bytes=self._max_decoded_bytes
        )
        self._log_progress()
        if outcome == "row":
            self._count("rows")
            self._html_bytes.update(value["html_bytes"])
            self._text_chars.update(len(value["text"]))
            yield value
        else:
            self._count(f"rejected:{value['reason']}")
            yield beam.pvalue.TaggedOutput(REJECTS_TAG, value)


class CleanHtml(beam.PTransform):
    """Turn ``ArchiveRecord``s into rows of title and main text, rejects, and skipped records.

    Returns a ``DoOutputsTuple`` with ``.rows`` (dicts of ``transforms.write.ROW_SCHEMA``),
    ``.rejects`` (dicts of ``REJECT_SCHEMA``) and ``.skipped`` (``(source_file, record_type)``).
    """

    def __init__(self, mode: str = "main", max_decoded_bytes: int = DEFAULT_MAX_BYTES):
        super().__init__()
        self._mode = mode
        self._max_decoded_bytes = max_decoded_bytes

    def expand(self, records):
        return records | "CleanRecords" >> beam.ParDo(
            _CleanHtmlFn(self._mode, self._max_decoded_bytes)
        ).with_outputs(REJECTS_TAG, SKIPPED_TAG, main="rows")
