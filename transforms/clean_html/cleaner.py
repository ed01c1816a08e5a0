"""Clean one archive record: decode it, extract its title and text, or say why not.

``clean_record`` is what every document goes through, in the worker itself or in the crash
guard's child (``guard``), which builds its own cleaner with ``build_cleaner``. The row and reject
shapes are ``transforms.rows``'.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from transforms import reasons
from transforms.decode import DEFAULT_MAX_BYTES, Reject, decode_document
from transforms.extract import Extractor
from transforms.memory import release_large_blocks
from transforms.records import ArchiveRecord
from transforms.rows import document_row, reject_row

# A cleaner: one candidate record in, ("row", row) or ("reject", reject) out.
Cleaner = Callable[[ArchiveRecord], tuple[str, dict[str, Any]]]

__all__ = ["Cleaner", "build_cleaner", "clean_record"]


def clean_record(
    record: ArchiveRecord, extractor: Extractor, *, max_decoded_bytes: int = DEFAULT_MAX_BYTES
) -> tuple[str, dict[str, Any]]:
    """Decode and extract one candidate record: ``("row", row)`` or ``("reject", reject)``.

    Pure apart from the extractor's own state; ``CleanHtml``'s DoFn adds counters and logging.
    Never raises for a bad document: an unexpected error in decoding or extraction is an
    ``extract_error`` reject.
    """
    if record.reject_reason:
        return "reject", reject_row(record, record.reject_reason, record.reject_detail or "")
    try:
        decoded = decode_document(
            record.payload,
            is_http=record.is_http,
            content_type=record.content_type,
            max_bytes=max_decoded_bytes,
        )
    except Reject as r:
        return "reject", reject_row(record, r.reason, r.detail)
    except Exception as e:  # a decoding bug must cost this document, not the job
        return "reject", reject_row(record, reasons.EXTRACT_ERROR, f"{type(e).__name__}: {e}")
    try:
        # Plain UTF-8 pages (nearly all) are measured and parsed as the bytes they came in:
        # the parser would otherwise encode the decoded text back to those bytes.
        extracted = extractor(decoded.html, record.url, utf8=decoded.utf8)
    except Exception as e:
        return "reject", reject_row(record, reasons.EXTRACT_ERROR, f"{type(e).__name__}: {e}")
    text = extracted.text
    if not text.strip():
        return "reject", reject_row(record, reasons.NO_TEXT, f"{decoded.html_bytes} bytes of HTML")
    truncated = bool(record.truncated or extracted.truncated)
    return "row", document_row(
        record, decoded, title=extracted.title, text=text, truncated=truncated
    )


def build_cleaner(
    mode: str = "main",
    max_decoded_bytes: int = DEFAULT_MAX_BYTES,
    extractor_factory: Callable[..., Any] = Extractor,
) -> Cleaner:
    """A cleaner (record -> outcome) around a new extractor, ``extractor_factory(mode=mode)``.

    The extractor is called like an ``Extractor``: ``extractor(html, url, utf8=...)``, with a
    plain UTF-8 page's bytes as ``utf8`` (see ``Extractor.__call__``).

    Module-level and built from picklable arguments, so that the guard's child can build it.
    """
    release_large_blocks()  # in the process that parses: see transforms.memory
    extractor = extractor_factory(mode=mode)
    return functools.partial(clean_record, extractor=extractor, max_decoded_bytes=max_decoded_bytes)
