"""Shared fixtures: output readers and the accounting check every pipeline test runs."""

from __future__ import annotations

import json
from pathlib import Path

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
