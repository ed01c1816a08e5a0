"""Tolerant parsing of the HTTP/1.x response stored in a WARC ``response`` (or ARC) record.

Crawled responses are messy: bare LF line endings, missing reason phrases, interim
``100 Continue`` heads, chunked bodies that were already de-chunked by the crawler, and
``Content-Encoding`` headers that lie. The functions here accept all of that and reject, with a
stable reason code, only what cannot be turned into a body.

Decompression is streamed with a hard output cap so that a small compression bomb costs at most
``max_bytes + 1`` bytes of output (brotli: plus at most one decoder block, as its output limit
is a soft one) before it is rejected as ``TOO_LARGE``.

Only ``Transfer-Encoding`` and ``Content-Encoding`` describe the stored bytes. Common Crawl
renames them to ``X-Crawler-Transfer-Encoding`` / ``X-Crawler-Content-Encoding`` when it has
already decoded the body; those renamed headers are informational and ignored here.
"""

from __future__ import annotations

import io
import re
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from http import HTTPStatus

import brotli
import zstandard

from transforms import reasons
from transforms.decode.reject import Reject

__all__ = [
    "MAX_HEAD_BYTES",
    "Headers",
    "HttpResponse",
    "parse_response",
    "dechunk",
    "decode_content",
    "decode_body",
    "inflate_undeclared_gzip",
    "status_text",
]

MAX_HEAD_BYTES = 64 * 1024

# Input is fed to the decompressors in slices of this size, and output is asked for in pieces
# of at most this size, so memory stays flat whatever the compression ratio.
_STEP = 64 * 1024

_STATUS_LINE = re.compile(
    rb"[ \t]*HTTP/(\d{1,2}(?:\.\d{1,2})?)[ \t]+(\d{3})(?!\d)(.*)", re.I | re.S
)
_STATUS_START = re.compile(rb"[ \t]*HTTP/\d", re.I)
_LEADING_NEWLINES = re.compile(rb"[\r\n]*")
_HEAD_END = re.compile(rb"\r?\n\r?\n")
_CHUNK_SIZE = re.compile(rb"^[ \t]*([0-9A-Fa-f]{1,16})[ \t]*(?:;.*)?$")

_GZIP_MAGIC = b"\x1f\x8b"
_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
# The supported content codings and the magic number their streams start with, if any.
_MAGIC: dict[str, bytes | None] = {
    "gzip": _GZIP_MAGIC,
    "x-gzip": _GZIP_MAGIC,
    "deflate": None,
    "br": None,
    "zstd": _ZSTD_MAGIC,
}
_IDENTITY = frozenset({"", "identity", "none"})
_CONTROL_BYTES = bytes(b for b in range(32) if b not in b"\t\n\r\x0c\x1b") + b"\x7f"


class Headers:
    """HTTP headers in arrival order with case-insensitive lookup.

    ``get`` returns the first value of a header; ``get_all`` returns every value, in order.
    """

    __slots__ = ("_items", "_index")

    def __init__(self, items: Iterable[tuple[str, str]] = ()) -> None:
        self._items: list[tuple[str, str]] = []
        self._index: dict[str, list[str]] = {}
        for name, value in items:
            self.add(name, value)

    def add(self, name: str, value: str) -> None:
        self._items.append((name, value))
        self._index.setdefault(name.lower(), []).append(value)

    def get(self, name: str, default: str | None = None) -> str | None:
        values = self._index.get(name.lower())
        return values[0] if values else default

    def get_all(self, name: str) -> list[str]:
        return list(self._index.get(name.lower(), ()))

    def items(self) -> list[tuple[str, str]]:
        return list(self._items)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.lower() in self._index

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[tuple[str, str]]:
        return iter(self._items)

    def __repr__(self) -> str:
        return f"Headers({self._items!r})"


@dataclass(frozen=True)
class HttpResponse:
    """A parsed response: the body is still as stored (possibly chunked and/or compressed)."""

    version: str
    status: int
    reason: str
    headers: Headers
    body: bytes


def status_text(status: int, reason: str = "") -> str:
    """Render a status for a reject detail: the standard phrase when known, e.g. "404 Not Found"."""
    try:
        phrase = HTTPStatus(status).phrase
    except ValueError:
        phrase = reason.strip()[:80]
    return f"{status} {phrase}".strip()


def _split_head(block: bytes, start: int, max_head: int) -> tuple[bytes, int]:
    """Return the head starting at ``start`` and the offset of the body that follows it."""
    window = block[start : start + max_head + 4]
    match = _HEAD_END.search(window)
    if match is None:
        if len(block) - start > max_head:
            raise Reject(reasons.BAD_HTTP, f"HTTP head over {max_head} bytes")
        # A record cut right after (or inside) the head: everything is head, the body is empty.
        return block[start:], len(block)
    if match.start() > max_head:
        raise Reject(reasons.BAD_HTTP, f"HTTP head over {max_head} bytes")
    return window[: match.start()], start + match.end()


def _parse_head(head: bytes) -> tuple[str, int, str, Headers]:
    lines = head.split(b"\n")
    status_line = lines[0].rstrip(b"\r")
    match = _STATUS_LINE.fullmatch(status_line)
    if match is None:
        raise Reject(reasons.BAD_HTTP, f"no HTTP status line: {status_line[:40]!r}")
    version, status, reason = match.groups()
    headers = Headers()
    name: str | None = None
    value = ""
    for raw in lines[1:]:
        line = raw.rstrip(b"\r").decode("latin-1")
        if line[:1] in (" ", "\t") and name is not None:
            value = f"{value} {line.strip()}"  # obsolete line folding
            continue
        if name is not None:
            headers.add(name, value)
            name = None
        field, sep, rest = line.partition(":")
        if sep and field.strip():
            name, value = field.strip(), rest.strip()
        # Lines without a colon are junk some servers emit; they are dropped.
    if name is not None:
        headers.add(name, value)
    return (
        version.decode("ascii"),
        int(status),
        reason.decode("latin-1").strip(),
        headers,
    )


def parse_response(block: bytes, *, max_head: int = MAX_HEAD_BYTES) -> HttpResponse:
    """Split a raw response block into status, headers and (still encoded) body.

    Accepts CRLF or bare LF line endings, any ``HTTP/x.y`` version, a missing reason phrase,
    leading blank lines and interim ``1xx`` heads (skipped when a final head follows). A block
    that does not start with an HTTP status line (HTTP/0.9-style bodies, garbage) or whose head
    is over ``max_head`` bytes raises ``Reject(BAD_HTTP)``.
    """
    start = _LEADING_NEWLINES.match(block).end()
    head_start = start
    while True:
        budget = max_head - (start - head_start)
        if budget <= 0:
            raise Reject(reasons.BAD_HTTP, f"HTTP head over {max_head} bytes")
        head, body_start = _split_head(block, start, budget)
        version, status, reason, headers = _parse_head(head)
        if 100 <= status < 200 and _STATUS_START.match(block, body_start):
            start = body_start  # an interim response: the final one follows
            continue
        return HttpResponse(version, status, reason, headers, block[body_start:])


def _codings(values: Iterable[str]) -> list[str]:
    """The comma-separated codings of (possibly repeated) encoding headers, in applied order."""
    return [
        token.strip().lower()
        for value in values
        for token in value.split(",")
        if token.strip().lower() not in _IDENTITY
    ]


def dechunk(body: bytes) -> bytes:
    """Undo ``Transfer-Encoding: chunked``.

    Tolerates chunk extensions, bare LF, a missing terminating zero chunk and a last chunk cut
    short (truncated records keep what they have). If the very first chunk-size line is not a
    hex number the body was evidently stored de-chunked (some crawlers keep the header) and is
    returned unchanged. A broken size line *after* a valid first chunk means the body is really
    chunked but damaged: ``Reject(BAD_HTTP)``, because gluing chunk framing into the HTML would
    silently corrupt the document.
    """
    out = bytearray()
    pos = 0
    first = True
    while pos < len(body):
        eol = body.find(b"\n", pos)
        line = body[pos:] if eol < 0 else body[pos:eol]
        match = _CHUNK_SIZE.match(line.rstrip(b"\r"))
        if match is None:
            if first:
                return body
            if not line.strip():
                # A stray blank line between chunks.
                pos = len(body) if eol < 0 else eol + 1
                continue
            raise Reject(reasons.BAD_HTTP, f"broken chunk size {line[:20]!r} at byte {pos}")
        first = False
        size = int(match.group(1), 16)
        if size == 0 or eol < 0:
            break  # the last chunk; trailers, if any, are ignored
        start = eol + 1
        out += body[start : start + size]
        pos = start + size
        if body.startswith(b"\r\n", pos):
            pos += 2
        elif body.startswith(b"\n", pos):
            pos += 1
    return bytes(out)


def _too_large(coding: str, max_bytes: int) -> Reject:
    return Reject(reasons.TOO_LARGE, f"{coding} body inflates past {max_bytes} bytes")


def _inflate(data: bytes, wbits: int, coding: str, max_bytes: int) -> tuple[bytes, bool]:
    """zlib-family decompression with bounded output; concatenated gzip members are read.

    Returns the output and whether the stream ended properly (False for a truncated stream).
    """
    out = bytearray()
    pending = data
    while pending:
        decomp = zlib.decompressobj(wbits)
        for offset in range(0, len(pending), _STEP):
            chunk = pending[offset : offset + _STEP]
            while True:
                want = min(_STEP, max_bytes + 1 - len(out))
                piece = decomp.decompress(chunk, want)
                out += piece
                if len(out) > max_bytes:
                    raise _too_large(coding, max_bytes)
                chunk = decomp.unconsumed_tail
                # A full piece with no input left may mean output is still pending: ask again.
                if decomp.eof or (not chunk and len(piece) < want):
                    break
            if decomp.eof:
                break
        if not decomp.eof:
            out += decomp.flush()  # truncated stream: keep what was inflated
            if len(out) > max_bytes:
                raise _too_large(coding, max_bytes)
            return bytes(out), False
        pending = decomp.unused_data
        if wbits != 31 or not pending.startswith(_GZIP_MAGIC):
            break  # trailing garbage after the stream is ignored
    return bytes(out), True


def _zlib_wbits(data: bytes) -> int:
    """Pick gzip, zlib or raw deflate from the first bytes (servers mix them up freely)."""
    if data.startswith(_GZIP_MAGIC):
        return 31
    if len(data) >= 2 and data[0] & 0x0F == 8 and ((data[0] << 8) | data[1]) % 31 == 0:
        return 15
    return -15


def _brotli_limit(out: bytearray, max_bytes: int) -> int:
    """The output to ask brotli for: a soft limit, it may return up to one block (~32 KiB) more."""
    return max(1, min(_STEP, max_bytes + 1 - len(out)))


def _unbrotli(data: bytes, max_bytes: int) -> tuple[bytes, bool]:
    decomp = brotli.Decompressor()
    out = bytearray()
    for offset in range(0, len(data), _STEP):
        piece = decomp.process(
            data[offset : offset + _STEP], output_buffer_limit=_brotli_limit(out, max_bytes)
        )
        # Drain the output held back by the limit before feeding more input
        # (``can_accept_more_data`` is not reliable for this in brotli 1.2).
        while piece:
            out += piece
            if len(out) > max_bytes:
                raise _too_large("br", max_bytes)
            if decomp.is_finished():
                return bytes(out), True
            piece = decomp.process(b"", output_buffer_limit=_brotli_limit(out, max_bytes))
    return bytes(out), decomp.is_finished()


def _unzstd(data: bytes, max_bytes: int) -> tuple[bytes, bool]:
    reader = zstandard.ZstdDecompressor().stream_reader(io.BytesIO(data), read_across_frames=True)
    out = bytearray()
    try:
        while piece := reader.read(min(_STEP, max_bytes + 1 - len(out))):
            out += piece
            if len(out) > max_bytes:
                raise _too_large("zstd", max_bytes)
    except zstandard.ZstdError:
        if not out:
            raise
        # Trailing garbage after decoded frames is ignored, as it is for gzip.
    return bytes(out), True


def _looks_like_text(data: bytes) -> bool:
    """True when the head of ``data`` is plain text/markup rather than compressed bytes."""
    sample = data[:1024]
    if not sample or b"\x00" in sample:
        return False
    controls = sum(sample.count(bytes([b])) for b in _CONTROL_BYTES)
    return controls * 100 <= len(sample)


def _decompress(data: bytes, coding: str, max_bytes: int) -> tuple[bytes, bool]:
    """Decompress one coding; the flag is False when the stream stopped before its end."""
    if coding in ("gzip", "x-gzip", "deflate"):
        return _inflate(data, _zlib_wbits(data), coding, max_bytes)
    if coding == "br":
        return _unbrotli(data, max_bytes)
    return _unzstd(data, max_bytes)


def _decode_one(data: bytes, coding: str, max_bytes: int) -> bytes:
    if coding not in _MAGIC:
        raise Reject(reasons.BAD_ENCODING, f"unknown encoding {coding[:40]!r}")
    if not data:
        return data
    plain = _looks_like_text(data)
    magic = _MAGIC[coding]
    if plain and magic is not None and not data.startswith(magic):
        return data  # the header lies: the body was stored already decoded
    try:
        out, complete = _decompress(data, coding, max_bytes)
    except (zlib.error, brotli.error, zstandard.ZstdError) as exc:
        if plain:
            return data  # the header lies and the "compressed" body is text
        raise Reject(reasons.BAD_ENCODING, f"corrupt {coding} body: {str(exc)[:60]}") from None
    if plain and not (complete and len(out) >= len(data) and _looks_like_text(out)):
        # Text that merely parses as (part of) a stream, yielding less text than it holds: the
        # header lies. Real compressed bodies are not "plain" and inflate to more than they are.
        return data
    return out  # a truncated stream (WARC-Truncated records) keeps what it decoded


def decode_content(body: bytes, codings: Iterable[str], *, max_bytes: int) -> bytes:
    """Undo content codings listed in the order they were applied (the header's order).

    Supports gzip/x-gzip, deflate (zlib-wrapped or raw), br, zstd and identity. A coding whose
    body is evidently plain text (no magic number, or fails to decompress while looking like
    text) is skipped. Unknown codings and corrupt bodies raise ``Reject(BAD_ENCODING)``; output
    over ``max_bytes`` raises ``Reject(TOO_LARGE)`` without inflating further.
    """
    data = body
    for coding in reversed(_codings(codings)):
        data = _decode_one(data, coding, max_bytes)
    return data


def inflate_undeclared_gzip(body: bytes, *, max_bytes: int) -> bytes:
    """A body that starts with the gzip magic though no header said so, inflated.

    Crawlers store such bodies (a server that gzips without saying so, a body stored before
    its headers were rewritten, a coding applied twice). Gzip bytes are never HTML, so trying
    costs nothing on a real page: the body comes back inflated when it holds a gzip stream
    (a cut one keeps what it inflated, as for a declared coding), else as it is. Output over
    ``max_bytes`` raises ``Reject(TOO_LARGE)``, as for a declared coding.
    """
    if not body.startswith(_GZIP_MAGIC):
        return body
    try:
        out, _complete = _inflate(body, 31, "gzip", max_bytes)
    except zlib.error:
        return body  # not gzip after all: the HTML check decides
    return out or body


def decode_body(response: HttpResponse, *, max_bytes: int) -> bytes:
    """The response body with transfer and content codings undone, at most ``max_bytes`` long."""
    data = response.body
    transfer = _codings(response.headers.get_all("Transfer-Encoding"))
    if transfer and transfer[-1] == "chunked":
        data = dechunk(data)
        transfer = transfer[:-1]
    transfer = [t for t in transfer if t != "chunked"]
    data = decode_content(data, transfer, max_bytes=max_bytes)
    data = decode_content(data, response.headers.get_all("Content-Encoding"), max_bytes=max_bytes)
    if len(data) > max_bytes:
        raise Reject(reasons.TOO_LARGE, f"body of {len(data)} bytes over {max_bytes} bytes")
    return data
