"""Tell WARC, ARC and tar apart by their first bytes, whatever the file is called.

A crawl bucket holds ``.warc.gz`` files that are really one gzip stream, ``.arc`` files named
``.warc``, and tarballs of pages; the name is a hint at best. ``sniff_format`` looks at the
head of the file, inflating it first when it is gzip, zstd or LZ4, and says which reader to use.
"""

from __future__ import annotations

import io
import zlib
from typing import BinaryIO, NamedTuple

__all__ = [
    "HEAD_BYTES",
    "READABLE",
    "Format",
    "UnknownFormat",
    "ReplayStream",
    "check_readable",
    "sniff_format",
]

HEAD_BYTES = 64 * 1024

GZIP_MAGIC = b"\x1f\x8b"
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
LZ4_MAGIC = b"\x04\x22\x4d\x18"
BZIP2_MAGIC = b"BZh"
XZ_MAGIC = b"\xfd7zXZ\x00"


class UnknownFormat(ValueError):
    """The bytes are not WARC, ARC or tar in any compression this job reads."""


class Format(NamedTuple):
    container: str  # "warc", "arc" or "tar"
    compression: str  # "none", "gzip", "zstd", "lz4", "bzip2" or "xz"


# The compressions each container's reader reads: FastWARC reads WARC in all of them; warcio
# reads ARC plain or gzip; tarfile reads tar plain, gzip, bzip2 and xz.
READABLE: dict[str, frozenset[str]] = {
    "warc": frozenset({"none", "gzip", "zstd", "lz4"}),
    "arc": frozenset({"none", "gzip"}),
    "tar": frozenset({"none", "gzip", "bzip2", "xz"}),
}


def check_readable(detected: Format) -> None:
    """Raise ``UnknownFormat`` with a clear message for a combination no reader here reads
    (say, a zstd-compressed tar), rather than let the reader fail on it with a cryptic error."""
    if detected.compression not in READABLE[detected.container]:
        raise UnknownFormat(
            f"{detected.container} compressed with {detected.compression} is not read by this "
            f"job; recompress it as {' or '.join(sorted(READABLE[detected.container] - {'none'}))}"
        )


def _inflate_head(head: bytes, compression: str) -> bytes:
    """The first bytes of the decompressed stream, or b"" when they cannot be had."""
    try:
        if compression == "gzip":
            return zlib.decompressobj(zlib.MAX_WBITS | 16).decompress(head, 4096)
        if compression == "zstd":
            import zstandard

            reader = zstandard.ZstdDecompressor().stream_reader(io.BytesIO(head))
            return reader.read(4096)
        if compression == "lz4":
            import lz4.frame

            return lz4.frame.LZ4FrameDecompressor().decompress(head, max_length=4096)
    except Exception:  # a damaged or too-short head is reported as an unknown format below
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
    if head.startswith(GZIP_MAGIC):
        compression = "gzip"
    elif head.startswith(ZSTD_MAGIC):
        compression = "zstd"
    elif head.startswith(LZ4_MAGIC):
        compression = "lz4"
    elif head.startswith(BZIP2_MAGIC) or head.startswith(XZ_MAGIC):
        # Only tar is read through bzip2 and xz (by tarfile); the head cannot be cheaply
        # inflated here, so the tar reader decides.
        return Format("tar", "bzip2" if head.startswith(BZIP2_MAGIC) else "xz")
    else:
        compression = "none"
    inner = head if compression == "none" else _inflate_head(head, compression)
    container = _container(inner)
    if container is None:
        raise UnknownFormat(f"not WARC, ARC or tar ({compression}); starts with {head[:16]!r}")
    return Format(container, compression)


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
