"""The measurements behind the Parquet sizing (``transforms.write.parquet``).

Rewrites the rows of a benchmark run with several row-group targets and reports, for each:
row groups and rows per group, compressed MB per group, file size, write time, and what
readers pay: a DuckDB full scan of ``text``, a DuckDB scan of ``url`` alone (column pruning:
small columns should not cost the text), and the Arrow memory a streaming reader holds for one
row group. The writer holds about one row group of Arrow data, so the row-group target is also
the worker's buffer.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

import pyarrow.parquet as pq

from transforms.write.parquet import DEFAULT_ROW_GROUP_BYTES, ShardWriter

__all__ = ["ROW_GROUP_TARGETS", "measure_row_groups"]

ROW_GROUP_TARGETS = [1 << 20, 4 << 20, 16 << 20, 64 << 20]


def _duckdb_seconds(query: str, repeat: int = 3) -> float:
    import duckdb

    best = float("inf")
    for _ in range(repeat):
        con = duckdb.connect()
        con.execute("SET threads = 2")
        start = time.perf_counter()
        con.execute(query).fetchall()
        best = min(best, time.perf_counter() - start)
        con.close()
    return best


def measure_row_groups(data_dir: Path, input_bytes: int) -> dict:
    """Rewrite the Parquet rows under ``data_dir`` with each row-group target and measure."""
    table = pq.read_table(data_dir)
    rows = table.to_pylist()
    results = []
    for target in ROW_GROUP_TARGETS:
        out = Path(tempfile.mkdtemp(prefix="rg-"))
        try:
            writer = ShardWriter(str(out), table.schema, row_group_bytes=target)
            start = time.perf_counter()
            for row in rows:
                writer.write(row)
            paths = writer.close()
            write_seconds = time.perf_counter() - start
            metadata = pq.ParquetFile(paths[0]).metadata
            groups = sum(pq.ParquetFile(p).metadata.num_row_groups for p in paths)
            disk = sum(Path(p).stat().st_size for p in paths)
            first = pq.ParquetFile(paths[0]).read_row_group(0)
            glob = f"{out}/*.parquet"
            results.append(
                {
                    "target_mib": target >> 20,
                    "chosen": target == DEFAULT_ROW_GROUP_BYTES,
                    "row_groups": groups,
                    "rows_per_group": table.num_rows / groups,
                    "mb_per_group": disk / groups / 1e6,
                    "file_mb": disk / 1e6,
                    "write_s": write_seconds,
                    "duckdb_text_scan_s": _duckdb_seconds(
                        f"select sum(length(text)) from read_parquet('{glob}')"
                    ),
                    "duckdb_url_scan_s": _duckdb_seconds(
                        f"select count(distinct url) from read_parquet('{glob}')"
                    ),
                    "reader_mb_per_group": first.nbytes / 1e6,
                    "footer_kb": metadata.serialized_size / 1e3,
                }
            )
        finally:
            shutil.rmtree(out, ignore_errors=True)
    total = sum(f.stat().st_size for f in data_dir.glob("*.parquet"))
    return {
        "rows": table.num_rows,
        "arrow_mb": table.nbytes / 1e6,
        "parquet_mb": total / 1e6,
        "parquet_mb_per_input_gb": total / input_bytes * 1e3,
        "row_groups": results,
    }


def markdown(sizing: dict) -> str:
    """The sizing table and the file-size arithmetic, as markdown."""
    lines = [
        f"{sizing['rows']:,} rows, {sizing['arrow_mb']:.0f} MB as Arrow, "
        f"{sizing['parquet_mb']:.0f} MB as Parquet (zstd); "
        f"{sizing['parquet_mb_per_input_gb']:.0f} MB of Parquet per GB of WARC.gz in",
        "",
        "| row group target | row groups | rows/group | MB/group on disk | reader MB/group "
        "| write s | DuckDB text scan s | DuckDB url scan s |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in sizing["row_groups"]:
        label = f"{r['target_mib']} MiB" + (" (chosen)" if r["chosen"] else "")
        lines.append(
            f"| {label} | {r['row_groups']} | {r['rows_per_group']:,.0f} | "
            f"{r['mb_per_group']:.1f} | {r['reader_mb_per_group']:.1f} | {r['write_s']:.1f} | "
            f"{r['duckdb_text_scan_s']:.3f} | {r['duckdb_url_scan_s']:.3f} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":  # pragma: no cover - a manual entry point
    import json
    import sys

    print(json.dumps(measure_row_groups(Path(sys.argv[1]), int(sys.argv[2])), indent=2))
