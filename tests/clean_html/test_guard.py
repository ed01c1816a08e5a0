"""The crash guard with records in flight: a crash or a hang costs exactly the record that caused
it, every other record gets the outcome it gets in-process, in submission order, exactly once."""

from __future__ import annotations

import functools

import pytest

from tests.builders import http_response, page
from tests.fake_extractors import (
    BOMB_MARKER,
    CRASH_MARKER,
    GREEDY_MARKER,
    HANG_MARKER,
    OUT_OF_MEMORY_EXIT,
    OUT_OF_MEMORY_MARKER,
    RAISE_MARKER,
    SLOW_MARKER,
    SLOW_SECONDS,
    MisbehavingExtractor,
)
from transforms import reasons
from transforms.clean_html import build_cleaner
from transforms.clean_html import guard as guard_module
from transforms.clean_html.guard import GuardedCleaner
from transforms.clean_html.pipe import PIPE_BYTES
from transforms.records import ArchiveRecord

MAKE_CLEANER = functools.partial(build_cleaner, extractor_factory=MisbehavingExtractor)


def _record(index: int, body: str) -> ArchiveRecord:
    return ArchiveRecord(
        source_file="a.warc.gz",
        record_id=f"<urn:uuid:{index}>",
        record_type="response",
        offset=index,
        url=f"https://g.example/{index}",
        payload=http_response(body.encode()),
        is_http=True,
    )


def _records(markers: dict[int, str], count: int) -> list[ArchiveRecord]:
    """``count`` pages in several languages; page ``i`` carries ``markers[i]`` when given."""
    texts = [
        "Otters were seen near the mill for the first time in years.",
        "Les loutres sont revenues près du moulin après des années d'absence.",
        "Выдры вернулись к мельнице впервые за много лет.",
        "カワウソが何年かぶりに水車小屋の近くで目撃された。",
        "عادت ثعالب الماء إلى الطاحونة لأول مرة منذ سنوات.",
    ]
    return [
        _record(i, page(f"Page {i}", texts[i % len(texts)] + " " + markers.get(i, "")))
        for i in range(count)
    ]


def _guarded_outcomes(guard: GuardedCleaner, records: list[ArchiveRecord]) -> list:
    outcomes = []
    for record in records:
        outcomes.extend(guard.submit(record))
    outcomes.extend(guard.drain())
    return outcomes


@pytest.mark.parametrize("batch", [1, 3, 8])
@pytest.mark.parametrize(
    "markers",
    [
        {},
        {0: CRASH_MARKER},
        {2: CRASH_MARKER, 3: CRASH_MARKER, 9: RAISE_MARKER},
        {4: HANG_MARKER, 5: CRASH_MARKER, 10: CRASH_MARKER},
    ],
    ids=["clean", "crash-first", "crashes-in-a-row", "hang-then-crash"],
)
def test_each_bad_record_costs_itself_only(batch, markers):
    records = _records(markers, 11)
    inline = build_cleaner()  # the good pages' outcomes in-process, for comparison
    guard = GuardedCleaner(MAKE_CLEANER, timeout_s=1.5, batch=batch, max_in_flight=2 * batch)
    try:
        outcomes = _guarded_outcomes(guard, records)
    finally:
        guard.close()
    assert len(outcomes) == len(records)
    for index, (record, outcome) in enumerate(zip(records, outcomes, strict=True)):
        kind, value = outcome
        assert value["record_id"] == record.record_id  # in submission order
        marker = markers.get(index)
        if marker == CRASH_MARKER:
            assert kind == "reject" and value["reason"] == reasons.EXTRACT_ERROR
            assert "SIGSEGV" in value["detail"]
        elif marker == HANG_MARKER:
            assert kind == "reject" and value["reason"] == reasons.TIMEOUT
        elif marker == RAISE_MARKER:  # an exception costs its record without a restart
            assert kind == "reject" and value["reason"] == reasons.EXTRACT_ERROR
            assert "the extractor raised" in value["detail"]
        else:
            assert outcome == inline(record)
    bad = sum(marker in (CRASH_MARKER, HANG_MARKER) for marker in markers.values())
    assert guard.restarts == bad


def test_the_time_limit_is_per_record_not_per_batch():
    """Five records of half a second each in one batch: 2.5 s for the batch, none over 1.5 s."""
    records = _records(dict.fromkeys(range(5), SLOW_MARKER), 5)
    timeout_s = 3 * SLOW_SECONDS
    guard = GuardedCleaner(MAKE_CLEANER, timeout_s=timeout_s, batch=5, max_in_flight=10)
    try:
        outcomes = _guarded_outcomes(guard, records)
    finally:
        guard.close()
    assert [kind for kind, _ in outcomes] == ["row"] * 5
    assert guard.restarts == 0


def test_outcomes_larger_than_the_pipes_do_not_deadlock():
    """Several records and rows each larger than a pipe, all in flight at once."""
    words = " ".join(f"word{i}" for i in range(PIPE_BYTES // 5))
    records = [_record(i, page(f"Big {i}", words)) for i in range(4)]
    guard = GuardedCleaner(MAKE_CLEANER, timeout_s=60, batch=4, max_in_flight=8)
    try:
        outcomes = _guarded_outcomes(guard, records)
    finally:
        guard.close()
    assert [kind for kind, _ in outcomes] == ["row"] * 4
    assert all(len(row["text"]) > PIPE_BYTES for _, row in outcomes)
    assert [row["record_id"] for _, row in outcomes] == [r.record_id for r in records]


def test_discard_forgets_records_out_and_the_next_ones_are_clean():
    records = _records({}, 5)
    guard = GuardedCleaner(MAKE_CLEANER, timeout_s=60, batch=2, max_in_flight=4)
    try:
        for record in records[:3]:
            guard.submit(record)
        guard.discard()
        outcomes = _guarded_outcomes(guard, records[3:])
    finally:
        guard.close()
    assert [value["record_id"] for _, value in outcomes] == [r.record_id for r in records[3:]]


def test_one_record_at_a_time_still_works_after_a_crash():
    guard = GuardedCleaner(MAKE_CLEANER, timeout_s=60)
    try:
        crashed = guard(_records({0: CRASH_MARKER}, 1)[0])
        fine = guard(_records({}, 1)[0])
    finally:
        guard.close()
    assert crashed[0] == "reject" and crashed[1]["reason"] == reasons.EXTRACT_ERROR
    assert fine[0] == "row" and guard.restarts == 1


def test_payloads_that_miss_the_ring_travel_in_the_pipe_and_come_out_the_same():
    """A ring of 60 KB: the larger pages (and any page while it is full) go through the pipe,
    with a crash among them; every other page gets its in-process outcome, in order."""
    texts = [
        " ".join(f"w{i}x{j}" for j in range(size)) for i, size in enumerate([5, 9000, 40, 30000])
    ]
    records = [_record(i, page(f"Page {i}", texts[i % 4])) for i in range(14)]
    records[6] = _record(6, page("Bad", texts[1] + " " + CRASH_MARKER))
    assert max(len(r.payload) for r in records) > 60_000 > min(len(r.payload) for r in records)
    inline = build_cleaner()
    guard = GuardedCleaner(MAKE_CLEANER, timeout_s=60, batch=4, max_in_flight=8, ring_bytes=60_000)
    try:
        outcomes = _guarded_outcomes(guard, records)
    finally:
        guard.close()
    assert outcomes[6][0] == "reject" and "SIGSEGV" in outcomes[6][1]["detail"]
    assert outcomes[:6] + outcomes[7:] == [inline(r) for r in records[:6] + records[7:]]
    assert guard.restarts == 1


def test_a_page_past_the_memory_cap_is_too_large_and_the_child_is_replaced():
    """A parse that runs Lexbor out of memory and a page that runs Python out of it are
    ``too_large`` under a 512 MB cap, in seconds; the pages after them come out as in-process."""
    assert OUT_OF_MEMORY_EXIT == guard_module._OUT_OF_MEMORY_EXIT
    markers = {1: BOMB_MARKER, 4: GREEDY_MARKER, 6: OUT_OF_MEMORY_MARKER}
    records = _records(markers, 8)
    inline = build_cleaner()
    guard = GuardedCleaner(MAKE_CLEANER, timeout_s=60, batch=3, memory_bytes=512 << 20)
    try:
        outcomes = _guarded_outcomes(guard, records)
    finally:
        guard.close()
    for index, (record, (kind, value)) in enumerate(zip(records, outcomes, strict=True)):
        if index in markers:
            assert kind == "reject" and value["reason"] == reasons.TOO_LARGE, value
            assert "512 MB memory cap" in value["detail"] or "MemoryError" in value["detail"]
        else:
            assert (kind, value) == inline(record)
    assert guard.restarts == 3


def test_without_a_memory_cap_the_child_keeps_going():
    guard = GuardedCleaner(MAKE_CLEANER, timeout_s=60)
    try:
        outcomes = _guarded_outcomes(guard, _records({}, 3))
    finally:
        guard.close()
    assert [kind for kind, _ in outcomes] == ["row"] * 3 and guard.restarts == 0
