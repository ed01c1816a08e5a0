"""The malloc setting is applied once and never fails the worker."""

import sys

import pytest

from transforms.worker_memory import release_large_blocks


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc only")
def test_release_large_blocks_is_idempotent() -> None:
    first = release_large_blocks()
    assert release_large_blocks() == first
    big = bytearray(8 * 1024 * 1024)  # served by mmap now; allocating still works
    assert len(big) == 8 * 1024 * 1024
