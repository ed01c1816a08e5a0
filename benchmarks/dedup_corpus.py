"""A generated corpus with planted duplicates of known Jaccard similarity, and the brute force
that measures it, for the dedup job's tests and ``make bench``.

Texts are paragraphs of sentences over a Zipf-distributed vocabulary of pseudo-words (so that
common words repeat as in prose, and two unrelated texts share no 5-gram). A share of them get
a family of copies, each made by one or two of:

- ``edit``: each word replaced, deleted or preceded by an inserted word with probability p
  (1-30%, uniform), which takes the 5-gram Jaccard similarity anywhere from about 0.95 to 0.1;
- ``reorder``: the paragraphs shuffled;
- ``boilerplate``: a header and a footer from a small shared pool (menus, cookie lines);
- ``exact``: the same text, or the same text re-cased and re-spaced (the same ``text_hash``).

``jaccard_pairs`` is the independent measure: every pair of documents sharing a shingle (an
inverted index over the exact shingle sets, Python tuples of words), with its exact Jaccard
similarity; pairs sharing none have J = 0.
"""

from __future__ import annotations

import datetime
import itertools
import random
from collections import defaultdict
from dataclasses import dataclass

from transforms.signals import words as split

__all__ = [
    "Planted",
    "Scores",
    "jaccard_pairs",
    "planted_corpus",
    "score",
    "shingles",
    "write_parquet",
]

EPOCH = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)


@dataclass
class Planted:
    text: str
    family: int  # the original's index; an original is its own family
    kind: str  # "original", or the transformations joined by "+"
    url: str
    warc_date: datetime.datetime | None
    language: str = "en"


def _vocabulary(rng: random.Random, size: int) -> tuple[list[str], list[float]]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    seen: set[str] = set()
    vocab: list[str] = []
    while len(vocab) < size:
        word = "".join(rng.choice(letters) for _ in range(rng.randint(2, 9)))
        if word not in seen:
            seen.add(word)
            vocab.append(word)
    weights = [1.0 / (rank + 1) for rank in range(size)]
    return vocab, list(itertools.accumulate(weights))


class _Writer:
    def __init__(self, rng: random.Random, vocabulary_size: int = 20_000):
        self.rng = rng
        self.vocab, self.cumulative = _vocabulary(rng, vocabulary_size)

    def words(self, count: int) -> list[str]:
        return self.rng.choices(self.vocab, cum_weights=self.cumulative, k=count)

    def paragraph(self, count: int) -> str:
        out, words = [], self.words(count)
        while words:
            size = self.rng.randint(6, 18)
            sentence, words = words[:size], words[size:]
            out.append(" ".join(sentence).capitalize() + ".")
        return " ".join(out)

    def text(self, mean_words: int) -> str:
        total = max(20, int(self.rng.lognormvariate(0, 0.5) * mean_words))
        paragraphs = []
        while total > 0:
            size = min(total, self.rng.randint(25, 70))
            paragraphs.append(self.paragraph(size))
            total -= size
        return "\n\n".join(paragraphs)


def _edit(writer: _Writer, text: str, p: float) -> str:
    rng = writer.rng
    paragraphs = []
    for paragraph in text.split("\n\n"):
        out = []
        for word in paragraph.split(" "):
            roll = rng.random()
            if roll < p / 3:
                out.append(writer.words(1)[0])  # replaced
            elif roll < 2 * p / 3:
                continue  # deleted
            elif roll < p:
                out.extend([writer.words(1)[0], word])  # a word inserted before it
            else:
                out.append(word)
        paragraphs.append(" ".join(out) or writer.words(1)[0])
    return "\n\n".join(paragraphs)


def _respace(rng: random.Random, text: str) -> str:
    """The same text_hash: other case, other whitespace."""
    text = text.upper() if rng.random() < 0.5 else text.lower()
    return "  " + text.replace(" ", "  \t").replace("\n\n", "\n \n\n") + "\n"


def planted_corpus(
    originals: int,
    *,
    seed: int = 1,
    family_share: float = 0.35,
    max_copies: int = 4,
    mean_words: int = 250,
) -> list[Planted]:
    """``originals`` texts, ``family_share`` of them with 1 to ``max_copies`` copies."""
    rng = random.Random(seed)
    writer = _Writer(rng)
    boilerplate = [writer.paragraph(rng.randint(15, 40)) for _ in range(6)]
    docs: list[Planted] = []

    def add(text: str, family: int, kind: str) -> None:
        index = len(docs)
        date = EPOCH + datetime.timedelta(minutes=rng.randrange(100_000))
        docs.append(
            Planted(
                text,
                family,
                kind,
                f"https://site{index % 97}.example/page/{index}",
                None if rng.random() < 0.05 else date,
            )
        )

    for _ in range(originals):
        original = writer.text(mean_words)
        add(original, len(docs), "original")
        root = len(docs) - 1
        if rng.random() >= family_share:
            continue
        for _ in range(rng.randint(1, max_copies)):
            kinds = rng.sample(["edit", "reorder", "boilerplate", "exact"], k=rng.randint(1, 2))
            text, names = original, []
            if "exact" in kinds:
                text = original if rng.random() < 0.5 else _respace(rng, original)
                add(text, root, "exact")
                continue
            if "edit" in kinds:
                p = rng.uniform(0.01, 0.30)
                text = _edit(writer, text, p)
                names.append(f"edit{p:.2f}")
            if "reorder" in kinds:
                paragraphs = text.split("\n\n")
                rng.shuffle(paragraphs)
                text = "\n\n".join(paragraphs)
                names.append("reorder")
            if "boilerplate" in kinds:
                text = f"{rng.choice(boilerplate)}\n\n{text}\n\n{rng.choice(boilerplate)}"
                names.append("boilerplate")
            add(text, root, "+".join(names))
    return docs


def shingles(text: str, size: int = 5) -> frozenset[tuple[str, ...]]:
    """The exact shingle set: word ``size``-grams (the whole run when shorter)."""
    words = split(text)
    if not words:
        return frozenset()
    if len(words) < size:
        return frozenset([tuple(words)])
    return frozenset(tuple(words[i : i + size]) for i in range(len(words) - size + 1))


def jaccard_pairs(texts: list[str]) -> dict[tuple[int, int], float]:
    """``{(i, j): J}`` for every pair i < j of ``texts`` sharing at least one shingle."""
    sets = [shingles(text) for text in texts]
    index: dict[tuple[str, ...], list[int]] = defaultdict(list)
    for i, found in enumerate(sets):
        for shingle in found:
            index[shingle].append(i)
    pairs: set[tuple[int, int]] = set()
    for holders in index.values():
        if 1 < len(holders) <= 1000 or len(holders) > 1000:
            pairs.update(itertools.combinations(holders, 2))
    return {(i, j): len(sets[i] & sets[j]) / len(sets[i] | sets[j]) for i, j in sorted(pairs)}


@dataclass
class Scores:
    pairs_above: int  # pairs of brute-force Jaccard > 0.8
    recall_above: float  # ... of them in one cluster
    merged_below: int  # pairs of Jaccard < 0.5 in one cluster
    exact_pairs: int  # pairs with the same text_hash (non-empty text)
    exact_found: int  # ... of them in one cluster


def score(docs: list[Planted], hashes: list[str], rows: list[dict]) -> Scores:
    """Clusters as the job wrote them (``rows``: its duplicates, naming documents by URL)
    against the brute force."""
    index = {doc.url: i for i, doc in enumerate(docs)}
    cluster = list(range(len(docs)))
    for row in rows:
        cluster[index[row["url"]]] = index[row["kept_url"]]
    pairs = jaccard_pairs([doc.text for doc in docs])
    above = [pair for pair, j in pairs.items() if j > 0.8]
    found = sum(cluster[i] == cluster[j] for i, j in above)
    members: dict[int, list[int]] = defaultdict(list)
    for i, c in enumerate(cluster):
        members[c].append(i)
    merged_below = sum(
        pairs.get((i, j), 0.0) < 0.5
        for group in members.values()
        for i, j in itertools.combinations(sorted(group), 2)
    )
    by_hash: dict[str, list[int]] = defaultdict(list)
    for i, (doc, digest) in enumerate(zip(docs, hashes, strict=True)):
        if doc.text.strip():
            by_hash[digest].append(i)
    exact = [p for group in by_hash.values() for p in itertools.combinations(group, 2)]
    return Scores(
        pairs_above=len(above),
        recall_above=found / len(above) if above else 1.0,
        merged_below=merged_below,
        exact_pairs=len(exact),
        exact_found=sum(cluster[i] == cluster[j] for i, j in exact),
    )


def write_parquet(docs: list[Planted], folder: str, *, per_file: int = 500) -> list[str]:
    """The documents as the cleaning job's rows (``ROW_SCHEMA``, ``text_hash`` filled), in
    files of ``per_file`` rows under ``folder``; their paths."""
    import os

    import pyarrow as pa
    import pyarrow.parquet as pq

    from transforms.rows import ROW_SCHEMA
    from transforms.signals import row_signals

    os.makedirs(folder, exist_ok=True)
    empty = dict.fromkeys(ROW_SCHEMA.names)
    rows = [
        {
            **empty,
            "url": doc.url,
            "title": "",
            "text": doc.text,
            "source_file": f"crawl-{i // 1000:04d}.warc.gz",
            "record_id": f"<urn:uuid:{i:08d}>",
            "record_offset": i,
            "warc_date": doc.warc_date,
            "http_status": 200,
            "truncated": False,
            "language": doc.language,
            "language_score": 0.9,
            "comments": "",
            **row_signals(doc.text, doc.language, quality=False),
        }
        for i, doc in enumerate(docs)
    ]
    paths = []
    for start in range(0, len(rows), per_file):
        path = os.path.join(folder, f"part-{start // per_file:05d}.parquet")
        table = pa.Table.from_pylist(rows[start : start + per_file], schema=ROW_SCHEMA)
        pq.write_table(table, path, compression="zstd")
        paths.append(path)
    return paths
