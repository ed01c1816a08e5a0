"""The malformed-input corpus (``tests/malformed.py``) through the whole job: every case ends as
a counted reject or a partial read, never a crash, and the summary accounts for every record;
bad flags and odd output paths end with one clear line before any work, or with the output."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pandas
import pyarrow.parquet as pq
import pytest

from beam_jobs.clean_html import main
from tests.builders import WarcEntry, http_response, page, write_warc
from tests.conftest import run_job
from tests.fake_extractors import CRASH_MARKER, HANG_MARKER, RAISE_MARKER, MisbehavingExtractor
from tests.malformed import (
    BAD_FLAGS,
    CJK_CASES,
    CORPUS_PATTERNS,
    DANGLING_LINK,
    HELP_MUST_LIST,
    MEMORY_CAP_MB,
    ODD_OUTPUT_NAMES,
    ROW,
    SHOWN_NAMES,
    SPECIAL_FILES,
    TEXT_SAFETY_CASES,
    build_corpus,
    html_cases,
    raw_warc,
)
from transforms import reasons
from transforms.write import SUMMARY_FILE

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def corpus_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("malformed")
    expected = build_corpus(root / "in")
    inputs = [arg for pattern in CORPUS_PATTERNS for arg in ("--input", str(root / "in" / pattern))]
    rows, rejects, summary = run_job(
        [*inputs, "--output", str(root / "out"), "--max_reject_ratio", "1"]
        + ["--extract_memory_mb", str(MEMORY_CAP_MB)]
    )
    return root / "in", expected, rows, rejects, summary


def _strings(value) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(key)
            yield from _strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)


def test_every_string_is_valid_utf8_and_every_shard_reads_back_everywhere(corpus_run):
    """Whatever bytes the names, headers and paths held: strict UTF-8 in the Parquet columns
    and the summary, and every shard readable by pyarrow (to Python), pandas and DuckDB."""
    folder, _, rows, rejects, summary = corpus_run
    out = folder.parent / "out"
    shards = sorted((out / "data").glob("*.parquet")) + sorted((out / "rejects").glob("*.parquet"))
    assert shards
    for shard in shards:
        table = pq.read_table(shard)
        as_python = table.to_pylist()
        assert len(pandas.read_parquet(shard)) == len(as_python)
        with duckdb.connect() as db:
            fetched = db.execute("SELECT * FROM read_parquet(?)", [str(shard)]).fetchall()
        assert len(fetched) == len(as_python)
        for value in _strings([list(row.values()) for row in as_python]):
            value.encode("utf-8")
    raw = (out / SUMMARY_FILE).read_bytes().decode("utf-8")
    for value in _strings(json.loads(raw)):
        value.encode("utf-8")
    shown = {_shown(e["source_file"], folder) for e in summary["files"]["per_file"]}
    assert "caf\ufffd-name.warc.gz" in shown


def _shown(source_file: str, folder: Path) -> str:
    """A file's name in the corpus: its path in the corpus folder (``a-folder/f.warc.gz``,
    ``warcs.tar!/b.warc`` for an archive inside a tar)."""
    return source_file.removeprefix(f"{folder}/")


def _outcomes(rows, rejects, name: str, folder: Path) -> dict[str, str]:
    """URL -> outcome of every document of the input file ``name`` (URLs are unique in a file)."""
    mine = lambda d: _shown(d["source_file"], folder) == name  # noqa: E731
    outcomes = {row["url"]: ROW for row in rows if mine(row)}
    outcomes.update({rej["url"]: rej["reason"] for rej in rejects if mine(rej)})
    assert len(outcomes) == sum(map(mine, rows)) + sum(map(mine, rejects))
    return outcomes


def test_every_file_of_the_corpus_is_in_the_summary(corpus_run):
    folder, expected, _, _, summary = corpus_run
    per_file = {_shown(e["source_file"], folder): e for e in summary["files"]["per_file"]}
    assert set(per_file) == set(expected)
    assert summary["files"]["count"] == len(expected)


@pytest.mark.parametrize(
    "name",
    [*sorted(SHOWN_NAMES), DANGLING_LINK, "http.warc.gz", "html.warc.gz", *sorted(SPECIAL_FILES)],
)
def test_each_file_ends_as_documented(corpus_run, name):
    _check_file_outcome(corpus_run, name)


def test_each_archive_inside_a_tar_ends_as_documented(corpus_run):
    """Archives inside a tar are files of their own in the summary (``TAR!/MEMBER``)."""
    _, expected, *_ = corpus_run
    nested = sorted(name for name in expected if "!/" in name)
    assert len(nested) == 7, nested
    for name in nested:
        _check_file_outcome(corpus_run, name)


def _check_file_outcome(corpus_run, name: str) -> None:
    folder, expected, rows, rejects, summary = corpus_run
    entries = summary["files"]["per_file"]
    entry = next(e for e in entries if _shown(e["source_file"], folder) == name)
    want = expected[name]
    assert entry["damaged"] == want.damaged, entry
    if want.damaged:
        assert entry["stopped_at"] is not None and entry["error"]
    if want.error:
        assert want.error in entry["error"], entry["error"]
    if want.documents is not None:
        assert entry["rows"] + entry["rejects"] == want.documents, entry
    outcomes = _outcomes(rows, rejects, name, folder)
    assert {url: outcomes.get(url) for url in want.outcomes} == want.outcomes, name


def test_unreadable_files_are_one_reject_each_with_the_error(corpus_run):
    folder, expected, _, rejects, summary = corpus_run
    unreadable = [rej for rej in rejects if rej["reason"] == reasons.UNREADABLE_FILE]
    names = {_shown(rej["source_file"], folder) for rej in unreadable}
    assert names == {
        "empty.warc.gz",
        "endless-header.warc.gz",
        "png.warc.gz",
        "readme.warc",
        DANGLING_LINK,
        "a-fifo",
        *SPECIAL_FILES,
        "damaged-members.tar!/garbage.warc.gz",
        "tar-of-tars.tar!/inner.tar",  # the tar inside it, two levels deep
    }
    assert all(rej["detail"] for rej in unreadable)


def test_corpus_totals(corpus_run):
    _, expected, rows, rejects, summary = corpus_run
    known = sum(e.documents for e in expected.values() if e.documents is not None)
    assert summary["documents"] >= known
    by_reason = Counter(rej["reason"] for rej in rejects)
    # the three bombs, the 50 MB page and the page past the memory cap
    assert by_reason[reasons.TOO_LARGE] == 5
    truncated = {row["url"] for row in rows if row["truncated"]}
    assert {"https://cutbody.example/2", "b.html"} <= truncated
    assert not by_reason[reasons.TIMEOUT] and not by_reason[reasons.EXTRACT_ERROR]


def test_pathological_pages_are_rows_with_text(corpus_run):
    _, _, rows, _, _ = corpus_run
    by_url = {row["url"]: row for row in rows}
    deep = by_url["https://html.example/nesting-100000"]
    assert deep["text"] == "deep text at the bottom" and deep["truncated"]  # flattened
    one_line = by_url["https://html.example/one-line-5mb"]
    # Over the extractor's 5M-character cap: kept up to the cap, and flagged.
    assert one_line["truncated"] and one_line["text"].count("word999") > 600
    assert by_url["https://html.example/utf16-with-bom"]["charset"].startswith("utf-16")
    assert "français" in by_url["https://html.example/utf16-with-bom"]["text"]
    assert "sans marque" in by_url["https://html.example/utf16-without-bom"]["text"]
    assert "Café crème" in by_url["https://html.example/lying-meta-charset"]["text"]
    assert "\x00" not in by_url["https://html.example/nul-bytes"]["text"]
    for filler in ("script", "comment", "whitespace"):
        row = by_url[f"https://html.example/{filler}-6mb-before-the-text"]
        assert "Paragraph 2 of textless filler" in row["text"] and not row["truncated"]


@pytest.mark.parametrize("case", sorted(CJK_CASES))
def test_pages_in_older_cjk_encodings_are_rows_in_their_script(corpus_run, case):
    """ISO-2022-JP without a label, EUC-JP labelled Shift_JIS, CJK-heavy UTF-16 without a BOM,
    hz-gb-2312 and iso-2022-kr: each a row with its text, not escapes or mojibake."""
    _, _, rows, _, _ = corpus_run
    row = next(row for row in rows if row["url"] == f"https://html.example/{case}")
    text, charset = CJK_CASES[case]
    assert row["charset"] == charset
    assert text.split("。")[0].split(".")[0] in row["text"]


# What no row may hold (``transforms.extract.characters``): controls but tab and newline,
# soft hyphens, zero-width spaces, bidi embeddings/overrides/isolates, noncharacters (the
# extractor's markers among them) and tag characters outside an emoji flag.
UNWANTED = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\xad\u200b\u202a-\u202e\u2060\u2066-\u2069\ufdd0-\ufdef"
    "\ufeff\ufffe\uffff\U000e0000-\U000e007f\U0010fffe\U0010ffff]"
)


def test_rows_hold_no_character_no_reader_wants(corpus_run):
    """Soft hyphens and zero-width spaces inside words, bidi overrides, tag characters,
    noncharacters, controls in ASCII lines and the page's own layout markers: none is in any
    row's title, text or comments; what they were inside reads whole."""
    _, _, rows, _, _ = corpus_run
    for row in rows:
        for column in ("title", "text", "comments"):
            assert not UNWANTED.search(row[column]), (row["url"], column, row[column][:200])
    by_url = {row["url"]: row for row in rows}
    row = by_url["https://html.example/invisible-characters"]
    for words in ("Donaudampf", "Kraftfahrzeug", "usergnp.exe", "tags", "nonchar", "abc"):
        assert words in row["text"] and words in row["title"], words
    assert "wave\u200d\U0001f44b" in row["text"]  # a joiner before an emoji stays
    controls = by_url["https://html.example/ascii-controls"]
    assert (controls["title"], controls["text"]) == ("Bell title red", "A bell and bold text.")


def test_markdown_links_of_the_corpus_render_no_script(tmp_path):
    """The text-safety pages of the corpus through the job with ``--format markdown
    --markdown_links``: rows (an unparsable URL is no ``extract_error``), and no link a
    CommonMark renderer writes has a scheme outside http, https, mailto and ftp."""
    from markdown_it import MarkdownIt

    cases = {name: case for name, case in html_cases().items() if name in TEXT_SAFETY_CASES}
    crawl = tmp_path / "crawl"
    crawl.mkdir()
    (crawl / "safety.warc.gz").write_bytes(
        raw_warc(
            [
                (
                    f"https://html.example/{name}",
                    http_response(body, headers=[("Content-Type", ct)]),
                )
                for name, (body, ct, _) in cases.items()
            ]
        )
    )
    rows, rejects, _ = run_job(
        ["--input", str(crawl / "*"), "--output", str(tmp_path / "out"), "--format", "markdown"]
        + ["--markdown_links", "--extract_guard", "none"]
    )
    assert not rejects and len(rows) == len(cases)
    renderer = MarkdownIt("commonmark")
    renderer.validateLink = lambda url: True  # judge the job's output, not the renderer's filter
    hrefs = []
    for row in rows:
        for token in renderer.parse(row["text"]):
            hrefs += [c.attrs["href"] for c in token.children or [] if c.type == "link_open"]
    assert hrefs == ["https://base.example/root/relative/page.html"]
    by_url = {row["url"]: row["text"] for row in rows}
    assert all(f"item {i}" in by_url["https://html.example/script-links"] for i in range(9))
    assert "broken and more words" in by_url["https://html.example/unparsable-link"]


def test_files_matched_by_several_patterns_are_read_once(corpus_run):
    """``*`` and ``*.tar`` both match the tar files, ``*`` and the literal name ``page[1]...``
    the same WARC: no row is doubled (the per-file document counts are checked above)."""
    _, _, rows, rejects, _ = corpus_run
    keys = [(d["source_file"], d["record_id"], d["record_offset"]) for d in rows + rejects]
    assert len(keys) == len(set(keys))
    literal = [row for row in rows if row["source_file"].endswith("/page[1].warc.gz")]
    assert len(literal) == 3


def test_dates_that_are_not_real_instants_in_years_1_to_9999_are_null(corpus_run):
    """Malformed ARC dates are not padded into invented instants; WARC dates whose UTC instant
    falls outside years 1-9999 are null (the shards' readability is checked by the sweep)."""
    _, _, rows, _, _ = corpus_run
    dates = {row["url"]: row["warc_date"] for row in rows}
    for prefix in ("warcdate", "arcdate"):
        got = [dates[f"https://{prefix}.example/{i}"] for i in range(4)]
        assert got[:3] == [None, None, None], got
        assert got[3].isoformat() in ("2026-01-02T03:04:05+00:00",), got


def misbehaving_crawl(folder: Path) -> Path:
    folder.mkdir()
    bodies = {
        "good-1": page("Good one", "A page that extracts fine."),
        "crash": page("Crash", f"This page makes the extractor segfault: {CRASH_MARKER}."),
        "good-2": page("Good two", "Another page that extracts fine."),
        "hang": page("Hang", f"This page makes the extractor hang: {HANG_MARKER}."),
        "raise": page("Raise", f"This page makes the extractor raise: {RAISE_MARKER}."),
        "good-3": page("Good three", "The last page, after all the trouble."),
    }
    write_warc(
        folder / "trouble.warc.gz",
        [
            WarcEntry("response", f"https://t.example/{name}", http_response(body.encode()))
            for name, body in bodies.items()
        ],
    )
    return folder


def test_crash_and_hang_in_the_extractor_become_rejects_and_the_job_goes_on(tmp_path):
    crawl = misbehaving_crawl(tmp_path / "crawl")
    rows, rejects, summary = run_job(
        ["--input", str(crawl / "*"), "--output", str(tmp_path / "out")]
        + ["--extract_timeout_s", "2", "--max_reject_ratio", "1"],
        extractor_factory=MisbehavingExtractor,
    )
    assert sorted(row["url"] for row in rows) == [
        "https://t.example/good-1",
        "https://t.example/good-2",
        "https://t.example/good-3",
    ]
    by_url = {rej["url"]: rej for rej in rejects}
    assert by_url["https://t.example/crash"]["reason"] == reasons.EXTRACT_ERROR
    assert "SIGSEGV" in by_url["https://t.example/crash"]["detail"]
    assert by_url["https://t.example/hang"]["reason"] == reasons.TIMEOUT
    assert by_url["https://t.example/raise"]["reason"] == reasons.EXTRACT_ERROR
    assert "the extractor raised" in by_url["https://t.example/raise"]["detail"]
    assert summary["rejects_by_reason"] == {reasons.EXTRACT_ERROR: 2, reasons.TIMEOUT: 1}


def test_without_the_guard_an_extractor_exception_is_still_a_reject(tmp_path):
    crawl = tmp_path / "crawl"
    crawl.mkdir()
    write_warc(
        crawl / "c.warc.gz",
        [
            WarcEntry(
                "response", "https://t.example/ok", http_response(page("Ok", "Fine.").encode())
            ),
            WarcEntry(
                "response",
                "https://t.example/raise",
                http_response(page("Raise", RAISE_MARKER).encode()),
            ),
        ],
    )
    rows, rejects, _ = run_job(
        ["--input", str(crawl / "*"), "--output", str(tmp_path / "out")]
        + ["--extract_guard", "none", "--max_reject_ratio", "1"],
        extractor_factory=MisbehavingExtractor,
    )
    assert [row["url"] for row in rows] == ["https://t.example/ok"]
    assert [(rej["url"], rej["reason"]) for rej in rejects] == [
        ("https://t.example/raise", reasons.EXTRACT_ERROR)
    ]


def one_page_crawl(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    body = page("Odd flags", "A page that is kept whatever the output is called.").encode()
    write_warc(
        folder / "one.warc.gz", [WarcEntry("response", "https://f.example/", http_response(body))]
    )
    return folder


def run_main(monkeypatch, capsys, argv: list[str]) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "argv", ["clean_html", *argv])
    code = main()
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("case", sorted(BAD_FLAGS))
def test_bad_flags_exit_2_with_one_line_before_any_work(tmp_path, monkeypatch, capsys, case):
    flags, message = BAD_FLAGS[case]
    crawl = one_page_crawl(tmp_path / "crawl")
    out = tmp_path / "out"
    code, _, err = run_main(
        monkeypatch, capsys, ["--input", str(crawl / "*"), "--output", str(out), *flags]
    )
    assert code == 2
    lines = [line for line in err.splitlines() if line.startswith("clean_html")]
    assert len(lines) == 1 and message in lines[0], err
    assert not out.exists()  # refused before any work


def test_output_that_is_an_existing_file_is_refused_before_any_work(tmp_path, monkeypatch, capsys):
    crawl = one_page_crawl(tmp_path / "crawl")
    out = tmp_path / "results.parquet"
    out.write_bytes(b"someone's file")
    code, _, err = run_main(
        monkeypatch, capsys, ["--input", str(crawl / "*"), "--output", str(out)]
    )
    assert code == 2 and "is an existing file, not a folder" in err
    assert out.read_bytes() == b"someone's file"


@pytest.mark.parametrize("name", ODD_OUTPUT_NAMES)
def test_output_path_with_wildcard_characters_is_written_and_rewritten(tmp_path, name):
    crawl = one_page_crawl(tmp_path / "crawl")
    out = tmp_path / name
    # what a failed run left behind
    leftover = out / "data" / f".temp-{'0' * 32}" / f"{'1' * 32}-00000.parquet"
    leftover.parent.mkdir(parents=True)
    leftover.write_bytes(b"half a shard")
    argv = ["--input", str(crawl / "*"), "--output", str(out), "--extract_guard", "none"]
    for _ in range(2):  # a re-run into the same folder clears the first run's output
        rows, _, summary = run_job(argv)
        assert [row["url"] for row in rows] == ["https://f.example/"]
        assert sorted(p.name for p in out.iterdir()) == ["_SUMMARY.json", "data", "rejects"]
        assert not [p for p in out.rglob(".temp-*")]


def test_help_lists_the_jobs_flags_with_defaults_and_points_to_beams_options():
    done = subprocess.run(
        [sys.executable, "-m", "beam_jobs.clean_html", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    for flag in HELP_MUST_LIST:
        assert flag in done.stdout
    assert "(default: 0.8)" in done.stdout and "(default: main)" in done.stdout
    assert "--help_beam" in done.stdout


def test_help_beam_lists_beams_own_options(monkeypatch, capsys):
    code, out, _ = run_main(monkeypatch, capsys, ["--help_beam"])
    assert code == 0 and "--runner" in out and "--max_reject_ratio" in out


def test_the_driver_counts_each_file_once_and_says_why(tmp_path, caplog):
    """What the log says for the input classes of the corpus: files matched by several
    patterns (read once), a literal name that is no pattern's match, a dangling link."""
    from beam_jobs.clean_html import _check_inputs

    crawl = one_page_crawl(tmp_path / "in")
    (crawl / "page[1].warc.gz").write_bytes((crawl / "one.warc.gz").read_bytes())
    (crawl / "gone.warc.gz").symlink_to(crawl / "deleted.warc.gz")
    patterns = [str(crawl / "*"), str(crawl / "one*"), str(crawl / "page[1].warc.gz")]
    with caplog.at_level("INFO", logger="clean_html"):
        files, size = _check_inputs(patterns)
    assert files == 3  # one.warc.gz, page[1].warc.gz and the dangling link, each once
    assert size == 2 * (crawl / "one.warc.gz").stat().st_size
    assert "2 files matched by more than one --input pattern are read once" in caplog.text
    assert "read as a file of that name" in caplog.text
