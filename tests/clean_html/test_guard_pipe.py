"""The crash guard's transport: records and outcomes arrive whole and equal, whatever their size
and wherever their payload travels; the ring never hands out space still in use; the child
sends its outcomes a batch at a time."""

from __future__ import annotations

import datetime
import multiprocessing
import random
import threading
import time
from unittest import mock

import pytest

from transforms.clean_html import guard
from transforms.clean_html.pipe import (
    IN_PIPE,
    PIPE_BYTES,
    OutcomeReader,
    PayloadRing,
    RecordReader,
    SharedRegion,
    enlarge,
    receive_outcome,
    record_frame,
    send_outcomes,
    send_record,
    write_some,
)
from transforms.records import ArchiveRecord


def _pipe():
    reader, writer = multiprocessing.Pipe(duplex=False)
    enlarge(writer)
    return reader, writer


def _record(payload: bytes, index: int = 1) -> ArchiveRecord:
    return ArchiveRecord(
        source_file="a.warc.gz",
        record_id=f"<urn:uuid:{index}>",
        record_type="response",
        offset=123 + index,
        url="https://a.example/é",
        warc_date=datetime.datetime(2026, 1, 2, tzinfo=datetime.timezone.utc),
        payload=payload,
        is_http=True,
        truncated=True,
    )


def _payload(size: int, seed: int = 0) -> bytes:
    return random.Random(seed).randbytes(size)


@pytest.mark.parametrize("size", [0, 1, 70_000, 3 * PIPE_BYTES + 17])
def test_records_arrive_equal_even_when_larger_than_the_pipe(size):
    reader, writer = _pipe()
    sent = [_record(_payload(size)), None]
    got = []
    records = RecordReader(reader)  # one reader: several frames may come in one read
    receiver = threading.Thread(target=lambda: got.extend(records.next() for _ in sent))
    receiver.start()
    for record in sent:
        send_record(writer, record)
    receiver.join()
    assert got == sent
    assert type(got[0].payload) is bytes


def test_records_through_the_ring_and_the_pipe_arrive_equal_and_in_order():
    """A ring too small for some payloads: those follow their frame in the pipe instead."""
    region = SharedRegion(300_000)
    ring = PayloadRing(region.ring)
    reader, writer = _pipe()
    sizes = [0, 1, 100_000, 250_000, 400_000, 5, 299_999, 120_000, 3 * PIPE_BYTES]
    records = [_record(_payload(size, i), i) for i, size in enumerate(sizes)]
    parts, places = [], []
    for record in records:
        places.append(ring.place(record.payload))
        parts += record_frame(record, places[-1])
    assert IN_PIPE in places and any(place >= 0 for place in places)
    got = []
    records_in = RecordReader(reader, region)
    receiver = threading.Thread(target=lambda: got.extend(records_in.next() for _ in records))
    receiver.start()
    views = [memoryview(part) for part in parts if part]  # back to back, as the guard writes
    while views:
        write_some(writer.fileno(), views)
    receiver.join()
    assert got == records
    region.close()


def test_the_ring_never_hands_out_space_still_in_use():
    """Random sizes placed and released in order: live payloads never overlap and read back
    intact, and a payload is refused only when no free stretch can take it."""
    region = SharedRegion(1 << 16)
    ring = PayloadRing(region.ring)
    rng = random.Random(7)
    live: list[tuple[int, bytes]] = []
    refused = 0
    for _ in range(3000):
        if live and (rng.random() < 0.45 or len(live) > 12):
            start, data = live.pop(0)
            assert bytes(region.ring[start : start + len(data)]) == data
            ring.release()
            continue
        data = rng.randbytes(rng.choice([1, 100, 3000, 9000, 20000, 70000]))
        start = ring.place(data)
        if start == IN_PIPE:
            refused += 1
            continue
        assert start >= 0 and start + len(data) <= 1 << 16
        for other, other_data in live:
            assert start + len(data) <= other or other + len(other_data) <= start
        live.append((start, data))
    for start, data in live:
        assert bytes(region.ring[start : start + len(data)]) == data
    assert 0 < refused < 3000
    assert ring.place(b"x" * 70000) == IN_PIPE  # larger than the ring
    region.close()


def test_ready_says_whether_a_record_can_start_without_waiting():
    reader, writer = _pipe()
    records = RecordReader(reader)
    assert not records.ready()
    send_record(writer, _record(b"<p>one", 1))
    send_record(writer, _record(b"<p>two", 2))
    assert records.ready()
    assert records.next().payload == b"<p>one"
    assert records.ready()  # the second frame came in the same read
    assert records.next().payload == b"<p>two"
    assert not records.ready()


def test_outcomes_arrive_equal():
    reader, writer = _pipe()
    outcomes = [
        ("row", {"text": "naïve " * 100_000, "html_bytes": 5, "truncated": False}),
        ("reject", {"reason": "no_text", "detail": ""}),
    ]
    got = []
    receiver = threading.Thread(target=lambda: got.extend(receive_outcome(reader) for _ in "ab"))
    receiver.start()
    send_outcomes(writer, outcomes)
    receiver.join()
    assert got == outcomes
    send_outcomes(writer, outcomes[1:] * 3)
    assert OutcomeReader(reader).read() == outcomes[1:] * 3


def test_a_closed_peer_is_eof_or_broken_pipe():
    reader, writer = _pipe()
    writer.close()
    with pytest.raises(EOFError):
        RecordReader(reader).next()
    reader, writer = _pipe()
    reader.close()
    with pytest.raises(BrokenPipeError):
        send_record(writer, _record(b"<p>x"))


def _progress_in_child(region: SharedRegion) -> None:
    region.set_progress(7, 12.5)
    region.ring[:5] = b"hello"


def test_the_shared_region_passes_to_a_forkserver_child():
    region = SharedRegion(1 << 12)
    process = multiprocessing.get_context("forkserver").Process(
        target=_progress_in_child, args=(region,)
    )
    process.start()
    process.join(30)
    assert process.exitcode == 0
    assert region.progress() == (7, 12.5)
    assert bytes(region.ring[:5]) == b"hello"
    region.close()


def _count_in_child(region: SharedRegion, stop: float) -> None:
    taken = 0
    while taken % 1000 or time.monotonic() < stop:
        taken += 1
        region.set_progress(taken, float(taken))


def test_progress_read_while_the_child_writes_it_is_never_older_than_its_count():
    """A child writing (n, n) as fast as it can: every read has a time at least its count,
    so a record is never seen as taken earlier than it was (a false timeout)."""
    region = SharedRegion(1 << 12)
    process = multiprocessing.get_context("forkserver").Process(
        target=_count_in_child, args=(region, time.monotonic() + 3.0)
    )
    process.start()
    reads = []
    while process.is_alive() or not reads:
        reads.append(region.progress())
    process.join(30)
    assert process.exitcode == 0
    assert all(at >= taken for taken, at in reads)
    assert len({taken for taken, _ in reads}) > 100  # it was read while it moved
    region.close()


@pytest.mark.parametrize(("flush_every", "writes"), [(8, [8, 2]), (3, [3, 3, 3, 1])])
def test_the_child_sends_its_outcomes_a_batch_at_a_time(flush_every, writes):
    """Ten records all in the pipe before the child starts: it sends outcomes when it has
    ``flush_every`` of them, and the rest when no record is left to start."""
    inbox, to_child = _pipe()
    from_child, outbox = _pipe()
    region = SharedRegion(1 << 20)
    for index in range(10):
        send_record(to_child, _record(f"<p>{index}".encode(), index))
    send_record(to_child, None)
    sent: list[int] = []

    def counted(conn, outcomes):
        sent.append(len(outcomes))
        send_outcomes(conn, outcomes)

    def make_cleaner():
        return lambda record: ("row", {"record_id": record.record_id})

    with (
        mock.patch.object(guard, "send_outcomes", counted),
        mock.patch.object(guard.resource, "setrlimit"),
        mock.patch.object(guard, "hold_heap"),
    ):
        guard._serve(inbox, outbox, region, make_cleaner, flush_every)
    assert sent == writes
    assert region.progress()[0] == 10
    got = OutcomeReader(from_child).read()
    assert [value["record_id"] for _, value in got] == [f"<urn:uuid:{i}>" for i in range(10)]
    region.close()
