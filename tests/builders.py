"""Build WARC, ARC-free and tar fixtures for tests and samples, with the libraries' own writers.

WARC files are written with warcio's ``WARCWriter`` (per-record gzip or plain), tar files with
``tarfile``; HTTP responses are assembled byte for byte so that tests control every header.
"""

from __future__ import annotations

import datetime
import gzip
import io
import tarfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from warcio.warcwriter import WARCWriter

__all__ = ["WarcEntry", "http_response", "page", "write_tar", "write_warc"]

FIXED_DATE = datetime.datetime(2026, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc)


def page(
    title: str, *paragraphs: str, boilerplate: bool = True, charset: str | None = "utf-8"
) -> str:
    """A small HTML page with a headline, paragraphs and (optionally) nav and footer noise."""
    meta = f'<meta charset="{charset}">' if charset else ""
    body = "".join(f"<p>{p}</p>" for p in paragraphs)
    nav = '<nav><a href="/">Home</a> <a href="/about">About us</a></nav>' if boilerplate else ""
    footer = (
        "<footer>Copyright 2026 Example Corp. All rights reserved.</footer>" if boilerplate else ""
    )
    return (
        f"<!DOCTYPE html><html><head>{meta}<title>{title} | Example Site</title></head>"
        f"<body><header>Example Site</header>{nav}<main><article><h1>{title}</h1>{body}"
        f"</article></main>{footer}<script>var tracking = 1;</script></body></html>"
    )


def http_response(
    body: bytes,
    *,
    status: str = "200 OK",
    headers: Iterable[tuple[str, str]] = (("Content-Type", "text/html; charset=utf-8"),),
    content_encoding: str | None = None,
) -> bytes:
    """The raw bytes of an HTTP/1.1 response, with Content-Length set, optionally gzip-encoded."""
    headers = list(headers)
    if content_encoding == "gzip":
        body = gzip.compress(body, mtime=0)
        headers.append(("Content-Encoding", "gzip"))
    head = [f"HTTP/1.1 {status}"] + [f"{k}: {v}" for k, v in headers]
    head.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body


@dataclass
class WarcEntry:
    """One WARC record to write: ``block`` is the full record block (for a response, the HTTP bytes)."""

    record_type: str
    url: str
    block: bytes = b""
    content_type: str | None = None
    extra_headers: dict[str, str] = field(default_factory=dict)
    date: datetime.datetime = FIXED_DATE


_DEFAULT_CONTENT_TYPES = {
    "response": "application/http; msgtype=response",
    "request": "application/http; msgtype=request",
    "revisit": "application/http; msgtype=response",
    "metadata": "application/warc-fields",
    "warcinfo": "application/warc-fields",
    "resource": "text/html",
}


def raw_response_record(index: int, url: str, block: bytes, *, gzip_it: bool) -> bytes:
    """A WARC response record written by hand, header and all (``write_warc``'s library would
    refuse or fix what some tests need: a 1 MB ``WARC-Target-URI``, say)."""
    head = (
        "WARC/1.1\r\nWARC-Type: response\r\n"
        f"WARC-Record-ID: <urn:uuid:00000000-0000-4000-9000-{index:012d}>\r\n"
        f"WARC-Date: 2026-01-02T03:04:05Z\r\nWARC-Target-URI: {url}\r\n"
        "Content-Type: application/http; msgtype=response\r\n"
        f"Content-Length: {len(block)}\r\n\r\n"
    )
    record = head.encode() + block + b"\r\n\r\n"
    return gzip.compress(record, compresslevel=1, mtime=0) if gzip_it else record


def write_warc(path: Path, entries: Iterable[WarcEntry], *, gzip_records: bool = True) -> Path:
    """Write ``entries`` as a WARC/1.1 file; record IDs are derived from position, so runs repeat."""
    with open(path, "wb") as out:
        writer = WARCWriter(out, gzip=gzip_records, warc_version="WARC/1.1")
        for index, entry in enumerate(entries):
            content_type = entry.content_type or _DEFAULT_CONTENT_TYPES.get(
                entry.record_type, "application/octet-stream"
            )
            warc_headers = {
                "WARC-Record-ID": f"<urn:uuid:00000000-0000-4000-8000-{index:012d}>",
                "WARC-Date": entry.date.strftime("%Y-%m-%dT%H:%M:%SZ"),
                **entry.extra_headers,
            }
            record = writer.create_warc_record(
                entry.url or None,
                entry.record_type,
                payload=io.BytesIO(entry.block),
                length=len(entry.block),
                warc_headers_dict=warc_headers,
                warc_content_type=content_type,
            )
            writer.write_record(record)
    return path


def write_tar(
    path: Path,
    members: dict[str, bytes],
    *,
    compression: str | None = "gz",
    urls: dict[str, str] | None = None,
) -> Path:
    """Write ``members`` (path inside the archive -> bytes) as a tar (``compression`` "gz" or None).

    ``urls`` (member path -> URL) are written as PAX ``url`` headers.
    """
    urls = urls or {}
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mtime = int(FIXED_DATE.timestamp())
            if name in urls:
                info.pax_headers = {"url": urls[name]}
            archive.addfile(info, io.BytesIO(data))
    data = buffer.getvalue()
    # gzip with a fixed mtime, so that the same members give the same bytes.
    Path(path).write_bytes(gzip.compress(data, mtime=0) if compression == "gz" else data)
    return path
