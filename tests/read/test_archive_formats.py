import gzip
import io

import pytest

from transforms.read.formats import Format, ReplayStream, UnknownFormat, sniff_format

WARC_HEAD = b"WARC/1.1\r\nWARC-Type: warcinfo\r\n"


@pytest.mark.parametrize(
    "head, expected",
    [
        (WARC_HEAD, Format("warc", "none")),
        (gzip.compress(WARC_HEAD), Format("warc", "gzip")),
        (b"filedesc://x.arc 0.0.0.0 20140216050221 text/plain 75\n", Format("arc", "none")),
        (gzip.compress(b"filedesc://x.arc 0.0.0.0"), Format("arc", "gzip")),
        (b"a.html".ljust(257, b"\0") + b"ustar\x0000", Format("tar", "none")),
        (b"BZh91AY&SY", Format("tar", "bzip2")),
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
    "head", [b"", b"<html><body>hi", b"\x89PNG\r\n\x1a\n", gzip.compress(b"hello")]
)
def test_sniff_format_rejects_other_bytes(head):
    with pytest.raises(UnknownFormat):
        sniff_format(head)


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
