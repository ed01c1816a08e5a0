"""Inputs that are not this job's Parquet, and outputs that would overwrite them, stop the dedup
job before any work, with one line; a bad command line too."""

from __future__ import annotations

import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from beam_jobs import dedup as job
from benchmarks.dedup_corpus import planted_corpus, write_parquet
from transforms.rows import REJECT_SCHEMA


@pytest.fixture
def good(tmp_path) -> Path:
    write_parquet(planted_corpus(5, seed=2), str(tmp_path / "in"), per_file=4)
    return tmp_path / "in"


def refused(monkeypatch, capsys, *argv: str) -> str:
    """Run the command line; assert exit 2, nothing written, and return its one error line."""
    monkeypatch.setattr(sys, "argv", ["dedup", *argv])
    assert job.main() == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("dedup: error: ") and "\n" not in err, err
    if "--output" in argv:
        out = Path(argv[list(argv).index("--output") + 1])
        assert not (out / "_SUMMARY.json").exists() and not (out / "duplicates").exists()
    return err


def test_an_empty_folder(monkeypatch, capsys, tmp_path):
    (tmp_path / "empty").mkdir()
    err = refused(
        monkeypatch, capsys, "--input", str(tmp_path / "empty"), "--output", str(tmp_path / "o")
    )
    assert "matches no file" in err
    err = refused(
        monkeypatch,
        capsys,
        "--input",
        str(tmp_path / "none*.parquet"),
        "--output",
        str(tmp_path / "o"),
    )
    assert "matches no file" in err


def test_missing_columns_and_another_schema(monkeypatch, capsys, good, tmp_path):
    table = pq.read_table(next(good.iterdir()))
    pq.write_table(table.drop_columns(["text_hash"]), good / "old.parquet")
    err = refused(monkeypatch, capsys, "--input", str(good), "--output", str(tmp_path / "o"))
    assert "old.parquet: no column 'text_hash'" in err
    (good / "old.parquet").unlink()
    pq.write_table(REJECT_SCHEMA.empty_table(), good / "rejects.parquet")
    err = refused(monkeypatch, capsys, "--input", str(good), "--output", str(tmp_path / "o"))
    assert "rejects.parquet: no column 'text'" in err
    (good / "rejects.parquet").unlink()
    other = table.set_column(
        table.schema.get_field_index("text"), "text", pa.array(range(table.num_rows))
    )
    pq.write_table(other, good / "ints.parquet")
    err = refused(monkeypatch, capsys, "--input", str(good), "--output", str(tmp_path / "o"))
    assert "ints.parquet: column 'text' is int64, not string" in err


def test_a_file_cut_short_or_not_parquet(monkeypatch, capsys, good, tmp_path):
    first = next(good.iterdir())
    data = first.read_bytes()
    (good / "cut.parquet").write_bytes(data[: len(data) // 2])
    err = refused(monkeypatch, capsys, "--input", str(good), "--output", str(tmp_path / "o"))
    assert "cut.parquet: not a readable Parquet file" in err
    (good / "cut.parquet").write_bytes(b"WARC/1.0\r\n" * 100)
    err = refused(monkeypatch, capsys, "--input", str(good), "--output", str(tmp_path / "o"))
    assert "cut.parquet: not a readable Parquet file" in err


def test_an_output_holding_the_inputs(monkeypatch, capsys, good):
    err = refused(monkeypatch, capsys, "--input", str(good), "--output", str(good.parent))
    assert "the output must not hold the inputs" in err
    assert all(p.suffix == ".parquet" for p in good.iterdir())  # nothing deleted


def test_bad_flags(monkeypatch, capsys, good, tmp_path):
    out = str(tmp_path / "o")
    assert "unknown flag --treshold" in refused(
        monkeypatch, capsys, "--input", str(good), "--output", out, "--treshold", "0.8"
    )
    assert "out of range" in refused(
        monkeypatch, capsys, "--input", str(good), "--output", out, "--threshold", "1.5"
    )
    assert "required" in refused(monkeypatch, capsys, "--input", str(good))
    assert "need" in refused(
        monkeypatch, capsys, "--input", str(good), "--output", out, "--bands", "64", "--rows", "8"
    )


def test_write_corpus_needs_one_schema(monkeypatch, capsys, good, tmp_path):
    table = pq.read_table(next(good.iterdir()))
    extra = table.append_column("extra", pa.array([1] * table.num_rows))
    pq.write_table(extra, good / "zz-newer.parquet")
    err = refused(
        monkeypatch, capsys, "--input", str(good), "--output", str(tmp_path / "o"), "--write_corpus"
    )
    assert "zz-newer.parquet: its columns differ" in err
