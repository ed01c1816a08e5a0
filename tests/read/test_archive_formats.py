import bz2
import gzip
import io
import lzma
import random

import pytest

from transforms.read.formats import (
    Format,
    ReplayStream,
    UnknownFormat,
    read_head,
    sniff_format,
)

WARC_HEAD = b"WARC/1.1\r\nWARC-Type: warcinfo\r\n"
TAR_HEAD = b"a.html".ljust(257, b"\0") + b"ustar\x0000".ljust(255, b"\0")


@pytest.mark.parametrize(
    "head, expected",
    [
        (WARC_HEAD, Format("warc", "none")),
        (gzip.compress(WARC_HEAD), Format("warc", "gzip")),
        (b"filedesc://x.arc 0.0.0.0 20140216050221 text/plain 75\n", Format("arc", "none")),
        (gzip.compress(b"filedesc://x.arc 0.0.0.0"), Format("arc", "gzip")),
        (TAR_HEAD, Format("tar", "none")),
        (bz2.compress(TAR_HEAD), Format("tar", "bzip2")),
        (lzma.compress(TAR_HEAD), Format("tar", "xz")),
        # WARC and ARC in bzip2 and xz were taken for tar by their magic number alone
        (bz2.compress(WARC_HEAD), Format("warc", "bzip2")),
        (lzma.compress(WARC_HEAD), Format("warc", "xz")),
        (bz2.compress(b"filedesc://x.arc 0.0.0.0"), Format("arc", "bzip2")),
    ],
)
def test_sniff_format(head, expected):
    assert sniff_format(head) == expected


def test_sniff_format_reads_zstd_and_lz4_heads():
    zstandard = pytest.importorskip("zstandard")
    assert sniff_format(zstandard.ZstdCompressor().compress(WARC_HEAD)) == Format("warc", "zstd")
    lz4_frame = pytest.importorskip("lz4.frame")
    assert sniff_format(lz4_frame.compress(WARC_HEAD)) == Format("warc", "lz4")


@pytest.mark.parametrize(
    "head",
    [
        b"",
        b"<html><body>hi",
        b"\x89PNG\r\n\x1a\n",
        gzip.compress(b"hello"),
        bz2.compress(b"hello"),
        b"BZh91AY&SY",  # a bzip2 magic number and nothing to inflate
    ],
)
def test_sniff_format_rejects_other_bytes(head):
    with pytest.raises(UnknownFormat):
        sniff_format(head)


def test_head_holds_the_first_block_of_a_block_compression():
    """A bzip2 block (or an LZ4 block of up to 4 MiB) gives no byte until it is complete: a
    64 KiB head of a WARC whose first block compresses to more could not be sniffed."""
    lz4_frame = pytest.importorskip("lz4.frame")
    rng = random.Random(5)
    words = [bytes(rng.choices(b"abcdefghijklmnop", k=rng.randint(2, 9))) for _ in range(5000)]
    text = WARC_HEAD + b" ".join(rng.choice(words) for _ in range(700_000))
    for data in (
        bz2.compress(text),
        lz4_frame.compress(text, block_size=lz4_frame.BLOCKSIZE_MAX4MB),
    ):
        assert sniff_format(read_head(io.BytesIO(data))) == Format(
            "warc", "bzip2" if data.startswith(b"BZh") else "lz4"
        )
    assert len(read_head(io.BytesIO(gzip.compress(text)))) == 64 * 1024


def test_replay_stream_gives_head_then_rest_and_counts():
    source = io.BytesIO(b"0123456789")
    head = source.read(4)
    stream = io.BufferedReader(ReplayStream(head, source), buffer_size=3)
    assert stream.read() == b"0123456789"
    replay = ReplayStream(b"ab", io.BytesIO(b"cdef"))
    assert replay.read(1) == b"a"
    assert replay.seek(2, io.SEEK_CUR) == 3
    assert replay.read() == b"def"
    assert replay.tell() == 6
    with pytest.raises(io.UnsupportedOperation):
        replay.seek(0)
