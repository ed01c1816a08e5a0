"""Latency gate: ``extract()`` may cost at most a budgeted multiple of a bare Lexbor parse.

Timing both in one process, interleaved over several rounds, and comparing medians makes the
gate a ratio that holds on shared, noisy machines, where an absolute budget in milliseconds
flakes. Budgets live in ``tests/latency_budget.py``; every run prints the measured ratios.
"""

import statistics
import time

import pytest
from selectolax.lexbor import LexborHTMLParser

from tests.gate_pages import LATENCY_PAGES, SMALL_DIRTY_PAGE
from tests.latency_budget import BUDGETS
from transforms.extract import Extractor

ROUNDS = 9
MEASURED: dict[str, tuple[float, float]] = {}  # printed by conftest's terminal summary


def _seconds(call, page: str, repeat: int) -> float:
    started = time.perf_counter()
    for _ in range(repeat):
        call(page)
    return time.perf_counter() - started


def extract_to_parse_ratio(page: str, repeat: int, rounds: int = ROUNDS) -> float:
    """Median time of ``repeat`` extractions over median time of ``repeat`` parses."""
    extractor = Extractor()
    extractor(page)  # warm-up: imports, caches
    parse_times, extract_times = [], []
    for round_ in range(rounds):
        # Alternate which goes first, so a drift in machine speed does not favour either side.
        first, second = (LexborHTMLParser, extractor) if round_ % 2 else (extractor, LexborHTMLParser)
        a, b = _seconds(first, page, repeat), _seconds(second, page, repeat)
        parse_times.append(a if first is LexborHTMLParser else b)
        extract_times.append(b if first is LexborHTMLParser else a)
    return statistics.median(extract_times) / statistics.median(parse_times)


def _gate(name: str, ratio: float) -> None:
    MEASURED[name] = (ratio, BUDGETS[name])
    assert ratio <= BUDGETS[name], (
        f"{name}: extract() costs {ratio:.2f}x a Lexbor parse, over its budget of "
        f"{BUDGETS[name]:.2f}x (tests/latency_budget.py)"
    )


def test_seed_case_500_extractions_of_the_small_dirty_page():
    _gate("seed-small-x500", extract_to_parse_ratio(SMALL_DIRTY_PAGE, repeat=500, rounds=5))


@pytest.mark.parametrize(
    "name, repeat", [("small", 200), ("typical", 40), ("large", 4)], ids=["small", "typical", "large"]
)
def test_extract_stays_within_its_budget_multiple_of_a_parse(name, repeat):
    _gate(name, extract_to_parse_ratio(LATENCY_PAGES[name], repeat=repeat))
