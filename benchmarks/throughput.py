"""End-to-end throughput and memory benchmark (``make bench``; ``make bench-big`` adds the 1 GB file).

On one set of WARC.gz shards built from ``../shared/corpus`` (see ``bench_shards``), measures
pages/s, input MB/s and peak RSS for: the floor (read, decode, Lexbor parse), the extractor in a
plain loop, its peers (resiliparse, trafilatura) in the same loop, and the Beam job with one and
two SDK workers, and with one worker and ``--extract_guard none``; prints each ratio that has a
target with the target (job against the plain loop, the guard's cost, 2 workers against 1) and
checks that guard on and off wrote the same rows. The guard's cost is the median of
``GUARD_PAIRS`` guard-on / guard-off pairs of one-worker runs taken in turns (the order flips from
one pair to the next), printed with every pair's figure: on this shared machine a single pair
moved by up to ten points. The job's fixed
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
import itertools
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.bench_parquet import measure_row_groups
from benchmarks.bench_profile import profile_job
from benchmarks.bench_report import markdown, write_chart
from benchmarks.bench_shards import CORPUS, ShardSpec, build_shards, corpus_available

ROOT = Path(__file__).resolve().parent.parent

BENCH = ROOT / "bench"
SHARDS = BENCH / "shards"
RUNS = BENCH / "runs"
BENCH_FILES = 4
PAGES_PER_FILE = 1500  # 6,000 pages in all, as the targets are set on
BIG_BYTES = 1 << 30
BIG_RUNS = [
    ("big-1", "1 GiB file, 1 worker", 1),
    ("big-2-whole", "1 GiB file, 2 workers, not split", 2),
    ("big-2-split", "1 GiB file, 2 workers, split by offsets", 2),
]
GUARD_PAIRS = 3
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


def _config(
    label: str,
    documents: int,
    seconds: float,
    cpu_seconds: float | None,
    bytes_per_doc: float,
    rss: float | None,
) -> dict:
    """One line of the table: wall rate, rate per CPU-second, input MB/s, peak RSS."""
    rate = documents / seconds if seconds > 0 else None
    return {
        "label": label,
        "documents": documents,
        "seconds": seconds,
        "pages_per_s": rate,
        "pages_per_cpu_s": documents / cpu_seconds if cpu_seconds else None,
        "mb_per_s": rate * bytes_per_doc / 1e6 if rate else None,
        "peak_rss_mb": rss,
    }


def _worker_rss(job: dict) -> float:
    return max(job["worker_peak_rss_mb"] or [0.0])


def _cleaner_rss(job: dict) -> float:
    return max(job.get("cleaner_peak_rss_mb") or [0.0])


def _timeline_marks(timeline: list[list[float]]) -> dict[str, float]:
    """The largest worker's RSS at 10%, 50% and 90% of a run's processing time."""
    busy = [(t, rss) for t, rss in timeline if rss > 0]
    if not busy:
        return {"10%": 0.0, "50%": 0.0, "90%": 0.0}
    start, end = busy[0][0], busy[-1][0]

    def at(fraction: float) -> float:
        moment = start + fraction * (end - start)
        return next(rss for t, rss in busy if t >= moment)

    return {"10%": at(0.1), "50%": at(0.5), "90%": at(0.9)}


def _job_configs(
    jobs: dict, label: str, name: str, workers: int, idle: dict, per_doc: float
) -> list[dict]:
    """The wall line and the steady line (start-up and its CPU taken off) of one job run."""
    job, base = jobs[label], idle[workers]
    return [
        _config(
            f"{name}, wall",
            job["documents"],
            job["seconds"],
            job["cpu_seconds"],
            per_doc,
            _worker_rss(job),
        ),
        _config(
            f"{name}, steady (minus start-up)",
            job["documents"],
            job["seconds"] - base["seconds"],
            job["cpu_seconds"] - base["cpu_seconds"],
            per_doc,
            _worker_rss(job),
        ),
    ]


def _steady_ms(job: dict, idle: dict, key: str = "cpu_seconds") -> float:
    """CPU milliseconds per page of one run with its start-up (the one-page run's) taken off."""
    spent, base = job[key], idle[key]
    if isinstance(spent, list):  # one figure per process of that kind
        spent, base = sum(spent), sum(base)
    return 1000 * (spent - base) / job["documents"]


def guard_costs(jobs: dict, pairs: list[tuple[str, str]]) -> dict:
    """The guard's steady cost from guard-on / guard-off pairs of one-worker runs.

    Each pair gives ``on / off - 1`` of the job's CPU per page (every process of the run, the
    start-up of a one-page run of the same kind, ``idle-1`` / ``idle-1-noguard``, taken off); the
    cost is their median, with the spread (largest minus smallest) beside it. Per-page CPU of
    the SDK worker and of its cleaning child (medians over the pairs) show where the cost is.
    """
    idle_on, idle_off = jobs["idle-1"], jobs["idle-1-noguard"]
    costs, on_ms, off_ms, worker_ms, child_ms, alone_ms = [], [], [], [], [], []
    for on, off in pairs:
        on_ms.append(_steady_ms(jobs[on], idle_on))
        off_ms.append(_steady_ms(jobs[off], idle_off))
        costs.append(on_ms[-1] / off_ms[-1] - 1)
        worker_ms.append(_steady_ms(jobs[on], idle_on, "worker_cpu_seconds"))
        child_ms.append(_steady_ms(jobs[on], idle_on, "cleaner_cpu_seconds"))
        alone_ms.append(_steady_ms(jobs[off], idle_off, "worker_cpu_seconds"))
    median = statistics.median
    return {
        "pairs": costs,
        "median": median(costs),
        "spread": max(costs) - min(costs),
        "job_ms_on": median(on_ms),
        "job_ms_off": median(off_ms),
        "worker_ms_on": median(worker_ms),
        "child_ms_on": median(child_ms),
        "worker_ms_off": median(alone_ms),
    }


def _target(value: float, target: float, at_least: bool = True) -> str:
    met = value >= target if at_least else value <= target
    return f"{'met' if met else 'NOT met'} ({'>=' if at_least else '<='} {target:g})"


def _ratios(jobs: dict, idle: dict, ext: dict, steady1: dict, steady2: dict, guard: dict) -> dict:
    """Each ratio the issue sets a target for, with its target and whether it is met.

    The plain loop is FastWARC reading plus the per-page work the job must do (decode, extract,
    ftfy, the language of each row), timed by ``benchmarks.bench_loops``; CPU figures count
    every process of a job run (runner, SDK worker, its cleaning child), wall figures move with
    the other load on the machine.
    """
    loop_cpu_rate = ext["documents"] / ext["loop_cpu_seconds"]
    loop_wall_rate = ext["documents"] / ext["loop_seconds"]
    bench1 = jobs["bench-1"]
    with_startup_cpu = bench1["documents"] / bench1["cpu_seconds"]
    values = {
        "job 1 worker / plain loop, per CPU-second, start-up excluded": (
            steady1["pages_per_cpu_s"] / loop_cpu_rate,
            0.85,
            True,
        ),
        "job 1 worker / plain loop, per CPU-second, start-up included": (
            with_startup_cpu / loop_cpu_rate,
            0.75,
            True,
        ),
        "job 1 worker / plain loop, wall, start-up excluded": (
            steady1["pages_per_s"] / loop_wall_rate,
            0.85,
            True,
        ),
        "job 1 worker / plain loop, wall, start-up included": (
            bench1["documents"] / bench1["seconds"] / loop_wall_rate,
            0.75,
            True,
        ),
        f"guard's steady cost: job CPU per page, guard on / off - 1, median of "
        f"{len(guard['pairs'])} pairs": (
            guard["median"],
            0.05,
            False,
        ),
        "job 2 workers / 1 worker, wall, start-up excluded": (
            steady2["pages_per_s"] / steady1["pages_per_s"],
            1.8,
            True,
        ),
    }
    return {
        f"{name}: {_target(value, target, at_least)}": value
        for name, (value, target, at_least) in values.items()
    }


def _rows(label: str) -> list[dict]:
    """The rows a job run wrote, file by file in name order, each file's rows in order."""
    import pyarrow.parquet as pq

    rows: list[dict] = []
    for path in sorted((RUNS / f"out-{label}" / "data").glob("*.parquet")):
        rows.extend(pq.read_table(path).to_pylist())
    return rows


def guard_pair_labels(count: int) -> list[tuple[str, str]]:
    """The labels of ``count`` guard-on / guard-off pairs; the first is ``bench-1`` and
    ``bench-1-noguard``, which the rest of the benchmark reads too."""
    return [
        ("bench-1", "bench-1-noguard")
        if i == 0
        else (f"bench-1-{i + 1}", f"bench-1-noguard-{i + 1}")
        for i in range(count)
    ]


def _same_rows(a: str, b: str, *, ordered: bool) -> bool:
    """Whether two runs wrote the same rows (in the same order when ``ordered``)."""
    rows_a, rows_b = _rows(a), _rows(b)
    if not ordered:
        key = lambda row: (row["source_file"], row["record_offset"])  # noqa: E731
        rows_a, rows_b = sorted(rows_a, key=key), sorted(rows_b, key=key)
    return rows_a == rows_b


def _profile(shard: Path) -> dict | None:
    """py-spy over the job on one shard, the worker in-process so that one profile holds it."""
    print("  profile (py-spy) ...", flush=True)
    output = RUNS / "out-profile"
    shutil.rmtree(output, ignore_errors=True)
    cmd = [sys.executable, "-m", "beam_jobs.clean_html", "--input", str(shard)]
    cmd += ["--output", str(output), "--runner", "FnApiRunner", "--direct_num_workers", "1"]
    cmd += ["--direct_running_mode", "in_memory"]
    return profile_job(cmd, BENCH / "profile.txt")


def run(args: argparse.Namespace) -> dict:
    BENCH.mkdir(exist_ok=True)
    RUNS.mkdir(parents=True, exist_ok=True)
    specs = [
        ShardSpec(f"bench-{i}-{args.pages}p.warc.gz", i * args.pages, pages=args.pages)
        for i in range(args.files)
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

    no_guard = ["--extract_guard", "none"]
    jobs = {
        "idle-1": _job("idle-1", [one_page], 1),
        "idle-1-noguard": _job("idle-1-noguard", [one_page], 1, no_guard),
        "idle-2": _job("idle-2", [one_page], 2),
        "1k-1": _job("1k-1", [one_k], 1),
    }
    pairs = guard_pair_labels(args.guard_pairs)
    for index, (on, off) in enumerate(pairs):  # in turns: on, off; off, on; on, off; ...
        order = [(on, None), (off, no_guard)]
        for label, extra in order[:: -1 if index % 2 else 1]:
            jobs[label] = _job(label, bench, 1, extra)
    jobs["bench-2"] = _job("bench-2", bench, 2)
    if args.big:
        big = paths[-1]
        results["big"] = {"file": big.name, "bytes": big.stat().st_size}
        jobs["big-1"] = _job("big-1", [big], 1)
        jobs["big-2-whole"] = _job("big-2-whole", [big], 2, ["--split_archive_bytes", "0"])
        jobs["big-2-split"] = _job("big-2-split", [big], 2)
    results["jobs"] = jobs
    idle = {w: jobs[f"idle-{w}"] for w in (1, 2)}
    ext, floor = loops["extractor"], loops["floor"]
    t = ext["timers"]
    configs = [
        _config(
            "floor: read + decode + Lexbor parse",
            floor["documents"],
            floor["seconds"],
            floor["cpu_seconds"],
            per_doc,
            floor["peak_rss_mb"],
        ),
        _config(
            "extractor alone (plain loop, extract calls only)",
            ext["documents"],
            t["extract"],
            ext["cpu_seconds"],
            per_doc,
            ext["peak_rss_mb"],
        ),
        _config(
            "read + decode + extract + ftfy + language (plain loop)",
            ext["documents"],
            t["read"] + t["decode"] + t["extract"] + t["repair"] + t["language"],
            ext["loop_cpu_seconds"],
            per_doc,
            None,
        ),
    ]
    for peer in ("resiliparse", "trafilatura"):
        if peer in loops:
            run_ = loops[peer]
            configs.append(
                _config(
                    f"{peer} (same loop, first {run_['documents']:,} documents)",
                    run_["documents"],
                    run_["seconds"],
                    run_["cpu_seconds"],
                    per_doc,
                    run_["peak_rss_mb"],
                )
            )
    job1 = _job_configs(jobs, "bench-1", "job, 1 worker", 1, idle, per_doc)
    job2 = _job_configs(jobs, "bench-2", "job, 2 workers", 2, idle, per_doc)
    quiet, quiet_idle = jobs["bench-1-noguard"], jobs["idle-1-noguard"]
    job1_noguard = _config(
        "job, 1 worker, --extract_guard none, steady (minus start-up)",
        quiet["documents"],
        quiet["seconds"] - quiet_idle["seconds"],
        quiet["cpu_seconds"] - quiet_idle["cpu_seconds"],
        per_doc,
        _worker_rss(quiet),
    )
    configs += job1 + [job1_noguard] + job2
    if "big" in results:
        big_per_doc = results["big"]["bytes"] / jobs["big-1"]["documents"]
        for label, name, workers in BIG_RUNS:
            configs += _job_configs(jobs, label, name, workers, idle, big_per_doc)[1:]
    steady1, steady2 = job1[1], job2[1]
    guard = results["guard_cost"] = guard_costs(jobs, pairs)
    results["ratios"] = _ratios(jobs, idle, ext, steady1, steady2, guard)
    results["identical_output"] = {
        f"guard on vs off, row by row ({len(pairs)} pairs)": all(
            _same_rows(on, off, ordered=True) for on, off in pairs
        ),
        "1 vs 2 workers, as sets of rows": _same_rows("bench-1", "bench-2", ordered=False),
    }
    if "big" in results:
        by_label = {c["label"]: c for c in configs}
        whole, split = (by_label[f"{name}, steady (minus start-up)"] for _, name, _ in BIG_RUNS[1:])
        results["ratios"]["1 GiB file, 2 workers: split / whole, wall"] = (
            split["pages_per_s"] / whole["pages_per_s"]
        )
    idle_rss = _worker_rss(jobs["idle-1"])
    cleaner_1k, cleaner_all = _cleaner_rss(jobs["1k-1"]), _cleaner_rss(jobs["bench-1"])
    mem_1k = _worker_rss(jobs["1k-1"])
    mem_all = _worker_rss(jobs["bench-1"])
    n_all = jobs["bench-1"]["documents"]
    results["startup_seconds"] = {w: idle[w]["seconds"] for w in (1, 2)}
    results["memory"] = {
        "idle_worker_mb": idle_rss,
        "after_1k_mb": mem_1k,
        "after_all_mb": mem_all,
        "pages_all": n_all,
        "growth_over_idle_mb": mem_all - idle_rss,
        "worker_growth_after_1k_mb": mem_all - mem_1k,
        "cleaner_after_1k_mb": cleaner_1k,
        "cleaner_after_all_mb": cleaner_all,
        "extractor_loop_growth_mb": ext["peak_rss_mb"] - ext["base_rss_mb"],
    }
    results["notes"] = [
        "guard's steady cost, each pair (guard on / off, taken in turns): "
        + ", ".join(f"{cost:+.1%}" for cost in guard["pairs"])
        + f"; median {guard['median']:+.1%}, spread {100 * guard['spread']:.1f} points",
        f"job CPU per page, start-up taken off (medians of the pairs): guard on "
        f"{guard['job_ms_on']:.2f} ms (SDK worker {guard['worker_ms_on']:.2f} + cleaning child "
        f"{guard['child_ms_on']:.2f}), guard off {guard['job_ms_off']:.2f} ms (SDK worker "
        f"{guard['worker_ms_off']:.2f})",
        f"worker memory after warm-up: +{mem_all - mem_1k:.0f} MB (worker) and "
        f"+{cleaner_all - cleaner_1k:.0f} MB (its cleaning child) from 1,000 pages to "
        f"{n_all:,} (target: flat)",
        "output identical: "
        + "; ".join(f"{k}: {'yes' if v else 'NO'}" for k, v in results["identical_output"].items()),
        f"start-up and fixed cost (the job on a one-page shard): {idle[1]['seconds']:.1f} s "
        f"with 1 worker, {idle[2]['seconds']:.1f} s with 2",
        f"worker peak RSS: idle (one page) {idle_rss:.0f} MB, after 1,000 pages {mem_1k:.0f} MB, "
        f"after {n_all:,} pages {mem_all:.0f} MB (+{mem_all - idle_rss:.0f} MB over idle; "
        "target <= 30)",
        "crash-guard cleaning child (decode + extract) peak RSS: idle "
        f"{_cleaner_rss(jobs['idle-1']):.0f} MB, after 1,000 pages "
        f"{_cleaner_rss(jobs['1k-1']):.0f} MB, after {n_all:,} pages "
        f"{_cleaner_rss(jobs['bench-1']):.0f} MB",
        "the plain extractor loop alone grows "
        f"{ext['peak_rss_mb'] - ext['base_rss_mb']:.0f} MB over its start (the largest pages' "
        "DOM and text)",
        f"load average when the 1-worker job started: {jobs['bench-1']['load_average']:.1f} "
        f"on {results['machine']['cores']} cores",
        # With the guard one worker already keeps more than a core busy (its child cleans while
        # it reads and writes), which caps the wall ratio of 2 workers on a 2-core machine.
        f"cores kept busy, steady (CPU-s per wall-s): 1 worker "
        f"{steady1['pages_per_s'] / steady1['pages_per_cpu_s']:.2f}, 2 workers "
        f"{steady2['pages_per_s'] / steady2['pages_per_cpu_s']:.2f}; pages per CPU-second, "
        f"2 workers / 1: {steady2['pages_per_cpu_s'] / steady1['pages_per_cpu_s']:.2f}",
    ]
    if "big" in results:
        marks = _timeline_marks(jobs["big-1"]["rss_timeline"])
        results["big"]["worker_rss_mb_by_progress"] = marks
        results["notes"].append(
            f"1 GiB file, 1 worker: {jobs['big-1']['documents']:,} pages; worker RSS at 10% / 50% "
            f"/ 90% of the run: {marks['10%']:.0f} / {marks['50%']:.0f} / {marks['90%']:.0f} MB, "
            f"peak {_worker_rss(jobs['big-1']):.0f} MB"
        )
    for label in ("bench-2", "big-2-whole", "big-2-split"):
        if label in jobs and len(jobs[label]["worker_cpu_seconds"]) >= 2:
            busy = [
                w + c
                for w, c in itertools.zip_longest(
                    jobs[label]["worker_cpu_seconds"],
                    jobs[label].get("cleaner_cpu_seconds") or [],
                    fillvalue=0.0,
                )
            ]
            results["notes"].append(
                f"{label}: worker CPU seconds (SDK worker + its cleaning child, largest first) "
                f"{busy[0]:.0f} and {busy[1]:.0f} "
                f"(balance {min(busy) / max(busy):.2f}); runner CPU "
                f"{jobs[label]['runner_cpu_seconds']:.0f} s"
            )
    results["configurations"] = configs
    if not args.no_profile:
        results["profile"] = _profile(bench[0])
    print("  Parquet sizing ...", flush=True)
    results["parquet"] = measure_row_groups(RUNS / "out-bench-1" / "data", bench_bytes)
    results["seconds_total"] = time.perf_counter() - started
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--big", action="store_true", help="add the 1 GiB single-file runs")
    parser.add_argument("--no-peers", action="store_true", help="skip resiliparse/trafilatura")
    parser.add_argument("--no-profile", action="store_true", help="skip the py-spy profile")
    parser.add_argument("--files", type=int, default=BENCH_FILES)
    parser.add_argument("--pages", type=int, default=PAGES_PER_FILE, help="pages per shard")
    parser.add_argument(
        "--guard-pairs",
        type=int,
        default=GUARD_PAIRS,
        help="guard-on / guard-off pairs of runs for the guard's cost (median)",
    )
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
