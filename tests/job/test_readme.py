"""The README's reason-code and flag tables are what users read: keep them equal to the code's."""

import re
from pathlib import Path

import pyarrow as pa

from transforms.reasons import REJECT_REASONS
from transforms.rows import ROW_SCHEMA
from transforms.signals import QUALITY_COLUMNS, gopher_sql

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


_TYPES = {
    "string": pa.string(),
    "int32": pa.int32(),
    "int64": pa.int64(),
    "float32": pa.float32(),
    "float64": pa.float64(),
    "bool": pa.bool_(),
    "timestamp[us, UTC]": pa.timestamp("us", tz="UTC"),
}


def _column_table(text: str, header: str) -> dict[str, str]:
    table = text[text.index(header) :].split("\n\n", 1)[0]
    return dict(re.findall(r"^\| `([a-z0-9_]+)` \| ([^|]+?) \|", table, flags=re.M))


def test_readme_column_and_signal_tables_are_the_row_schema():
    text = README.read_text()
    columns = _column_table(text, "| column | type | meaning |")
    signals = _column_table(text, "| signal | type | measure | rules |")
    assert set(columns) | set(signals) == set(ROW_SCHEMA.names)
    assert set(signals) == set(QUALITY_COLUMNS)
    for name, kind in {**columns, **signals}.items():
        assert _TYPES[kind] == ROW_SCHEMA.field(name).type, name


def test_readme_gopher_query_is_the_codes():
    assert gopher_sql() in README.read_text()


def test_readme_dedup_section_is_the_codes():
    from beam_jobs.dedup import _parser
    from transforms.dedup import DUPLICATE_SCHEMA, MinHashParams
    from transforms.dedup.minhash import s_curve_table

    text = README.read_text()
    section = text.split("## Deduplication", 1)[1].split("\n## ", 1)[0]
    listed = set(re.findall(r"^\| `(--[a-z_]+)", section, re.M))
    flags = {opt for action in _parser()._actions for opt in action.option_strings}
    assert listed == flags
    table = _column_table(section, "| column | type | meaning |")
    assert list(table) == DUPLICATE_SCHEMA.names
    for name, kind in table.items():
        assert _TYPES[kind] == DUPLICATE_SCHEMA.field(name).type, name
    assert s_curve_table(MinHashParams()) in section
