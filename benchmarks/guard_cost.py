"""Throughput cost of the crash guard: how many documents/s each way of running cleaning gets.

    python -m benchmarks.guard_cost [--pages 300]

Reads real pages from ../shared/corpus/wcxb-dev/html (for measuring only; nothing is copied),
wraps each in an HTTP response record, and cleans them

- in-process (no guard), a plain loop;
- through ``GuardedCleaner`` (one persistent child, a pipe, a per-document timeout), a plain loop;
- a fresh ``spawn`` process per document (on a sample: it is far too slow to run on all);
- in a one-worker FnApiRunner pipeline: our DoFn unguarded, our DoFn guarded, and the unguarded
  DoFn under Beam's ``with_exception_handling(use_subprocess=True, timeout=...)``;

and prints a Markdown table. It also times one restart after a crash.
"""

from __future__ import annotations

import argparse
import gzip
import multiprocessing
import os
import signal
import tempfile
import time
from pathlib import Path

import apache_beam as beam

from transforms.clean_html import CleanHtml, build_cleaner
from transforms.clean_html.guard import GuardedCleaner, _preload_modules
from transforms.read import ReadArchives
from transforms.records import ArchiveRecord

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "wcxb-dev" / "html"


def load_records(limit: int) -> list[ArchiveRecord]:
    records = []
    for index, path in enumerate(sorted(CORPUS.glob("*.html.gz"))[:limit]):
        body = gzip.decompress(path.read_bytes())
        head = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n" % len(
            body
        )
        records.append(
            ArchiveRecord(
                source_file="bench.warc.gz",
                record_id=f"<urn:uuid:{index}>",
                record_type="response",
                offset=index,
                url=f"https://bench.example/{path.name}",
                payload=head + body,
                is_http=True,
            )
        )
    return records


def _loop(cleaner, records) -> float:
    started = time.perf_counter()
    for record in records:
        cleaner(record)
    return time.perf_counter() - started


def _one_shot(record: ArchiveRecord, conn) -> None:
    conn.send(build_cleaner()(record))


def _fresh_process_each(records) -> float:
    """A new process per document, forked from a fork server that has the cleaning code loaded
    (the cheapest way to get one; ``spawn`` would re-import everything for each document)."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(_preload_modules())  # as the guard does
    started = time.perf_counter()
    for record in records:
        parent, child = context.Pipe()
        process = context.Process(target=_one_shot, args=(record, child))
        process.start()
        child.close()
        parent.recv()
        process.join()
    return time.perf_counter() - started


class _Unguarded(beam.DoFn):
    def setup(self):
        self._cleaner = build_cleaner()

    def process(self, record):
        yield self._cleaner(record)


def _crash(record):
    os.kill(os.getpid(), signal.SIGSEGV)


def make_crasher():
    return _crash


def write_warc(records: list[ArchiveRecord], path: Path) -> str:
    """The records as one uncompressed WARC file, so that pipelines read it as the job does."""
    with open(path, "wb") as out:
        for record in records:
            head = (
                f"WARC/1.1\r\nWARC-Type: response\r\nWARC-Record-ID: {record.record_id}\r\n"
                f"WARC-Target-URI: {record.url}\r\nWARC-Date: 2026-01-01T00:00:00Z\r\n"
                "Content-Type: application/http; msgtype=response\r\n"
                f"Content-Length: {len(record.payload)}\r\n\r\n"
            )
            out.write(head.encode() + record.payload + b"\r\n\r\n")
    return str(path)


def _pipeline_seconds(warc: str, apply) -> float:
    """Seconds for a one-worker FnApiRunner pipeline: read the WARC, then ``apply``."""
    started = time.perf_counter()
    with beam.Pipeline(runner="FnApiRunner") as pipeline:
        records = pipeline | beam.Create([warc]) | ReadArchives()
        apply(records.records)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pages", type=int, default=300)
    parser.add_argument("--fresh_sample", type=int, default=10)
    args = parser.parse_args()
    records = load_records(args.pages)
    n = len(records)
    mb = sum(len(r.payload) for r in records) / 1e6
    print(f"{n} pages, {mb:.1f} MB of HTML, one worker\n")

    print("| how | documents | seconds | documents/s | vs no guard |")
    print("|---|---|---|---|---|")
    base: list[float] = []

    def report(name: str, count: int, seconds: float) -> None:
        rate = count / seconds
        base.append(rate)
        print(
            f"| {name} | {count} | {seconds:.2f} | {rate:.1f} | {rate / base[0]:.0%} |", flush=True
        )

    inline = build_cleaner()
    guarded = GuardedCleaner(build_cleaner, timeout_s=60)
    inline(records[0])  # warm imports
    guarded(records[0])  # start the child outside the timing
    # Alternate and keep the best of three, so that warm-up and noise do not pick the winner.
    inline_s = guarded_s = float("inf")
    for _ in range(3):
        inline_s = min(inline_s, _loop(inline, records))
        guarded_s = min(guarded_s, _loop(guarded, records))
    report("in-process, no guard (loop, best of 3)", n, inline_s)
    report("persistent child + timeout (loop, best of 3)", n, guarded_s)
    guarded.close()
    sample = records[: args.fresh_sample]
    report("fresh process per document (loop)", len(sample), _fresh_process_each(sample))
    with tempfile.TemporaryDirectory() as tmp:
        warc = write_warc(records, Path(tmp) / "bench.warc")
        pipelines = {
            "Beam: read + CleanHtml, --extract_guard none": lambda p: p | CleanHtml(guard="none"),
            "Beam: read + CleanHtml, --extract_guard process": lambda p: (
                p | CleanHtml(guard="process")
            ),
            "Beam: read + plain ParDo (no guard)": lambda p: p | beam.ParDo(_Unguarded()),
            "Beam: read + ParDo.with_exception_handling(use_subprocess=True, timeout=60)": (
                lambda p: (
                    p
                    | beam.ParDo(_Unguarded()).with_exception_handling(
                        use_subprocess=True, timeout=60, threshold=1
                    )
                )
            ),
        }
        for name, apply in pipelines.items():
            report(name, n, _pipeline_seconds(warc, apply))

    crashing = GuardedCleaner(make_crasher, timeout_s=60)
    crashing(records[0])
    started = time.perf_counter()
    outcome = crashing(records[1])
    print(
        f"\nrestart after a crash: {time.perf_counter() - started:.2f} s ({outcome[1]['detail']})"
    )
    crashing.close()


if __name__ == "__main__":
    main()
