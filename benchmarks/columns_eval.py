"""The row's extra columns in ``make eval``: language identification and Markdown output.

    python -m benchmarks.columns_eval            # both reports (also run by benchmarks/quality.py)
    python -m benchmarks.columns_eval --clean-cost  # language ID's share of clean_record's CPU

Language (``transforms.language``): accuracy of the ``language`` column against the labelled
pages of ../shared/corpus (the ``lang`` field of readability/ and newspaper4k/; aeb and
wcxb-dev are English), by how many characters of the text are classified (the sample size),
and on pages cut to their first 200 characters (title included), as short pages are; and its
CPU cost per page against the extraction's. Pages labelled ``und`` (near-empty) are left out.

Markdown (``--format markdown``): word-F1 against the ground truth of aeb and wcxb-dev, side by
side with text mode, the Markdown read back to plain text by a CommonMark parser
(``markdown-it-py``, with GitHub tables) so that its syntax does not count; and the CPU time of
each format's extraction.
"""

from __future__ import annotations

import gzip
import sys
import time
from collections import Counter

from benchmarks.metrics import aeb_score, macro_mean, word_prf
from benchmarks.quality import CORPUS, load_corpus, page_html
from transforms import language
from transforms.extract import Extractor

SAMPLE_SIZES = (50, 100, 200, 300, 400, 600, 1000, 2000, None)  # None: the whole text
SHORT_CHARS = 200
LABELLED_SETS = ("readability", "newspaper4k")

__all__ = ["language_report", "markdown_report", "markdown_to_text", "print_columns_report"]


def _labelled_pages(sets: dict, name: str) -> list[tuple[str, bytes, str | None]]:
    """``(lang, html bytes, url)`` of a set's pages with a language label."""
    return [
        (page["lang"], gzip.decompress(page["gz"]), page["url"])
        for page in sets.get(name, {}).values()
        if page["lang"] != language.UNDETERMINED
    ]


def _english_pages(sets: dict) -> dict[str, list[tuple[str, str, str | None]]]:
    return {
        "aeb": [("en", page_html(page), page["url"]) for page in sets["aeb"].values()],
        "wcxb-dev": [("en", page_html(page), page["url"]) for page in sets["wcxb"].values()],
    }


def language_report(sets: dict) -> None:
    """Print accuracy by sample size and set, the 200-character accuracy, and the cost."""
    extractor = Extractor()
    language.load_model()
    corpora = {name: _labelled_pages(sets, name) for name in LABELLED_SETS} | _english_pages(sets)
    clock = time.process_time
    texts: dict[str, list[tuple[str, str, str]]] = {}
    extract_s = 0.0
    for name, pages in corpora.items():
        texts[name] = []
        for lang, html, url in pages:
            start = clock()
            result = extractor(html, url)
            extract_s += clock() - start
            texts[name].append((lang, result.title, result.text))
    n_pages = sum(len(rows) for rows in texts.values())
    # aeb holds some articles in other languages: their ground truth is not English either
    for name, key in (("aeb", "aeb"), ("wcxb-dev", "wcxb")):
        truth = [language.identify("", page["text"], 1 << 40) for page in sets[key].values()]
        texts[f"{name} en truth"] = [
            row for row, found in zip(texts[name], truth, strict=True) if found.code == "en"
        ]

    print(
        "\nlanguage: accuracy of the language column (lid.176.ftz) by sample size (chars of text)"
    )
    head = [
        "sample",
        *(f"{name} ({len(texts[name])})" for name in texts),
        "µs/page",
        "% of extract",
    ]
    print("| " + " | ".join(head) + " |")
    print("|" + "|".join("---" for _ in head) + "|")
    misses: Counter = Counter()
    for size in SAMPLE_SIZES:
        chars = size if size is not None else 1 << 40
        cells, spent = [], 0.0
        for name, rows in texts.items():
            right = 0
            timed = not name.endswith("truth")  # the subsets are pages timed already
            for lang, title, text in rows:
                start = clock()
                found = language.identify(title, text, chars)
                spent += (clock() - start) if timed else 0.0
                right += found.code == lang
                if size == language.SAMPLE_CHARS and timed and found.code != lang:
                    misses[f"{name}: {lang} as {found.code} {found.score:.2f}"] += 1
            cells.append(f"{right / max(len(rows), 1):.3f}")
        label = "whole text" if size is None else str(size)
        if size == language.SAMPLE_CHARS:
            label += " (used)"
        cost = spent / n_pages * 1e6
        cells += [f"{cost:.0f}", f"{100 * spent / extract_s:.1f}%"]
        print("| " + " | ".join([label, *cells]) + " |")
    cells = []
    for rows in texts.values():
        right = 0
        for lang, title, text in rows:
            short = f"{title}\n{text}"[:SHORT_CHARS]
            right += language.identify("", short, SHORT_CHARS).code == lang
        cells.append(f"{right / max(len(rows), 1):.3f}")
    print("| " + " | ".join([f"page cut to {SHORT_CHARS} chars", *cells, "", ""]) + " |")
    print(
        f"extraction: {extract_s / n_pages * 1e3:.2f} ms CPU per page over these {n_pages} pages; "
        f"misses at {language.SAMPLE_CHARS} chars: "
        + (", ".join(f"{k} x{n}" if n > 1 else k for k, n in sorted(misses.items())) or "none")
    )


def markdown_to_text(markdown: str) -> str:
    """The text of a Markdown document as a CommonMark parser (with tables) reads it: the
    inline text of every block and the content of code blocks, one block a line."""
    from markdown_it import MarkdownIt

    parts = []
    for token in MarkdownIt("commonmark").enable("table").parse(markdown):
        if token.type == "inline":
            parts.append(
                "".join(
                    "\n" if child.type in ("softbreak", "hardbreak") else child.content
                    for child in token.children or ()
                )
            )
        elif token.type in ("fence", "code_block"):
            parts.append(token.content)
    return "\n".join(parts)


def markdown_report(sets: dict) -> None:
    """Print word-F1 of text and Markdown output on aeb and wcxb-dev, and their CPU time."""
    clock = time.process_time
    outputs: dict[str, dict[str, dict[str, str]]] = {}
    seconds: dict[str, float] = {}
    for fmt in ("text", "markdown"):
        extractor = Extractor(output_format=fmt)
        outputs[fmt], seconds[fmt] = {}, 0.0
        for set_name, pages in sets.items():
            outputs[fmt][set_name] = {}
            for page_id, page in pages.items():
                html = page_html(page)
                start = clock()
                text = extractor(html, page["url"]).text
                seconds[fmt] += clock() - start
                outputs[fmt][set_name][page_id] = (
                    markdown_to_text(text) if fmt == "markdown" else text
                )
    print("\nmarkdown: F1 of --format text and --format markdown (read back to plain text)")
    print("| format | aeb F1 | aeb P | aeb R | wcxb F1 | wcxb P | wcxb R | ms/page |")
    print("|---|---|---|---|---|---|---|---|")
    n_pages = sum(len(pages) for pages in sets.values())
    for fmt, by_set in outputs.items():
        aeb = aeb_score((sets["aeb"][i]["text"], by_set["aeb"][i]) for i in sets["aeb"])
        wcxb = macro_mean(
            word_prf(sets["wcxb"][i]["text"], by_set["wcxb"][i]) for i in sets["wcxb"]
        )
        cells = [
            f"{x:.4f}"
            for x in (aeb.f1, aeb.precision, aeb.recall, wcxb.f1, wcxb.precision, wcxb.recall)
        ]
        print(f"| {fmt} | " + " | ".join(cells) + f" | {seconds[fmt] / n_pages * 1e3:.2f} |")


def clean_cost_report(sets: dict, rounds: int = 3) -> None:
    """CPU per page of the job's cleaning step (``clean_record``: HTTP and charset decoding,
    extraction, repair, language) over wcxb-dev as HTTP responses, and the part of it spent in
    language identification, timed around each call (an A/B of whole runs with and without it
    is lost in the machine's noise: the difference is a few percent). Best of ``rounds``."""
    from unittest import mock

    from transforms.clean_html import cleaner
    from transforms.records import ArchiveRecord

    head = b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n"
    records = [
        ArchiveRecord("wcxb", page_id, "response", 0, url=page["url"], is_http=True,
                      payload=head + gzip.decompress(page["gz"]))
        for page_id, page in sets["wcxb"].items()
    ]  # fmt: skip
    extractor = Extractor()
    language.load_model()
    clock = time.process_time
    identify = language.identify
    spent = [0.0]

    def timed_identify(*args, **kwargs):
        start = clock()
        try:
            return identify(*args, **kwargs)
        finally:
            spent[0] += clock() - start

    runs = []
    with mock.patch.object(cleaner.language, "identify", timed_identify):
        for _ in range(rounds):
            spent[0] = 0.0
            start = clock()
            for record in records:
                cleaner.clean_record(record, extractor)
            runs.append((clock() - start, spent[0]))
    total, in_language = min(runs)
    n = len(records)
    print(
        f"\nclean_record CPU per wcxb-dev page (best of {rounds}): {total / n * 1e3:.2f} ms, of "
        f"which language identification {in_language / n * 1e3:.3f} ms "
        f"({100 * in_language / total:.1f}%; "
        + ", ".join(f"{100 * lang / tot:.1f}%" for tot, lang in runs)
        + " in the runs)"
    )


def print_columns_report(sets: dict) -> None:
    language_report(sets)
    markdown_report(sets)


def main() -> int:
    if not (CORPUS / "aeb").is_dir() or not (CORPUS / "readability").is_dir():
        print(f"benchmark skipped: corpus not found at {CORPUS}")
        return 0
    if "--clean-cost" in sys.argv[1:]:
        clean_cost_report(load_corpus())
    else:
        print_columns_report(load_corpus())
    return 0


if __name__ == "__main__":
    sys.exit(main())
