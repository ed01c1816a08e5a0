"""Runnable Beam jobs.

Importing this package (as ``python -m beam_jobs.clean_html`` does, before Beam loads pyarrow)
makes the system allocator Arrow's default memory pool, for this process and the SDK workers it
starts: Parquet's writer takes its page and compression buffers from that pool, and Arrow's
default (mimalloc) keeps some 20 MB of them resident after the first large row group, while
glibc gives them back on ``malloc_trim`` (``transforms.memory``). Workers started
elsewhere (a worker pool, the container) get the same setting from their environment: the
Makefile's ``worker-pool`` target and the ``Dockerfile`` set it. An explicit setting wins.
"""

import os

os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "system")
