"""End-to-end throughput and memory benchmark (``make bench``; ``make bench-big`` adds the 1 GB file).

On one set of WARC.gz shards built from ``../shared/corpus`` (see ``bench_shards``), measures
pages/s, input MB/s and peak RSS for: the floor (read, decode, Lexbor parse), the extractor in a
plain loop, its peers (resiliparse, trafilatura) in the same loop, and the Beam job with one and
two SDK workers; reports job/floor, job/extractor-loop and 2-worker/1-worker. The job's fixed
cost (interpreter and Beam start-up, worker launch, finalisation) is measured by running it on
a one-page shard, and reported apart from the steady rate.

Memory: the worker's peak RSS on the one-page shard (an idle worker), after 1,000 pages and
after the whole set. With ``--big``: one 1 GiB WARC.gz through one worker, then two workers
without and with splitting the file by record offsets.

Writes ``bench/results.json``, ``bench/results.md`` and ``bench/throughput.png``. Exits 0 with a
message when the corpus is absent.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.bench_report import markdown, write_chart  # noqa: E402
from benchmarks.bench_shards import CORPUS, ShardSpec, build_shards, corpus_available  # noqa: E402

BENCH = ROOT / "bench"
SHARDS = BENCH / "shards"
RUNS = BENCH / "runs"
BENCH_FILES = 4
PAGES_PER_FILE = 5000
BIG_BYTES = 1 << 30
TRAFILATURA_PAGES = 500  # trafilatura runs ~10 pages/s here: a prefix of the same records
PEER_PAGES = 5000


def _machine() -> dict:
    import apache_beam
    import psutil
    import pyarrow

    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    cores = os.cpu_count() or 0
    mem_gb = psutil.virtual_memory().total / 1e9
    return {
        "cpu": cpu,
        "cores": cores,
        "memory_gb": round(mem_gb, 1),
        "python": platform.python_version(),
        "beam": apache_beam.__version__,
        "pyarrow": pyarrow.__version__,
        "summary": (
            f"{cores} cores ({cpu}), {mem_gb:.0f} GB RAM, Python {platform.python_version()}, "
            f"Beam {apache_beam.__version__}, Linux"
        ),
    }


def _run_loop(name: str, paths: list[Path], limit: int = 0) -> dict:
    out = RUNS / f"loop-{name}.json"
    cmd = [sys.executable, "-m", "benchmarks.bench_loops", name, *map(str, paths)]
    cmd += ["--out", str(out)]
    if limit:
        cmd += ["--limit", str(limit)]
    print(f"  loop {name} ...", flush=True)
    subprocess.run(cmd, cwd=ROOT, check=True)
    return json.loads(out.read_text(encoding="utf-8"))


def _job(label: str, paths: list[Path], workers: int, extra: list[str] | None = None):
    from benchmarks.bench_job import run_job

    print(f"  job {label} ...", flush=True)
    output = RUNS / f"out-{label}"
    shutil.rmtree(output, ignore_errors=True)
    return run_job(label, paths, output, workers=workers, extra_args=extra).as_dict()


def _config(label: str, documents: int, seconds: float, bytes_per_doc: float, rss) -> dict:
    rate = documents / seconds if seconds > 0 else None
    return {
        "label": label,
        "documents": documents,
        "seconds": seconds,
        "pages_per_s": rate,
        "mb_per_s": rate * bytes_per_doc / 1e6 if rate else None,
        "peak_rss_mb": rss,
    }


def run(args: argparse.Namespace) -> dict:
    BENCH.mkdir(exist_ok=True)
    RUNS.mkdir(parents=True, exist_ok=True)
    specs = [
        ShardSpec(f"bench-{i}.warc.gz", i * args.pages, pages=args.pages) for i in range(args.files)
    ]
    specs += [ShardSpec("one-page.warc.gz", 0, pages=1), ShardSpec("1k.warc.gz", 0, pages=1000)]
    if args.big:
        specs.append(ShardSpec("big-1gib.warc.gz", 10**6, min_bytes=BIG_BYTES, parts=2))
    started = time.perf_counter()
    print("building shards (cached under bench/shards) ...", flush=True)
    paths = build_shards(specs, SHARDS)
    print(f"  shards ready in {time.perf_counter() - started:.0f} s", flush=True)
    bench = paths[: args.files]
    one_page, one_k = paths[args.files], paths[args.files + 1]
    bench_bytes = sum(p.stat().st_size for p in bench)

    results: dict = {"machine": _machine(), "started": time.strftime("%Y-%m-%d %H:%M:%S UTC")}
    results["shards"] = {
        "files": [p.name for p in bench],
        "bytes": bench_bytes,
        "pages_per_file": args.pages,
    }

    loops = {"floor": _run_loop("floor", bench), "extractor": _run_loop("extractor", bench)}
    if not args.no_peers:
        loops["resiliparse"] = _run_loop("resiliparse", bench, PEER_PAGES)
        loops["trafilatura"] = _run_loop("trafilatura", bench, TRAFILATURA_PAGES)
    results["loops"] = loops
    documents = loops["floor"]["documents"]
    per_doc = bench_bytes / documents

    jobs = {
        "idle-1": _job("idle-1", [one_page], 1),
        "idle-2": _job("idle-2", [one_page], 2),
        "1k-1": _job("1k-1", [one_k], 1),
        "bench-1": _job("bench-1", bench, 1),
        "bench-2": _job("bench-2", bench, 2),
    }
    results["jobs"] = jobs
    startup = {w: jobs[f"idle-{w}"]["seconds"] for w in (1, 2)}

    def steady(label: str, workers: int) -> float:
        return jobs[label]["documents"] / (jobs[label]["seconds"] - startup[workers])

    ext = loops["extractor"]
    t = ext["timers"]
    clean_seconds = t["read"] + t["decode"] + t["extract"] + t["repair"]
    configs = [
        _config(
            "floor: read + decode + Lexbor parse",
            documents,
            loops["floor"]["seconds"],
            per_doc,
            loops["floor"]["peak_rss_mb"],
        ),
        _config(
            "extractor alone (plain loop)",
            ext["documents"],
            t["extract"],
            per_doc,
            ext["peak_rss_mb"],
        ),
        _config(
            "read + decode + extract + ftfy (plain loop)",
            ext["documents"],
            clean_seconds,
            per_doc,
            None,
        ),
    ]
    for peer in ("resiliparse", "trafilatura"):
        if peer in loops:
            configs.append(
                _config(
                    f"{peer} (same loop, first {loops[peer]['documents']:,})",
                    loops[peer]["documents"],
                    loops[peer]["seconds"],
                    per_doc,
                    loops[peer]["peak_rss_mb"],
                )
            )
    for workers in (1, 2):
        job = jobs[f"bench-{workers}"]
        rss = max(job["worker_peak_rss_mb"] or [0])
        configs.append(
            _config(
                f"job, {workers} worker{'s' * (workers > 1)}, wall",
                job["documents"],
                job["seconds"],
                per_doc,
                rss,
            )
        )
        configs.append(
            _config(
                f"job, {workers} worker{'s' * (workers > 1)}, steady (wall - start-up)",
                job["documents"],
                job["seconds"] - startup[workers],
                per_doc,
                rss,
            )
        )
    results["startup_seconds"] = startup
    job1, job2 = steady("bench-1", 1), steady("bench-2", 2)
    extractor_rate = ext["documents"] / t["extract"]
    floor_rate = documents / loops["floor"]["seconds"]
    results["ratios"] = {
        "job 1 worker / extractor loop (target >= 0.80)": job1 / extractor_rate,
        "job 1 worker / floor": job1 / floor_rate,
        "job 2 workers / job 1 worker (target >= 1.7)": job2 / job1,
    }
    idle = max(jobs["idle-1"]["worker_peak_rss_mb"] or [0])
    mem_1k = max(jobs["1k-1"]["worker_peak_rss_mb"] or [0])
    mem_all = max(jobs["bench-1"]["worker_peak_rss_mb"] or [0])
    results["memory"] = {
        "idle_worker_mb": idle,
        "after_1k_mb": mem_1k,
        f"after_{jobs['bench-1']['documents']}_mb": mem_all,
        "growth_over_idle_mb": mem_all - idle,
    }
    results["notes"] = [
        f"start-up and fixed cost (job on a one-page shard): {startup[1]:.1f} s with 1 worker, "
        f"{startup[2]:.1f} s with 2",
        f"worker peak RSS: idle {idle:.0f} MB, after 1,000 pages {mem_1k:.0f} MB, after "
        f"{jobs['bench-1']['documents']:,} pages {mem_all:.0f} MB (+{mem_all - idle:.0f} MB over "
        "idle; target <= 30)",
        f"CPU per 1,000 pages, job 1 worker (runner + worker): "
        f"{1000 * jobs['bench-1']['cpu_seconds'] / jobs['bench-1']['documents']:.1f} s",
        f"load average when the 1-worker job started: {jobs['bench-1']['load_average']:.1f} "
        f"(other processes share these {results['machine']['cores']} cores)",
    ]
    results["configurations"] = configs
    results["seconds_total"] = time.perf_counter() - started
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--big", action="store_true", help="add the 1 GiB single-file runs")
    parser.add_argument("--no-peers", action="store_true", help="skip resiliparse/trafilatura")
    parser.add_argument("--files", type=int, default=BENCH_FILES)
    parser.add_argument("--pages", type=int, default=PAGES_PER_FILE, help="pages per shard")
    args = parser.parse_args(argv)
    if not corpus_available():
        print(f"benchmark skipped: the corpus folder {CORPUS} is absent")
        return 0
    results = run(args)
    (BENCH / "results.json").write_text(json.dumps(results, indent=2), encoding="utf-8")
    table = markdown(results)
    (BENCH / "results.md").write_text(table + "\n", encoding="utf-8")
    write_chart(results, BENCH / "throughput.png")
    print()
    print(table)
    print(
        f"\nwrote bench/results.json, bench/results.md, bench/throughput.png "
        f"({results['seconds_total']:.0f} s)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
