"""Extraction-quality benchmark (``make eval``): this extractor against its peers.

Reads ../shared/corpus (aeb and wcxb-dev; see its README) and prints one table: for each
extractor F1/P/R per set, F1 per wcxb page type, title word-F1, pages/s on wcxb-dev (one core,
extraction calls only) and peak memory; then the ten pages where this extractor loses most
against the best peer, and a memory-growth check (RSS after 1k vs 10k extractions); then the
language and Markdown reports of ``benchmarks/columns_eval.py``.

Each extractor runs in its own subprocess so that peak memory is its own; pages/s is the best
of four runs taken in turns (this, seed, resiliparse, parse-only, this, ...), since the speed of
a shared machine drifts. trafilatura is slow (~2 minutes), so its results are cached under
``bench/`` by version; ``--refresh`` reruns it.
Exits 0 with a message when the corpus is absent.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.columns_eval import print_columns_report  # noqa: E402
from benchmarks.metrics import aeb_page, aeb_score, macro_mean, word_prf  # noqa: E402

CORPUS = Path(os.environ.get("CORPUS", ROOT.parent / "shared" / "corpus"))
CACHE = ROOT / "bench" / "cache"
EXTRACTORS = ["this", "seed", "resiliparse", "trafilatura", "parse-only"]
REFERENCE = "parse-only"  # Lexbor parsing alone: a floor for the time, not an extractor
PAGE_TYPES = ["article", "documentation", "service", "forum", "product", "listing", "collection"]


# --- corpus ----------------------------------------------------------------------------------


def load_corpus() -> dict[str, dict[str, dict]]:
    """``{set: {page_id: {"gz": bytes, "url", "text", "title", "type"}}}`` (HTML still gzip'd)."""
    sets: dict[str, dict[str, dict]] = {"aeb": {}, "wcxb": {}}
    truth = json.loads((CORPUS / "aeb" / "ground-truth.json").read_text(encoding="utf-8"))
    for page_id, item in sorted(truth.items()):
        path = CORPUS / "aeb" / "html" / f"{page_id}.html.gz"
        sets["aeb"][page_id] = {
            "gz": path.read_bytes(),
            "url": item.get("url"),
            "text": item.get("articleBody") or "",
            "title": None,
            "type": "article",
        }
    for path in sorted((CORPUS / "wcxb-dev" / "html").glob("*.html.gz")):
        page_id = path.name.split(".")[0]
        meta = json.loads(
            (CORPUS / "wcxb-dev" / "ground-truth" / f"{page_id}.json").read_text(encoding="utf-8")
        )
        gt = meta["ground_truth"]
        sets["wcxb"][page_id] = {
            "gz": path.read_bytes(),
            "url": meta.get("url"),
            "text": gt.get("main_content") or "",
            "title": gt.get("title") or "",
            "type": meta["_internal"]["page_type"]["primary"],
        }
    return sets


def page_html(page: dict) -> str:
    """A corpus page's HTML as the text every extractor is given."""
    return gzip.decompress(page["gz"]).decode("utf-8", errors="replace")


# --- extractors (each returns (title, text) for an HTML string) -------------------------------


def make_extractor(name: str):
    if name == "this":
        from transforms.extract import Extractor

        extractor = Extractor()

        def run(html: str, url: str | None) -> tuple[str, str]:
            result = extractor(html, url)
            return result.title, result.text

        return run
    if name == REFERENCE:
        from selectolax.lexbor import LexborHTMLParser

        def run(html: str, url: str | None) -> tuple[str, str]:
            LexborHTMLParser(html)
            return "", ""

        return run
    if name == "seed":
        from benchmarks.seed_cleaner import seed_clean

        return lambda html, url: seed_clean(html)
    if name == "resiliparse":
        from resiliparse.extract.html2text import extract_plain_text
        from resiliparse.parse.html import HTMLTree

        def run(html: str, url: str | None) -> tuple[str, str]:
            tree = HTMLTree.parse(html)
            return tree.title or "", extract_plain_text(tree, main_content=True)

        return run
    if name == "trafilatura":
        import trafilatura

        def run(html: str, url: str | None) -> tuple[str, str]:
            doc = trafilatura.bare_extraction(html, url=url, with_metadata=True)
            if doc is None:
                return "", ""
            text = doc.text or ""
            if doc.comments:  # extract()'s txt output appends the comments
                text = f"{text}\n{doc.comments}"
            return doc.title or "", text

        return run
    raise ValueError(name)


def _rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6


def worker(name: str, out: Path, memcheck: int) -> None:
    """Run one extractor over both sets in this process and write its outputs to ``out``."""
    sets = load_corpus()
    base_rss = _rss_mb()
    run = make_extractor(name)
    result: dict = {"name": name, "outputs": {}, "seconds": {}}
    clock = time.process_time  # CPU time of this process: robust to other load on the machine
    result["page_ms"] = []
    for set_name, pages in sets.items():
        outputs, seconds = {}, 0.0
        for page_id, page in pages.items():
            html = page_html(page)
            start = clock()
            title, text = run(html, page["url"])
            elapsed = clock() - start
            seconds += elapsed
            outputs[page_id] = [title, text]
            if set_name == "wcxb":
                result["page_ms"].append(elapsed * 1e3)
        result["outputs"][set_name] = outputs
        result["seconds"][set_name] = seconds
    result["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3 - base_rss
    if memcheck:
        pages = list(sets["wcxb"].values())
        rss = {}
        for i in range(memcheck):
            page = pages[i % len(pages)]
            run(page_html(page), page["url"])
            if i + 1 in (1000, memcheck):
                rss[i + 1] = _rss_mb()
        result["memcheck"] = rss
    out.write_text(json.dumps(result), encoding="utf-8")


def timing_worker(name: str, out: Path) -> None:
    """Only the CPU seconds of one extractor over wcxb-dev, in this process (a speed round)."""
    pages = [(page_html(page), page["url"]) for page in load_corpus()["wcxb"].values()]
    run = make_extractor(name)
    clock = time.process_time
    start = clock()
    for html, url in pages:
        run(html, url)
    out.write_text(json.dumps({"pages": len(pages), "seconds": clock() - start}), encoding="utf-8")


def speed_rounds(names: list[str], rounds: int) -> dict[str, list[float]]:
    """Pages/s on wcxb-dev of each extractor in ``rounds`` more runs, taken in turns (a b c a b
    c ...), each in a fresh process: the speed of a shared machine drifts by 10% and more over a
    minute, and turns spread the drift over all of them."""
    rates: dict[str, list[float]] = {name: [] for name in names}
    out = CACHE / "timing.json"
    for _ in range(rounds):
        for name in names:
            cmd = [sys.executable, __file__, "--worker", name, "--timing", "--out", str(out)]
            subprocess.run(cmd, check=True)
            timing = json.loads(out.read_text(encoding="utf-8"))
            rates[name].append(timing["pages"] / max(timing["seconds"], 1e-9))
    return rates


def run_worker(name: str, memcheck: int, refresh: bool) -> dict:
    CACHE.mkdir(parents=True, exist_ok=True)
    cached = None
    if name == "trafilatura":
        import importlib.metadata

        version = importlib.metadata.version("trafilatura")
        cached = CACHE / f"trafilatura-{version}.json"
        if cached.exists() and not refresh:
            result = json.loads(cached.read_text(encoding="utf-8"))
            result["cached"] = True
            return result
    out = cached or CACHE / f"{name}.json"
    print(f"running {name} ...", file=sys.stderr, flush=True)
    cmd = [sys.executable, __file__, "--worker", name, "--out", str(out)]
    cmd += ["--memcheck", str(memcheck)]
    subprocess.run(cmd, check=True)
    return json.loads(out.read_text(encoding="utf-8"))


# --- scoring and report ----------------------------------------------------------------------


def score(sets: dict, result: dict) -> tuple[dict, dict[tuple[str, str], float]]:
    """The row of the table for one extractor, and its per-page F1 for the worst-pages list."""
    outputs = result["outputs"]
    row: dict = {}
    per_page: dict[tuple[str, str], float] = {}
    aeb = sets["aeb"]
    row["aeb"] = aeb_score((aeb[i]["text"], outputs["aeb"][i][1]) for i in aeb)
    for i in aeb:
        per_page[("aeb", i)] = aeb_page(aeb[i]["text"], outputs["aeb"][i][1]).f1
    wcxb = sets["wcxb"]
    page_scores = {i: word_prf(wcxb[i]["text"], outputs["wcxb"][i][1]) for i in wcxb}
    row["wcxb"] = macro_mean(page_scores.values())
    for page_type in PAGE_TYPES:
        row[page_type] = macro_mean(
            s for i, s in page_scores.items() if wcxb[i]["type"] == page_type
        )
    row["title"] = macro_mean(word_prf(wcxb[i]["title"], outputs["wcxb"][i][0]) for i in wcxb)
    row["pps"] = len(wcxb) / max(result["seconds"]["wcxb"], 1e-9)
    row["peak_mb"] = result.get("peak_mb", float("nan"))
    for i, s in page_scores.items():
        per_page[("wcxb", i)] = s.f1
    return row, per_page


def print_table(rows: dict[str, dict], cached: set[str]) -> None:
    head = ["extractor", "aeb F1", "aeb P", "aeb R", "wcxb F1", "wcxb P", "wcxb R"]
    head += [t[:5] for t in PAGE_TYPES] + ["title F1", "pages/s", "peak MB"]
    print("| " + " | ".join(head) + " |")
    print("|" + "|".join("---" for _ in head) + "|")
    for name, row in rows.items():
        cells = [name + (" (cached)" if name in cached else "")]
        if name == REFERENCE:
            cells += ["–"] * (len(head) - 3) + [f"{row['pps']:.0f}", f"{row['peak_mb']:.0f}"]
            print("| " + " | ".join(cells) + " |")
            continue
        for set_name in ("aeb", "wcxb"):
            prf = row[set_name]
            cells += [f"{prf.f1:.3f}", f"{prf.precision:.3f}", f"{prf.recall:.3f}"]
        cells += [f"{row[t].f1:.3f}" for t in PAGE_TYPES]
        cells += [f"{row['title'].f1:.3f}", f"{row['pps']:.0f}", f"{row['peak_mb']:.0f}"]
        print("| " + " | ".join(cells) + " |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    parser.add_argument(
        "--memcheck",
        type=int,
        default=10_000,
        help="extractions for the RSS check (this extractor)",
    )
    parser.add_argument("--only", nargs="*", default=EXTRACTORS, help="extractors to run")
    parser.add_argument(
        "--speed-rounds",
        type=int,
        default=3,
        help="extra timing runs per extractor, in turns; pages/s is the best run (0: one run)",
    )
    parser.add_argument("--timing", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument(
        "--refresh", action="store_true", help="rerun trafilatura instead of its cache"
    )
    args = parser.parse_args()
    if not (CORPUS / "aeb").is_dir() or not (CORPUS / "wcxb-dev").is_dir():
        print(f"benchmark skipped: corpus not found at {CORPUS}")
        return 0
    if args.worker and args.timing:
        timing_worker(args.worker, args.out)
        return 0
    if args.worker:
        worker(args.worker, args.out, args.memcheck if args.worker == "this" else 0)
        return 0

    sets = load_corpus()
    rows, per_page, results = {}, {}, {}
    for name in args.only:
        results[name] = run_worker(name, args.memcheck, args.refresh)
        rows[name], per_page[name] = score(sets, results[name])
    timed = [n for n in rows if not results[n].get("cached") and n != "trafilatura"]
    rates = speed_rounds(timed, args.speed_rounds)
    for name in timed:
        rates[name].insert(0, rows[name]["pps"])
        rows[name]["pps"] = max(rates[name])
    print(
        f"\naeb: {len(sets['aeb'])} pages, wcxb-dev: {len(sets['wcxb'])} pages; "
        "pages/s on wcxb-dev = pages / CPU seconds in the extraction calls, one process, "
        f"best of {1 + args.speed_rounds} runs taken in turns; "
        "peak MB = max RSS above the loaded corpus\n"
    )
    print_table(rows, {n for n, r in results.items() if r.get("cached")})

    print("\npages/s per run: " + "; ".join(
        f"{name} " + " ".join(f"{r:.0f}" for r in rates[name]) for name in timed
    ))  # fmt: skip

    peers = [n for n in rows if n not in ("this", REFERENCE)]
    if "this" in rows and peers:
        losses = []
        for key, mine in per_page["this"].items():
            best = max(peers, key=lambda n: per_page[n][key])
            losses.append((per_page[best][key] - mine, key, mine, best, per_page[best][key]))
        losses.sort(reverse=True)
        print("\nten pages where this extractor loses most against the best peer (page F1):")
        for loss, (set_name, page_id), mine, best, theirs in losses[:10]:
            page_type = sets[set_name][page_id]["type"]
            print(
                f"  {set_name:4} {page_id[:16]:16} {page_type:13} this {mine:.3f}  "
                f"{best} {theirs:.3f}  (-{loss:.3f})"
            )
    page_ms = sorted(results.get("this", {}).get("page_ms") or [])
    if page_ms:
        pick = lambda q: page_ms[min(len(page_ms) - 1, int(q * len(page_ms)))]  # noqa: E731
        print(
            f"\nthis extractor, CPU ms per wcxb-dev page: median {pick(0.5):.1f}, "
            f"p99 {pick(0.99):.1f}, max {page_ms[-1]:.1f}"
        )
    memcheck = results.get("this", {}).get("memcheck")
    if memcheck:
        (n1, r1), (n2, r2) = sorted((int(k), v) for k, v in memcheck.items())
        print(
            f"\nmemory: RSS {r1:.0f} MB after {n1} extractions, {r2:.0f} MB after {n2} "
            f"({r2 - r1:+.0f} MB)"
        )
    print_columns_report(sets)  # the language and Markdown columns (benchmarks/columns_eval.py)
    return 0


if __name__ == "__main__":
    sys.exit(main())
