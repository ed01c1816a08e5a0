"""``--config FILE``: how a preset merges under the command line, and how a bad one is refused."""

import os
import re
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from apache_beam.options.pipeline_options import (
    DebugOptions,
    PipelineOptions,
    SetupOptions,
    StandardOptions,
    WorkerOptions,
)

from beam_jobs.clean_html import CleanHtmlOptions, run
from beam_jobs.config import ConfigError, load_preset, merge_config

ROOT = Path(__file__).resolve().parents[2]


def preset(tmp_path: Path, text: str, name: str = "preset.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def options(argv: list[str]) -> PipelineOptions:
    return PipelineOptions(merge_config(argv))


def test_without_config_the_command_line_is_unchanged():
    argv = ["--input", "a/*.warc.gz", "--output", "out", "--runner", "DirectRunner"]
    assert merge_config(argv) == argv


def test_preset_fills_what_the_command_line_leaves_out(tmp_path):
    path = preset(
        tmp_path,
        "runner: PortableRunner\nmax_num_workers: 7\nexperiments: [a, b]\n"
        "input: ['x/*.warc.gz', 'y/*.tar.gz']\nmode: full\nuse_public_ips: false\n",
    )
    opts = options(["--config", str(path), "--output", "out"])
    assert opts.view_as(StandardOptions).runner == "PortableRunner"
    assert opts.view_as(WorkerOptions).max_num_workers == 7
    assert opts.view_as(WorkerOptions).use_public_ips is False
    assert opts.view_as(DebugOptions).experiments == ["a", "b"]
    job = opts.view_as(CleanHtmlOptions)
    assert job.input == ["x/*.warc.gz", "y/*.tar.gz"]
    assert job.mode == "full" and job.output == "out" and job.config == str(path)


def test_command_line_wins_for_values_switches_and_repeatable_options(tmp_path):
    path = preset(
        tmp_path,
        "runner: PortableRunner\nmax_num_workers: 7\nexperiments: [a, b]\n"
        "input: ['x/*.warc.gz']\nuse_public_ips: false\n",
    )
    opts = options(
        [
            f"--config={path}",
            "--runner=DirectRunner",
            "--max_num_workers",
            "3",
            "--experiments",
            "c",
            "--input",
            "z/*.arc.gz",
            "--use_public_ips",
            "--output",
            "out",
        ]
    )
    assert opts.view_as(StandardOptions).runner == "DirectRunner"
    assert opts.view_as(WorkerOptions).max_num_workers == 3
    assert opts.view_as(WorkerOptions).use_public_ips is True
    # Replaced, not appended to: the preset's list does not leak into the command line's.
    assert opts.view_as(DebugOptions).experiments == ["c"]
    assert opts.view_as(CleanHtmlOptions).input == ["z/*.arc.gz"]


def test_relative_file_options_resolve_against_the_preset_folder(tmp_path):
    (tmp_path / "configs").mkdir()
    path = preset(
        tmp_path / "configs", "setup_file: ../setup.py\nrequirements_file: /abs/req.txt\n"
    )
    opts = options(["--config", str(path), "--input", "a", "--output", "o"])
    assert opts.view_as(SetupOptions).setup_file == str(tmp_path / "setup.py")
    assert opts.view_as(SetupOptions).requirements_file == "/abs/req.txt"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("max_num_wrkers: 3\n", "unknown option 'max_num_wrkers'; did you mean max_num_workers"),
        ("inptu: a\n", "unknown option 'inptu'"),
        ("config: other.yaml\n", "cannot name another preset"),
        ("max_num_workers: many\n", "max_num_workers: argument --max_num_workers: invalid int"),
        ("direct_running_mode: fast\n", "direct_running_mode: argument --direct_running_mode"),
        ("mode: everything\n", "mode: argument --mode: invalid choice"),
        ("runner: [DirectRunner]\n", "runner: takes one value, not a list"),
        ("use_public_ips: sometimes\n", "use_public_ips: is a switch"),
        ("project:\n", "project: has no value"),
        ("- runner\n- DirectRunner\n", "must be a mapping"),
        ("runner: [unclosed\n", "not valid YAML"),
    ],
)
def test_bad_presets_are_errors_naming_the_file_and_the_key(tmp_path, text, message):
    path = preset(tmp_path, text)
    with pytest.raises(ConfigError, match=r"preset\.yaml") as raised:
        merge_config(["--config", str(path), "--input", "a", "--output", "o"])
    assert message in str(raised.value)


def test_a_bad_key_is_an_error_even_when_the_command_line_sets_it(tmp_path):
    path = preset(tmp_path, "max_num_workers: many\n")
    with pytest.raises(ConfigError, match="max_num_workers"):
        merge_config(["--config", str(path), "--max_num_workers", "2"])


def test_missing_preset_file_is_an_error(tmp_path):
    with pytest.raises(ConfigError, match="cannot read"):
        merge_config(["--config", str(tmp_path / "nope.yaml")])


def test_empty_preset_adds_nothing(tmp_path):
    path = preset(tmp_path, "# nothing yet\n")
    assert load_preset(path) == {}
    assert merge_config(["--config", str(path), "--output", "o"]) == [
        "--config",
        str(path),
        "--output",
        "o",
    ]


def test_run_refuses_a_bad_preset_before_reading_anything(tmp_path):
    path = preset(tmp_path, "max_workers: 3\n")
    with pytest.raises(ConfigError, match="max_workers"):
        run(["--config", str(path), "--input", str(tmp_path / "none-*.warc.gz"), "--output", "o"])


def test_command_line_reports_a_bad_preset_and_exits_2(tmp_path):
    path = preset(tmp_path, "regoin: europe-west1\n")
    result = subprocess.run(
        [sys.executable, "-m", "beam_jobs.clean_html", "--config", str(path)]
        + ["--input", str(tmp_path / "*.warc.gz"), "--output", str(tmp_path / "out")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2
    assert "bad --config" in result.stderr and "'regoin'; did you mean region" in result.stderr


def alias_bomb(levels: int = 9) -> str:
    """A billion laughs: each level lists the one before nine times (a few hundred bytes)."""
    lines = ["experiments:", "  - &a0 [" + ", ".join(["lol"] * 9) + "]"]
    lines += [f"  - &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, levels + 1)]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    "text, message",
    [
        (alias_bomb(), "YAML alias *a0 (line 3)"),
        ("region: &r europe-west1\nworker_region: *r\n", "YAML alias *r (line 2)"),
        ("experiments: " + "[" * 10_000 + "]" * 10_000 + "\n", "nested more than 8 levels"),
        ("# padding\n" * 8000, "over 64 KiB"),
        (b"region: \xff\n", "not UTF-8"),
    ],
)
def test_a_preset_is_read_bounded_and_refused_in_one_line(tmp_path, text, message):
    """Aliases are refused before they are expanded (a 500-byte bomb reached gigabytes as
    flags), nesting before the loader recurses, and the size before the file is parsed."""
    path = tmp_path / "preset.yaml"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    with pytest.raises(ConfigError, match=re.escape(message)) as refused:
        load_preset(path)
    assert "\n" not in str(refused.value)


def test_every_shipped_preset_is_within_the_bounds():
    for path in sorted((ROOT / "configs").glob("*.yaml")):
        assert load_preset(path), path


def _at_most_2_gib():
    # so that an unbounded read or expansion fails here rather than taking the machine's memory
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


@pytest.mark.parametrize("kind", ["alias-bomb", "endless"])
def test_a_bomb_or_an_endless_preset_exits_2_with_one_line(tmp_path, kind):
    if kind == "endless":
        if not os.path.exists("/dev/zero"):
            pytest.skip("no /dev/zero")
        path, message = "/dev/zero", "over 64 KiB"
    else:
        path, message = str(preset(tmp_path, alias_bomb())), "YAML alias *a0"
    result = subprocess.run(
        [sys.executable, "-m", "beam_jobs.clean_html", "--config", path]
        + ["--input", str(tmp_path / "*.warc.gz"), "--output", str(tmp_path / "out")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=_at_most_2_gib,
    )
    assert result.returncode == 2, result.stderr[-2000:]
    lines = [line for line in result.stderr.splitlines() if line.startswith("clean_html")]
    assert len(lines) == 1 and message in lines[0], result.stderr
