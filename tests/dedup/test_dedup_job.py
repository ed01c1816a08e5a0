"""The dedup job end to end on a generated corpus with planted duplicates, checked against the
brute-force Jaccard similarity: the issue's targets, the summary, the kept copy, the corpus, and
the same output whatever the worker count or the way the inputs are given."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from beam_jobs.dedup import run
from benchmarks.dedup_corpus import Planted, planted_corpus, score, write_parquet
from transforms.dedup import DUPLICATE_SCHEMA
from transforms.rows import ROW_SCHEMA
from transforms.signals import text_hash

ORIGINALS = 300


def dedup(*args: str) -> tuple[dict, list[dict]]:
    argv = list(args)
    summary = run(argv)
    out = Path(argv[argv.index("--output") + 1])
    assert json.loads((out / "_SUMMARY.json").read_text()) == summary
    table = pq.read_table(out / "duplicates")
    assert table.schema.equals(DUPLICATE_SCHEMA, check_metadata=False)
    return summary, table.to_pylist()


def by_url(rows: list[dict]) -> list[dict]:
    return sorted(rows, key=lambda row: row["url"])


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    folder = tmp_path_factory.mktemp("planted")
    docs = planted_corpus(ORIGINALS, seed=21)
    # the first files as one run, the rest as another (two days of a crawl)
    paths = write_parquet(docs, str(folder / "in"), per_file=150)
    (folder / "day2").mkdir()
    for path in paths[2:]:
        Path(path).rename(folder / "day2" / Path(path).name)
    summary, rows = dedup(
        "--input", str(folder / "in" / "*.parquet"), "--input", str(folder / "day2"),
        "--output", str(folder / "out"), "--write_corpus",
    )  # fmt: skip
    return folder, docs, summary, rows


def test_planted_duplicates_against_the_brute_force(planted):
    _, docs, _, rows = planted
    scores = score(docs, [text_hash(doc.text) for doc in docs], rows)
    assert scores.pairs_above > 150
    assert scores.recall_above >= 0.95, scores
    assert scores.merged_below == 0, scores
    assert scores.exact_pairs > 50 and scores.exact_found == scores.exact_pairs, scores


def test_summary_accounts_for_every_document(planted):
    _, docs, summary, rows = planted
    assert summary["documents"] == len(docs) == summary["kept"] + summary["dropped"]
    assert summary["dropped"] == len(rows) == sum(summary["dropped_by_kind"].values())
    assert summary["dropped_by_kind"]["exact"] == sum(row["kind"] == "exact" for row in rows)
    assert summary["dropped_by_language"] == {"en": len(rows)}
    kept = {row["kept_url"] for row in rows}
    assert summary["clusters"] == len(kept)
    assert summary["documents_in_clusters"] == len(kept) + len(rows)
    assert summary["components_residual_edges"] == 0
    assert summary["inputs"]["files"] == 4 and summary["parameters"]["hashes"] == 256
    assert set(summary["shuffled_bytes"]) >= {"Exact", "Bands", "Verify", "Probe", "Clusters"}
    assert summary["shuffled_bytes_per_document"] > 0


def test_the_kept_copy_is_the_earliest_then_the_smallest_url(planted):
    _, docs, _, rows = planted
    info = {doc.url: doc for doc in docs}
    clusters: dict[str, list[str]] = defaultdict(list)
    for row in rows:
        clusters[row["kept_url"]].append(row["url"])
        assert row["kept_warc_date"] == info[row["kept_url"]].warc_date
        assert row["kind"] in ("exact", "near")
        if row["kind"] == "exact":
            assert row["similarity"] == 1.0
            assert row["text_hash"] == text_hash(info[row["kept_url"]].text)
        else:
            assert 0.0 <= row["similarity"] <= 1.0
    for kept, dropped in clusters.items():
        order = sorted(
            [kept, *dropped],
            key=lambda url: (info[url].warc_date is None, info[url].warc_date or 0, url),
        )
        assert order[0] == kept


def test_write_corpus_keeps_every_other_row_with_all_its_columns(planted):
    folder, docs, summary, rows = planted
    corpus = pq.read_table(folder / "out" / "data")
    assert corpus.schema.equals(ROW_SCHEMA, check_metadata=False)
    dropped = {row["url"] for row in rows}
    assert sorted(corpus.column("url").to_pylist()) == sorted(
        doc.url for doc in docs if doc.url not in dropped
    )
    assert corpus.num_rows == summary["kept"]
    given = {row["url"]: row for row in pq.read_table(folder / "in").to_pylist()}
    given.update({row["url"]: row for row in pq.read_table(folder / "day2").to_pylist()})
    for row in corpus.slice(0, 20).to_pylist():
        assert row == given[row["url"]]


def test_same_output_with_two_workers_and_one_input_folder(planted, tmp_path):
    folder, _, summary, rows = planted
    for path in (folder / "day2").iterdir():
        (tmp_path / "in").mkdir(exist_ok=True)
        (tmp_path / "in" / path.name).write_bytes(path.read_bytes())
    for path in (folder / "in").iterdir():
        (tmp_path / "in" / path.name).write_bytes(path.read_bytes())
    again, rows_again = dedup(
        "--input", str(tmp_path / "in"), "--output", str(tmp_path / "out"),
        "--runner", "FnApiRunner", "--direct_num_workers", "2",
        "--direct_running_mode", "multi_processing",
    )  # fmt: skip
    assert by_url(rows_again) == by_url(rows)
    for key in ("documents", "kept", "dropped", "dropped_by_kind", "clusters"):
        assert again[key] == summary[key]


def test_empty_texts_are_counted_never_clustered_and_kept(tmp_path):
    docs = planted_corpus(20, seed=4, family_share=1.0)
    blank = [Planted(text, -1, "empty", f"https://e.example/{i}", None) for i, text in
             enumerate(["", "   ", "\n\n", ""])]  # fmt: skip
    write_parquet(docs + blank, str(tmp_path / "in"))
    summary, rows = dedup(
        "--input", str(tmp_path / "in"), "--output", str(tmp_path / "out"), "--write_corpus"
    )
    assert summary["empty"] == 4 and summary["documents"] == len(docs) + 4
    assert summary["dropped"] > 0
    assert not {row["url"] for row in rows} & {doc.url for doc in blank}
    corpus = set(pq.read_table(tmp_path / "out" / "data").column("url").to_pylist())
    assert {doc.url for doc in blank} <= corpus


def test_a_second_run_replaces_the_first_output(tmp_path):
    write_parquet(planted_corpus(10, seed=6, family_share=1.0), str(tmp_path / "in"))
    out = tmp_path / "out"
    args = ["--input", str(tmp_path / "in"), "--output", str(out)]
    dedup(*args, "--write_corpus")
    assert (out / "data").is_dir()
    dedup(*args)  # without --write_corpus: no stale corpus left behind
    assert not (out / "data").exists()


def test_rows_without_a_text_hash_are_not_one_exact_group(tmp_path):
    docs = planted_corpus(12, seed=8, family_share=0.0)  # no duplicates at all
    write_parquet(docs, str(tmp_path / "in"))
    path = next((tmp_path / "in").iterdir())
    table = pq.read_table(path)
    index = table.schema.get_field_index("text_hash")
    pq.write_table(
        table.set_column(index, "text_hash", pa.nulls(table.num_rows, pa.string())), path
    )
    summary, rows = dedup("--input", str(tmp_path / "in"), "--output", str(tmp_path / "out"))
    assert summary["dropped"] == 0 and rows == []
