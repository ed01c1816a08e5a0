"""Keep a worker's heap from holding on to the memory of the largest documents it has seen.

glibc serves large allocations with ``mmap`` (returned to the system on free) only above a
threshold that it raises each time such a block is freed, up to 32 MiB. After a few multi-MB
pages (the payload, its decoded text and its DOM), blocks of that size come from the heap
instead, which fragments and does not shrink: the benchmark's plain read-decode-parse loop
grew by ~70 MB over 1,000 pages this way. Fixing the threshold at 4 MiB keeps those blocks out
of the heap; on the benchmark pages it lowered that peak by ~20 MB at no measurable CPU cost
(1 MiB saves ~15 MB more but costs ~10% of the parse loop in page faults; in the SDK worker a
256 KiB threshold nearly doubled the CPU time of reading the WARC, whose reader allocates and
frees large buffers per record).

The SDK worker (``tidy_worker``) also caps glibc at two malloc arenas: its many threads would
otherwise each grow an arena of their own and keep its freed memory; and after each Parquet row
group (``trim_heap``) free heap pages are handed back, since writing a row group leaves tens of
MB of freed buffers behind.

The crash guard's cleaning child (``hold_heap``) does the opposite for the small blocks: once
the mmap threshold is fixed, glibc returns the top of the heap to the system whenever more than
128 KiB of it is free, which in a process that does nothing but clean pages is after every
page, and the next page faults the same memory back in: 150 page faults per page on the
benchmark pages, ~9% of the child's CPU time. Keeping up to ``HELD_HEAP_BYTES`` free at the top
cut that to 65 faults and 8-10% of the child's CPU (two rounds of 1,000 pages).

Arrow's default memory pool (mimalloc) keeps freed Parquet page and compression buffers mapped,
some 20 MB after the first large row group, where the system allocator gives them back on
``malloc_trim``. So every process that writes Parquet uses the system pool: the Parquet writer
sets it (``use_system_arrow_pool``), and ``prefer_system_arrow_pool`` sets
``ARROW_DEFAULT_MEMORY_POOL`` for the processes the job starts (``beam_jobs`` does it on import,
before Beam loads pyarrow). Workers started elsewhere (a worker pool, the container) get the
same variable from their environment: the Makefile's ``worker-pool`` target and the
``Dockerfile`` set it. An explicit setting wins.

Every memory knob of the job is here. No-ops outside glibc (musl, macOS): memory is then only
less tidy, never wrong.
"""

from __future__ import annotations

import ctypes
import os
import sys

__all__ = [
    "ARROW_POOL_VARIABLE",
    "HELD_HEAP_BYTES",
    "MAX_ARENAS",
    "MMAP_THRESHOLD_BYTES",
    "hold_heap",
    "prefer_system_arrow_pool",
    "release_large_blocks",
    "tidy_worker",
    "trim_heap",
    "use_system_arrow_pool",
]

MMAP_THRESHOLD_BYTES = 4 * 1024 * 1024
MAX_ARENAS = 2
ARROW_POOL_VARIABLE = "ARROW_DEFAULT_MEMORY_POOL"
HELD_HEAP_BYTES = 32 * 1024 * 1024
_M_TRIM_THRESHOLD = -1  # from glibc's malloc.h
_M_MMAP_THRESHOLD = -3
_M_ARENA_MAX = -8
_applied: set[str] = set()


def _libc() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.mallopt  # noqa: B018 (AttributeError where the C library has none)
    except (OSError, AttributeError):
        return None
    return libc


def _mallopt(name: str, param: int, value: int) -> bool:
    """Set one malloc parameter once per process; True when glibc took it."""
    if name in _applied:
        return True
    libc = _libc()
    if libc is None:
        return False
    if libc.mallopt(param, value):
        _applied.add(name)
        return True
    return False


def release_large_blocks(threshold: int = MMAP_THRESHOLD_BYTES) -> bool:
    """Serve allocations of ``threshold`` bytes and more with mmap; True when glibc took it.

    Process-wide and idempotent: call it where the cleaner is built, in the process that parses.
    """
    return _mallopt("mmap_threshold", _M_MMAP_THRESHOLD, threshold)


def hold_heap(free_bytes: int = HELD_HEAP_BYTES) -> bool:
    """Give heap memory back to the system only when more than ``free_bytes`` of it is free:
    for a process that cleans page after page (the crash guard's child). True when glibc took it.
    """
    return _mallopt("trim_threshold", _M_TRIM_THRESHOLD, free_bytes)


def tidy_worker() -> bool:
    """The SDK worker's settings: the mmap threshold above and at most ``MAX_ARENAS`` arenas."""
    released = release_large_blocks()
    return _mallopt("arena_max", _M_ARENA_MAX, MAX_ARENAS) and released


def trim_heap() -> bool:
    """Give free heap pages back to the system (``malloc_trim``); True when some were."""
    libc = _libc()
    return bool(libc is not None and libc.malloc_trim(0))


def prefer_system_arrow_pool() -> None:
    """Make the system allocator Arrow's default pool in this process (when pyarrow is not
    loaded yet) and in every process it starts, unless the environment already chose one."""
    os.environ.setdefault(ARROW_POOL_VARIABLE, "system")


def use_system_arrow_pool() -> None:
    """Switch this process's Arrow pool to the system allocator (pyarrow already loaded)."""
    import pyarrow as pa  # only the writer's process needs pyarrow here

    pa.set_memory_pool(pa.system_memory_pool())
