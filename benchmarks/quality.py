"""Extraction-quality benchmark (``make eval``): this extractor against its peers.

Reads ../shared/corpus (aeb, wcxb-dev, readability, newspaper4k, fundus, cleaneval-dev; see its
README). Every extractor is given each page's raw bytes and decodes them itself. It prints:

- F1 per set and title word-F1 (wcxb-dev, fundus), with peak memory; then aeb and wcxb-dev
  precision and recall and F1 per wcxb page type;
- the lost articles: per set, the "misses" of this extractor (word-F1 < 0.3 where trafilatura
  or resiliparse has >= 0.7), the reverse, and trafilatura's misses against the other two;
- word-F1 per language of every set: the ``lang`` of its ground truth, or for aeb and wcxb-dev
  (unlabelled) the language fastText finds in the reference text, marked "detected"; with this
  extractor's margin over trafilatura;
- the pages where this extractor's main text is empty although its full text has a paragraph
  of prose ("empty but has prose": 200+ characters, or 60+ CJK characters; and how many of
  those still have one with the links taken out);
- the ten pages where this extractor loses most against the best peer; a memory-growth check
  (RSS after 1k vs 10k extractions);
- speed per corpus, bytes in (``benchmarks/speed.py``: this and resiliparse taking turns page
  by page, the ratio beside its target, this as a multiple of a bare parse, decoding's share);
- the language and Markdown reports of ``benchmarks/columns_eval.py``.

Each extractor's quality pass runs in its own subprocess so that peak memory is its own.
trafilatura is slow (~3 minutes), so its results are cached under ``bench/`` by version;
``--refresh`` reruns it. Exits 0 with a message when the corpus is absent.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.metrics import aeb_page, aeb_score, macro_mean, word_prf

ROOT = Path(__file__).resolve().parent.parent

CORPUS = Path(os.environ.get("CORPUS", ROOT.parent / "shared" / "corpus"))
CACHE = ROOT / "bench" / "cache"
EXTRACTORS = ["this", "seed", "resiliparse", "trafilatura", "parse-only"]
REFERENCE = "parse-only"  # Lexbor parsing alone: a floor for the time, not an extractor
PAGE_TYPES = ["article", "documentation", "service", "forum", "product", "listing", "collection"]
# Sets scored by word-F1 per page and per language, their ground truth in one JSON per page
# (``{url, title, text, lang}``): Readability's and newspaper4k's output, fundus's per-publisher
# parsers, CleanEval's annotators. The folder of each under ``CORPUS``:
TOOL_SETS = ["readability", "newspaper4k", "fundus", "cleaneval"]
FOLDERS = {"cleaneval": "cleaneval-dev"}
SETS = ["aeb", "wcxb", *TOOL_SETS]
TITLE_SETS = ["wcxb", "fundus"]  # sets whose reference title is the page's headline
SHORT = {"readability": "rdbl", "newspaper4k": "np4k", "cleaneval": "clnev"}
MISS_BELOW, HIT_FROM = 0.3, 0.7  # a miss: F1 under MISS_BELOW where a peer has HIT_FROM or more
PROSE_CHARS, PROSE_CJK = 200, 60  # a paragraph of prose: this many characters (CJK ones)
_CJK = re.compile("[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]")


# --- corpus ----------------------------------------------------------------------------------


def load_corpus() -> dict[str, dict[str, dict]]:
    """``{set: {page_id: {"gz": bytes, "url", "text", "title", "type", "lang"}}}`` (HTML still
    gzip'd); a tool set whose folder is absent is left out."""
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
    for set_name in TOOL_SETS:
        folder = CORPUS / FOLDERS.get(set_name, set_name)
        if not folder.is_dir():
            continue
        sets[set_name] = {}
        for path in sorted((folder / "html").glob("*.html.gz")):
            page_id = path.name[: -len(".html.gz")]
            meta = json.loads(
                (folder / "ground-truth" / f"{page_id}.json").read_text(encoding="utf-8")
            )
            sets[set_name][page_id] = {
                "gz": path.read_bytes(),
                "url": meta.get("url"),
                "text": meta.get("text") or "",
                "title": meta.get("title") or "",
                "type": meta.get("lang") or "und",
                "lang": meta.get("lang") or "und",
            }
    return sets


def page_bytes(page: dict) -> bytes:
    """A corpus page's HTML as stored: the bytes every extractor is given."""
    return gzip.decompress(page["gz"])


def page_html(page: dict) -> str:
    """A corpus page's HTML as text, read as UTF-8 (for the column reports)."""
    return page_bytes(page).decode("utf-8", errors="replace")


# --- extractors (each returns (title, text) for a page's bytes, decoding them itself) --------


def make_extractor(name: str, mode: str = "main"):
    if name == "this":
        from transforms.extract import Extractor

        extractor = Extractor(mode)

        def run(html: bytes, url: str | None) -> tuple[str, str]:
            result = extractor(html, url)
            return result.title, result.text

        return run
    if name == REFERENCE:
        from selectolax.lexbor import LexborHTMLParser

        def run(html: bytes, url: str | None) -> tuple[str, str]:
            LexborHTMLParser(html)
            return "", ""

        return run
    if name == "seed":
        from benchmarks.seed_cleaner import seed_clean

        return lambda html, url: seed_clean(html.decode("utf-8", errors="replace"))
    if name == "resiliparse":
        from resiliparse.extract.html2text import extract_plain_text
        from resiliparse.parse.encoding import detect_encoding
        from resiliparse.parse.html import HTMLTree

        def run(html: bytes, url: str | None) -> tuple[str, str]:
            tree = HTMLTree.parse_from_bytes(html, detect_encoding(html, from_html_meta=True))
            return tree.title or "", extract_plain_text(tree, main_content=True)

        return run
    if name == "trafilatura":
        import trafilatura

        def run(html: bytes, url: str | None) -> tuple[str, str]:
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
            html = page_bytes(page)
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
    if name == "this":  # the full text of the pages left empty (outside the timings)
        from transforms.extract import extract

        result["full_if_empty"] = {
            set_name: {
                page_id: [
                    extract(page_bytes(pages[page_id]), pages[page_id]["url"], mode="full").text,
                    extract(
                        page_bytes(pages[page_id]),
                        pages[page_id]["url"],
                        mode="full",
                        format="markdown",
                        links=True,
                    ).text,
                ]
                for page_id, (_, text) in result["outputs"][set_name].items()
                if not text.strip()
            }
            for set_name, pages in sets.items()
        }
    if memcheck:
        pages = list(sets["wcxb"].values())
        rss = {}
        for i in range(memcheck):
            page = pages[i % len(pages)]
            run(page_bytes(page), page["url"])
            if i + 1 in (1000, memcheck):
                rss[i + 1] = _rss_mb()
        result["memcheck"] = rss
    out.write_text(json.dumps(result), encoding="utf-8")


def run_worker(name: str, memcheck: int, refresh: bool) -> dict:
    CACHE.mkdir(parents=True, exist_ok=True)
    cached = None
    if name == "trafilatura":
        import importlib.metadata

        version = importlib.metadata.version("trafilatura")
        cached = CACHE / f"trafilatura-{version}-bytes.json"  # pages given as bytes
        if cached.exists() and not refresh:
            result = json.loads(cached.read_text(encoding="utf-8"))
            if set(load_corpus()) <= set(result["outputs"]):  # else a set was added: rerun
                result["cached"] = True
                return result
    out = cached or CACHE / f"{name}.json"
    print(f"running {name} ...", file=sys.stderr, flush=True)
    cmd = [sys.executable, "-m", "benchmarks.quality", "--worker", name, "--out", str(out)]
    cmd += ["--memcheck", str(memcheck)]
    subprocess.run(cmd, check=True, cwd=ROOT)
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
    for set_name in TITLE_SETS:
        pages = sets.get(set_name, {})
        row[f"title {set_name}"] = macro_mean(
            word_prf(pages[i]["title"], outputs[set_name][i][0]) for i in pages
        )
    row["peak_mb"] = result.get("peak_mb", float("nan"))
    for i, s in page_scores.items():
        per_page[("wcxb", i)] = s.f1
    for set_name in TOOL_SETS:
        pages = sets.get(set_name, {})
        page_scores = {i: word_prf(pages[i]["text"], outputs[set_name][i][1]) for i in pages}
        row[set_name] = macro_mean(page_scores.values())
        for i, s in page_scores.items():
            per_page[(set_name, i)] = s.f1
    return row, per_page


def word_f1s(sets: dict, result: dict) -> dict[tuple[str, str], float]:
    """Word-F1 of every page of every set (aeb too, for the misses: one measure for all)."""
    return {
        (set_name, i): word_prf(page["text"], result["outputs"][set_name][i][1]).f1
        for set_name, pages in sets.items()
        for i, page in pages.items()
    }


def misses(f1: dict, of: str, against: list[str]) -> list[tuple[str, str]]:
    """The pages where ``of`` scores under ``MISS_BELOW`` while one of ``against`` scores
    ``HIT_FROM`` or more: an article lost whole where another tool found it."""
    return [
        key
        for key, mine in f1[of].items()
        if mine < MISS_BELOW and any(f1[peer][key] >= HIT_FROM for peer in against)
    ]


def has_prose(text: str) -> bool:
    """Whether ``text`` has a paragraph (a line) of ``PROSE_CHARS`` characters or more, or of
    ``PROSE_CJK`` CJK characters or more."""
    return any(
        len(line) >= PROSE_CHARS or len(_CJK.findall(line)) >= PROSE_CJK
        for line in text.splitlines()
    )


def print_misses(sets: dict, f1: dict) -> None:
    """Per set: this extractor's misses against trafilatura and resiliparse, the reverse (a
    peer's misses where this extractor scores), and trafilatura's misses against the other
    two; the pages missed are listed below the table."""
    if not all(n in f1 for n in ("this", "trafilatura", "resiliparse")):
        return
    head = ["set", "pages", "this misses", "this wins", "trafilatura misses"]
    print("\nlost articles (word-F1 < 0.3 where a peer has >= 0.7): " + ", ".join(head[2:]))
    print("| " + " | ".join(head) + " |")
    print("|" + "|".join("---" for _ in head) + "|")
    peers = ["trafilatura", "resiliparse"]
    listed = []
    for set_name, pages in sets.items():
        scores = {n: {k: v for k, v in f1[n].items() if k[0] == set_name} for n in f1}
        mine = misses(scores, "this", peers)
        wins = {k for peer in peers for k in misses(scores, peer, ["this"])}
        theirs = misses(scores, "trafilatura", ["this", "resiliparse"])
        n = len(pages)
        cells = [set_name, str(n)]
        cells += [f"{len(x)} ({100 * len(x) / max(n, 1):.1f}%)" for x in (mine, wins, theirs)]
        print("| " + " | ".join(cells) + " |")
        listed += [(key, {name: f1[name][key] for name in ["this", *peers]}) for key in mine]
    for (set_name, page_id), scores in listed:
        print(
            f"  missed: {set_name} {page_id} " + " ".join(f"{k} {v:.2f}" for k, v in scores.items())
        )


def page_languages(sets: dict) -> dict[tuple[str, str], str]:
    """The language of every page: its ground truth's ``lang``, or for the unlabelled sets
    (aeb, wcxb-dev) the one fastText finds in the reference text, suffixed ``*``."""
    from transforms import language

    langs = {}
    for set_name, pages in sets.items():
        for i, page in pages.items():
            lang = page.get("lang")
            if lang is None:
                lang = language.identify("", page["text"], sample_chars=1000).code + "*"
            langs[(set_name, i)] = lang
    return langs


def print_languages(sets: dict, f1: dict, names: list[str]) -> None:
    """Word-F1 per language, set by set, with this extractor's margin over trafilatura."""
    names = [n for n in names if n != REFERENCE]
    langs = page_languages(sets)
    margin = "this" in names and "trafilatura" in names
    for set_name, pages in sets.items():
        by_lang: dict[str, list[tuple[str, str]]] = {}
        for i in pages:
            by_lang.setdefault(langs[(set_name, i)], []).append((set_name, i))
        detected = " (* detected in the reference text)" if set_name in ("aeb", "wcxb") else ""
        print(f"\nword-F1 per language, {set_name}{detected}:")
        head = ["lang", "pages", *names] + (["this - trafilatura"] if margin else [])
        print("| " + " | ".join(head) + " |")
        print("|" + "|".join("---" for _ in head) + "|")
        for lang, keys in sorted(by_lang.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            mean = {n: sum(f1[n][k] for k in keys) / len(keys) for n in names}
            cells = [lang, str(len(keys))] + [f"{mean[n]:.3f}" for n in names]
            if margin:
                cells.append(f"{mean['this'] - mean['trafilatura']:+.3f}")
            print("| " + " | ".join(cells) + " |")


_MARKDOWN_LINK = re.compile(r"\[[^\]]*\]\([^)]*\)")


def print_empty_with_prose(sets: dict, result: dict) -> None:
    """Per set, the pages whose main text is empty although the full text has a paragraph;
    and of those, the pages where a paragraph is left once its links are taken out (a footer's
    row of 20 links joined by commas is 200 characters, and no prose)."""
    full = result.get("full_if_empty")
    if full is None:
        return
    counts = []
    for set_name in sets:
        pages = full.get(set_name, {})
        found = [i for i, (text, _) in pages.items() if has_prose(text)]
        prose = [i for i in found if has_prose(_MARKDOWN_LINK.sub("", pages[i][1]))]
        cell = f"{set_name} {len(found)}" + (f" ({', '.join(found[:10])})" if found else "")
        counts.append(cell + (f", {len(prose)} outside links" if found else ""))
    empty = sum(len(pages) for pages in full.values())
    print(f"\nempty but has prose (main empty, full has a paragraph): {'; '.join(counts)} "
          f"[{empty} pages empty in all]")  # fmt: skip


def print_table(rows: dict[str, dict], cached: set[str]) -> None:
    """F1 per set and title F1, then aeb and wcxb-dev precision and recall and F1 per page
    type (the parse-only reference has no row: it extracts nothing)."""
    rows = {name: row for name, row in rows.items() if name != REFERENCE}
    sets = [s for s in SETS if all(s in row for row in rows.values())]
    head = ["extractor"] + [f"{SHORT.get(s, s)} F1" for s in sets]
    head += [f"title {SHORT.get(s, s)}" for s in TITLE_SETS] + ["peak MB"]
    _print_rows(head, rows, cached, lambda row: [f"{row[s].f1:.3f}" for s in sets]
                + [f"{row[f'title {s}'].f1:.3f}" for s in TITLE_SETS]
                + [f"{row['peak_mb']:.0f}"])  # fmt: skip
    print()
    head = ["extractor", "aeb P", "aeb R", "wcxb P", "wcxb R"] + [t[:5] for t in PAGE_TYPES]
    _print_rows(head, rows, cached, lambda row: [f"{row[s].precision:.3f}" for s in ("aeb",)]
                + [f"{row['aeb'].recall:.3f}", f"{row['wcxb'].precision:.3f}"]
                + [f"{row['wcxb'].recall:.3f}"] + [f"{row[t].f1:.3f}" for t in PAGE_TYPES])  # fmt: skip


def _print_rows(head: list[str], rows: dict[str, dict], cached: set[str], cells) -> None:
    print("| " + " | ".join(head) + " |")
    print("|" + "|".join("---" for _ in head) + "|")
    for name, row in rows.items():
        label = name + (" (cached)" if name in cached else "")
        print("| " + " | ".join([label, *cells(row)]) + " |")


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
        help="rounds of the speed table (benchmarks/speed.py); 0 leaves it out",
    )
    parser.add_argument(
        "--refresh", action="store_true", help="rerun trafilatura instead of its cache"
    )
    args = parser.parse_args()
    if not (CORPUS / "aeb").is_dir() or not (CORPUS / "wcxb-dev").is_dir():
        print(f"benchmark skipped: corpus not found at {CORPUS}")
        return 0
    if args.worker:
        worker(args.worker, args.out, args.memcheck if args.worker == "this" else 0)
        return 0

    sets = load_corpus()
    rows, per_page, results = {}, {}, {}
    for name in args.only:
        results[name] = run_worker(name, args.memcheck, args.refresh)
        rows[name], per_page[name] = score(sets, results[name])
    print(
        "\n" + ", ".join(f"{name}: {len(pages)} pages" for name, pages in sets.items()) + "; "
        "each extractor given the page's bytes; peak MB = max RSS above the loaded corpus\n"
    )
    print_table(rows, {n for n, r in results.items() if r.get("cached")})

    f1 = {n: word_f1s(sets, results[n]) for n in rows if n != REFERENCE}
    print_misses(sets, f1)
    print_languages(sets, f1, list(rows))
    if "this" in results:
        print_empty_with_prose(sets, results["this"])

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
    if memcheck and len(memcheck) >= 2:  # --memcheck 1000 or less measures one point only
        (n1, r1), *_, (n2, r2) = sorted((int(k), v) for k, v in memcheck.items())
        print(
            f"\nmemory: RSS {r1:.0f} MB after {n1} extractions, {r2:.0f} MB after {n2} "
            f"({r2 - r1:+.0f} MB)"
        )
    if args.speed_rounds > 0:  # in its own process: this, resiliparse and a parse side by side
        cmd = [sys.executable, "-m", "benchmarks.speed", "--rounds", str(args.speed_rounds)]
        sys.stdout.flush()
        subprocess.run(cmd, check=True, cwd=ROOT)
    from benchmarks.columns_eval import print_columns_report  # it loads the corpus from here

    print_columns_report(sets)  # the language and Markdown columns
    return 0


if __name__ == "__main__":
    sys.exit(main())
