"""The crash guard's framing: records and outcomes arrive whole and equal, whatever their size."""

from __future__ import annotations

import datetime
import multiprocessing
import threading

import pytest

from transforms.clean_html.pipe import (
    PIPE_BYTES,
    enlarge,
    receive_outcome,
    receive_record,
    send_outcome,
    send_record,
)
from transforms.records import ArchiveRecord


def _pipe():
    reader, writer = multiprocessing.Pipe(duplex=False)
    enlarge(writer)
    return reader, writer


def _record(payload: bytes) -> ArchiveRecord:
    return ArchiveRecord(
        source_file="a.warc.gz",
        record_id="<urn:uuid:1>",
        record_type="response",
        offset=123,
        url="https://a.example/é",
        warc_date=datetime.datetime(2026, 1, 2, tzinfo=datetime.timezone.utc),
        payload=payload,
        is_http=True,
        truncated=True,
    )


@pytest.mark.parametrize("size", [0, 1, 70_000, 3 * PIPE_BYTES + 17])
def test_records_arrive_equal_even_when_larger_than_the_pipe(size):
    reader, writer = _pipe()
    sent = [_record(bytes(range(256)) * (size // 256) + b"x" * (size % 256)), None]
    got = []
    receiver = threading.Thread(target=lambda: got.extend(receive_record(reader) for _ in sent))
    receiver.start()
    for record in sent:
        send_record(writer, record)
    receiver.join()
    assert got == sent
    assert type(got[0].payload) is bytes


def test_outcomes_arrive_equal():
    reader, writer = _pipe()
    outcome = ("row", {"text": "naïve " * 100_000, "html_bytes": 5, "truncated": False})
    receiver_got = []
    receiver = threading.Thread(target=lambda: receiver_got.append(receive_outcome(reader)))
    receiver.start()
    send_outcome(writer, outcome, 1234.5)
    receiver.join()
    assert receiver_got == [(outcome, 1234.5)]


def test_a_closed_peer_is_eof_or_broken_pipe():
    reader, writer = _pipe()
    writer.close()
    with pytest.raises(EOFError):
        receive_record(reader)
    reader, writer = _pipe()
    reader.close()
    with pytest.raises(BrokenPipeError):
        send_record(writer, _record(b"<p>x"))
