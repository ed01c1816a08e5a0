"""Latency gate: ``extract()`` may cost at most a budgeted multiple of a bare Lexbor parse.

Both sides run in one process on the same page, so the gate is a ratio, not an absolute budget
in milliseconds (which flakes on shared machines). How it stays put on a busy machine:

- the calls are paired: an extraction and a parse back to back (taking turns at going first),
  each timed alone in CPU time, and the gate takes the median of the per-pair ratios. Both
  calls of a pair run within a few milliseconds of each other, in the same state of the
  machine (another process on the other core, a host stealing time, a slower clock). Medians
  of whole blocks of calls moved with the load instead: up to 1.45x their quiet value with one
  core kept busy beside them.
- a pair during which the thread was switched out is measured again: the switch itself is not
  charged (CPU time), but the caches it leaves cold are, and they land on the longer call of
  the pair far more often than on the shorter one, which pushed the 1 ms page's ratio up by a
  fifth on a machine with three times more work than cores.
- the heap is held for the duration (``_steady_heap``): with glibc's default, whether a large
  parse gets its memory from the heap or from fresh ``mmap`` pages (page faults on every call)
  depends on what the process freed before, which made the large page's ratio 6 or 11 from one
  process to the next.
- a ratio over its budget is measured again, from scratch, up to ``ATTEMPTS`` times, and fails
  only when it stays over: a spell of load does not fail the build, a slower extractor does.

Budgets live in ``tests/gates/latency_budget.py``; every run prints the measured ratios.
"""

import ctypes
import resource
import statistics
import sys
import time

import pytest
from selectolax.lexbor import LexborHTMLParser

from tests.gates.gate_pages import LATENCY_PAGES, SMALL_DIRTY_PAGE
from tests.gates.latency_budget import BUDGETS
from transforms.extract import Extractor
from transforms.memory import MMAP_THRESHOLD_BYTES

ATTEMPTS = 3
MEASURED: dict[str, tuple[float, float]] = {}  # printed by conftest's terminal summary
# glibc's mallopt parameters (malloc.h) and the values that keep every block in the heap.
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
_HELD = {_M_MMAP_THRESHOLD: 32 << 20, _M_TRIM_THRESHOLD: 1 << 30}  # 32 MiB: glibc's maximum
_RESTORED = {_M_MMAP_THRESHOLD: MMAP_THRESHOLD_BYTES, _M_TRIM_THRESHOLD: 128 << 10}


def _mallopt(values: dict[int, int]) -> None:
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL("libc.so.6")
            for param, value in values.items():
                libc.mallopt(param, value)
        except (OSError, AttributeError):  # not glibc: its allocator is what it is
            pass


@pytest.fixture(scope="module", autouse=True)
def _steady_heap():
    """Keep freed memory in the heap while the gate runs, then warm both sides on every page,
    so that each page is measured in the same state of the allocator and caches."""
    _mallopt(_HELD)
    extractor = Extractor()
    for page in [SMALL_DIRTY_PAGE, *LATENCY_PAGES.values()]:
        for _ in range(3):
            extractor(page)
            LexborHTMLParser(page)
    yield
    _mallopt(_RESTORED)


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


def _gate(name: str, page: str, pairs: int) -> None:
    """Pass when one of up to ``ATTEMPTS`` fresh measurements is within the budget."""
    budget = BUDGETS[name]
    ratios = []
    for _ in range(ATTEMPTS):
        ratios.append(extract_to_parse_ratio(page, pairs))
        if ratios[-1] <= budget:
            break
    MEASURED[name] = (min(ratios), budget)
    assert min(ratios) <= budget, (
        f"{name}: extract() costs {', '.join(f'{r:.2f}x' for r in ratios)} a Lexbor parse in "
        f"{len(ratios)} measurements, over its budget of {budget:.2f}x every time "
        "(tests/gates/latency_budget.py)"
    )


def test_seed_case_500_extractions_of_the_small_dirty_page():
    _gate("seed-small-x500", SMALL_DIRTY_PAGE, pairs=500)


@pytest.mark.parametrize(
    "name, pairs",
    [("small", 1500), ("typical", 400), ("large", 100)],
    ids=["small", "typical", "large"],
)
def test_extract_stays_within_its_budget_multiple_of_a_parse(name, pairs):
    _gate(name, LATENCY_PAGES[name], pairs=pairs)
