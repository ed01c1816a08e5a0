"""The row signals' CPU per page against the cleaning itself (``make bench``).

On the pages of ``../shared/corpus`` (``quality.load_corpus``), each page is cleaned as the job
cleans it (``clean_record``: decode, extract, language, the row with its signals), with and
without ``--quality_signals``, in turns: round after round, each page both ways, the order
flipping from one round to the next. Also timed alone, on the texts those pages give:
``row_signals`` without the quality signals (``text_hash``, always on) and with them. CPU time
(``time.process_time``), the best of ``ROUNDS`` rounds.

The cleaning's CPU per page is less than the job's (which adds reading, the crash guard's
transport, Beam and Parquet: ``make bench`` measures about 4.8 ms a page), so the shares printed
are upper bounds of the shares of the job.
"""

from __future__ import annotations

import sys
import time

ROUNDS = 3


def main() -> int:
    from benchmarks.quality import CORPUS, load_corpus
    from transforms.clean_html import clean_record
    from transforms.extract import Extractor
    from transforms.language import load_model
    from transforms.records import ArchiveRecord
    from transforms.signals import row_signals

    if not CORPUS.is_dir():
        print(f"signals cost skipped: the corpus folder {CORPUS} is absent")
        return 0
    import gzip

    pages = [
        ArchiveRecord(
            "corpus",
            key,
            "resource",
            0,
            url=page.get("url") or "",
            payload=gzip.decompress(page["gz"]),
        )
        for name, found in load_corpus().items()
        for key, page in found.items()
    ]
    extractor = Extractor()
    load_model()
    rows = [clean_record(page, extractor)[1] for page in pages]
    texts = [(row["text"], row["language"]) for row in rows if "text" in row]

    def clean(quality: bool) -> float:
        start = time.process_time()
        for page in pages:
            clean_record(page, extractor, quality_signals=quality)
        return (time.process_time() - start) / len(pages) * 1000

    def signals(quality: bool) -> float:
        start = time.process_time()
        for text, language in texts:
            row_signals(text, language, quality=quality)
        return (time.process_time() - start) / len(texts) * 1000

    without, with_ = [], []
    for i in range(ROUNDS):
        for quality in (False, True)[:: -1 if i % 2 else 1]:
            (with_ if quality else without).append(clean(quality))
    hash_only = min(signals(False) for _ in range(ROUNDS))
    everything = min(signals(True) for _ in range(ROUNDS))
    base, full = min(without), min(with_)
    print(f"\nrow signals, CPU per page ({len(pages)} corpus pages, {len(texts)} with text; "
          f"best of {ROUNDS} rounds, in turns)\n")  # fmt: skip
    print("| measure | ms a page | share of the cleaning |")
    print("|---|---|---|")
    print(f"| cleaning (decode, extract, language, row with text_hash) | {base:.2f} | 100% |")
    print(f"| cleaning with --quality_signals | {full:.2f} | {full / base - 1:+.1%} |")
    print(
        f"| row_signals alone: text_hash only (always on) | {hash_only:.3f} | {hash_only / base:.1%} |"
    )
    print(f"| row_signals alone: every signal | {everything:.3f} | {everything / base:.1%} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
