"""Snapshot, check and time ``transforms.extract.extract`` on the development corpora.

    python -m benchmarks.extract_snapshot --write bench/snapshot.json   # record outputs
    python -m benchmarks.extract_snapshot --check bench/snapshot.json   # report changed pages
    python -m benchmarks.extract_snapshot --time [--repeat 3]           # pages/s (CPU time)

The pages are every set of ``../shared/corpus`` (``benchmarks.quality.load_corpus``) and the
HTML records of ``../shared/warc`` (``benchmarks.speed.warc_pages``), given to ``extract`` as
bytes. A snapshot maps ``corpus/page`` to one entry per output, each the sha256 of what it
hashes, so that a change names what moved:

- ``text``: title, text, comments and ``truncated`` in main mode, plain text;
- ``markdown``: the same in main mode as Markdown with links;
- ``full``: title and text in full mode;
- ``charset``: the charset chosen for the page's bytes and its source (not hashed).

``--check`` lists every page and output that differs (0 is the only pass). Snapshots go to
``bench/`` (gitignored): never commit corpus data or outputs.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import statistics
import sys
import time
from pathlib import Path

from transforms.decode import decode_text
from transforms.extract import extract

OUTPUTS = ("text", "markdown", "full", "charset")


def load(names: list[str] | None = None) -> dict[str, list[tuple[str, bytes, str | None]]]:
    """The pages of each corpus as ``(page id, html bytes, url)``, in page-id order."""
    from benchmarks.quality import load_corpus
    from benchmarks.speed import WARC, warc_pages

    pages = {
        name: [
            (f"{name}/{i}", gzip.decompress(page["gz"]), page["url"]) for i, page in set_.items()
        ]
        for name, set_ in load_corpus().items()
        if not names or name in names
    }
    if WARC.is_dir() and (not names or "warc" in names):
        pages["warc"] = [(f"warc/{n:04d}", html, url) for n, (html, url) in enumerate(warc_pages())]
    return pages


def _sha(*parts: object) -> str:
    blob = "\x00".join(str(p) for p in parts)
    return hashlib.sha256(blob.encode("utf-8", "surrogatepass")).hexdigest()


def outputs(html: bytes, url: str | None) -> dict[str, str]:
    """The snapshot entry of one page (see the module docstring)."""
    main = extract(html, url)
    markdown = extract(html, url, format="markdown", links=True)
    full = extract(html, url, mode="full")
    decoded = decode_text(html)
    return {
        "text": _sha(main.title, main.text, main.comments, main.truncated),
        "markdown": _sha(markdown.title, markdown.text, markdown.comments),
        "full": _sha(full.title, full.text),
        "charset": f"{decoded.charset}/{decoded.source}",
    }


def snapshot(pages: dict[str, list[tuple[str, bytes, str | None]]]) -> dict[str, dict[str, str]]:
    return {pid: outputs(html, url) for corpus in pages.values() for pid, html, url in corpus}


def timing(pages: dict[str, list[tuple[str, bytes, str | None]]], repeat: int) -> None:
    """Pages/s per CPU second and ms/page median and p99, per corpus (best of ``repeat``)."""
    for name, corpus in pages.items():
        best_total, best_ms = None, None
        for _ in range(repeat):
            per_page = []
            for _, html, url in corpus:
                start = time.process_time()
                extract(html, url)
                per_page.append(time.process_time() - start)
            total = sum(per_page)
            if best_total is None or total < best_total:
                best_total, best_ms = total, sorted(1000 * t for t in per_page)
        p99 = best_ms[min(len(best_ms) - 1, int(0.99 * len(best_ms)))]
        print(f"{name:12} {len(corpus):5} pages  {len(corpus) / best_total:7.1f} pages/s (CPU)  "
              f"median {statistics.median(best_ms):6.2f} ms  p99 {p99:7.2f} ms  "
              f"total {best_total:6.2f} s")  # fmt: skip


def compare(expected: dict, current: dict) -> list[str]:
    """``page output`` for every output of every page that differs."""
    changed = []
    for pid in sorted(expected.keys() | current.keys()):
        old, new = expected.get(pid, {}), current.get(pid, {})
        changed += [f"{pid} {key}" for key in OUTPUTS if old.get(key) != new.get(key)]
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--write", metavar="SNAPSHOT", help="write a snapshot JSON here")
    action.add_argument("--check", metavar="SNAPSHOT", help="compare outputs to this snapshot")
    action.add_argument("--time", action="store_true", help="print pages/s and ms/page")
    parser.add_argument("--corpus", action="append", help="only this corpus (repeat)")
    parser.add_argument("--repeat", type=int, default=1, help="timing runs (best is kept)")
    args = parser.parse_args(argv)
    pages = load(args.corpus)
    if args.time:
        timing(pages, args.repeat)
        return 0
    current = snapshot(pages)
    if args.write:
        Path(args.write).parent.mkdir(parents=True, exist_ok=True)
        Path(args.write).write_text(json.dumps(current, indent=0, sort_keys=True))
        print(f"wrote {len(current)} pages to {args.write}")
        return 0
    expected = json.loads(Path(args.check).read_text())
    changed = compare(expected, current)
    for line in changed:
        print(f"CHANGED {line}")
    print(f"{len(changed)} outputs changed, of {len(current)} pages x {len(OUTPUTS)} outputs")
    return 1 if changed else 0


if __name__ == "__main__":
    sys.exit(main())
