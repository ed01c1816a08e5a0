"""``CleanHtml``: archive records in, Parquet-ready rows and rejects out.

Every record meets exactly one outcome, each with its own counter in the ``clean_html``
namespace: ``rows`` (kept), ``rejected:<reason>`` (a candidate document not kept, see
``transforms.reasons``) or ``skipped:<record type>`` (a record that is not a document, such as a
WARC request). ``documents`` counts the candidates, so ``documents == rows + rejected:*``.

By default decoding and extraction run in a persistent child process per worker
(``transforms.clean_html.guard``): a document that crashes it becomes an ``extract_error`` reject,
one that runs past ``timeout_s`` a ``timeout`` reject and one that needs more memory than
``memory_mb`` a ``too_large`` reject, and the job goes on. The child gets
records in batches and cleans them while the worker reads on, so an outcome may come out of a
later ``process`` call or out of ``finish_bundle``, which waits for the bundle's last ones: the
order of outcomes is still the order of the records. Outputs are in the global window, the
batch job's only one.
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Callable
from typing import Any

import apache_beam as beam
from apache_beam.metrics import Metrics
from apache_beam.transforms.window import GlobalWindows

from transforms import reasons
from transforms.clean_html.cleaner import build_cleaner
from transforms.clean_html.guard import GuardedCleaner
from transforms.decode import DEFAULT_MAX_BYTES
from transforms.extract import Extractor
from transforms.memory import tidy_worker

_LOG = logging.getLogger(__name__)

__all__ = [
    "CleanHtml",
    "DEFAULT_MEMORY_MB",
    "DEFAULT_TIMEOUT_S",
    "GUARDS",
    "REJECTS_TAG",
    "SKIPPED_TAG",
]

REJECTS_TAG = "rejects"
SKIPPED_TAG = "skipped"
NAMESPACE = "clean_html"
PROGRESS_EVERY_SECONDS = 10.0
# "process": decode and extract in a guarded child process; "none": in the worker itself.
GUARDS = ("process", "none")
# Far above the slowest page measured (a 5 MB one-line page: about a second), far below a hang.
DEFAULT_TIMEOUT_S = 60.0
# The cleaning process's memory cap: it holds 120-165 MB, and extract() on the heaviest page of
# the bomb probe peaks at 250 MB in a process of its own (benchmarks/RESULTS.md).
DEFAULT_MEMORY_MB = 1024


class _CleanHtmlFn(beam.DoFn):
    """Counts and routes each record; the cleaner (guarded or not) is built once per worker."""

    def __init__(
        self,
        mode: str,
        max_decoded_bytes: int,
        guard: str,
        timeout_s: float,
        extractor_factory: Callable[..., Any],
        cleaner_options: dict[str, Any],
        memory_mb: int | None = DEFAULT_MEMORY_MB,
    ):
        self._make_cleaner = functools.partial(
            build_cleaner,
            mode=mode,
            max_decoded_bytes=max_decoded_bytes,
            extractor_factory=extractor_factory,
            **cleaner_options,
        )
        self._guard = guard
        self._timeout_s = timeout_s
        self._memory_bytes = memory_mb << 20 if memory_mb else None
        self._counters: dict[str, Any] = {}
        self._html_bytes = Metrics.distribution(NAMESPACE, "html_bytes")
        self._text_chars = Metrics.distribution(NAMESPACE, "text_chars")

    def setup(self):
        tidy_worker()  # malloc settings for the SDK worker: see transforms.memory
        if self._guard == "process":
            self._cleaner = GuardedCleaner(
                self._make_cleaner, self._timeout_s, memory_bytes=self._memory_bytes
            )
        else:
            self._cleaner = self._make_cleaner()
        self._done = 0
        self._started = self._last_log = time.monotonic()

    def start_bundle(self):
        if isinstance(self._cleaner, GuardedCleaner):
            self._cleaner.discard()  # what a failed bundle left: that bundle is retried whole

    def finish_bundle(self):
        if isinstance(self._cleaner, GuardedCleaner):
            for outcome in self._cleaner.drain():
                for output in self._route(outcome):
                    if isinstance(output, beam.pvalue.TaggedOutput):
                        yield beam.pvalue.TaggedOutput(
                            output.tag, GlobalWindows.windowed_value(output.value)
                        )
                    else:
                        yield GlobalWindows.windowed_value(output)

    def teardown(self):
        if isinstance(self._cleaner, GuardedCleaner):
            self._cleaner.close()

    def _count(self, name: str) -> None:
        counter = self._counters.get(name)
        if counter is None:
            counter = self._counters[name] = Metrics.counter(NAMESPACE, name)
        counter.inc()

    def _log_progress(self) -> None:
        self._done += 1
        now = time.monotonic()
        if now - self._last_log >= PROGRESS_EVERY_SECONDS:
            self._last_log = now
            rate = self._done / (now - self._started)
            _LOG.info("%d documents done, %.0f documents/s", self._done, rate)

    def process(self, record):
        if record.reject_reason is None and record.record_type not in reasons.CANDIDATE_TYPES:
            self._count(f"skipped:{record.record_type}")
            yield beam.pvalue.TaggedOutput(SKIPPED_TAG, (record.source_file, record.record_type))
            return
        if isinstance(self._cleaner, GuardedCleaner):
            for outcome in self._cleaner.submit(record):
                yield from self._route(outcome)
        else:
            yield from self._route(self._cleaner(record))

    def _route(self, outcome: tuple[str, dict[str, Any]]):
        """Count one document's outcome and give it its output."""
        self._count("documents")
        self._log_progress()
        kind, value = outcome
        if kind == "row":
            self._count("rows")
            self._html_bytes.update(value["html_bytes"])
            self._text_chars.update(len(value["text"]))
            yield value
        else:
            self._count(f"rejected:{value['reason']}")
            yield beam.pvalue.TaggedOutput(REJECTS_TAG, value)


class CleanHtml(beam.PTransform):
    """Turn ``ArchiveRecord``s into rows of title and main text, rejects, and skipped records.

    Returns a ``DoOutputsTuple`` with ``.rows`` (dicts of ``transforms.rows.ROW_SCHEMA``),
    ``.rejects`` (dicts of ``REJECT_SCHEMA``) and ``.skipped`` (``(source_file, record_type)``).
    """

    def __init__(
        self,
        mode: str = "main",
        max_decoded_bytes: int = DEFAULT_MAX_BYTES,
        *,
        guard: str = "process",
        timeout_s: float = DEFAULT_TIMEOUT_S,
        memory_mb: int | None = DEFAULT_MEMORY_MB,
        extractor_factory: Callable[..., Any] = Extractor,
        output_format: str = "text",
        languages: frozenset[str] | None = None,
        min_language_score: float = 0.0,
        markdown_links: bool = False,
        quality_signals: bool = False,
    ):
        """``guard`` is ``"process"`` (crash and hang guard, the default) or ``"none"``;
        ``timeout_s`` is the per-document limit under the guard and ``memory_mb`` the cleaning
        process's memory cap (None: no cap); ``extractor_factory`` is
        called as ``extractor_factory(mode=mode)`` in each worker (tests pass fakes).
        ``output_format`` is ``"text"`` or ``"markdown"`` (``markdown_links``: links as
        ``[text](url)``); ``languages`` and
        ``min_language_score`` filter rows by language (see ``build_cleaner``); ``quality_signals``
        adds the quality signal columns (``transforms.signals``)."""
        super().__init__()
        if guard not in GUARDS:
            raise ValueError(f"guard must be one of {GUARDS}, not {guard!r}")
        options = {
            "output_format": output_format,
            "markdown_links": markdown_links,
            "languages": languages,
            "min_language_score": min_language_score,
            "quality_signals": quality_signals,
        }
        self._fn_args = (
            mode,
            max_decoded_bytes,
            guard,
            timeout_s,
            extractor_factory,
            options,
            memory_mb,
        )

    def expand(self, records):
        return records | "CleanRecords" >> beam.ParDo(_CleanHtmlFn(*self._fn_args)).with_outputs(
            REJECTS_TAG, SKIPPED_TAG, main="rows"
        )
