"""The README's reason-code and flag tables are what users read: keep them equal to the code's."""

import re
from pathlib import Path

from transforms.reasons import REJECT_REASONS

README = Path(__file__).resolve().parents[2] / "README.md"


def test_readme_lists_every_reject_reason_and_no_other():
    text = README.read_text()
    table = text[text.index("| reason | meaning |") :].split("\n\n", 1)[0]
    documented = dict(re.findall(r"^\| `([a-z_]+)` \| (.+?) \|$", table, flags=re.M))
    assert documented == REJECT_REASONS


def _job_flags() -> set[str]:
    import argparse

    from beam_jobs.clean_html import CleanHtmlOptions

    parser = argparse.ArgumentParser(add_help=False)
    CleanHtmlOptions._add_argparse_args(parser)
    return {opt for action in parser._actions for opt in action.option_strings}


def test_readme_lists_every_job_flag_and_no_other():
    text = README.read_text()
    section = text.split("## Command line", 1)[1].split("\n## ", 1)[0]
    listed = set(re.findall(r"^\| `(--[a-z_]+)", section, re.M))
    assert listed == _job_flags()
