"""Shared fixtures: output readers with the accounting check every pipeline test runs, and
compression bombs built in memory from repeated blocks (fast, no disk)."""

from __future__ import annotations

import json
import struct
import zlib
from pathlib import Path

import brotli
import pyarrow.parquet as pq
import pytest

from transforms.summary import SUMMARY_FILE, check_summary

SHARED = Path(__file__).resolve().parents[1].parent / "shared"


def read_output(out: Path) -> tuple[list[dict], list[dict], dict]:
    """Rows, rejects and summary of a finished job, after checking the accounting identities."""
    summary = json.loads((out / SUMMARY_FILE).read_text())
    assert check_summary(summary) == [], check_summary(summary)
    rows = pq.read_table(out / "data").to_pylist()
    rejects = pq.read_table(out / "rejects").to_pylist()
    assert summary["rows"] == len(rows)
    assert summary["rejects"] == len(rejects)
    return rows, rejects, summary


@pytest.fixture
def shared_dir() -> Path:
    if not SHARED.is_dir():
        pytest.skip("../shared is not present")
    return SHARED


GIB = 1 << 30
_MIB_OF_ZEROS = bytes(1 << 20)


def make_gzip_bomb(total: int = GIB) -> bytes:
    """A valid gzip member that inflates to ``total`` zero bytes (about 1 KB per MiB).

    After a full flush the deflate state is reset, so every further MiB of zeros compresses to
    the same bytes: the bomb is the first block, that repeated piece, and a hand-made trailer.
    """
    comp = zlib.compressobj(9, zlib.DEFLATED, 31)
    first = comp.compress(_MIB_OF_ZEROS) + comp.flush(zlib.Z_FULL_FLUSH)
    piece = comp.compress(_MIB_OF_ZEROS) + comp.flush(zlib.Z_FULL_FLUSH)
    mibs = total >> 20
    crc = 0
    for _ in range(mibs):
        crc = zlib.crc32(_MIB_OF_ZEROS, crc)
    final_empty_block = b"\x03\x00"
    trailer = struct.pack("<II", crc, total & 0xFFFFFFFF)
    return first + piece * (mibs - 1) + final_empty_block + trailer


def make_brotli_bomb(total: int = GIB) -> bytes:
    comp = brotli.Compressor(quality=1)
    parts = [comp.process(_MIB_OF_ZEROS) for _ in range(total >> 20)]
    parts.append(comp.finish())
    return b"".join(parts)


@pytest.fixture(scope="session")
def gzip_bomb() -> bytes:
    return make_gzip_bomb()


@pytest.fixture(scope="session")
def brotli_bomb() -> bytes:
    return make_brotli_bomb()


def pytest_terminal_summary(terminalreporter):
    """Print the latency gate's measured ratios on every run, so a drift shows before it fails."""
    from tests.test_latency_gate import MEASURED

    if MEASURED:
        terminalreporter.write_sep("-", "latency gate: extract() / Lexbor parse")
        for name, (ratio, budget) in MEASURED.items():
            terminalreporter.write_line(f"{name:<18} {ratio:6.2f}x  (budget {budget:.2f}x)")
