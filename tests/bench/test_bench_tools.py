"""The throughput benchmark's pure helpers: HTTP responses it builds, profile attribution."""

from __future__ import annotations

from benchmarks.bench_profile import summarise_collapsed
from benchmarks.bench_shards import Page, _capture_url, _http_response
from transforms.decode import decode_document


def test_responses_mix_gzip_and_missing_charset_and_decode() -> None:
    page = Page(
        url="https://example.com/a", html=b"<html><title>t</title><p>caf\xc3\xa9</p></html>"
    )
    seen = set()
    for index in range(12):
        raw = _http_response(page, index)
        head = raw.split(b"\r\n\r\n", 1)[0].decode("latin-1")
        seen.add(("Content-Encoding: gzip" in head, "charset=" in head))
        decoded = decode_document(raw, is_http=True)
        assert decoded.html.endswith("café</p></html>")
    assert {(True, True), (False, False), (False, True)} <= seen


def test_repeated_captures_get_distinct_urls() -> None:
    urls = {_capture_url("https://example.com/a?x=1", i, i // 3) for i in range(9)}
    assert len(urls) == 7  # the three first-round captures keep the page's own URL


def test_profile_samples_are_charged_to_the_deepest_known_component() -> None:
    worker = 'process 2:"python -m apache_beam.runners.worker.sdk_worker_main"'
    runner = 'process 1:"python -m beam_jobs.clean_html"'
    text = "\n".join(
        [
            f"{worker};run (apache_beam/runners/worker/sdk_worker.py:1);"
            "clean_record (transforms/clean_html/transform.py:64);__call__ (transforms/extract/extractor.py:90) 6",
            f"{worker};run (apache_beam/runners/worker/sdk_worker.py:1);"
            "fix_text (ftfy/__init__.py:300);sub (re/__init__.py:185) 2",
            f"{worker};_find_and_load (<frozen importlib._bootstrap>:1176) 1",
            f"{worker};run (apache_beam/runners/worker/sdk_worker.py:1) 1",
            f"{worker};process (transforms/clean_html/transform.py:130);"
            "_pump (transforms/clean_html/guard.py:240);select (selectors.py:1) 2",
            f"{runner};wait (threading.py:320) 50",
        ]
    )
    summary = summarise_collapsed(text, "sdk_worker_main")
    assert summary["samples"] == 12
    assert summary["components"] == {
        "extract": 0.5,
        "ftfy": round(2 / 12, 4),
        "guard (pipe, pickling, waiting for the child)": round(2 / 12, 4),
        "start-up (imports)": round(1 / 12, 4),
        "Beam (coders, runner, metrics)": round(1 / 12, 4),
    }


def test_account_times_the_jobs_own_steps_and_they_add_up() -> None:
    from pathlib import Path

    from benchmarks.bench_account import STEPS, account

    sample = Path(__file__).resolve().parents[2] / "samples" / "crawl.warc.gz"
    result = account([str(sample)])
    assert result.pop("pages") > 0
    for _module, _name, step in STEPS:  # every patched function exists and was reached
        assert result[step] > 0, step
    assert all(ms >= 0 for step, ms in result.items() if step != "rest of clean_record")


def _run(cpu: float, worker: float, cleaner: float, documents: int = 1000) -> dict:
    return {
        "documents": documents,
        "cpu_seconds": cpu,
        "worker_cpu_seconds": [worker],
        "cleaner_cpu_seconds": [cleaner] if cleaner else [],
    }


def test_the_guards_cost_is_the_median_of_its_pairs_with_start_up_taken_off() -> None:
    from benchmarks.throughput import guard_costs, guard_pair_labels

    pairs = guard_pair_labels(3)
    assert pairs[0] == ("bench-1", "bench-1-noguard")  # read by the rest of the benchmark
    assert len({label for pair in pairs for label in pair}) == 6
    jobs = {"idle-1": _run(4.0, 1.5, 0.5), "idle-1-noguard": _run(3.0, 1.5, 0.0)}
    # guard off: 5 ms a page after start-up; guard on: 5.2, 6.0 (one noisy pair) and 5.1 ms.
    for (on, off), on_s in zip(pairs, [9.2, 10.0, 9.1], strict=True):
        jobs[on] = _run(on_s, 2.5, on_s - 4.0)
        jobs[off] = _run(8.0, 6.5, 0.0)
    cost = guard_costs(jobs, pairs)
    assert [round(c, 3) for c in cost["pairs"]] == [0.04, 0.2, 0.02]
    assert round(cost["median"], 3) == 0.04  # the noisy pair does not decide it
    assert round(cost["spread"], 3) == 0.18
    assert round(cost["job_ms_on"], 3) == 5.2 and round(cost["job_ms_off"], 3) == 5.0
    assert round(cost["worker_ms_on"], 3) == 1.0 and round(cost["worker_ms_off"], 3) == 5.0
    assert round(cost["child_ms_on"], 3) == 4.7
