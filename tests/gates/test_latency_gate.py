"""Latency gate: ``extract()`` may cost at most a budgeted multiple of a bare Lexbor parse.

Timing both in one process (CPU time, so that other processes taking the core do not count),
interleaved over several rounds, and comparing medians makes the gate a ratio that holds on
shared, noisy machines, where an absolute budget in milliseconds flakes. Budgets live in ``tests/gates/latency_budget.py``; every run prints the measured ratios.
"""

import statistics
import time

import pytest
from selectolax.lexbor import LexborHTMLParser

from tests.gates.gate_pages import LATENCY_PAGES, SMALL_DIRTY_PAGE
from tests.gates.latency_budget import BUDGETS
from transforms.extract import Extractor

ROUNDS = 21
MEASURED: dict[str, tuple[float, float]] = {}  # printed by conftest's terminal summary


def _seconds(call, page: str, repeat: int) -> float:
    # One untimed call first: the switch from the other side leaves the allocator and caches in
    # a state that makes the first call of a block slow (up to 2x for a large page's parse).
    call(page)
    started = time.process_time()
    for _ in range(repeat):
        call(page)
    return time.process_time() - started


def extract_to_parse_ratio(page: str, repeat: int, rounds: int = ROUNDS) -> float:
    """Median over rounds of (time of ``repeat`` extractions / time of ``repeat`` parses).

    Each round times both back to back, so a slow spell of the machine hits both sides of that
    round's ratio; the median then drops the rounds a spell split unevenly.
    """
    extractor = Extractor()
    extractor(page)  # warm-up: imports, caches
    ratios = []
    for round_ in range(rounds):
        # Alternate which goes first, so a drift in machine speed does not favour either side.
        if round_ % 2:
            parse = _seconds(LexborHTMLParser, page, repeat)
            extract = _seconds(extractor, page, repeat)
        else:
            extract = _seconds(extractor, page, repeat)
            parse = _seconds(LexborHTMLParser, page, repeat)
        ratios.append(extract / parse)
    return statistics.median(ratios)


def _gate(name: str, ratio: float) -> None:
    MEASURED[name] = (ratio, BUDGETS[name])
    assert ratio <= BUDGETS[name], (
        f"{name}: extract() costs {ratio:.2f}x a Lexbor parse, over its budget of "
        f"{BUDGETS[name]:.2f}x (tests/gates/latency_budget.py)"
    )


def test_seed_case_500_extractions_of_the_small_dirty_page():
    _gate("seed-small-x500", extract_to_parse_ratio(SMALL_DIRTY_PAGE, repeat=500, rounds=9))


@pytest.mark.parametrize(
    "name, repeat",
    [("small", 200), ("typical", 40), ("large", 10)],
    ids=["small", "typical", "large"],
)
def test_extract_stays_within_its_budget_multiple_of_a_parse(name, repeat):
    _gate(name, extract_to_parse_ratio(LATENCY_PAGES[name], repeat=repeat))
