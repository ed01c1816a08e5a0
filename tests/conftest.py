"""Shared fixtures: the job runner and output reader that every pipeline test goes through (they
check the accounting identities), and compression bombs built in memory from repeated blocks
(fast, no disk)."""

from __future__ import annotations

import json
import struct
import zlib
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import brotli
import pyarrow.parquet as pq
import pytest

from transforms.reasons import REJECT_REASONS
from transforms.write import SUMMARY_FILE, check_summary

SHARED = Path(__file__).resolve().parents[1].parent / "shared"


def check_output(rows: list[dict], rejects: list[dict], summary: dict) -> None:
    """Assert that the Parquet output and the summary tell the same story, file by file."""
    problems = check_summary(summary)
    assert problems == [], problems
    assert summary["rows"] == len(rows)
    assert summary["rejects"] == len(rejects)
    assert set(summary["rejects_by_reason"]) <= set(REJECT_REASONS)
    assert Counter(rej["reason"] for rej in rejects) == Counter(summary["rejects_by_reason"])
    per_file = {entry["source_file"]: entry for entry in summary["files"]["per_file"]}
    assert Counter(row["source_file"] for row in rows) == Counter(
        {path: entry["rows"] for path, entry in per_file.items() if entry["rows"]}
    )
    assert Counter(rej["source_file"] for rej in rejects) == Counter(
        {path: entry["rejects"] for path, entry in per_file.items() if entry["rejects"]}
    )
    for path, entry in per_file.items():
        if entry["damaged"]:
            assert entry["error"] and entry["stopped_at"] is not None, path
        else:
            assert entry["error"] is None and entry["stopped_at"] is None, path
    data_shards = summary["output"]["data"]
    assert len(data_shards) == len(set(data_shards))


def read_output(out: Path) -> tuple[list[dict], list[dict], dict]:
    """Rows, rejects and summary of a finished job, after checking the accounting identities."""
    summary = json.loads((out / SUMMARY_FILE).read_text())
    rows = pq.read_table(out / "data").to_pylist()
    rejects = pq.read_table(out / "rejects").to_pylist()
    check_output(rows, rejects, summary)
    return rows, rejects, summary


def run_job(argv: Sequence[str], **kwargs: Any) -> tuple[list[dict], list[dict], dict]:
    """Run the whole job (``beam_jobs.clean_html.run``) and return its checked output.

    Every test that runs the job goes through here (or ``read_output`` after a job that is
    expected to fail), so every one of them checks ``documents == rows + rejects``, the per-file
    sums, and that the Parquet files agree with the summary.
    """
    from beam_jobs.clean_html import run

    summary = run(list(argv), **kwargs)
    rows, rejects, on_disk = read_output(Path(_flag(argv, "--output")))
    assert summary == on_disk
    return rows, rejects, on_disk


def _flag(argv: Sequence[str], name: str) -> str:
    return argv[list(argv).index(name) + 1]


def beam_counters(result) -> dict[str, int]:
    """The committed counters of a finished Beam pipeline result, by name."""
    return {c.key.metric.name: c.committed for c in result.metrics().query()["counters"]}


def check_counters(counters: dict[str, int]) -> None:
    """Assert ``CleanHtml``'s counter identity: ``documents == rows + sum(rejected:*)``."""
    rejected = sum(n for name, n in counters.items() if name.startswith("rejected:"))
    assert counters.get("documents", 0) == counters.get("rows", 0) + rejected, counters


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
    from tests.gates.test_latency_gate import MEASURED

    if MEASURED:
        terminalreporter.write_sep("-", "latency gate: extract() / Lexbor parse")
        for name, (ratio, budget) in MEASURED.items():
            terminalreporter.write_line(f"{name:<18} {ratio:6.2f}x  (budget {budget:.2f}x)")
