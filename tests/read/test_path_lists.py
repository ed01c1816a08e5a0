"""Reading Common Crawl style path lists (``--input_list``)."""

import gzip

import pytest

from transforms.read.lists import join_prefix, listed_paths, read_path_list, stat_listed


def test_join_prefix():
    assert (
        join_prefix("s3://commoncrawl/", "crawl-data/a.warc.gz")
        == "s3://commoncrawl/crawl-data/a.warc.gz"
    )
    assert join_prefix("/mirror", "crawl-data/a.warc.gz") == "/mirror/crawl-data/a.warc.gz"
    assert join_prefix("/mirror/", "s3://other/a.warc.gz") == "s3://other/a.warc.gz"
    assert join_prefix("/mirror/", "/abs/a.warc.gz") == "/abs/a.warc.gz"
    assert join_prefix("", "rel/a.warc.gz") == "rel/a.warc.gz"


def test_lists_plain_and_gzip_deduplicated_in_first_listed_order(tmp_path):
    first = tmp_path / "warc.paths.gz"
    first.write_bytes(gzip.compress(b"b.warc.gz\r\na.warc.gz\n\n  # note\nb.warc.gz\n"))
    second = tmp_path / "more.txt"
    second.write_text("c.warc.gz\na.warc.gz\n")
    assert read_path_list(str(first)) == ["b.warc.gz", "a.warc.gz", "b.warc.gz"]
    assert listed_paths([str(first), str(second)], "/m") == [
        "/m/b.warc.gz",
        "/m/a.warc.gz",
        "/m/c.warc.gz",
    ]


def test_a_list_that_cannot_be_read_fails_the_launch(tmp_path):
    from beam_jobs.clean_html import JobFailed, run

    with pytest.raises(OSError):
        listed_paths([str(tmp_path / "nope.paths")])
    with pytest.raises(JobFailed, match="--input_list cannot be read"):
        run(["--input_list", str(tmp_path / "nope.paths"), "--output", str(tmp_path / "out")])


def test_stat_listed_gives_the_size_or_zero_for_a_missing_path(tmp_path):
    path = tmp_path / "x.warc.gz"
    path.write_bytes(b"12345")
    assert (stat_listed(str(path)).path, stat_listed(str(path)).size_in_bytes) == (str(path), 5)
    missing = stat_listed(str(tmp_path / "missing.warc.gz"))
    assert missing.size_in_bytes == 0 and missing.path.endswith("missing.warc.gz")
    # a listed path is a path, not a pattern
    assert stat_listed(str(tmp_path / "*.warc.gz")).size_in_bytes == 0
