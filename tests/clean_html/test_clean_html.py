from types import SimpleNamespace

import apache_beam as beam
import pytest
from apache_beam.testing.test_pipeline import TestPipeline
from apache_beam.testing.util import assert_that, equal_to

from tests.builders import http_response, page
from tests.conftest import beam_counters, check_counters
from transforms import reasons
from transforms.clean_html import CleanHtml, clean_record
from transforms.extract import Extractor
from transforms.records import ArchiveRecord

HTML = page(
    "Otters return to the river", "Otters were seen near the mill for the first time in years."
)


def response(body: bytes = HTML.encode(), **kwargs) -> ArchiveRecord:
    return ArchiveRecord(
        source_file="crawl.warc.gz",
        record_id="<urn:uuid:1>",
        record_type="response",
        offset=10,
        url="https://a.example/otters",
        payload=http_response(body, **kwargs),
        is_http=True,
    )


@pytest.fixture(scope="module")
def extractor():
    return Extractor()


def test_clean_record_keeps_a_page_with_provenance(extractor):
    outcome, row = clean_record(response(), extractor)
    assert outcome == "row"
    assert "Otters were seen near the mill" in row["text"]
    assert "Copyright" not in row["text"] and "tracking" not in row["text"]
    assert "Otters return to the river" in row["title"]
    assert row["http_status"] == 200 and row["content_type"] == "text/html"
    assert row["charset"] == "utf-8" and row["charset_source"] == "http"
    assert (row["source_file"], row["record_id"], row["record_offset"]) == (
        "crawl.warc.gz",
        "<urn:uuid:1>",
        10,
    )


@pytest.mark.parametrize(
    "record, reason",
    [
        (response(status="404 Not Found"), reasons.HTTP_STATUS),
        (response(b"\x89PNG\r\n\x1a\n", headers=[("Content-Type", "image/png")]), reasons.NOT_HTML),
        (response(b"<html><body><script>x()</script></body></html>"), reasons.NO_TEXT),
        (response()._replace(payload=b"garbage without a status line"), reasons.BAD_HTTP),
        (
            response()._replace(payload=b"", reject_reason=reasons.TOO_LARGE, reject_detail="big"),
            reasons.TOO_LARGE,
        ),
    ],
)
def test_clean_record_rejects_with_a_reason(extractor, record, reason):
    outcome, reject = clean_record(record, extractor)
    assert outcome == "reject"
    assert reject["reason"] == reason and reject["detail"]
    assert reject["url"] == "https://a.example/otters" and reject["record_offset"] == 10


def test_clean_record_turns_an_extractor_error_into_a_reject():
    def broken(html, url, utf8=None):
        raise RuntimeError("boom")

    outcome, reject = clean_record(response(), broken)
    assert (
        outcome == "reject"
        and reject["reason"] == reasons.EXTRACT_ERROR
        and "boom" in reject["detail"]
    )


class _TextOnlyExtractor(Extractor):
    """Parses the decoded text, never the page's bytes: the path without the shortcut."""

    def __call__(self, html, url=None, *, utf8=None):
        return super().__call__(utf8.decode() if html is None else html, url)


def test_parsing_the_bytes_gives_the_row_parsing_the_text_gives(extractor):
    """Parsing a plain UTF-8 page from its bytes is an optimisation: the row is the same."""
    outcome, row = clean_record(response(), extractor)
    assert outcome == "row"
    assert clean_record(response(), _TextOnlyExtractor()) == (outcome, row)


def test_clean_html_routes_every_record_and_counts_outcomes():
    records = [
        response(),
        response(status="500 Internal Server Error")._replace(record_id="<urn:uuid:2>"),
        ArchiveRecord("crawl.warc.gz", "<urn:uuid:3>", "request", 0),
        ArchiveRecord("crawl.warc.gz", "<urn:uuid:4>", "metadata", 0),
        ArchiveRecord("pages.tar", "a.html", "tar_member", 0, url="a.html", payload=HTML.encode()),
    ]
    pipeline = TestPipeline()
    cleaned = pipeline | beam.Create(records) | CleanHtml()
    assert_that(
        cleaned.rows | beam.Map(lambda row: row["record_id"]),
        equal_to(["<urn:uuid:1>", "a.html"]),
        label="Rows",
    )
    assert_that(
        cleaned.rejects | beam.Map(lambda rej: (rej["record_id"], rej["reason"])),
        equal_to([("<urn:uuid:2>", reasons.HTTP_STATUS)]),
        label="Rejects",
    )
    assert_that(
        cleaned.skipped,
        equal_to([("crawl.warc.gz", "request"), ("crawl.warc.gz", "metadata")]),
        label="Skipped",
    )
    result = pipeline.run()
    result.wait_until_finish()
    counters = beam_counters(result)
    check_counters(counters)
    assert counters["documents"] == 3 and counters["rows"] == 2
    assert counters[f"rejected:{reasons.HTTP_STATUS}"] == 1
    assert counters["skipped:request"] == 1 and counters["skipped:metadata"] == 1
    distributions = {
        d.key.metric.name: d.committed for d in result.metrics().query()["distributions"]
    }
    assert distributions["html_bytes"].count == 2 and distributions["text_chars"].min > 0


GERMAN = page(
    "Fischotter kehren an den Fluss zurück",
    "Zum ersten Mal seit Jahren wurden Fischotter in der Nähe der alten Mühle gesehen.",
)


def test_every_row_has_its_language_and_no_comments_by_default(extractor):
    _, row = clean_record(response(), extractor)
    assert row["language"] == "en" and 0.5 < row["language_score"] <= 1.0
    assert row["comments"] == ""
    _, row = clean_record(response(GERMAN.encode()), extractor)
    assert row["language"] == "de"


def test_language_filter_rejects_other_languages_and_low_scores(extractor):
    german = response(GERMAN.encode())
    outcome, reject = clean_record(german, extractor, languages=frozenset({"en", "fr"}))
    assert outcome == "reject" and reject["reason"] == reasons.LANGUAGE
    assert reject["detail"].startswith("de 0.") or reject["detail"] == "de 1.00"
    assert clean_record(german, extractor, languages=frozenset({"de"}))[0] == "row"
    outcome, reject = clean_record(german, extractor, min_language_score=1.01)
    assert outcome == "reject" and reject["reason"] == reasons.LANGUAGE
    assert reject["detail"].startswith("und ") and reject["detail"].endswith("(de)")
    # no flags: nothing filtered
    assert clean_record(german, extractor)[0] == "row"


class _CommentsExtractor(Extractor):
    """An extractor that gives a comment thread apart, as ``Extracted.comments``."""

    def __call__(self, html, url=None, *, utf8=None):
        result = super().__call__(html, url, utf8=utf8)
        return SimpleNamespace(
            title=result.title, text=result.text, truncated=result.truncated, comments="Nice!"
        )


def test_comments_column_takes_the_extractors_comments_when_it_has_them():
    _, row = clean_record(response(), _CommentsExtractor())
    assert row["comments"] == "Nice!" and "Otters were seen" in row["text"]


def test_build_cleaner_passes_the_format_only_to_extractors_that_need_it():
    from transforms.clean_html import build_cleaner

    seen = []

    def factory(**kwargs):
        seen.append(kwargs)
        return Extractor(**kwargs)

    build_cleaner(extractor_factory=factory)
    build_cleaner(extractor_factory=factory, output_format="markdown")
    build_cleaner(extractor_factory=factory, output_format="markdown", markdown_links=True)
    assert seen == [
        {"mode": "main"},
        {"mode": "main", "output_format": "markdown"},
        {"mode": "main", "output_format": "markdown", "links": True},
    ]
    html = page("Lists", "Intro.").replace(
        "</article>", "<ul><li>one</li><li>two</li></ul></article>"
    )
    cleaner = build_cleaner(output_format="markdown")
    _, row = cleaner(response(html.encode()))
    assert "- one\n- two" in row["text"]


def test_a_failing_language_model_costs_the_document_not_the_bundle(monkeypatch) -> None:
    from transforms import language
    from transforms.clean_html import clean_record
    from transforms.records import ArchiveRecord

    def broken(title: str, text: str):
        raise RuntimeError("model exploded")

    monkeypatch.setattr(language, "identify", broken)
    html = b"<html><body><p>" + b"Some prose on the page. " * 20 + b"</p></body></html>"
    record = ArchiveRecord("f", "id", "resource", 0, url="https://example.com/", payload=html)
    kind, reject = clean_record(record, Extractor())
    assert (kind, reject["reason"]) == ("reject", "extract_error")
    assert "model exploded" in reject["detail"]
