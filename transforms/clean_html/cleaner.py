"""Clean one archive record: decode it, extract its title and text, or say why not.

``clean_record`` is what every document goes through, in the worker itself or in the crash
guard's child (``guard``), which builds its own cleaner with ``build_cleaner``. The row and reject
shapes are ``transforms.rows``'.

Every row gets the language of its title and text (``transforms.language``); a language filter
(``languages``, ``min_language_score``) turns the rows it does not keep into ``language``
rejects, so that they are counted like any other document not kept. Its signals are
``transforms.rows``' (``quality_signals``: the quality ones too, else only ``text_hash``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from transforms import language, reasons
from transforms.decode import DEFAULT_MAX_BYTES, Reject, decode_document
from transforms.extract import Extractor
from transforms.memory import release_large_blocks
from transforms.records import ArchiveRecord
from transforms.rows import document_row, reject_row

# A cleaner: one candidate record in, ("row", row) or ("reject", reject) out.
Cleaner = Callable[[ArchiveRecord], tuple[str, dict[str, Any]]]

__all__ = ["Cleaner", "build_cleaner", "clean_record"]


def language_reject(
    found: language.Language, languages: frozenset[str] | None, min_score: float
) -> str | None:
    """The ``language`` reject detail for a row the filter does not keep, else None.

    Below ``min_score`` the language counts as undetermined (``und 0.21 (en)``, with the
    model's best guess); outside ``languages`` it is named with its score (``fr 0.97``).
    """
    if found.score < min_score:
        return f"{language.UNDETERMINED} {found.score:.2f} ({found.code})"
    if languages is not None and found.code not in languages:
        return f"{found.code} {found.score:.2f}"
    return None


def clean_record(
    record: ArchiveRecord,
    extractor: Extractor,
    *,
    max_decoded_bytes: int = DEFAULT_MAX_BYTES,
    languages: frozenset[str] | None = None,
    min_language_score: float = 0.0,
    quality_signals: bool = False,
) -> tuple[str, dict[str, Any]]:
    """Decode and extract one candidate record: ``("row", row)`` or ``("reject", reject)``.

    Pure apart from the extractor's own state; ``CleanHtml``'s DoFn adds counters and logging.
    Never raises for a bad document: an unexpected error in decoding or extraction is an
    ``extract_error`` reject. ``languages`` (codes of ``transforms.language``; None keeps all)
    and ``min_language_score`` make the rows they do not keep ``language`` rejects.
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
        return "reject", _failure(record, e)
    try:
        # Plain UTF-8 pages (nearly all) are measured and parsed as the bytes they came in,
        # their text never made (``decoded.text`` is None) unless a bound needs it.
        extracted = extractor(decoded.text, record.url, utf8=decoded.utf8)
        text = extracted.text
        found = language.identify(extracted.title, text) if text.strip() else None
    except Exception as e:
        return "reject", _failure(record, e)
    if found is None:
        return "reject", reject_row(record, reasons.NO_TEXT, f"{decoded.html_bytes} bytes of HTML")
    detail = language_reject(found, languages, min_language_score)
    if detail is not None:
        return "reject", reject_row(record, reasons.LANGUAGE, detail)
    return "row", document_row(
        record,
        decoded,
        title=extracted.title,
        text=text,
        truncated=bool(record.truncated or extracted.truncated),
        language=found.code,
        language_score=found.score,
        # An extractor that separates comment threads gives them apart; others have none.
        comments=getattr(extracted, "comments", "") or "",
        quality_signals=quality_signals,
    )


def _failure(record: ArchiveRecord, error: Exception) -> dict[str, Any]:
    """The reject for a document whose cleaning raised ``error``: ``too_large`` when memory ran
    out (the crash guard caps it), else ``extract_error``."""
    reason = reasons.TOO_LARGE if isinstance(error, MemoryError) else reasons.EXTRACT_ERROR
    return reject_row(record, reason, f"{type(error).__name__}: {error}")


def build_cleaner(
    mode: str = "main",
    max_decoded_bytes: int = DEFAULT_MAX_BYTES,
    extractor_factory: Callable[..., Any] = Extractor,
    *,
    output_format: str = "text",
    languages: frozenset[str] | None = None,
    min_language_score: float = 0.0,
    markdown_links: bool = False,
    quality_signals: bool = False,
) -> Cleaner:
    """A cleaner (record -> outcome) around a new extractor, ``extractor_factory(mode=mode)``
    (with ``output_format=...`` and ``links=True`` too when they are not the defaults, so that
    fakes need not know them).

    The extractor is called like an ``Extractor``: ``extractor(html, url, utf8=...)``, with a
    plain UTF-8 page's bytes as ``utf8`` (see ``Extractor.__call__``). The language model is
    loaded here, once per process that cleans.

    Module-level and built from picklable arguments, so that the guard's child can build it.
    """
    release_large_blocks()  # in the process that parses: see transforms.memory
    formats: dict[str, Any] = {} if output_format == "text" else {"output_format": output_format}
    if markdown_links:
        formats["links"] = True
    extractor = extractor_factory(mode=mode, **formats)
    language.load_model()
    return functools.partial(
        clean_record,
        extractor=extractor,
        max_decoded_bytes=max_decoded_bytes,
        languages=languages,
        min_language_score=min_language_score,
        quality_signals=quality_signals,
    )
