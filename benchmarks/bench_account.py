"""CPU account of the job's per-page work outside the extractor, step by step (no Beam).

    python -m benchmarks.bench_account bench/shards/1k.warc.gz [--limit 1000]

Times, in CPU milliseconds per candidate page (``time.process_time``, so other processes on a
shared machine do not count), each step the job runs around the extractor:

- parent (the SDK worker): reading the WARC, the crash guard's transport (send a record,
  receive its outcome) and the Parquet writer;
- child (the guard's cleaning process): receiving the record and sending the outcome back,
  HTTP parsing, content decoding, the charset chain, the nesting cap, the parser's UTF-8
  encode of the decoded text, the extractor itself and the ftfy repair.

The transport is measured over a real pipe to a forked echo child that answers each record
with its precomputed outcome, so that both sides' costs are the transport's alone. Beam's own
share is what a job run costs beyond this (see ``benchmarks.bench_job``).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from transforms.clean_html import clean_record  # noqa: E402
from transforms.clean_html import pipe as guard_pipe  # noqa: E402
from transforms.decode import (  # noqa: E402
    Reject,  # noqa: E402
    decode_text,
    utf8_form,
)
from transforms.decode.content_type import parse_content_type, require_html  # noqa: E402
from transforms.decode.http import decode_body, parse_response  # noqa: E402
from transforms.extract import Extractor  # noqa: E402
from transforms.extract.limits import cap_nesting  # noqa: E402
from transforms.extract.repair import repair_text  # noqa: E402
from transforms.memory import release_large_blocks  # noqa: E402
from transforms.read import read_file  # noqa: E402
from transforms.records import ArchiveRecord  # noqa: E402
from transforms.rows import REJECT_SCHEMA, ROW_SCHEMA  # noqa: E402
from transforms.write import ShardWriter  # noqa: E402

__all__ = ["account"]

_clock = time.process_time


def _read(paths: list[str], limit: int) -> tuple[list[ArchiveRecord], float]:
    """Candidate records of ``paths`` and the CPU seconds spent reading all records."""
    records: list[ArchiveRecord] = []
    start = _clock()
    for path in paths:
        for item in read_file(path):
            if isinstance(item, ArchiveRecord) and item.payload:
                records.append(item)
    spent = _clock() - start
    return records[:limit] if limit else records, spent


def _steps(records: list[ArchiveRecord], extractor: Extractor) -> dict[str, float]:
    """CPU seconds of each cleaning step as ``clean_record`` runs it, summed over ``records``.

    ``parser_encode`` is the str-to-UTF-8 encode the parser does when it is given text (timed
    apart and taken off ``extract``): none for pages it is given as bytes.
    """
    t = dict.fromkeys(
        ["http", "content_decoding", "charset", "cap_nesting", "parser_encode", "extract", "ftfy"],
        0.0,
    )
    for record in records:
        c0 = _clock()
        try:
            response = parse_response(record.payload)
            c1 = _clock()
            body = decode_body(response, max_bytes=32 << 20)
            c2 = _clock()
            mime, declared = parse_content_type(response.headers.get("Content-Type"))
            require_html(mime, body)
            text = decode_text(body, declared)
            utf8 = utf8_form(body, text)
        except Reject:
            continue
        c3 = _clock()
        html, flattened = cap_nesting(text.text, utf8=utf8)
        c4 = _clock()
        if utf8 is None or flattened:
            html.encode("utf-8", "ignore")
            c5 = _clock()
            extracted = extractor(html, record.url)
        else:
            c5 = c4
            extracted = extractor(html, record.url, utf8=utf8)
        c6 = _clock()
        repair_text(extracted.text)
        repair_text(extracted.title)
        c7 = _clock()
        spent = (c1 - c0, c2 - c1, c3 - c2, c4 - c3, c5 - c4, c6 - c5 - (c5 - c4), c7 - c6)
        for key, value in zip(t, spent, strict=True):
            t[key] += value
    return t


def _echo(inbox, outbox, outcomes) -> None:
    """The echo child: receive each record as the guard's child does, answer its outcome."""
    start = _clock()
    for outcome in outcomes:
        guard_pipe.receive_record(inbox)
        guard_pipe.send_outcome(outbox, outcome)
    outbox.send_bytes(repr(_clock() - start).encode())


def _transport(records: list[ArchiveRecord], outcomes: list) -> tuple[float, float]:
    """CPU seconds of the guard's transport: (parent, child), over real pipes as the guard
    sets them up."""
    context = multiprocessing.get_context("fork")
    inbox, to_child = context.Pipe(duplex=False)
    from_child, outbox = context.Pipe(duplex=False)
    guard_pipe.enlarge(to_child)
    guard_pipe.enlarge(from_child)
    process = context.Process(target=_echo, args=(inbox, outbox, outcomes))
    process.start()
    inbox.close()
    outbox.close()
    start = _clock()
    for record in records:
        guard_pipe.send_record(to_child, record)
        from_child.poll(60)
        guard_pipe.receive_outcome(from_child)
    spent = _clock() - start
    child_spent = float(from_child.recv_bytes().decode())
    process.join()
    return spent, child_spent


def _parquet(outcomes: list) -> float:
    """CPU seconds of writing the outcomes as the job does (rows and rejects)."""
    with tempfile.TemporaryDirectory() as folder:
        start = _clock()
        rows = ShardWriter(os.path.join(folder, "data"), ROW_SCHEMA)
        rejects = ShardWriter(os.path.join(folder, "rejects"), REJECT_SCHEMA)
        os.makedirs(os.path.join(folder, "data"))
        os.makedirs(os.path.join(folder, "rejects"))
        for kind, value in outcomes:
            (rows if kind == "row" else rejects).write(value)
        rows.close()
        rejects.close()
        return _clock() - start


def account(paths: list[str], limit: int = 0) -> dict[str, float]:
    """Milliseconds of CPU per candidate page, by step (``parent:`` and ``child:`` keys)."""
    release_large_blocks()
    extractor = Extractor()
    records, read_s = _read(paths, limit)
    n = len(records)
    outcomes = [clean_record(r, extractor) for r in records]
    steps = _steps(records, extractor)
    parent_s, child_s = _transport(records, outcomes)
    parquet_s = _parquet(outcomes)
    table = {"parent: read WARC": read_s, "parent: guard transport": parent_s}
    table["parent: Parquet"] = parquet_s
    table["child: guard transport"] = child_s
    table.update({f"child: {k}": v for k, v in steps.items()})
    result = {k: 1000 * v / n for k, v in table.items()}
    result["pages"] = n
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--limit", type=int, default=0)
    args = parser.parse_args(argv)
    result = account(args.paths, args.limit)
    pages = result.pop("pages")
    print(f"| step ({pages} pages) | CPU ms/page |\n|---|---:|")
    for key, value in result.items():
        print(f"| {key} | {value:.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
