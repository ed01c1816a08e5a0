"""The job over the real WARC and ARC files in ../shared/warc (skipped when absent).

Every file is read without failing the job, and every response and resource record that an
independent reader (warcio) finds in a file ends as a row or a reject of that file.
"""

from collections import Counter

from warcio.archiveiterator import ArchiveIterator

from tests.conftest import run_job

CANDIDATES = {"response", "resource"}


def candidates_by_warcio(path) -> int | None:
    """Response and resource records warcio reads before any error; None if it reads none."""
    found = 0
    try:
        with open(path, "rb") as f:
            for record in ArchiveIterator(f, arc2warc=True):
                found += record.rec_type in CANDIDATES
    except Exception:
        return found or None
    return found


def test_every_shared_file_is_read_and_every_document_accounted_for(shared_dir, tmp_path):
    files = sorted(p for p in (shared_dir / "warc").iterdir() if p.name != "README.md")
    out = tmp_path / "out"
    patterns = [
        arg
        for ext in ("warc", "gz", "arc")
        for arg in ("--input", str(shared_dir / "warc" / f"*.{ext}"))
    ]
    rows, rejects, summary = run_job([*patterns, "--output", str(out), "--max_reject_ratio", "1"])
    per_file = {entry["source_file"]: entry for entry in summary["files"]["per_file"]}
    assert set(per_file) == {str(p) for p in files}

    outcomes = Counter(row["source_file"] for row in rows) + Counter(
        rej["source_file"] for rej in rejects
    )
    for path in files:
        entry = per_file[str(path)]
        assert outcomes[str(path)] == entry["rows"] + entry["rejects"]
        expected = candidates_by_warcio(path)
        if expected is not None and not entry["damaged"]:
            assert entry["rows"] + entry["rejects"] >= expected, path.name
    assert summary["rows"] > 100
