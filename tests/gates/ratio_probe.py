"""One measurement of the latency gate, in a process of its own (``test_latency_gate``).

    python -m tests.gates.ratio_probe PAGE PAIRS    # prints extract/parse for that page

A fresh process for each measurement, so that the ratio does not depend on what ran before
it in the test process: a heap that hundreds of tests fragmented moved the large page's ratio
by a fifth. See ``test_latency_gate`` for how a measurement is made.
"""

from __future__ import annotations

import ctypes
import resource
import statistics
import sys
import time

from selectolax.lexbor import LexborHTMLParser

from tests.gates.gate_pages import LATENCY_PAGES, SMALL_DIRTY_PAGE
from transforms.extract import Extractor

__all__ = ["PAGES", "extract_to_parse_ratio"]

PAGES = {"seed-small-x500": SMALL_DIRTY_PAGE, **LATENCY_PAGES}
# glibc's mallopt parameters (malloc.h) and the values that keep every block in the heap.
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
_HELD = {_M_MMAP_THRESHOLD: 32 << 20, _M_TRIM_THRESHOLD: 1 << 30}  # 32 MiB: glibc's maximum


def _mallopt(values: dict[int, int]) -> None:
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL("libc.so.6")
            for param, value in values.items():
                libc.mallopt(param, value)
        except (OSError, AttributeError):  # not glibc: its allocator is what it is
            pass


def _steady_heap() -> None:
    """Keep freed memory in the heap, then warm both sides on every page, so that each page is
    measured in the same state of the allocator and caches."""
    _mallopt(_HELD)
    extractor = Extractor()
    for page in [SMALL_DIRTY_PAGE, *LATENCY_PAGES.values()]:
        for _ in range(3):
            extractor(page)
            LexborHTMLParser(page)


def _switches() -> int:
    """How many times this thread has been switched out so far."""
    usage = resource.getrusage(resource.RUSAGE_THREAD)
    return usage.ru_nvcsw + usage.ru_nivcsw


def _pair(extractor: Extractor, page: str, parse_first: bool) -> float:
    """One extraction's CPU time over one parse's, the two back to back."""
    clock = time.process_time
    if parse_first:
        started = clock()
        LexborHTMLParser(page)
        middle = clock()
        extractor(page)
        return (clock() - middle) / (middle - started)
    started = clock()
    extractor(page)
    middle = clock()
    LexborHTMLParser(page)
    return (middle - started) / (clock() - middle)


def extract_to_parse_ratio(page: str, pairs: int, max_tries: int = 20) -> float:
    """Median over ``pairs`` pairs nothing switched out of (one extraction / one parse).

    Gives up waiting for clean pairs after ``max_tries`` times ``pairs`` tries and takes the
    median of all it measured then.
    """
    extractor = Extractor()
    extractor(page)  # warm-up: imports, caches
    LexborHTMLParser(page)
    clean: list[float] = []
    every: list[float] = []
    for attempt in range(pairs * max_tries):
        before = _switches()
        # Alternate which goes first, so that what one call leaves behind (caches, the
        # allocator) does not favour either side.
        ratio = _pair(extractor, page, parse_first=bool(attempt % 2))
        every.append(ratio)
        if _switches() == before:
            clean.append(ratio)
            if len(clean) == pairs:
                return statistics.median(clean)
    return statistics.median(every)


def main(argv: list[str]) -> int:
    name, pairs = argv[0], int(argv[1])
    _steady_heap()
    print(f"{extract_to_parse_ratio(PAGES[name], pairs):.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
