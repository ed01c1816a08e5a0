"""Iterate the records of one WARC, ARC or tar stream as ``ArchiveRecord``s.

Each reader is a generator over an already-opened binary stream. Only candidate records
(WARC ``response``/``resource``, ARC records, HTML members of a tar) carry a payload; every
other record is still yielded, empty, so that it can be counted by type. A payload over
``max_record_bytes`` is not read: the record comes out with ``reject_reason="too_large"``.

WARC is read with FastWARC (fast, tolerant, reads gzip/zstd/LZ4 and whole-file gzip); ARC with
warcio, the maintained reader that still knows ARC; tar with the standard library in stream
mode, so that a tar.gz is never held in memory.
"""

from __future__ import annotations

import datetime
import tarfile
from collections.abc import Iterator
from typing import BinaryIO

from fastwarc.warc import ArchiveIterator as WarcIterator
from warcio.archiveiterator import ArchiveIterator as ArcIterator

from transforms import reasons
from transforms.records import ArchiveRecord, valid_utf8

__all__ = [
    "ArchiveTruncated",
    "HTML_SUFFIXES",
    "clean_url",
    "iter_arc",
    "iter_tar",
    "iter_warc",
    "parse_arc_date",
    "parse_warc_date",
    "utc_instant",
]

HTML_SUFFIXES = (".html", ".htm", ".xhtml", ".shtml")
# PAX header keys that carry a member's original URL (checked in this order).
TAR_URL_KEYS = ("url", "URL", "WARC-Target-URI")
_TAR_READ_BYTES = 4096


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


def iter_tar(
    stream: BinaryIO, source_file: str, *, max_record_bytes: int
) -> Iterator[ArchiveRecord]:
    """HTML members of a tar (plain, gzip, bzip2 or xz) at any depth; other members are skipped.

    The URL is the member's PAX ``url`` header when the archive carries one, else its path.
    Undecodable bytes in either (``tarfile`` keeps them as lone surrogates) become U+FFFD.
    """
    with tarfile.open(fileobj=stream, mode="r|*") as archive:
        for member in archive:
            name = valid_utf8(member.name)
            is_html = member.isfile() and name.lower().endswith(HTML_SUFFIXES)
            url = next(
                (member.pax_headers[k] for k in TAR_URL_KEYS if k in member.pax_headers), None
            )
            common = {
                "source_file": source_file,
                "record_id": name,
                "record_type": "tar_member" if is_html else "tar_other",
                "offset": member.offset,
                "url": clean_url(valid_utf8(url)) or name,
            }
            if not is_html:
                yield ArchiveRecord(**common)
            elif member.size > max_record_bytes:
                reason, detail = _too_large(member.size, max_record_bytes)
                yield ArchiveRecord(**common, reject_reason=reason, reject_detail=detail)
            else:
                payload, error = _read_member(archive, member)
                yield ArchiveRecord(**common, payload=payload, truncated=len(payload) < member.size)
                if error is not None:
                    raise ArchiveTruncated(
                        f"file ends inside member {name!r} at offset {member.offset}: "
                        f"{len(payload)} of {member.size} bytes ({error})"
                    )
        _check_tar_end(archive)


def _read_member(archive: tarfile.TarFile, member: tarfile.TarInfo) -> tuple[bytes, str | None]:
    """A member's bytes, and the error that cut them short, if any (the bytes before it kept)."""
    stream = archive.extractfile(member)
    chunks: list[bytes] = []
    try:
        # Small reads: in stream mode a read that hits the end of the file loses its bytes
        # (so at most the last 4 KiB before the cut are lost).
        while chunk := stream.read(_TAR_READ_BYTES):
            chunks.append(chunk)
    except (tarfile.TarError, OSError, EOFError) as e:
        return b"".join(chunks), f"{type(e).__name__}: {e}"
    return b"".join(chunks), None


def _check_tar_end(archive: tarfile.TarFile) -> None:
    """Raise if the tar stopped early rather than at its end.

    In stream mode ``tarfile`` ends iteration silently at a header it cannot parse (a bad
    checksum, garbage), exactly as at the end-of-archive zero blocks. A real end is followed
    only by zero padding; anything else means members were left unread.
    """
    stopped_at = archive.offset
    while chunk := archive.fileobj.read(1 << 20):
        if chunk.strip(b"\x00"):
            raise tarfile.ReadError(
                f"invalid tar header at offset {stopped_at}: the rest of the archive is not read"
            )
