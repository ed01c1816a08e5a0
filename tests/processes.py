"""Runs of a job in a process of its own, for tests of what two runs do to one output."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

__all__ = ["start_until"]

ROOT = Path(__file__).resolve().parents[1]


def start_until(args: list[str], ready: Callable[[], bool]) -> subprocess.Popen:
    """``python ARGS`` from the repository's root, in another process; returns once ``ready()``
    holds, failing the test (with the process's output) if it ends first or takes two minutes."""
    proc = subprocess.Popen(
        [sys.executable, *args],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    end = time.monotonic() + 120
    while not ready():
        assert proc.poll() is None and time.monotonic() < end, proc.communicate()
        time.sleep(0.05)
    return proc
