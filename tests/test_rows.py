"""``transforms.rows``: the builders fill exactly the schemas' columns, and Arrow takes them."""

from __future__ import annotations

import datetime

import pyarrow as pa

from transforms.decode import decode_document
from transforms.records import ArchiveRecord
from transforms.rows import REJECT_SCHEMA, ROW_SCHEMA, document_row, reject_row

RECORD = ArchiveRecord(
    source_file="in/a.warc.gz",
    record_id="<urn:uuid:1>",
    record_type="response",
    offset=123,
    url="https://example.com/",
    warc_date=datetime.datetime(2026, 1, 2, tzinfo=datetime.timezone.utc),
)


def test_document_row_has_every_column_and_arrow_takes_it() -> None:
    decoded = decode_document(b"<html><p>caf\xc3\xa9</p></html>", is_http=False)
    row = document_row(RECORD, decoded, title="T", text="café", truncated=False)
    assert set(row) == set(ROW_SCHEMA.names)
    table = pa.Table.from_pylist([row], schema=ROW_SCHEMA)
    assert table.to_pylist()[0]["record_offset"] == 123
    assert table.to_pylist()[0]["charset"] == decoded.charset


def test_reject_row_has_every_column_and_caps_the_detail() -> None:
    reject = reject_row(RECORD, "no_text", "x" * 5000)
    assert set(reject) == set(REJECT_SCHEMA.names)
    assert len(reject["detail"]) == 1000
    assert pa.Table.from_pylist([reject], schema=REJECT_SCHEMA).num_rows == 1
