"""Runnable Beam jobs.

Importing this package (as ``python -m beam_jobs.clean_html`` does, before Beam loads pyarrow)
applies the job's Arrow memory setting to this process and the workers it starts: see
``transforms.memory``.
"""

from transforms.memory import prefer_system_arrow_pool

prefer_system_arrow_pool()
