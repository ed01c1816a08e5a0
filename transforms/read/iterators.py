"""Iterate the records of one WARC, ARC or tar stream as ``ArchiveRecord``s.

Each reader is a generator over an already-opened binary stream. Only candidate records
(WARC ``response``/``resource``, ARC records, HTML members of a tar) carry a payload; every
other record is still yielded, empty, so that it can be counted by type. A payload over
``max_record_bytes`` is not read: the record comes out with ``reject_reason="too_large"``.
A tar member that is itself an archive comes out as a ``NestedArchive``, a stream for the
caller (``reader``) to read as a file of its own.

WARC is read with FastWARC (fast, tolerant, reads gzip/zstd/LZ4 and whole-file gzip); ARC with
warcio, the maintained reader that still knows ARC; tar with the standard library in stream
mode, so that a tar.gz is never held in memory.
"""

from __future__ import annotations

import datetime
import io
import re
import tarfile
from collections.abc import Iterator
from typing import BinaryIO, NamedTuple

from fastwarc.warc import ArchiveIterator as WarcIterator
from warcio.archiveiterator import ArchiveIterator as ArcIterator

from transforms import reasons
from transforms.decode.content_type import sniff_html
from transforms.read.formats import (
    HEAD_BYTES,
    Format,
    ReplayStream,
    UnknownFormat,
    head_bytes,
    inflate_head,
    sniff_compression,
    sniff_format,
)
from transforms.records import ArchiveRecord, valid_utf8

__all__ = [
    "ARCHIVE_NAME",
    "ArchiveTruncated",
    "HTML_SUFFIXES",
    "NestedArchive",
    "clean_url",
    "iter_arc",
    "iter_tar",
    "iter_warc",
    "parse_arc_date",
    "parse_warc_date",
    "utc_instant",
]

HTML_SUFFIXES = (".html", ".htm", ".xhtml", ".shtml")
# Member names that promise an archive (a member so named is read as one, see _member_kind).
ARCHIVE_NAME = re.compile(r"\.(?:warc|arc|tar)(?:\.(?:gz|bz2|xz|zst|lz4))?$|\.(?:tgz|tbz2?|txz)$")
# PAX header keys that carry a member's original URL (checked in this order).
TAR_URL_KEYS = ("url", "URL", "WARC-Target-URI")
_TAR_READ_BYTES = 4096
_NESTED_READ_BYTES = 64 * 1024
# Zeros after a tar's end marker that are checked (tape block sizes pad up to a few MiB).
TAR_PADDING_BYTES = 16 << 20


def clean_url(url: str | None) -> str | None:
    """Strip whitespace and the angle brackets some tools (wget) write around WARC-Target-URI."""
    if url is None:
        return None
    url = url.strip()
    if url.startswith("<") and url.endswith(">"):
        url = url[1:-1].strip()
    return url or None


def utc_instant(moment: datetime.datetime | None) -> datetime.datetime | None:
    """``moment`` in UTC (naive taken as UTC); None when that falls outside years 1-9999.

    ``0001-01-01T00:00:00+05:00`` is a valid ISO date whose UTC instant is in year 0: Arrow
    would store it, and then no Python reader could read the file back.
    """
    if moment is None:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=datetime.timezone.utc)
    try:
        return moment.astimezone(datetime.timezone.utc)
    except OverflowError:
        return None


def parse_arc_date(value: str | None) -> datetime.datetime | None:
    """An ARC date (exactly 14 digits, YYYYMMDDhhmmss, UTC); None for anything else, rather
    than the padded guess warcio makes of a short or malformed one."""
    value = (value or "").strip()
    if len(value) != 14 or not (value.isascii() and value.isdigit()):
        return None
    try:
        parsed = datetime.datetime.strptime(value, "%Y%m%d%H%M%S")
    except ValueError:
        return None
    return parsed.replace(tzinfo=datetime.timezone.utc)


def parse_warc_date(value: str | None) -> datetime.datetime | None:
    """A WARC-Date (ISO 8601, usually with ``Z``) as an aware UTC datetime; None if unparseable
    or outside years 1-9999 in UTC. A bare 14-digit ARC date is read too."""
    if not value:
        return None
    value = value.strip()
    try:
        parsed = datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return parse_arc_date(value)
    return utc_instant(parsed)


def _record_date(record, headers) -> datetime.datetime | None:
    try:  # FastWARC raises for a year 0 and keeps the header's own offset
        parsed = record.record_date
    except ValueError:
        return None
    return utc_instant(parsed) if parsed else parse_warc_date(headers.get("WARC-Date"))


def _too_large(size: int, cap: int) -> tuple[str, str]:
    return reasons.TOO_LARGE, f"record payload is {size} bytes, over the cap of {cap}"


class ArchiveTruncated(OSError):
    """The stream ended inside a record: what came before it was read, the rest is missing."""


def iter_warc(
    stream: BinaryIO, source_file: str, *, max_record_bytes: int
) -> Iterator[ArchiveRecord]:
    """Records of a WARC file (1.0, 1.1, 0.17, 0.18; plain, per-record gzip, whole-file gzip, zstd, LZ4).

    A record cut by the end of the file is yielded (marked truncated), then ``ArchiveTruncated``
    is raised so that the file is reported as damaged.
    """
    for record in WarcIterator(stream, parse_http=False, fsspec_args=False):
        headers = record.headers
        if headers.get("Content-Length") is None:
            # FastWARC yields what it parsed of a header cut by the end of the file (or of a
            # gzip member) as a record without a length: it is the damage, not a record.
            raise ArchiveTruncated(
                f"record at offset {record.stream_pos} has no Content-Length: "
                "the file ends inside its header, or the header is corrupt"
            )
        record_type = str(record.record_type).rsplit(".", 1)[-1]
        size = record.content_length
        common = {
            "source_file": source_file,
            "record_id": record.record_id or f"offset:{record.stream_pos}",
            "record_type": record_type,
            "offset": record.stream_pos,
            "url": clean_url(headers.get("WARC-Target-URI")),
            "warc_date": _record_date(record, headers),
        }
        if record_type not in reasons.CANDIDATE_TYPES:
            got = record.consume()
            yield ArchiveRecord(**common, truncated=got < size)
        elif size > max_record_bytes:
            reason, detail = _too_large(size, max_record_bytes)
            yield ArchiveRecord(**common, reject_reason=reason, reject_detail=detail)
            got = record.consume()
        else:
            payload = record.reader.read()
            got = len(payload)
            content_type = headers.get("Content-Type")
            is_http = record_type == "response" and (
                (content_type or "").lower().startswith("application/http")
                or payload[:5] == b"HTTP/"
            )
            yield ArchiveRecord(
                **common,
                payload=payload,
                is_http=is_http,
                content_type=None if is_http else content_type,
                truncated=headers.get("WARC-Truncated") is not None or got < size,
            )
        if got < size:
            raise ArchiveTruncated(
                f"file ends inside the record at offset {record.stream_pos}: {got} of {size} bytes"
            )


def iter_arc(
    stream: BinaryIO, source_file: str, *, max_record_bytes: int
) -> Iterator[ArchiveRecord]:
    """Records of an ARC file (plain or gzip), each page read as a WARC response.

    The ARC header fields are read as written (not converted to WARC by warcio, which pads a
    short or malformed date into an invented instant): the date is kept only when it is one.
    The file's own header record counts as ``warcinfo``, as in a WARC.
    """
    records = ArcIterator(stream, arc2warc=False)
    for record in records:
        record_type = "warcinfo" if record.rec_type == "arc_header" else record.rec_type
        candidate = record_type in reasons.CANDIDATE_TYPES
        # Read the body before asking for the offset: warcio's offset look-up skips the body.
        body = record.raw_stream.read(max_record_bytes + 1) if candidate else b""
        offset = records.get_record_offset()
        headers = record.rec_headers
        # The offset is the stable id of an ARC record (ARC has no record ids).
        common = {
            "source_file": source_file,
            "record_id": f"offset:{offset}",
            "record_type": record_type,
            "offset": offset,
            "url": clean_url(headers.get_header("uri")),
            "warc_date": parse_arc_date(headers.get_header("archive-date")),
        }
        if not candidate:
            yield ArchiveRecord(**common)
        elif len(body) > max_record_bytes:
            reason, detail = _too_large(int(record.length or len(body)), max_record_bytes)
            yield ArchiveRecord(**common, reject_reason=reason, reject_detail=detail)
        elif record.http_headers is not None:
            yield ArchiveRecord(
                **common, payload=record.http_headers.to_bytes() + body, is_http=True
            )
        else:
            content_type = headers.get_header("content-type")
            yield ArchiveRecord(**common, payload=body, content_type=content_type)


class NestedArchive(NamedTuple):
    """A tar member that is itself an archive (a WARC, an ARC or a tar), or is named like one.

    ``iter_tar`` yields it instead of records: ``stream`` reads the member from its first byte,
    and only until the consumer asks ``iter_tar`` for its next item, when the tar reader moves
    past the member (``reader`` reads it, one level deep). ``detected`` is its sniffed format,
    None when only the name says archive.
    """

    source_file: str  # the tar's
    name: str  # the member's path in the tar (valid UTF-8)
    offset: int  # of the member's header in the tar's (uncompressed) stream
    detected: Format | None
    stream: BinaryIO


def _member_kind(name: str, head: bytes) -> tuple[str, Format | None]:
    """What a regular tar member not named as a page is, by its first bytes: ``archive``,
    ``html`` or ``other``.

    A page may be named ``.php``, ``.asp?id=3``, have no extension or be gzipped. A member
    named like an archive that is not one is still read as one, so that it ends as an
    ``unreadable_file`` reject saying why rather than as a silent skip.
    """
    try:
        return "archive", sniff_format(head)
    except UnknownFormat:
        pass
    compression = sniff_compression(head)
    if compression in ("none", "gzip") and sniff_html(inflate_head(head, compression)):
        return "html", None  # the decoder inflates a gzip body under its cap
    if ARCHIVE_NAME.search(name.lower()):
        return "archive", None
    return "other", None


def iter_tar(
    stream: BinaryIO, source_file: str, *, max_record_bytes: int
) -> Iterator[ArchiveRecord | NestedArchive]:
    """The members of a tar (plain, gzip, bzip2 or xz) at any depth of its folders.

    HTML members are documents: those named ``.html`` (or ``.htm``, ``.xhtml``, ``.shtml``)
    whatever they hold, the others when their content is HTML (``_member_kind``). Members that
    are archives come out as ``NestedArchive``s for the caller to read; the rest are skipped
    (``tar_other``). The URL is the member's PAX ``url`` header when the archive carries one,
    else its path. Undecodable bytes in either (``tarfile`` keeps them as lone surrogates)
    become U+FFFD.
    """
    with tarfile.open(fileobj=stream, mode="r|*") as archive:
        for member in archive:
            name = valid_utf8(member.name)
            url = next(
                (member.pax_headers[k] for k in TAR_URL_KEYS if k in member.pax_headers), None
            )
            common = {
                "source_file": source_file,
                "record_id": name,
                "record_type": "tar_other",
                "offset": member.offset,
                "url": clean_url(valid_utf8(url)) or name,
            }
            if not member.isfile():
                yield ArchiveRecord(**common)
                continue
            data = archive.extractfile(member)
            head, error, detected = b"", None, None
            if name.lower().endswith(HTML_SUFFIXES):
                # a document whatever it holds: one that is not HTML (a JPEG so named) is a
                # not_html reject rather than a silent skip
                kind = "html"
            else:
                head, error = _member_head(data)
                kind, detected = _member_kind(name, head)
            if kind == "archive":
                rest = _MemberStream(data if error is None else io.BytesIO())
                replay = ReplayStream(head, rest)
                yield NestedArchive(source_file, name, member.offset, detected, replay)
                # what the nested read left (or all of it) is skipped to reach the next member
                error = error or rest.error or _skip_rest(data)
            elif kind == "other":
                yield ArchiveRecord(**common)
            elif member.size > max_record_bytes:
                reason, detail = _too_large(member.size, max_record_bytes)
                yield ArchiveRecord(
                    **{**common, "record_type": "tar_member"},
                    reject_reason=reason,
                    reject_detail=detail,
                )
            else:
                payload = head
                if error is None:
                    payload, error = _read_member(data, first=head)
                yield ArchiveRecord(
                    **{**common, "record_type": "tar_member"},
                    payload=payload,
                    truncated=len(payload) < member.size,
                )
            if error is not None:
                raise ArchiveTruncated(
                    f"file ends inside member {name!r} at offset {member.offset} "
                    f"({member.size} bytes): {error}"
                )
        _check_tar_end(archive)


class _MemberStream(io.RawIOBase):
    """A tar member as a stream for a reader of its own: it ends at the member's end or where
    the tar file is cut, keeping the error for the tar's stats. Reads are bounded
    (``_NESTED_READ_BYTES``): in stream mode a read that hits the end of a cut file loses its
    bytes, so the records before the cut are all read but for that many bytes."""

    def __init__(self, data: BinaryIO):
        self._data = data
        self.error: str | None = None

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        if self.error is not None:
            return 0
        try:
            chunk = self._data.read(min(len(buffer), _NESTED_READ_BYTES))
        except (tarfile.TarError, OSError, EOFError) as e:
            self.error = f"{type(e).__name__}: {e}"
            return 0
        n = len(chunk)
        buffer[:n] = chunk
        return n


def _read_member(
    stream: BinaryIO, limit: int | None = None, first: bytes = b""
) -> tuple[bytes, str | None]:
    """``first`` and up to ``limit`` more bytes (all without one) of a member, and the error
    that cut them short, if any (the bytes before it kept)."""
    chunks = [first]
    left = (1 << 63) if limit is None else limit
    try:
        # Small reads: in stream mode a read that hits the end of the file loses its bytes
        # (so at most the last 4 KiB before the cut are lost).
        while left > 0 and (chunk := stream.read(min(left, _TAR_READ_BYTES))):
            chunks.append(chunk)
            left -= len(chunk)
    except (tarfile.TarError, OSError, EOFError) as e:
        return b"".join(chunks), f"{type(e).__name__}: {e}"
    return b"".join(chunks), None


def _member_head(stream: BinaryIO) -> tuple[bytes, str | None]:
    """The first bytes of a member, as many as telling what it is needs: 4 KiB (a container's
    magic, or a page's first tag, even through gzip, zstd or xz), or a block compression's
    first block (``formats.head_bytes``)."""
    head, error = _read_member(stream, _TAR_READ_BYTES)
    if error is None and len(head) == _TAR_READ_BYTES and head_bytes(head) > HEAD_BYTES:
        return _read_member(stream, head_bytes(head) - len(head), first=head)
    return head, error


def _skip_rest(stream: BinaryIO) -> str | None:
    """Read a member to its end; the error if the file ends first."""
    try:
        while stream.read(1 << 20):
            pass
    except (tarfile.TarError, OSError, EOFError) as e:
        return f"{type(e).__name__}: {e}"
    return None


def _check_tar_end(archive: tarfile.TarFile) -> None:
    """Raise if the tar stopped early rather than at its end.

    In stream mode ``tarfile`` ends iteration silently at a header it cannot parse (a bad
    checksum, garbage), exactly as at the end-of-archive zero blocks. A real end is followed
    only by zero padding; anything else means members were left unread. The padding is looked
    at up to ``TAR_PADDING_BYTES``: a tar.gz or tar.xz can inflate to endless zeros.
    """
    stopped_at = archive.offset
    for _ in range(TAR_PADDING_BYTES >> 20):
        chunk = archive.fileobj.read(1 << 20)
        if not chunk:
            return
        if chunk.strip(b"\x00"):
            raise tarfile.ReadError(
                f"invalid tar header at offset {stopped_at}: the rest of the archive is not read"
            )
