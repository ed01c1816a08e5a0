"""Snapshot, check and time ``transforms.extract.extractor.extract`` on the development corpora.

    python -m benchmarks.extract_snapshot --write bench/snapshot.json   # record outputs
    python -m benchmarks.extract_snapshot --check bench/snapshot.json   # report changed pages
    python -m benchmarks.extract_snapshot --time [--repeat 3]           # pages/s (CPU time)

A snapshot maps ``corpus/page`` to the sha256 of ``title + "\\x00" + text + "\\x00" +
str(truncated)``; ``--check`` lists every page whose output differs (0 is the only pass).
Pages are read (and gunzipped) before timing, so the timings cover ``extract`` alone.
Snapshots and outputs go to ``bench/`` (gitignored): never commit corpus data or outputs.
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

from transforms.extract import extract

CORPORA = {
    "wcxb-dev": Path("/work/shared/corpus/wcxb-dev/html"),
    "aeb": Path("/work/shared/corpus/aeb/html"),
}


def load(names: list[str]) -> dict[str, list[tuple[str, bytes]]]:
    """The pages of each corpus as ``(page id, html bytes)``, in file-name order."""
    pages = {}
    for name in names:
        files = sorted(CORPORA[name].glob("*.html.gz"))
        pages[name] = [(f"{name}/{f.name[: -len('.html.gz')]}", gzip.decompress(f.read_bytes()))
                       for f in files]  # fmt: skip
    return pages


def digest(html: bytes, mode: str) -> str:
    result = extract(html, mode=mode)
    blob = f"{result.title}\x00{result.text}\x00{result.truncated}"
    return hashlib.sha256(blob.encode("utf-8", "surrogatepass")).hexdigest()


def snapshot(pages: dict[str, list[tuple[str, bytes]]], mode: str) -> dict[str, str]:
    return {pid: digest(html, mode) for corpus in pages.values() for pid, html in corpus}


def timing(pages: dict[str, list[tuple[str, bytes]]], mode: str, repeat: int) -> None:
    """Pages/s per CPU second and ms/page median and p99, per corpus (best of ``repeat``)."""
    for name, corpus in pages.items():
        best_total, best_ms = None, None
        for _ in range(repeat):
            per_page = []
            for _, html in corpus:
                start = time.process_time()
                extract(html, mode=mode)
                per_page.append(time.process_time() - start)
            total = sum(per_page)
            if best_total is None or total < best_total:
                best_total, best_ms = total, sorted(1000 * t for t in per_page)
        p99 = best_ms[min(len(best_ms) - 1, int(0.99 * len(best_ms)))]
        print(f"{name:9} {len(corpus):5} pages  {len(corpus) / best_total:7.1f} pages/s (CPU)  "
              f"median {statistics.median(best_ms):6.2f} ms  p99 {p99:7.2f} ms  "
              f"total {best_total:6.2f} s")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--write", metavar="SNAPSHOT", help="write a snapshot JSON here")
    action.add_argument("--check", metavar="SNAPSHOT", help="compare outputs to this snapshot")
    action.add_argument("--time", action="store_true", help="print pages/s and ms/page")
    parser.add_argument("--mode", choices=("main", "full"), default="main")
    parser.add_argument("--corpus", action="append", choices=sorted(CORPORA))
    parser.add_argument("--repeat", type=int, default=1, help="timing runs (best is kept)")
    args = parser.parse_args(argv)
    pages = load(args.corpus or list(CORPORA))
    if args.time:
        timing(pages, args.mode, args.repeat)
        return 0
    current = snapshot(pages, args.mode)
    if args.write:
        Path(args.write).parent.mkdir(parents=True, exist_ok=True)
        Path(args.write).write_text(json.dumps(current, indent=0, sort_keys=True))
        print(f"wrote {len(current)} pages to {args.write}")
        return 0
    expected = json.loads(Path(args.check).read_text())
    changed = sorted(pid for pid in expected.keys() | current.keys()
                     if expected.get(pid) != current.get(pid))  # fmt: skip
    for pid in changed:
        print(f"CHANGED {pid}")
    print(f"{len(changed)} changed of {len(current)} pages")
    return 1 if changed else 0


if __name__ == "__main__":
    sys.exit(main())
