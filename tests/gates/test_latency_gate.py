"""Latency gate: ``extract()`` may cost at most a budgeted multiple of a bare Lexbor parse.

Both sides run in one process on the same page, so the gate is a ratio, not an absolute budget
in milliseconds (which flakes on shared machines). What it compares is each side's fastest
call: the calls are timed one by one, in rounds that alternate which side goes first, and each
side keeps its best time over all rounds. Another process taking the core, a context switch
that leaves the caches cold or a page fault only ever makes a call slower, so the fastest call
is the one such a spell missed; a median of whole rounds moved with the load instead (up to
1.45x its quiet value with one core kept busy beside it). A ratio over its budget is measured
again, from scratch, up to ``ATTEMPTS`` times, and fails only when it stays over: a machine busy
for one measurement does not fail the build, an extractor that is slower every time does.

Budgets live in ``tests/gates/latency_budget.py``; every run prints the measured ratios.
"""

import time

import pytest
from selectolax.lexbor import LexborHTMLParser

from tests.gates.gate_pages import LATENCY_PAGES, SMALL_DIRTY_PAGE
from tests.gates.latency_budget import BUDGETS
from transforms.extract import Extractor

ROUNDS = 15
ATTEMPTS = 3
MEASURED: dict[str, tuple[float, float]] = {}  # printed by conftest's terminal summary


def _best_call(call, page: str, repeat: int) -> float:
    """The fastest of ``repeat`` calls, in seconds (wall clock: a call nothing interrupted
    takes the same wall and CPU time, and the wall clock is the finer one)."""
    # One untimed call first: the switch from the other side leaves the allocator and caches in
    # a state that makes the first call of a block slow (up to 2x for a large page's parse).
    call(page)
    clock = time.perf_counter
    best = float("inf")
    for _ in range(repeat):
        started = clock()
        call(page)
        best = min(best, clock() - started)
    return best


def extract_to_parse_ratio(page: str, repeat: int, rounds: int = ROUNDS) -> float:
    """(fastest extraction) / (fastest parse) of ``page`` over ``rounds`` rounds of ``repeat``
    calls each, the two sides taking turns going first."""
    extractor = Extractor()
    extractor(page)  # warm-up: imports, caches
    extract = parse = float("inf")
    for round_ in range(rounds):
        # Alternate which goes first, so a drift in machine speed does not favour either side.
        if round_ % 2:
            parse = min(parse, _best_call(LexborHTMLParser, page, repeat))
            extract = min(extract, _best_call(extractor, page, repeat))
        else:
            extract = min(extract, _best_call(extractor, page, repeat))
            parse = min(parse, _best_call(LexborHTMLParser, page, repeat))
    return extract / parse


def _gate(name: str, page: str, repeat: int, rounds: int = ROUNDS) -> None:
    """Pass when one of up to ``ATTEMPTS`` fresh measurements is within the budget."""
    budget = BUDGETS[name]
    ratios = []
    for _ in range(ATTEMPTS):
        ratios.append(extract_to_parse_ratio(page, repeat, rounds))
        if ratios[-1] <= budget:
            break
    MEASURED[name] = (min(ratios), budget)
    assert min(ratios) <= budget, (
        f"{name}: extract() costs {', '.join(f'{r:.2f}x' for r in ratios)} a Lexbor parse in "
        f"{len(ratios)} measurements, over its budget of {budget:.2f}x every time "
        "(tests/gates/latency_budget.py)"
    )


def test_seed_case_500_extractions_of_the_small_dirty_page():
    _gate("seed-small-x500", SMALL_DIRTY_PAGE, repeat=500, rounds=9)


@pytest.mark.parametrize(
    "name, repeat",
    [("small", 200), ("typical", 40), ("large", 10)],
    ids=["small", "typical", "large"],
)
def test_extract_stays_within_its_budget_multiple_of_a_parse(name, repeat):
    _gate(name, LATENCY_PAGES[name], repeat=repeat)
