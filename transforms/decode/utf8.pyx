# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""Strict UTF-8 validation that does not make the text.

Nearly every page of a crawl is UTF-8, and the extractor parses its bytes as they are: the
text of the page is only needed when a bound of ``transforms.extract.limits`` rewrites it.
Python can only tell that bytes are valid UTF-8 by decoding them, which builds a string of the
whole page (0.5 ns a byte on pages with any non-ASCII character: 5-10% of an extraction).
``plain_utf8`` tells whether ``data.decode("utf-8")`` succeeds, reading ASCII eight bytes at a
time (up to the first byte that is not, in text that mixes them) and each multi-byte sequence by the table of well-formed sequences of the Unicode standard
(3.9, table 3-7), which is what CPython's strict decoder accepts: no overlong forms, no
surrogates (U+D800-U+DFFF), nothing past U+10FFFF, no sequence cut short. In the same pass it
looks for the two characters the charset chain treats apart, U+0000 (removed from the text)
and U+FFFD (the mark of a replaced byte): a search of the bytes for U+FFFD alone took five
times as long as this whole pass.
"""

from libc.stdint cimport uint64_t
from libc.string cimport memcpy

cdef extern from *:
    int __builtin_ctzll(unsigned long long x) nogil  # (one instruction on x86-64 and ARM)

cdef extern from *:
    """
    #define UTF8_HIGH 0x8080808080808080ULL
    #define UTF8_LOW 0x0101010101010101ULL
    """
    const uint64_t _HIGH "UTF8_HIGH"  # the high bit of each of eight bytes
    const uint64_t _LOW "UTF8_LOW"  # the low bit of each


cdef inline bint _continuation(unsigned char byte) noexcept nogil:
    return (byte & 0xC0) == 0x80


def plain_utf8(const unsigned char[::1] data) -> bool:
    """Whether ``data`` decodes as UTF-8 without an error (``bytes.decode("utf-8")``) to a text
    without U+0000 and U+FFFD."""
    return data.shape[0] == 0 or _plain(&data[0], data.shape[0])


cdef bint _plain(const unsigned char* p, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t i = 0
    cdef uint64_t word, w0, w1, w2, w3
    cdef int ascii
    cdef unsigned char lead, second
    while i < n:
        lead = p[i]
        if lead < 0x80:
            if i + 32 <= n:  # long ASCII runs: 32 bytes a test, none of them zero
                memcpy(&w0, p + i, 8)
                memcpy(&w1, p + i + 8, 8)
                memcpy(&w2, p + i + 16, 8)
                memcpy(&w3, p + i + 24, 8)
                if not (w0 | w1 | w2 | w3) & _HIGH and not (
                    ((w0 - _LOW) | (w1 - _LOW) | (w2 - _LOW) | (w3 - _LOW)) & _HIGH
                ):
                    i += 32
                    continue
            if i + 8 <= n:
                # the ASCII bytes of the next eight, up to the first that is not: none may be
                # zero (the classic test, with the others' bytes made 0xFF)
                memcpy(&word, p + i, 8)
                if not (word & _HIGH):
                    if (word - _LOW) & _HIGH:  # (all ASCII: a zero byte's borrow)
                        return False
                    i += 8
                    continue
                ascii = __builtin_ctzll(word & _HIGH) >> 3
                word |= ~((1ULL << (ascii * 8)) - 1)
                if (word - _LOW) & ~word & _HIGH:
                    return False
                i += ascii
                continue
            if lead == 0:
                return False
            i += 1
        elif lead < 0xC2:  # a continuation byte alone, or an overlong two-byte form
            return False
        elif lead < 0xE0:
            if i + 1 >= n or not _continuation(p[i + 1]):
                return False
            i += 2
        elif lead < 0xF0:
            if i + 2 >= n:
                return False
            second = p[i + 1]
            if (
                not _continuation(second)
                or (lead == 0xE0 and second < 0xA0)  # overlong
                or (lead == 0xED and second > 0x9F)  # a surrogate
                or not _continuation(p[i + 2])
                or (lead == 0xEF and second == 0xBF and p[i + 2] == 0xBD)  # U+FFFD
            ):
                return False
            i += 3
        elif lead < 0xF5:
            if i + 3 >= n:
                return False
            second = p[i + 1]
            if (
                not _continuation(second)
                or (lead == 0xF0 and second < 0x90)  # overlong
                or (lead == 0xF4 and second > 0x8F)  # past U+10FFFF
                or not _continuation(p[i + 2])
                or not _continuation(p[i + 3])
            ):
                return False
            i += 4
        else:
            return False
    return True
