"""Extractors that misbehave on purpose, for testing the crash guard.

Each wraps the real ``Extractor`` and misbehaves only on pages that carry a marker, so that a
test can mix good and bad documents in one run. They are module-level classes so that the
guard's child process (started with ``spawn``) can build them.
"""

from __future__ import annotations

import ctypes
import time

from transforms.extract import Extracted, Extractor

CRASH_MARKER = "CRASH-THE-EXTRACTOR"
HANG_MARKER = "HANG-THE-EXTRACTOR"
RAISE_MARKER = "RAISE-IN-THE-EXTRACTOR"
SLOW_MARKER = "SLOW-IN-THE-EXTRACTOR"  # half a second, then a normal extraction
SLOW_SECONDS = 0.5


class MisbehavingExtractor(Extractor):
    """Segfaults (a real SIGSEGV, as a native library would), hangs, raises or dawdles on
    marked pages."""

    def __call__(
        self, html: bytes | str, url: str | None = None, *, utf8: bytes | None = None
    ) -> Extracted:
        text = html if isinstance(html, str) else html.decode("utf-8", "replace")
        if CRASH_MARKER in text:
            ctypes.string_at(0)  # reads address 0: SIGSEGV
        if HANG_MARKER in text:
            while True:
                time.sleep(1)
        if RAISE_MARKER in text:
            raise RuntimeError("the extractor raised")
        if SLOW_MARKER in text:
            time.sleep(SLOW_SECONDS)
        return super().__call__(html, url, utf8=utf8)
