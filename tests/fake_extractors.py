"""Extractors that misbehave on purpose, for testing the crash guard.

Each wraps the real ``Extractor`` and misbehaves only on pages that carry a marker, so that a
test can mix good and bad documents in one run. They are module-level classes so that the
guard's child process (started with ``spawn``) can build them.
"""

from __future__ import annotations

import ctypes
import os
import time

from selectolax.lexbor import LexborHTMLParser

from transforms.extract import Extracted, Extractor

CRASH_MARKER = "CRASH-THE-EXTRACTOR"
HANG_MARKER = "HANG-THE-EXTRACTOR"
RAISE_MARKER = "RAISE-IN-THE-EXTRACTOR"
SLOW_MARKER = "SLOW-IN-THE-EXTRACTOR"  # half a second, then a normal extraction
SLOW_SECONDS = 0.5
# Memory: parse a formatting-element bomb without the extractor's bounds (Lexbor fails when an
# allocation does), allocate until Python's MemoryError, or end the process as the crash
# guard's child does when memory runs out outside a page.
BOMB_MARKER = "BOMB-THE-PARSER"
GREEDY_MARKER = "EAT-ALL-THE-MEMORY"
OUT_OF_MEMORY_MARKER = "END-OUT-OF-MEMORY"
OUT_OF_MEMORY_EXIT = 86  # transforms.clean_html.guard._OUT_OF_MEMORY_EXIT


def formatting_bomb(opened: int = 4000, paragraphs: int = 20000) -> bytes:
    """Open formatting elements that every paragraph opens again: ``opened`` x
    ``paragraphs`` elements (4,000 x 20,000: tens of gigabytes)."""
    return ("<p>" + "".join(f"<b x={i}>" for i in range(opened)) + "<p>x" * paragraphs).encode()


class MisbehavingExtractor(Extractor):
    """Segfaults (a real SIGSEGV, as a native library would), hangs, raises, dawdles or runs
    out of memory on marked pages."""

    def __call__(
        self, html: bytes | str | None, url: str | None = None, *, utf8: bytes | None = None
    ) -> Extracted:
        page = html if html is not None else utf8
        text = page if isinstance(page, str) else page.decode("utf-8", "replace")
        if CRASH_MARKER in text:
            ctypes.string_at(0)  # reads address 0: SIGSEGV
        if HANG_MARKER in text:
            while True:
                time.sleep(1)
        if RAISE_MARKER in text:
            raise RuntimeError("the extractor raised")
        if SLOW_MARKER in text:
            time.sleep(SLOW_SECONDS)
        if BOMB_MARKER in text:
            LexborHTMLParser(formatting_bomb())
        if GREEDY_MARKER in text:
            eaten = []
            while True:
                eaten.append(bytearray(64 << 20))
        if OUT_OF_MEMORY_MARKER in text:
            os._exit(OUT_OF_MEMORY_EXIT)
        return super().__call__(html, url, utf8=utf8)
