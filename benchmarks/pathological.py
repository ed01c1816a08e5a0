"""Time and peak memory of cleaning each pathological record of the malformed corpus.

    python -m benchmarks.pathological

Each HTTP- and HTML-level case of ``tests/malformed.py`` (bombs, a 50 MB page, 100,000 levels
of nesting, ...) is cleaned with ``clean_record`` in a fresh process, one case per process, so
that one case's memory does not hide another's. The process's RSS is sampled every 2 ms while
cleaning; "peak above input" is the highest sample minus the RSS just before, when the record is
already in memory. Prints a Markdown table.
"""

from __future__ import annotations

import multiprocessing
import threading
import time

import psutil

from tests.builders import http_response
from tests.malformed import html_cases, http_cases
from transforms.clean_html import build_cleaner
from transforms.decode import DEFAULT_MAX_BYTES
from transforms.records import ArchiveRecord

MB = 1e6


def _payload(kind: str, name: str) -> bytes:
    if kind == "http":
        return http_cases()[name][0]
    body, content_type, _ = html_cases()[name]
    return http_response(body, headers=[("Content-Type", content_type)])


def _measure(kind: str, name: str, max_decoded_bytes: int, conn) -> None:
    record = ArchiveRecord(
        "bench.warc.gz",
        name,
        "response",
        0,
        url=f"https://x/{name}",
        payload=_payload(kind, name),
        is_http=True,
    )
    cleaner = build_cleaner(max_decoded_bytes=max_decoded_bytes)
    process = psutil.Process()
    base = process.memory_info().rss
    peak = base
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, process.memory_info().rss)
            time.sleep(0.002)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    started = time.perf_counter()
    outcome, value = cleaner(record)
    seconds = time.perf_counter() - started
    done.set()
    sampler.join()
    result = (
        "row" + (" (truncated)" if value.get("truncated") else "")
        if outcome == "row"
        else value["reason"]
    )
    conn.send((len(record.payload), seconds, (peak - base) / MB, base / MB, result))


def main() -> None:
    context = multiprocessing.get_context("spawn")
    default = DEFAULT_MAX_BYTES
    cases = [("http", name, default) for name in http_cases()]
    cases += [("html", name, default) for name in html_cases()]
    cases.append(("html", "page-50mb", 64 << 20))  # the same page under a cap it fits in
    print(
        "| case | record bytes | outcome | seconds | peak RSS above input (MB) | RSS before (MB) |"
    )
    print("|---|---|---|---|---|---|")
    for kind, name, cap in cases:
        parent, child = context.Pipe()
        process = context.Process(target=_measure, args=(kind, name, cap, child))
        process.start()
        child.close()
        size, seconds, peak, base, result = parent.recv()
        process.join()
        if cap != default:
            name = f"{name} (--max_decoded_bytes {cap >> 20} MiB)"
        print(
            f"| {name} | {size:,} | {result} | {seconds:.2f} | {peak:.0f} | {base:.0f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
