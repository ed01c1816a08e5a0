"""Tell WARC, ARC and tar apart by their first bytes, whatever the file is called.

A crawl bucket holds ``.warc.gz`` files that are really one gzip stream, ``.arc`` files named
``.warc``, and tarballs of pages; the name is a hint at best. ``sniff_format`` looks at the
head of the file, inflating it first when it is compressed (gzip, zstd, LZ4, bzip2 or xz), and
says which reader to use.

Every container is read in every one of these compressions. Each reader undoes the ones it
knows natively (FastWARC: gzip, zstd, LZ4; warcio: gzip; tarfile: gzip, bzip2, xz), which keeps
the fast path fast and the offsets of a per-record gzip WARC in the file's own bytes; for the
others ``decompressed`` wraps the stream in a streaming decompressor, and the reader sees the
plain container (offsets are then in the uncompressed stream, as for a tar.gz).
"""

from __future__ import annotations

import bz2
import io
import lzma
import zlib
from typing import BinaryIO, NamedTuple

__all__ = [
    "BZIP2_HEAD_BYTES",
    "HEAD_BYTES",
    "NATIVE",
    "Format",
    "ReplayStream",
    "UnknownFormat",
    "decompressed",
    "head_bytes",
    "inflate_head",
    "read_head",
    "sniff_compression",
    "sniff_format",
]

HEAD_BYTES = 64 * 1024
# Block compressions give no byte until their first block is complete: a bzip2 block holds up
# to 900 kB, an LZ4 frame's blocks up to the size its descriptor names (64 KiB to 4 MiB).
BZIP2_HEAD_BYTES = 1024 * 1024
_LZ4_BLOCK_BYTES = {4: 64 << 10, 5: 256 << 10, 6: 1 << 20, 7: 4 << 20}
INNER_HEAD_BYTES = 4096

GZIP_MAGIC = b"\x1f\x8b"
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
LZ4_MAGIC = b"\x04\x22\x4d\x18"
BZIP2_MAGIC = b"BZh"
XZ_MAGIC = b"\xfd7zXZ\x00"
_MAGICS = (
    ("gzip", GZIP_MAGIC),
    ("zstd", ZSTD_MAGIC),
    ("lz4", LZ4_MAGIC),
    ("bzip2", BZIP2_MAGIC),
    ("xz", XZ_MAGIC),
)


class UnknownFormat(ValueError):
    """The bytes are not WARC, ARC or tar in any compression this job reads."""


class Format(NamedTuple):
    container: str  # "warc", "arc" or "tar"
    compression: str  # "none", "gzip", "zstd", "lz4", "bzip2" or "xz"

    @property
    def label(self) -> str:
        """As the summary shows it: ``warc``, ``warc/gzip``."""
        return (
            self.container if self.compression == "none" else f"{self.container}/{self.compression}"
        )


# The compressions each container's reader undoes itself; ``decompressed`` does the rest.
NATIVE: dict[str, frozenset[str]] = {
    "warc": frozenset({"none", "gzip", "zstd", "lz4"}),
    "arc": frozenset({"none", "gzip"}),
    "tar": frozenset({"none", "gzip", "bzip2", "xz"}),
}


def sniff_compression(head: bytes) -> str:
    """The compression ``head`` starts with, by its magic number; "none" for any other bytes."""
    return next((name for name, magic in _MAGICS if head.startswith(magic)), "none")


def head_bytes(first: bytes) -> int:
    """How much of a stream that starts with ``first`` (6 bytes or more) the sniffer needs: its
    first block for a block compression, else ``HEAD_BYTES``."""
    if first.startswith(BZIP2_MAGIC):
        return BZIP2_HEAD_BYTES
    if first.startswith(LZ4_MAGIC) and len(first) > 5:
        return _LZ4_BLOCK_BYTES.get((first[5] >> 4) & 7, 0) + HEAD_BYTES
    return HEAD_BYTES


def read_head(source: BinaryIO) -> bytes:
    """The first ``head_bytes`` of ``source``, fewer only at its end."""
    chunks: list[bytes] = []
    size, want = 0, HEAD_BYTES
    while size < want:
        chunk = source.read(want - size)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
        if len(chunks) == 1:
            want = head_bytes(chunk)
    return b"".join(chunks)


def inflate_head(head: bytes, compression: str) -> bytes:
    """The first bytes of the decompressed stream, or b"" when they cannot be had."""
    try:
        if compression == "none":
            return head
        if compression == "gzip":
            return zlib.decompressobj(zlib.MAX_WBITS | 16).decompress(head, INNER_HEAD_BYTES)
        if compression == "zstd":
            import zstandard

            reader = zstandard.ZstdDecompressor().stream_reader(io.BytesIO(head))
            return reader.read(INNER_HEAD_BYTES)
        if compression == "lz4":
            import lz4.frame

            return lz4.frame.LZ4FrameDecompressor().decompress(head, max_length=INNER_HEAD_BYTES)
        if compression == "bzip2":
            return bz2.BZ2Decompressor().decompress(head, max_length=INNER_HEAD_BYTES)
        if compression == "xz":
            return lzma.LZMADecompressor().decompress(head, max_length=INNER_HEAD_BYTES)
    except Exception:  # a damaged or too-short head is reported as an unknown format
        return b""
    return b""


def _container(data: bytes) -> str | None:
    stripped = data.lstrip(b"\r\n\t ")
    if stripped.startswith(b"WARC/"):
        return "warc"
    if stripped.startswith(b"filedesc://"):
        return "arc"
    if len(data) >= 262 and data[257:262] == b"ustar":
        return "tar"
    return None


def sniff_format(head: bytes) -> Format:
    """Which container and compression ``head`` (the first bytes of a file) belongs to.

    Raises ``UnknownFormat`` with a short description of the bytes when it is none of them.
    """
    if not head:
        raise UnknownFormat("empty file")
    compression = sniff_compression(head)
    inner = inflate_head(head, compression)
    container = _container(inner)
    if container is None:
        shown = repr(head[:16])
        if compression != "none":
            shown += f", inflated {inner[:16]!r}" if inner else ", which does not inflate"
        raise UnknownFormat(f"not WARC, ARC or tar ({compression}); starts with {shown}")
    return Format(container, compression)


def decompressed(stream: BinaryIO, detected: Format) -> BinaryIO:
    """``stream`` as its container's reader takes it: as it is when the reader undoes its
    compression itself, else through a streaming decompressor (bounded memory, concatenated
    streams and frames read on)."""
    compression = detected.compression
    if compression in NATIVE[detected.container]:
        return stream
    if compression == "gzip":
        import gzip

        return gzip.GzipFile(fileobj=stream, mode="rb")
    if compression == "bzip2":
        return bz2.BZ2File(stream)
    if compression == "xz":
        return lzma.LZMAFile(stream)
    if compression == "zstd":
        import zstandard

        return zstandard.ZstdDecompressor().stream_reader(stream, read_across_frames=True)
    if compression == "lz4":
        import lz4.frame

        return lz4.frame.LZ4FrameFile(stream, mode="rb")
    raise UnknownFormat(f"unknown compression {compression!r}")


class ReplayStream(io.RawIOBase):
    """A read-only stream that gives back the head already read, then the rest of ``source``.

    Lets the sniffer read a file's first bytes from a non-seekable stream (gs://, s3://) and
    hand the whole stream to a reader. Counts the bytes handed out, for the file's stats.
    """

    def __init__(self, head: bytes, source: BinaryIO):
        self._head = memoryview(head)
        self._source = source
        self.bytes_read = 0

    def readable(self) -> bool:
        return True

    def tell(self) -> int:
        return self.bytes_read

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        """Only forward seeks (some readers ask for the current position this way)."""
        target = offset + (self.bytes_read if whence == io.SEEK_CUR else 0)
        if whence == io.SEEK_END or target < self.bytes_read:
            raise io.UnsupportedOperation("ReplayStream only seeks forward")
        while self.bytes_read < target and self.read(min(target - self.bytes_read, 1 << 20)):
            pass
        return self.bytes_read

    def readinto(self, buffer) -> int:
        if self._head:
            n = min(len(buffer), len(self._head))
            buffer[:n] = self._head[:n]
            self._head = self._head[n:]
        else:
            chunk = self._source.read(len(buffer))
            n = len(chunk)
            buffer[:n] = chunk
        self.bytes_read += n
        return n
