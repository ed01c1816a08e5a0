"""Extraction speed per corpus, bytes in: this extractor against resiliparse (``make eval``).

    python -m benchmarks.speed [--rounds 3] [--set fundus --set warc ...]

Every extractor is given a page's raw bytes and decodes them itself, as a user's loop would:

- ``this``: ``transforms.extract.extract(bytes)``: the job's charset chain (BOM, ``<meta>``,
  detection), the caps, extraction and ftfy repair;
- ``resiliparse``: ``detect_encoding`` (``<meta>``, then uchardet) and ``parse_from_bytes``,
  then ``extract_plain_text(main_content=True)``;
- ``parse``: a bare Lexbor parse of the bytes (``LexborHTMLParser``), the floor of this
  design; ``this`` is also printed as a multiple of it;
- ``decode``: the part of ``this`` spent choosing and applying the charset, as ``extract``
  does it: ``transforms.decode.utf8_source`` (a plain UTF-8 page is parsed as its bytes, its
  text not made), else ``decode_text``.

All four run in one process, taking turns page by page (the order reversed on every other page
and round) and timed in CPU seconds of this process: the speed of a shared machine drifts by
10% and more over a minute, and turns give every extractor the same drift. Each corpus's
pages/s is its pages times the rounds over the CPU seconds summed over the rounds.

The corpora are ``../shared/corpus``'s sets (``benchmarks.quality.load_corpus``) and ``warc``:
the HTML bodies of the 2xx response and resource records of ``../shared/warc``, after transfer
and content decoding (their charset is left to the extractors, as for the corpus pages).
"""

from __future__ import annotations

import argparse
import gzip
import sys
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks.quality import CORPUS, load_corpus

__all__ = ["SPEED_TARGET", "main", "measure", "speed_pages", "warc_pages"]

WARC = CORPUS.parent / "warc"
SPEED_TARGET = 1.1  # this / resiliparse, pages per CPU second (issue 22)
NAMES = ("this", "resiliparse", "parse", "decode")


def warc_pages(folder: Path = WARC) -> list[tuple[bytes, str | None]]:
    """``(body, url)`` of the HTML records of every WARC and ARC file in ``folder``: the body
    after chunking and Content-Encoding are undone, as the job's decoder sees it before the
    charset step; records the job would reject before that step are left out."""
    from transforms.decode import Reject
    from transforms.decode.content_type import parse_content_type, require_html
    from transforms.decode.http import decode_body, inflate_undeclared_gzip, parse_response
    from transforms.read import read_file
    from transforms.records import ArchiveRecord

    pages = []
    for path in sorted(folder.glob("*")):
        if not path.name.endswith((".warc", ".warc.gz", ".arc", ".arc.gz")):
            continue
        for record in read_file(str(path)):
            if not isinstance(record, ArchiveRecord) or not record.payload:
                continue
            try:
                content_type = record.content_type
                body = record.payload
                if record.is_http:
                    response = parse_response(body)
                    if not 200 <= response.status < 300:
                        continue
                    body = decode_body(response, max_bytes=32 << 20)
                    content_type = response.headers.get("Content-Type")
                body = inflate_undeclared_gzip(body, max_bytes=32 << 20)
                require_html(parse_content_type(content_type)[0], body)
            except Reject:
                continue
            pages.append((body, record.url))
    return pages


def speed_pages(only: list[str] | None = None) -> dict[str, list[tuple[bytes, str | None]]]:
    """``{corpus: [(html bytes, url)]}`` for every corpus present (``only``: these)."""
    sets = {
        name: [(gzip.decompress(page["gz"]), page["url"]) for page in pages.values()]
        for name, pages in load_corpus().items()
        if not only or name in only
    }
    if WARC.is_dir() and (not only or "warc" in only):
        sets["warc"] = warc_pages()
    return sets


def _runners() -> dict[str, Callable[[bytes, str | None], object]]:
    from resiliparse.extract.html2text import extract_plain_text
    from resiliparse.parse.encoding import detect_encoding
    from resiliparse.parse.html import HTMLTree
    from selectolax.lexbor import LexborHTMLParser

    from transforms.decode import decode_text, utf8_source
    from transforms.extract import extract

    def resiliparse(html: bytes, url: str | None) -> str:
        tree = HTMLTree.parse_from_bytes(html, detect_encoding(html, from_html_meta=True))
        return extract_plain_text(tree, main_content=True)

    return {
        "this": lambda html, url: extract(html, url),
        "resiliparse": resiliparse,
        "parse": lambda html, url: LexborHTMLParser(html),
        "decode": lambda html, url: utf8_source(html) or decode_text(html),
    }


def measure(
    sets: dict[str, list[tuple[bytes, str | None]]], rounds: int, progress: bool = True
) -> dict[str, dict[str, float]]:
    """CPU seconds per corpus and runner over ``rounds`` rounds, the runners taking turns."""
    runners = _runners()
    for run in runners.values():  # warm-up: imports, models and caches outside the timings
        run(b"<html><head><title>t</title></head><body><p>warm</p></body></html>", None)
    clock = time.process_time
    seconds = {name: dict.fromkeys(runners, 0.0) for name in sets}
    order = list(runners)
    for r in range(rounds):
        for set_name, pages in sets.items():
            spent = seconds[set_name]
            for i, (html, url) in enumerate(pages):
                turn = order if (i + r) % 2 == 0 else order[::-1]
                for name in turn:
                    start = clock()
                    runners[name](html, url)
                    spent[name] += clock() - start
        if progress:
            print(f"speed: round {r + 1} of {rounds} done", file=sys.stderr, flush=True)
    return seconds


def print_speed(sets: dict[str, list], seconds: dict[str, dict[str, float]], rounds: int) -> None:
    """The per-corpus table: pages per CPU second, the ratio to resiliparse beside its target,
    ``this`` as a multiple of a bare parse, and decoding's share of ``this``."""
    head = ["corpus", "pages", "this p/s", "resiliparse p/s", "ratio", f"target >= {SPEED_TARGET}"]
    head += ["parse p/s", "this / parse", "decode share"]
    print(f"\nspeed, bytes in (pages per CPU second, {rounds} rounds taken in turns page by page):")
    print("| " + " | ".join(head) + " |")
    print("|" + "|".join("---" for _ in head) + "|")
    totals = dict.fromkeys(NAMES, 0.0)
    pages_total = 0
    for set_name, pages in sets.items():
        spent = seconds[set_name]
        _row(set_name, len(pages), spent, rounds)
        pages_total += len(pages)
        for name in NAMES:
            totals[name] += spent[name]
    _row("all", pages_total, totals, rounds)


def _row(label: str, pages: int, spent: dict[str, float], rounds: int) -> None:
    rate = {name: pages * rounds / max(spent[name], 1e-9) for name in NAMES}
    ratio = rate["this"] / rate["resiliparse"]
    cells = [label, str(pages), f"{rate['this']:.0f}", f"{rate['resiliparse']:.0f}"]
    cells += [f"{ratio:.2f}", "met" if ratio >= SPEED_TARGET else "below"]
    cells += [f"{rate['parse']:.0f}", f"{spent['this'] / max(spent['parse'], 1e-9):.2f}x"]
    cells += [f"{spent['decode'] / max(spent['this'], 1e-9):.1%}"]
    print("| " + " | ".join(cells) + " |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="passes over every corpus")
    parser.add_argument("--set", action="append", dest="sets", help="only this corpus (repeat)")
    args = parser.parse_args(argv)
    if not (CORPUS / "aeb").is_dir():
        print(f"speed benchmark skipped: corpus not found at {CORPUS}")
        return 0
    sets = speed_pages(args.sets)
    seconds = measure(sets, args.rounds)
    print_speed(sets, seconds, args.rounds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
