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
- each measurement runs in a fresh process (``tests/gates/ratio_probe.py``) that holds glibc's
  heap: by default, whether a large parse gets its memory from the heap or from fresh ``mmap``
  pages (page faults on every call) depends on what the process freed before, which made the
  large page's ratio 6 or 11 from one process to the next, and 7.4 in a test process that had
  run the whole suite first.
- a ratio over its budget is measured again, from scratch, up to ``ATTEMPTS`` times, and fails
  only when it stays over: a spell of load does not fail the build, a slower extractor does.

Budgets live in ``tests/gates/latency_budget.py``; every run prints the measured ratios.
"""

import subprocess
import sys
from pathlib import Path

import pytest

from tests.gates.latency_budget import BUDGETS

ROOT = Path(__file__).resolve().parents[2]
ATTEMPTS = 3
MEASURED: dict[str, tuple[float, float]] = {}  # printed by conftest's terminal summary


def measure(name: str, pairs: int) -> float:
    """One measurement of page ``name``'s ratio, in a process of its own."""
    done = subprocess.run(
        [sys.executable, "-m", "tests.gates.ratio_probe", name, str(pairs)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return float(done.stdout.split()[-1])


def _gate(name: str, pairs: int) -> None:
    """Pass when one of up to ``ATTEMPTS`` fresh measurements is within the budget."""
    budget = BUDGETS[name]
    ratios = []
    for _ in range(ATTEMPTS):
        ratios.append(measure(name, pairs))
        if ratios[-1] <= budget:
            break
    MEASURED[name] = (min(ratios), budget)
    assert min(ratios) <= budget, (
        f"{name}: extract() costs {', '.join(f'{r:.2f}x' for r in ratios)} a Lexbor parse in "
        f"{len(ratios)} measurements, over its budget of {budget:.2f}x every time "
        "(tests/gates/latency_budget.py)"
    )


def test_seed_case_500_extractions_of_the_small_dirty_page():
    _gate("seed-small-x500", pairs=500)


@pytest.mark.parametrize(
    "name, pairs",
    [("small", 1500), ("typical", 400), ("large", 100)],
    ids=["small", "typical", "large"],
)
def test_extract_stays_within_its_budget_multiple_of_a_parse(name, pairs):
    _gate(name, pairs=pairs)
