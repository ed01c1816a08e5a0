"""CPU account of the job's per-page work, step by step, measured on the job's own code (no Beam).

    python -m benchmarks.bench_account bench/shards/1k.warc.gz [--limit 1000]

Runs ``clean_record`` (what the crash guard's child runs on every record) over the candidate
records of the given WARC files, with a CPU timer (``time.process_time``, so other processes
on a shared machine do not count) wrapped around each step it calls: HTTP parsing, content
decoding, the HTML check, the charset chain, the caps (and the cut of script text), the parse,
the extractor's own work, ftfy repair and language identification. Each step's time is its
own, without the steps it calls, so the column adds up to the whole ``clean_record``. The steps
are the real functions, patched in place for the run: a change to the job's code is measured
as it is, never re-spelled here. Reading the WARC and writing Parquet are timed around the same
loop; the guard's and Beam's share is what a job run costs beyond this (``make bench``).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from unittest import mock

from transforms import language
from transforms.clean_html import build_cleaner
from transforms.decode import document
from transforms.extract import extractor
from transforms.read import read_file
from transforms.records import ArchiveRecord
from transforms.rows import REJECT_SCHEMA, ROW_SCHEMA
from transforms.write import ShardWriter

__all__ = ["account"]

_clock = time.process_time

# (module, attribute, step): every function clean_record reaches that is timed apart.
STEPS = [
    (document, "parse_response", "HTTP head"),
    (document, "decode_body", "content decoding"),
    (document, "require_html", "HTML check"),
    (document, "decode_text", "charset"),
    (extractor, "bound_page", "caps, script text cut"),
    (extractor, "_parse", "parse"),
    (extractor, "repair_text", "ftfy"),
    (language, "identify", "language"),
]


class _Account:
    """Exclusive CPU seconds per step: a step's time without the timed steps inside it."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)
        self._stack: list[list] = []  # [step, started, time of timed steps inside]

    def timed(self, step: str, function: Callable) -> Callable:
        def wrapper(*args, **kwargs):
            frame = [step, _clock(), 0.0]
            self._stack.append(frame)
            try:
                return function(*args, **kwargs)
            finally:
                spent = _clock() - frame[1]
                self._stack.pop()
                self.seconds[step] += spent - frame[2]
                if self._stack:
                    self._stack[-1][2] += spent

        return wrapper


@contextlib.contextmanager
def _patched(account: _Account) -> Iterator[None]:
    with contextlib.ExitStack() as stack:
        for module, name, step in STEPS:
            original = getattr(module, name)
            stack.enter_context(mock.patch.object(module, name, account.timed(step, original)))
        yield


def _candidates(paths: list[str], limit: int) -> tuple[list[ArchiveRecord], float]:
    """Candidate records of ``paths`` and the CPU seconds spent reading every record."""
    records: list[ArchiveRecord] = []
    start = _clock()
    for path in paths:
        for item in read_file(path):
            if isinstance(item, ArchiveRecord) and item.payload:
                records.append(item)
    spent = _clock() - start
    return records[:limit] if limit else records, spent


def _parquet(outcomes: list) -> float:
    """CPU seconds of writing the outcomes as the job does (rows and rejects)."""
    with tempfile.TemporaryDirectory() as folder:
        os.makedirs(os.path.join(folder, "data"))
        os.makedirs(os.path.join(folder, "rejects"))
        start = _clock()
        rows = ShardWriter(os.path.join(folder, "data"), ROW_SCHEMA)
        rejects = ShardWriter(os.path.join(folder, "rejects"), REJECT_SCHEMA)
        for kind, value in outcomes:
            (rows if kind == "row" else rejects).write(value)
        rows.close()
        rejects.close()
        return _clock() - start


def account(paths: list[str], limit: int = 0) -> dict[str, float]:
    """Milliseconds of CPU per candidate page, by step, and ``pages``."""
    clean = build_cleaner()
    records, read_s = _candidates(paths, limit)
    steps = _Account()
    whole = steps.timed("rest of extraction", extractor.Extractor.__call__)
    with _patched(steps), mock.patch.object(extractor.Extractor, "__call__", whole):
        start = _clock()
        outcomes = [clean(record) for record in records]
        clean_s = _clock() - start
    table = {"read WARC": read_s, **steps.seconds}
    table["rest of clean_record"] = clean_s - sum(steps.seconds.values())
    table["write Parquet"] = _parquet(outcomes)
    result = {step: 1000 * seconds / len(records) for step, seconds in table.items()}
    result["pages"] = len(records)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--limit", type=int, default=0)
    args = parser.parse_args(argv)
    result = account(args.paths, args.limit)
    pages = int(result.pop("pages"))
    print(f"| step ({pages} pages) | CPU ms/page |\n|---|---:|")
    for step, ms in result.items():
        print(f"| {step} | {ms:.3f} |")
    print(f"| all | {sum(result.values()):.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
