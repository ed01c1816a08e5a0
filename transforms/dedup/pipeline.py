"""``FindDuplicates``: documents in; the duplicate rows, the ids dropped and the counts out.

The stages, each one or two ``GroupByKey``s (the README draws them with their shuffle bytes):

1. **Sketch** (no shuffle): per document, its words (``transforms.signals.words``), MinHash
   signature and band keys (``minhash``). A document whose text is empty or blank is counted
   and goes no further: it is neither clustered nor dropped.
2. **Exact**: documents grouped by ``text_hash``; each group's members are joined to its
   smallest id by an *exact* edge.
3. **Bands**: documents grouped by band key; a bucket's members become candidate pairs (all
   pairs in a bucket of up to ``BUCKET_PAIRS_UP_TO`` documents, each member to the smallest id
   in a larger one: a large bucket is a large cluster, whose star is enough).
4. **Verify**: two joins on the document id bring both signatures of a candidate pair together;
   the pair becomes a *near* edge when they agree on at least ``threshold`` of their values.
   The first join also sets aside what the last stage needs of every document on an edge.
5. **Components** (``components``): the clusters are the connected components of the exact and
   near edges.
6. **Clusters**: each cluster's documents meet under its label; the one kept is the first by
   ``keeper_key`` (the earliest ``warc_date``, a null date last, then the smallest URL, then
   the input file and row: an order on the data, so the same whatever the runner or the worker
   count). Every other member becomes a duplicates row naming it, with ``exact`` when its
   ``text_hash`` is the kept one's, else ``near``, and the similarity of the two signatures.

Every ``GroupByKey`` input is measured (``Measured``): the encoded size of its elements, summed
per stage into the summary, so that ``_SUMMARY.json`` says what the run shuffled.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator
from typing import Any

import apache_beam as beam
from apache_beam.coders import FastPrimitivesCoder
from apache_beam.metrics import Metrics
from apache_beam.transforms.window import GlobalWindows

from transforms.dedup.components import ConnectedComponents
from transforms.dedup.inputs import Document
from transforms.dedup.minhash import MinHashParams, band_keys, compact, signature, similarity
from transforms.signals import split_words, text_hash
from transforms.signals.words import normalise

__all__ = [
    "BUCKET_PAIRS_UP_TO",
    "EVENTS_TAG",
    "FindDuplicates",
    "keeper_key",
    "measured",
]

BUCKET_PAIRS_UP_TO = 16
EVENTS_TAG = "events"
NAMESPACE = "dedup"

# What the last stage knows of a document on an edge (a "node"): (warc_date µs or None, url,
# source_file, record_id, language, text_hash's 16 bytes, minhash.compact signature)
_DATE, _URL, _SOURCE, _RECORD, _LANGUAGE, _HASH, _SIGNATURE = range(7)


def keeper_key(doc_id: int, node: tuple) -> tuple:
    """The order in which a cluster's documents are preferred: the first one is kept."""
    date = node[_DATE]
    return (date is None, date or 0, node[_URL], doc_id)


class _MeasureFn(beam.DoFn):
    """Passes elements through; adds up their encoded size, given out per bundle."""

    def __init__(self, stage: str):
        self._stage = stage
        self._coder = FastPrimitivesCoder()

    def start_bundle(self):
        self._bytes = 0

    def process(self, element):
        self._bytes += len(self._coder.encode(element))
        yield element

    def finish_bundle(self):
        if self._bytes:
            yield beam.pvalue.TaggedOutput(
                EVENTS_TAG, GlobalWindows.windowed_value(("shuffled", self._stage, self._bytes))
            )


def _digest(doc: Document) -> bytes:
    """The row's ``text_hash`` as 16 bytes; computed from the text when the row has none (a
    null hash must not make all such rows one exact group)."""
    try:
        digest = bytes.fromhex(doc.text_hash)
    except ValueError:
        digest = b""
    return digest if len(digest) == 16 else bytes.fromhex(text_hash(doc.text))


class _SketchFn(beam.DoFn):
    def __init__(self, params: MinHashParams):
        self._params = params
        self._documents = Metrics.counter(NAMESPACE, "documents")
        self._empty = Metrics.counter(NAMESPACE, "empty")

    def process(self, doc: Document):
        self._documents.inc()
        if not doc.text.strip():
            self._empty.inc()
            yield beam.pvalue.TaggedOutput(EVENTS_TAG, ("empty", doc.language))
            return
        yield beam.pvalue.TaggedOutput(EVENTS_TAG, ("document", doc.language))
        sig = signature(split_words(normalise(doc.text)), self._params)
        digest = _digest(doc)
        node = (doc.warc_date, doc.url, doc.source_file, doc.record_id, doc.language, digest,
                b"" if sig is None else compact(sig))  # fmt: skip
        yield beam.pvalue.TaggedOutput("nodes", (doc.id, ("node", node)))
        yield beam.pvalue.TaggedOutput("hashes", (digest, doc.id))
        if sig is not None:
            for key in band_keys(sig, self._params):
                yield beam.pvalue.TaggedOutput("bands", (key, doc.id))


def measured(pcoll, stage: str):
    """``(pcoll passed through, its ("shuffled", stage, bytes) events)``: to put before a
    ``GroupByKey`` whose input size the summary reports."""
    out = pcoll | f"Measure{stage}" >> beam.ParDo(_MeasureFn(stage)).with_outputs(
        EVENTS_TAG, main="out"
    )
    return out.out, out[EVENTS_TAG]


def _exact_edges(item: tuple[bytes, Iterable[int]]) -> Iterator[tuple[int, int]]:
    ids = sorted(set(item[1]))
    for other in ids[1:]:
        yield ids[0], other


def _candidate_pairs(item: tuple[int, Iterable[int]]) -> Iterator[tuple[int, int]]:
    ids = sorted(set(item[1]))
    if len(ids) <= BUCKET_PAIRS_UP_TO:
        yield from itertools.combinations(ids, 2)
    else:
        for other in ids[1:]:
            yield ids[0], other


def _mark_edges(edge: tuple[int, int], kind: str) -> Iterator[tuple[int, tuple[str, int]]]:
    a, b = edge
    if kind == "candidate":
        yield a, ("out", b)
        yield b, ("in", a)
    else:
        yield a, ("exact", b)
        yield b, ("exact", a)


def _first_join(item):
    """At a document: send its signature to the larger end of each candidate pair it starts
    (a probe), keep it for the probes it will receive, and set it aside for the clusters."""
    doc_id, values = item
    node, outs, has_in, on_edge = None, set(), False, False
    for kind, value in values:
        if kind == "node":
            node = value
        elif kind == "out":
            outs.add(value)
        elif kind == "in":
            has_in = True
        else:
            on_edge = True
    if node is None:
        return
    if outs or has_in or on_edge:
        yield beam.pvalue.TaggedOutput("members", (doc_id, ("node", node)))
    for other in outs:
        yield beam.pvalue.TaggedOutput("probes", (other, ("probe", (doc_id, node[_SIGNATURE]))))
    if has_in:
        yield beam.pvalue.TaggedOutput("probes", (doc_id, ("own", node[_SIGNATURE])))


def _second_join(item, threshold: float) -> Iterator[tuple[int, int]]:
    """At the larger end of candidate pairs: the pairs whose signatures agree enough."""
    doc_id, values = item
    own, probes = None, []
    for kind, value in values:
        if kind == "own":
            own = value
        else:
            probes.append(value)
    if not own:
        return
    for other, sig in probes:
        if sig and similarity(own, sig) >= threshold:
            yield other, doc_id


def _to_cluster(item):
    doc_id, values = item
    node, label = None, None
    for kind, value in values:
        if kind == "node":
            node = value
        else:
            label = value
    if node is not None and label is not None:
        yield label, (doc_id, node)


def _duplicate_rows(item) -> Iterator[Any]:
    """One cluster in: a row per document not kept, and the cluster's counts."""
    _, members = item
    members = list(members)
    kept_id, kept = min(members, key=lambda m: keeper_key(*m))
    size = len(members)
    yield beam.pvalue.TaggedOutput(EVENTS_TAG, ("cluster", size))
    for doc_id, node in members:
        if doc_id == kept_id:
            continue
        exact = node[_HASH] == kept[_HASH]
        kind = "exact" if exact else "near"
        yield beam.pvalue.TaggedOutput(EVENTS_TAG, ("dropped", kind, node[_LANGUAGE]))
        yield beam.pvalue.TaggedOutput("dropped_ids", doc_id)
        yield {
            "url": node[_URL],
            "source_file": node[_SOURCE],
            "record_id": node[_RECORD],
            "warc_date": node[_DATE],
            "language": node[_LANGUAGE],
            "text_hash": node[_HASH].hex(),  # the row's, or computed when it had none
            "kind": kind,
            "similarity": 1.0 if exact else similarity(node[_SIGNATURE], kept[_SIGNATURE]),
            "cluster_size": size,
            "kept_url": kept[_URL],
            "kept_source_file": kept[_SOURCE],
            "kept_record_id": kept[_RECORD],
            "kept_warc_date": kept[_DATE],
        }


class FindDuplicates(beam.PTransform):
    """``Document``s in. Out, a dict of PCollections: ``rows`` (dicts of
    ``output.DUPLICATE_SCHEMA``, a row per document dropped), ``dropped_ids`` and ``events``
    (the counts the summary folds: documents, empty, clusters, dropped, shuffled bytes)."""

    def __init__(self, params: MinHashParams | None = None, rounds: int = 6):
        super().__init__()
        self._params = params or MinHashParams()
        self._rounds = rounds

    def _measured(self, pcoll, stage: str):
        out, events = measured(pcoll, stage)
        self._events.append(events)
        return out

    def expand(self, documents):
        self._events: list = []
        sketched = documents | "Sketch" >> beam.ParDo(_SketchFn(self._params)).with_outputs(
            EVENTS_TAG, "nodes", "hashes", "bands"
        )
        self._events.append(sketched[EVENTS_TAG])
        exact = (
            self._measured(sketched.hashes, "Exact")
            | "GroupByTextHash" >> beam.GroupByKey()
            | "ExactEdges" >> beam.FlatMap(_exact_edges)
        )
        candidates = (
            self._measured(sketched.bands, "Bands")
            | "GroupByBand" >> beam.GroupByKey()
            | "CandidatePairs" >> beam.FlatMap(_candidate_pairs)
        )
        first = (
            sketched.nodes,
            candidates | "MarkCandidates" >> beam.FlatMap(_mark_edges, "candidate"),
            exact | "MarkExact" >> beam.FlatMap(_mark_edges, "exact"),
        ) | "JoinInputs" >> beam.Flatten()
        joined = (
            self._measured(first, "Verify")
            | "GroupByDocument" >> beam.GroupByKey()
            | "SendSignatures" >> beam.FlatMap(_first_join).with_outputs("members", "probes")
        )
        near = (
            self._measured(joined.probes, "Probe")
            | "GroupByLargerEnd" >> beam.GroupByKey()
            | "CompareSignatures" >> beam.FlatMap(_second_join, self._params.threshold)
        )
        edges = (exact, near) | "AllEdges" >> beam.Flatten()
        components = ConnectedComponents(self._rounds, measure=self._measured)
        labels = edges | "Components" >> components
        self._events.append(
            components.residual_edges | "ResidueEvent" >> beam.Map(lambda n: ("residue", n))
        )
        clusters = (
            joined.members,
            labels | "TagLabels" >> beam.Map(lambda kv: (kv[0], ("label", kv[1]))),
        ) | "MembersAndLabels" >> beam.Flatten()
        rows = (
            self._measured(clusters, "Members")
            | "GroupMembers" >> beam.GroupByKey()
            | "ToCluster" >> beam.FlatMap(_to_cluster)
        )
        out = (
            self._measured(rows, "Clusters")
            | "GroupByCluster" >> beam.GroupByKey()
            | "DuplicateRows"
            >> beam.FlatMap(_duplicate_rows).with_outputs(EVENTS_TAG, "dropped_ids", main="rows")
        )
        self._events.append(out[EVENTS_TAG])
        events = tuple(self._events) | "AllEvents" >> beam.Flatten()
        return {"rows": out.rows, "dropped_ids": out.dropped_ids, "events": events}
