"""The dedup job at scale (``make bench``, or ``make bench-dedup`` alone).

A generated corpus of at least 100,000 rows with planted duplicates (``dedup_corpus``: a third
of the texts with 1 to 4 copies, exact or edited, reordered, with boilerplate), written once
as the cleaning job's Parquet under ``bench/dedup/`` (cached), is deduplicated by
``python -m beam_jobs.dedup`` with 1 and 2 SDK worker processes (FnApiRunner,
multi_processing). For each run: wall time, CPU time of the whole process tree (sampled, as
``bench_job`` does), documents per
second and per CPU-second, what was dropped, and the bytes shuffled per document, stage by
stage (from the job's own summary: the encoded size of every ``GroupByKey``'s input). Both runs
must write the same duplicates. Writes ``bench/dedup/results.json`` and prints the table.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

from benchmarks.bench_job import run_sampled

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench" / "dedup"
ORIGINALS = 54_000  # about 101,000 rows with the planted copies


def _corpus(originals: int) -> Path:
    from benchmarks.dedup_corpus import planted_corpus, write_parquet

    folder = BENCH / f"corpus-{originals}"
    if (folder / "done").exists():
        return folder
    shutil.rmtree(folder, ignore_errors=True)
    print(f"generating {originals:,} originals and their copies under {folder} ...", flush=True)
    docs = planted_corpus(originals, seed=100)
    write_parquet(docs, str(folder / "data"), per_file=10_000)
    (folder / "done").write_text(str(len(docs)))
    return folder


def _run(corpus: Path, workers: int) -> dict:
    out = BENCH / f"out-{workers}"
    shutil.rmtree(out, ignore_errors=True)
    cmd = [sys.executable, "-m", "beam_jobs.dedup", "--input", str(corpus / "data"),
           "--output", str(out), "--runner", "FnApiRunner", "--direct_num_workers", str(workers),
           "--direct_running_mode", "multi_processing"]  # fmt: skip
    print(f"  dedup, {workers} worker(s) ...", flush=True)
    done = run_sampled(cmd)
    if done.returncode != 0:
        raise RuntimeError(f"dedup failed:\n{done.log[-3000:]}")
    summary = json.loads((out / "_SUMMARY.json").read_text())
    return {
        "workers": workers,
        "seconds": done.seconds,
        "cpu_seconds": done.cpu_seconds,
        "summary": summary,
    }


def _rows(workers: int) -> list:
    import pyarrow.parquet as pq

    rows = pq.read_table(BENCH / f"out-{workers}" / "duplicates").to_pylist()
    return sorted(rows, key=lambda row: row["url"])


def table(runs: list[dict]) -> str:
    lines = [
        "| workers | documents | dropped (exact / near) | clusters | wall s | CPU s | docs/s "
        "| docs per CPU-s | bytes shuffled per document |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for run in runs:
        s = run["summary"]
        lines.append(
            f"| {run['workers']} | {s['documents']:,} | {s['dropped']:,} "
            f"({s['dropped_by_kind']['exact']:,} / {s['dropped_by_kind']['near']:,}) "
            f"| {s['clusters']:,} | {run['seconds']:.0f} | {run['cpu_seconds']:.0f} "
            f"| {s['documents'] / run['seconds']:.0f} | {s['documents'] / run['cpu_seconds']:.0f} "
            f"| {s['shuffled_bytes_per_document']:,.0f} |"
        )
    s = runs[0]["summary"]
    lines += ["", "| stage | bytes shuffled | per document |", "|---|---|---|"]
    for stage, size in sorted(s["shuffled_bytes"].items(), key=lambda kv: -kv[1]):
        lines.append(f"| {stage} | {size:,} | {size / s['documents']:.1f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--originals", type=int, default=ORIGINALS)
    args = parser.parse_args(argv)
    BENCH.mkdir(parents=True, exist_ok=True)
    corpus = _corpus(args.originals)
    runs = [_run(corpus, 1), _run(corpus, 2)]
    same = _rows(1) == _rows(2)
    results = {"runs": runs, "same_duplicates_1_and_2_workers": same}
    (BENCH / "results.json").write_text(json.dumps(results, indent=2))
    print()
    print(table(runs))
    print(f"\nsame duplicates with 1 and 2 workers: {'yes' if same else 'NO'}")
    print(f"components residue: {runs[0]['summary']['components_residual_edges']} edges")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
