"""The stages of the clean-HTML job, one package each, in the order data flows through them:

- ``read``: file patterns -> ``ArchiveRecord``s and per-file ``FileStats`` (matching each file
  once, format sniffing, WARC/ARC/tar iterators, WARC headers too long for FastWARC, one
  reading loop for whole files and byte ranges, the ``ReadArchives`` transform);
- ``decode``: a record's payload bytes -> HTML text or a ``Reject`` (HTTP, content type, charset);
- ``extract``: HTML -> ``Extracted`` (title, main text, comments): caps, tree walks, boilerplate,
  comment threads, scoring, layout (text or Markdown), title, text repair;
  ``python -m transforms.extract page.html``;
- ``clean_html``: the Beam stage around decode + extract: ``CleanHtml``, the per-record cleaner
  and the crash guard;
- ``write``: rows and rejects -> Parquet shards and ``_SUMMARY.json``;
- ``signals``: a text's ``text_hash`` and quality signals, pure functions without Beam (used
  where the row is built, in ``rows``);
- ``dedup``: the dedup job's stages (``beam_jobs/dedup.py``): inputs by column projection,
  MinHash and LSH, verification, connected components, the kept copy.

Beside them: ``records`` (what flows from read to clean_html), ``rows`` (the output columns,
each spelled once), ``reasons`` (the reject reason codes), ``memory`` (every malloc and Arrow
memory setting), ``language`` (the row's language, without Beam) and ``paths`` (input and
output paths taken literally: ``out [1]`` is a folder name, not a pattern).

Rules, held by ``tests/test_layout.py``:
- ``decode``, ``extract`` and ``signals`` never import Beam: they are plain libraries, usable
  without it;
- a package's ``__init__.py`` only re-exports its public names;
- ``extract.extract()`` is exactly what the job runs on a page, so a library user gets the
  job's output.
"""
