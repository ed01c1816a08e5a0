"""A job as a shell command: logging, ``--help``, and one exit code per way it ends.

Both jobs (``clean_html``, ``dedup``) end the same way, so that a script or Airflow tells them
apart by the code alone, and a user reads one line, never a traceback, for what they caused:

- 0: done; ``-h``/``--help`` and ``--help_beam`` print their text;
- 2: refused before any work (a bad flag, preset or input): ``PROG: error: ...`` or
  ``PROG: bad --config: ...``;
- 1: the run failed at the end (its output not written, or not to be trusted): ``PROG: FAILED:``;
- 130: Ctrl-C or SIGTERM (``sigterm_as_interrupt``); the run's files and lock were deleted.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable, Sequence
from typing import Any

from beam_jobs.config import ConfigError, UsageError, all_options_help
from beam_jobs.output import interrupted, sigterm_as_interrupt

__all__ = ["command_main"]


def command_main(
    prog: str,
    run: Callable[[Sequence[str]], Any],
    help_text: Callable[[], str],
    *,
    usage_errors: tuple[type[Exception], ...] = (UsageError,),
    failures: tuple[type[Exception], ...] = (),
) -> int:
    """Run ``run(sys.argv[1:])`` as the command ``prog`` and return its exit code.
    ``usage_errors`` end it with 2, ``failures`` with 1 (see the module's docstring)."""
    # SIGTERM (Airflow, Kubernetes, timeout) as Ctrl-C: the run deletes its files and its lock.
    with sigterm_as_interrupt():
        return _command(prog, run, help_text, usage_errors, failures)


def _command(prog, run, help_text, usage_errors, failures) -> int:
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s", force=True
    )
    logging.getLogger("apache_beam").setLevel(logging.WARNING)  # keep the progress lines readable
    argv = sys.argv[1:]
    if "-h" in argv or "--help" in argv:
        print(help_text())
        return 0
    if "--help_beam" in argv:
        print(all_options_help())
        return 0
    try:
        run(argv)
    except usage_errors as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        return 2
    except ConfigError as e:
        print(f"{prog}: bad --config: {e}", file=sys.stderr)
        return 2
    except failures as e:
        print(f"{prog}: FAILED: {e}", file=sys.stderr)
        return 1
    except (KeyboardInterrupt, RuntimeError) as e:
        if not interrupted(e):
            raise
        print(f"{prog}: interrupted; this run's files were deleted", file=sys.stderr)
        return 130
    return 0
