"""The malloc setting is applied once and never fails the worker."""

import sys

import pytest

from transforms.memory import hold_heap, release_large_blocks, tidy_worker, trim_heap


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc only")
def test_release_large_blocks_is_idempotent() -> None:
    first = release_large_blocks()
    assert release_large_blocks() == first
    big = bytearray(8 * 1024 * 1024)  # served by mmap now; allocating still works
    assert len(big) == 8 * 1024 * 1024


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc only")
def test_worker_settings_and_trim_never_fail() -> None:
    first = tidy_worker()
    assert tidy_worker() == first
    trim_heap()  # True or False (nothing to give back), never an error
    assert len(bytearray(8 * 1024 * 1024)) == 8 * 1024 * 1024


def test_hold_heap_is_idempotent() -> None:
    first = hold_heap()
    assert isinstance(first, bool) and hold_heap() == first
