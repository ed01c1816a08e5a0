"""Dedup: exact and near duplicates across the cleaning job's Parquet output, as clusters.

``inputs`` (checking and reading the Parquet shards by column projection), ``minhash``
(signatures, LSH bands, the S-curve; no Beam), ``components`` (connected components in a fixed
number of rounds), ``pipeline`` (``FindDuplicates``, the stages) and ``output`` (the duplicates
schema, the summary, the corpus of kept rows). ``beam_jobs/dedup.py`` is the job around them.
"""

from transforms.dedup.components import ConnectedComponents, UnionFind
from transforms.dedup.inputs import (
    DOCUMENT_COLUMNS,
    Document,
    InputError,
    ReadDocuments,
    RowGroup,
    match_inputs,
    plan_inputs,
)
from transforms.dedup.minhash import MinHashParams, edge_probability, signature, similarity
from transforms.dedup.output import (
    DEDUP_SHARDS,
    DUPLICATE_SCHEMA,
    Summarize,
    WriteCorpus,
    WriteDedupSummary,
)
from transforms.dedup.pipeline import FindDuplicates, keeper_key

__all__ = [
    "DEDUP_SHARDS",
    "DOCUMENT_COLUMNS",
    "DUPLICATE_SCHEMA",
    "ConnectedComponents",
    "Document",
    "FindDuplicates",
    "InputError",
    "MinHashParams",
    "ReadDocuments",
    "RowGroup",
    "Summarize",
    "UnionFind",
    "WriteCorpus",
    "WriteDedupSummary",
    "edge_probability",
    "keeper_key",
    "match_inputs",
    "plan_inputs",
    "signature",
    "similarity",
]
