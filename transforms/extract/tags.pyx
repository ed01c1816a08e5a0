# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False, cdivision=True
"""The "<" of a page's bytes counted per stretch, before parsing (``limits.TagCounts``).

Every page is bounded before it is parsed, and the bounds start from how many "<" each
stretch of ``STRETCH_WORDS`` 8-byte words holds. numpy needs a comparison that writes a
boolean array the size of the page, then sums over its views; here each word is tested for
bytes equal to "<" by bit arithmetic (exact: a byte's test never borrows from its neighbour)
and the counts add up in the word's eight lanes, which 255 words cannot overflow: about twice
numpy's speed on real pages (12 against 28 us a page on aeb's, 4 against 18 on CleanEval's).
``empty_runs`` then finds the runs of stretches without a "<" that ``TagCounts.long_tags``
reads (most pages have one: an inline script or a ``data:`` image), where numpy took five
calls of a few microseconds each.
"""

from libc.stdint cimport uint64_t
from libc.string cimport memcpy

STRETCH_WORDS = 255  # lanes of a byte count 255 words at most
DEF _WORDS = 255

cdef uint64_t _LT = 0x3C3C3C3C3C3C3C3CULL  # "<" in every byte
cdef uint64_t _LOW7 = 0x7F7F7F7F7F7F7F7FULL
cdef uint64_t _HIGH = 0x8080808080808080ULL
cdef uint64_t _PAIRS = 0x00FF00FF00FF00FFULL


def count_lt(const unsigned char[::1] data, long long[::1] stretches) -> int:
    """How many "<" ``data`` holds, the count of each whole stretch of ``STRETCH_WORDS`` words
    written to ``stretches`` (one item each; the bytes after the last whole one are counted in
    the total only)."""
    cdef Py_ssize_t n = data.shape[0], count = stretches.shape[0], s, w, i
    cdef const unsigned char* p
    cdef uint64_t word, x, lanes, total = 0
    if n == 0:
        return 0
    assert count * _WORDS * 8 <= n
    p = &data[0]
    for s in range(count):
        lanes = 0
        for w in range(_WORDS):
            memcpy(&word, p + (s * _WORDS + w) * 8, 8)
            x = word ^ _LT  # a "<" is now a zero byte: its high bit stays clear below
            lanes += (~(((x & _LOW7) + _LOW7) | x) & _HIGH) >> 7
        lanes = (lanes & _PAIRS) + ((lanes >> 8) & _PAIRS)  # four 16-bit sums
        lanes = (lanes * 0x0001000100010001ULL) >> 48
        stretches[s] = <long long>lanes
        total += lanes
    for i in range(count * _WORDS * 8, n):
        total += p[i] == 0x3C
    return total


def empty_runs(const long long[::1] stretches, Py_ssize_t min_run) -> list:
    """The first stretch of each run of ``min_run`` or more stretches holding no "<"."""
    cdef Py_ssize_t s, run = 0
    found = []
    for s in range(stretches.shape[0]):
        if stretches[s]:
            run = 0
            continue
        run += 1
        if run == min_run:
            found.append(s - min_run + 1)
    return found
