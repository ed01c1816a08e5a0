"""WARC records whose header is longer than FastWARC reads (32 KiB): a reject, not a lost file.

A valid record can carry a huge header (a 40 KB or 1 MB ``WARC-Target-URI``). FastWARC stops
at such a header with "Maximum header length exceeded": in a plain WARC every later record was
lost, in a WARC.gz the record vanished without a reject. Here the record's header is read
without FastWARC, up to ``MAX_HEADER_BYTES``, and the record becomes a ``header_too_large``
reject (or a skipped record, for a type that carries no document); the caller then reads on
with FastWARC after it. A header that does not end within ``MAX_HEADER_BYTES`` is damage, as
before (say, 8 MB of header lines and no blank line).

Where the next record starts: in a WARC.gz, at the next gzip member that holds a record (the
caller's ``find_record_start``); in a plain WARC, right after the record's Content-Length bytes.
"""

from __future__ import annotations

import zlib
from typing import BinaryIO, NamedTuple

from apache_beam.io.filesystem import CompressionTypes
from apache_beam.io.filesystems import FileSystems

from transforms import reasons
from transforms.read.iterators import clean_url, parse_warc_date
from transforms.records import ArchiveRecord

__all__ = [
    "FASTWARC_HEADER_LIMIT",
    "MAX_HEADER_BYTES",
    "LongHeader",
    "is_header_limit",
    "read_long_header",
    "record_end",
]

FASTWARC_HEADER_LIMIT = 32 * 1024
MAX_HEADER_BYTES = 4 * 1024 * 1024
_CHUNK = 64 * 1024
_END = b"\r\n\r\n"


class LongHeader(NamedTuple):
    record: ArchiveRecord
    # In a plain WARC, where the next record starts (past this one and the blank lines after
    # it); None when the file ends there. Not used for a WARC.gz.
    next_offset: int | None


def is_header_limit(error: str | None) -> bool:
    """True for FastWARC's error at a header over its limit."""
    return error is not None and "Maximum header length exceeded" in error


class _Inflated:
    """The decompressed bytes of the gzip member that starts where ``raw`` stands."""

    def __init__(self, raw: BinaryIO):
        self._raw = raw
        self._inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)

    def read(self, size: int) -> bytes:
        out = b""
        while len(out) < size and not self._inflater.eof:
            pending = self._inflater.unconsumed_tail or self._raw.read(_CHUNK)
            if not pending:
                break
            out += self._inflater.decompress(pending, size - len(out))
        return out


def _read_head(stream) -> tuple[int, bytes] | None:
    """(bytes of CR/LF skipped before it, the header up to and with its blank line), or None
    when no header ends within ``MAX_HEADER_BYTES``."""
    data = bytearray()
    while len(data) <= MAX_HEADER_BYTES + len(_END):
        chunk = stream.read(_CHUNK)
        if not chunk:
            return None
        searched = max(0, len(data) - len(_END))
        data += chunk
        end = data.find(_END, searched)
        skipped = len(data) - len(data.lstrip(b"\r\n"))
        if end != -1 and end < skipped:  # the blank lines before the header: look past them
            end = data.find(_END, skipped)
        if end != -1:
            return skipped, bytes(data[skipped : end + len(_END)])
    return None


def _fields(head: bytes) -> dict[str, str] | None:
    """The header's fields (names lower-cased), or None when it is not a WARC record header."""
    lines = head.decode("utf-8", "replace").split("\r\n")
    if not lines[0].startswith("WARC/"):
        return None
    fields: dict[str, str] = {}
    for line in lines[1:]:
        name, sep, value = line.partition(":")
        if sep:
            fields.setdefault(name.strip().lower(), value.strip())
    return fields


def record_end(stream: BinaryIO, offset: int) -> int | None:
    """The end (header, then Content-Length bytes) of the plain WARC record at ``offset``."""
    stream.seek(offset)
    found = _read_head(stream)
    fields = _fields(found[1]) if found else None
    length = (fields or {}).get("content-length", "")
    if not length.isdigit():
        return None
    return offset + found[0] + len(found[1]) + int(length)


def read_long_header(path: str, source_file: str, offset: int, *, gzip: bool) -> LongHeader | None:
    """The record at ``offset`` (a gzip member's start when ``gzip``) as a ``header_too_large``
    reject, when it is a WARC record whose complete header is over FastWARC's limit; else None.
    """
    with FileSystems.open(path, compression_type=CompressionTypes.UNCOMPRESSED) as raw:
        raw.seek(offset)
        found = _read_head(_Inflated(raw) if gzip else raw)
        if found is None or len(found[1]) <= FASTWARC_HEADER_LIMIT:
            return None
        skipped, head = found
        fields = _fields(head)
        length = (fields or {}).get("content-length", "")
        if fields is None or not length.isdigit():
            return None
        start = offset if gzip else offset + skipped
        next_offset = None if gzip else _after_blank_lines(raw, start + len(head) + int(length))
    record_type = fields.get("warc-type", "unknown")
    candidate = record_type in reasons.CANDIDATE_TYPES
    record = ArchiveRecord(
        source_file=source_file,
        record_id=fields.get("warc-record-id") or f"offset:{start}",
        record_type=record_type,
        offset=start,
        url=clean_url(fields.get("warc-target-uri")),
        warc_date=parse_warc_date(fields.get("warc-date")),
        reject_reason=reasons.HEADER_TOO_LARGE if candidate else None,
        reject_detail=(
            f"WARC header of {len(head)} bytes, over the reader's limit of {FASTWARC_HEADER_LIMIT}"
            if candidate
            else None
        ),
    )
    return LongHeader(record, next_offset)


def _after_blank_lines(raw: BinaryIO, offset: int) -> int | None:
    """The first offset at or after ``offset`` that is not CR or LF; None at the end of file."""
    raw.seek(offset)
    while chunk := raw.read(_CHUNK):
        rest = chunk.lstrip(b"\r\n")
        if rest:
            return offset + len(chunk) - len(rest)
        offset += len(chunk)
    return None
