"""Profile the job with py-spy and say where the worker's time goes.

py-spy samples the job and its SDK worker processes (``--subprocesses``) and writes collapsed
stacks (``--format raw``: one ``frame;frame;... count`` line per distinct stack). py-spy samples only
threads that are running, so the runner's waiting threads do not dilute the profile. Each sample is charged to the
component of its deepest frame that belongs to the project or to a known library, so that a
call into ``re`` or ``zlib`` counts for whoever made it.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

__all__ = ["COMPONENTS", "profile_job", "summarise_collapsed"]

# (component, pattern on a frame's file path); the first match wins, checked leaf first.
COMPONENTS: list[tuple[str, re.Pattern[str]]] = [
    ("ftfy", re.compile(r"transforms/extract/repair|(^|/)ftfy/")),
    ("extract", re.compile(r"transforms/extract/|selectolax")),
    ("decode (HTTP, charset)", re.compile(r"transforms/decode/|charset_normalizer|brotli|zstd")),
    ("read (FastWARC, gzip)", re.compile(r"transforms/read/|fastwarc|warcio")),
    ("Parquet", re.compile(r"pyarrow|parquet|transforms/write/")),
    (
        "guard (pipe, pickling, waiting for the child)",
        re.compile(r"multiprocessing/|transforms/clean_html/(guard|pipe)|selectors"),
    ),
    ("CleanHtml DoFn", re.compile(r"transforms/clean_html")),
    ("Beam (coders, runner, metrics)", re.compile(r"apache_beam|grpc|google/protobuf")),
]
_FRAME = re.compile(r"^(?P<func>.*) \((?P<file>[^:()]+)(?::\d+)?\)$")


_IMPORT = re.compile(r"^_find_and_load ")


def _component(frames: list[str]) -> tuple[str, str]:
    """The component and the function of the deepest recognised frame of one stack."""
    if any(_IMPORT.match(frame) for frame in frames):
        return "start-up (imports)", "module imports"
    for frame in reversed(frames):
        match = _FRAME.match(frame)
        if not match:
            continue
        for name, pattern in COMPONENTS:
            if pattern.search(match["file"]):
                return name, f"{match['func']} ({Path(match['file']).name})"
    leaf = frames[-1] if frames else "?"
    return "other (stdlib, interpreter)", leaf


def summarise_collapsed(text: str, process_filter: str = "sdk_worker_main") -> dict:
    """Components and top functions (by self time) of py-spy's collapsed stacks.

    Only stacks of processes whose command line contains ``process_filter`` are counted.
    """
    components: Counter[str] = Counter()
    functions: Counter[str] = Counter()
    leaves: Counter[str] = Counter()
    total = 0
    for line in text.splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack or not count_text.isdigit():
            continue
        frames = stack.split(";")
        if process_filter and process_filter not in frames[0]:
            continue
        count = int(count_text)
        frames = frames[1:]
        total += count
        component, function = _component(frames)
        components[component] += count
        functions[f"{component}: {function}"] += count
        leaves[frames[-1] if frames else "?"] += count
    share = {k: round(v / max(total, 1), 4) for k, v in components.most_common()}
    return {
        "samples": total,
        "components": share,
        "top_functions": [(k, round(v / max(total, 1), 4)) for k, v in functions.most_common(25)],
        "top_leaves": [(k, round(v / max(total, 1), 4)) for k, v in leaves.most_common(15)],
    }


def profile_job(
    job_cmd: list[str], raw_out: Path, rate: int = 100, process_filter: str = ""
) -> dict | None:
    """Run ``job_cmd`` under py-spy and summarise it; None when py-spy is unavailable.

    Run the job with ``--direct_running_mode in_memory`` so that the worker is a thread of the
    profiled process, or pass ``process_filter="sdk_worker_main"`` to keep only worker processes.
    """
    py_spy = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    if not Path(py_spy).exists():
        return None
    cmd = [py_spy, "record", "--format", "raw", "--rate", str(rate), "--subprocesses"]
    cmd += ["-o", str(raw_out), "--", *job_cmd]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0 or not raw_out.exists():
        print(f"py-spy failed ({done.returncode}): {done.stderr[-500:]}", file=sys.stderr)
        return None
    return summarise_collapsed(raw_out.read_text(encoding="utf-8"), process_filter)
