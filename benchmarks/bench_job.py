"""Run the Beam job as a subprocess and measure it: wall time, CPU time and RSS per process.

The job runs as users run it (``python -m beam_jobs.clean_html``), with FnApiRunner in
``multi_processing`` mode even for one worker, so that the SDK worker is its own process and
its memory can be told apart from the runner's. A sampler thread walks the process tree every
``SAMPLE_SECONDS`` and keeps each process's peak RSS; the process that runs the job is the
runner, its descendants are the workers.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import psutil

__all__ = ["JobRun", "run_job"]

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_SECONDS = 0.1


@dataclass
class JobRun:
    """What one job run cost: ``documents`` comes from the job's own summary."""

    label: str
    workers: int
    documents: int
    rows: int
    seconds: float
    cpu_seconds: float
    runner_peak_rss_mb: float
    worker_peak_rss_mb: list[float]
    runner_cpu_seconds: float = 0.0
    worker_cpu_seconds: list[float] = field(default_factory=list)
    cleaner_peak_rss_mb: list[float] = field(default_factory=list)
    cleaner_cpu_seconds: list[float] = field(default_factory=list)
    rss_timeline: list[tuple[float, float]] = field(default_factory=list)
    output_files: list[str] = field(default_factory=list)
    load_average: float = 0.0

    def as_dict(self) -> dict:
        return asdict(self)


def _kind(proc: psutil.Process, root: int) -> str:
    """What a process of the job is: the runner, an SDK worker, a cleaning child, or other."""
    if proc.pid == root:
        return "runner"
    parent = proc.parent()
    if parent is not None and "forkserver" in " ".join(parent.cmdline()):
        return "cleaner"  # a crash-guard child, forked from the fork server
    cmdline = " ".join(proc.cmdline())
    if "forkserver" in cmdline or "resource_tracker" in cmdline or cmdline.startswith("/bin/sh"):
        return "other"
    return "worker" if "sdk_worker_main" in cmdline else "other"


class _TreeSampler(threading.Thread):
    """Samples the RSS of a process and its descendants until stopped."""

    def __init__(self, pid: int):
        super().__init__(daemon=True)
        self._root = psutil.Process(pid)
        self._stop_event = threading.Event()
        self.peaks: dict[int, float] = {}
        self.cpu: dict[int, float] = {}  # last CPU seconds seen per process
        self.kinds: dict[int, str] = {}  # runner, worker, cleaner (crash-guard child), other
        self.timeline: list[tuple[float, float]] = []  # (seconds, largest worker RSS)
        self._t0 = time.perf_counter()

    def run(self) -> None:
        while not self._stop_event.is_set():
            try:
                procs = [self._root, *self._root.children(recursive=True)]
            except psutil.NoSuchProcess:
                return
            worker_max = 0.0
            for proc in procs:
                try:
                    rss = proc.memory_info().rss / 1e6
                    times = proc.cpu_times()
                    if proc.pid not in self.kinds:
                        self.kinds[proc.pid] = _kind(proc, self._root.pid)
                except psutil.Error:
                    continue
                self.cpu[proc.pid] = times.user + times.system
                self.peaks[proc.pid] = max(self.peaks.get(proc.pid, 0.0), rss)
                if self.kinds[proc.pid] == "worker":
                    worker_max = max(worker_max, rss)
            self.timeline.append((round(time.perf_counter() - self._t0, 2), worker_max))
            self._stop_event.wait(SAMPLE_SECONDS)

    def stop(self) -> None:
        self._stop_event.set()
        self.join()


@dataclass
class SampledRun:
    """A command run to its end under a ``_TreeSampler``."""

    pid: int
    returncode: int
    log: str  # stdout and stderr together
    seconds: float  # wall
    cpu_seconds: float  # of the whole process tree
    sampler: _TreeSampler


def run_sampled(cmd: list[str]) -> SampledRun:
    """Run ``cmd`` from the repository's root, sampling its process tree. Fork-server children
    (the SDK workers) are not waited for, so rusage misses them: the tree's CPU is the larger
    of the waited children's rusage and the sum of the samples."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.Popen(
        cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    sampler = _TreeSampler(proc.pid)
    sampler.start()
    log, _ = proc.communicate()
    seconds = time.perf_counter() - started
    sampler.stop()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = max(
        (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime),
        sum(sampler.cpu.values()),
    )
    return SampledRun(proc.pid, proc.returncode, log, seconds, cpu, sampler)


def run_job(
    label: str,
    inputs: list[Path],
    output: Path,
    *,
    workers: int,
    extra_args: list[str] | None = None,
    python: str = sys.executable,
) -> JobRun:
    """Run the job on ``inputs`` into ``output`` with ``workers`` SDK worker processes."""
    cmd = [python, "-m", "beam_jobs.clean_html", "--output", str(output)]
    for path in inputs:
        cmd += ["--input", str(path)]
    cmd += [
        "--runner",
        "FnApiRunner",
        "--direct_num_workers",
        str(workers),
        "--direct_running_mode",
        "multi_processing",
        *(extra_args or []),
    ]
    load = psutil.getloadavg()[0]
    done = run_sampled(cmd)
    if done.returncode != 0:
        raise RuntimeError(f"job {label} failed ({done.returncode}):\n{done.log[-3000:]}")
    summary = json.loads((output / "_SUMMARY.json").read_text(encoding="utf-8"))
    sampler = done.sampler

    def of_kind(values: dict[int, float], kind: str) -> list[float]:
        return sorted(
            (v for pid, v in values.items() if sampler.kinds.get(pid) == kind), reverse=True
        )

    workers_rss = of_kind(sampler.peaks, "worker")
    return JobRun(
        label=label,
        workers=workers,
        documents=summary["documents"],
        rows=summary["rows"],
        seconds=done.seconds,
        cpu_seconds=done.cpu_seconds,
        runner_peak_rss_mb=sampler.peaks.get(done.pid, 0.0),
        runner_cpu_seconds=sampler.cpu.get(done.pid, 0.0),
        worker_cpu_seconds=of_kind(sampler.cpu, "worker"),
        cleaner_peak_rss_mb=of_kind(sampler.peaks, "cleaner"),
        cleaner_cpu_seconds=of_kind(sampler.cpu, "cleaner"),
        worker_peak_rss_mb=workers_rss[:workers],
        rss_timeline=sampler.timeline,
        output_files=summary.get("output", {}).get("data", []),
        load_average=load,
    )
