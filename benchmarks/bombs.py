"""CPU time and peak memory of ``extract()`` on each page of the bomb probe (``tests/bombs.py``).

    python -m benchmarks.bombs [--tree /work/main] [--cpu-s 20] [--memory-mb 3072] [--only NAME]

Each page is extracted in a fresh process (``spawn``), one page per process, so that one page's
memory does not hide another's, under ``RLIMIT_CPU`` and ``RLIMIT_AS`` caps: a page past them
shows as ``cpu cap`` or ``memory cap`` instead of taking the machine. CPU time is the child's
``process_time`` around ``extract()`` (the page is built before), peak memory its ``ru_maxrss``.
``--tree`` imports ``transforms`` from another checkout (the figures before a change); the pages
are built here either way. Prints a Markdown table and a line of totals.
"""

from __future__ import annotations

import argparse
import multiprocessing
import resource
import sys
import time

from tests.bombs import BOMBS, MARKER


def _measure(tree: str | None, html: bytes, cpu_s: int, memory_mb: int, conn) -> None:
    if tree:
        sys.path.insert(0, tree)
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s + 5))
    from transforms.extract import extract

    resource.setrlimit(resource.RLIMIT_AS, (memory_mb << 20, memory_mb << 20))
    start = time.process_time()
    try:
        result = extract(html)
    except Exception as e:  # MemoryError, or Lexbor's "Can't parse HTML" when malloc fails
        conn.send((f"memory cap ({type(e).__name__})", time.process_time() - start, _peak_mb()))
        return
    seconds = time.process_time() - start
    if MARKER not in result.text:
        outcome = "row, article lost" if result.text.strip() else "no_text"
    else:
        outcome = "row (truncated)" if result.truncated else "row"
    conn.send((outcome, seconds, _peak_mb()))


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tree", help="import transforms from this checkout")
    parser.add_argument("--cpu-s", type=int, default=20)
    parser.add_argument("--memory-mb", type=int, default=3072)
    parser.add_argument("--only", action="append", help="this page only (repeatable)")
    args = parser.parse_args()
    context = multiprocessing.get_context("spawn")
    print("| page | class | bytes | outcome | CPU s | peak RSS (MB) |")
    print("|---|---|---|---|---|---|")
    worst, total, failed = 0.0, 0.0, 0
    for name, (kind, build) in BOMBS.items():
        if args.only and name not in args.only:
            continue
        html = build()
        parent, child = context.Pipe()
        process = context.Process(
            target=_measure, args=(args.tree, html, args.cpu_s, args.memory_mb, child)
        )
        process.start()
        child.close()
        try:
            outcome, seconds, peak = parent.recv()
        except EOFError:  # killed by RLIMIT_CPU (SIGXCPU/SIGKILL) or by Lexbor out of memory
            outcome, seconds, peak = f"cpu cap ({args.cpu_s} s) or killed", float(args.cpu_s), 0.0
        process.join()
        worst, total = max(worst, seconds), total + seconds
        failed += not outcome.startswith("row") or "lost" in outcome or seconds >= 5
        print(f"| {name} | {kind} | {len(html):,} | {outcome} | {seconds:.2f} | {peak:.0f} |")
        sys.stdout.flush()
    print(f"\nworst {worst:.2f} s, total {total:.1f} s CPU; {failed} page(s) not a row with the "
          "article in under 5 s")  # fmt: skip


if __name__ == "__main__":
    main()
