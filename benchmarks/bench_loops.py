"""Plain-loop measurements over the benchmark shards, without Beam: the floor, the extractor and its peers.

Every loop reads the same records with the job's own reader (``read_file``) and decoder
(``decode_document``), so the only thing that differs between loops is what is timed:

- ``floor``: read, decode and parse with Lexbor (the bytes of plain UTF-8 pages, as the job
  does), all timed: no extraction and no writing, the limit of this design;
- ``extractor``: only the ``Extractor`` call is timed, given a plain UTF-8 page's bytes as the
  job gives them (``utf8=``, so the parser does not encode the text again); decoding, ftfy
  repair and the language of title and text (every row of the job has one) around it are
  timed separately in the same pass, so the cost of each step is known;
- ``resiliparse`` and ``trafilatura``: only the peer's call is timed, on the same decoded text.

Each loop runs in its own process (``python -m benchmarks.bench_loops NAME ...``) so that its
peak RSS is its own, and writes one JSON result.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from transforms.decode import Reject, decode_document
from transforms.memory import release_large_blocks
from transforms.read import read_file
from transforms.records import ArchiveRecord

ROOT = Path(__file__).resolve().parent.parent

__all__ = ["LOOPS", "rss_mb", "run_loop"]

LOOPS = ("floor", "extractor", "resiliparse", "trafilatura")
MEMORY_MARK = 1000  # RSS is also recorded after this many documents


def rss_mb() -> float:
    """This process's resident set size now, in MB."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6


def peak_rss_mb() -> float:
    """This process's peak resident set size so far, in MB (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 1e6


def _documents(paths: list[str]) -> Iterator[ArchiveRecord]:
    """Candidate records with a payload, in file order: what ``CleanHtml`` turns into rows."""
    for path in paths:
        for item in read_file(path):
            if isinstance(item, ArchiveRecord) and item.payload:
                yield item


def _peer(name: str) -> Callable[[str, str | None], object]:
    if name == "resiliparse":
        from resiliparse.extract.html2text import extract_plain_text
        from resiliparse.parse.html import HTMLTree

        return lambda html, url: extract_plain_text(HTMLTree.parse(html), main_content=True)
    if name == "trafilatura":
        import trafilatura

        return lambda html, url: trafilatura.bare_extraction(html, url=url, with_metadata=True)
    from transforms.extract import Extractor

    return Extractor()


def run_loop(name: str, paths: list[str], limit: int = 0) -> dict:
    """Run loop ``name`` over the documents of ``paths`` (the first ``limit`` when > 0)."""
    from selectolax.lexbor import LexborHTMLParser

    from transforms import language
    from transforms.extract.repair import repair_text

    if name == "extractor":
        language.load_model()  # (as the job's workers do, before the first page)
    release_large_blocks()  # as the job's workers do, so that memory compares like for like
    call = None if name == "floor" else _peer(name)
    base_rss = rss_mb()
    timers = dict.fromkeys(["read", "decode", "parse", "extract", "repair", "language"], 0.0)
    documents = rejected = 0
    extract_cpu = 0.0
    rss_at_mark = None
    wall_start, cpu_start = time.perf_counter(), time.process_time()
    records = _documents(paths)
    while True:
        t0 = time.perf_counter()
        record = next(records, None)
        t1 = time.perf_counter()
        timers["read"] += t1 - t0
        if record is None or (limit and documents >= limit):
            break
        documents += 1
        try:
            decoded = decode_document(
                record.payload, is_http=record.is_http, content_type=record.content_type
            )
        except Reject:
            rejected += 1
            timers["decode"] += time.perf_counter() - t1
            continue
        t2 = time.perf_counter()
        timers["decode"] += t2 - t1
        if call is None:
            LexborHTMLParser(decoded.html if decoded.utf8 is None else decoded.utf8)
            timers["parse"] += time.perf_counter() - t2
        else:
            c2 = time.process_time()
            if name == "extractor" and decoded.utf8 is not None:  # as clean_record calls it
                result = call(decoded.html, record.url, utf8=decoded.utf8)
            else:
                result = call(decoded.html, record.url)
            t3 = time.perf_counter()
            extract_cpu += time.process_time() - c2
            timers["extract"] += t3 - t2
            if name == "extractor":
                text, title = repair_text(result.text), repair_text(result.title)
                t4 = time.perf_counter()
                timers["repair"] += t4 - t3
                if text.strip():  # as clean_record does
                    language.identify(title, text)
                timers["language"] += time.perf_counter() - t4
        if documents == MEMORY_MARK:
            rss_at_mark = rss_mb()
    wall, cpu = time.perf_counter() - wall_start, time.process_time() - cpu_start
    timed = wall if name == "floor" else timers["extract"]
    return {
        "name": name,
        "documents": documents,
        "rejected": rejected,
        "seconds": timed,
        "loop_seconds": wall,
        "cpu_seconds": cpu if name == "floor" else extract_cpu,
        "loop_cpu_seconds": cpu,  # the whole loop: read, decode, the call, and ftfy
        "timers": timers,
        "base_rss_mb": base_rss,
        "peak_rss_mb": peak_rss_mb(),
        "rss_mb_at": {str(MEMORY_MARK): rss_at_mark, str(documents): rss_mb()},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("loop", choices=LOOPS)
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--limit", type=int, default=0, help="stop after this many documents")
    parser.add_argument("--out", required=True, help="write the JSON result here")
    args = parser.parse_args(argv)
    result = run_loop(args.loop, args.paths, args.limit)
    Path(args.out).write_text(json.dumps(result, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
