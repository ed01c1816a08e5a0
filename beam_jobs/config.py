"""``--config FILE``: a YAML preset of pipeline options, merged under the command line.

A preset is a flat mapping from option names (the ``dest`` of a Beam or job option, e.g.
``max_num_workers``, ``sdk_container_image``, ``mode``) to values::

    runner: DataflowRunner
    region: europe-west1
    experiments: [use_runner_v2]
    use_public_ips: false

``merge_config(argv)`` turns the preset named by ``--config`` into flags and puts them *before*
the command line's own, leaving out every option the command line already sets: the command line
wins, also for repeatable options such as ``--input`` and ``--experiments``, which are replaced
rather than appended to. Keys that no registered option knows, and values the option's parser
rejects, raise ``ConfigError`` naming the file and the key, so that a typo in a preset fails before
anything is launched instead of being dropped with a mere warning, as Beam does with unknown flags.

Relative paths under ``PATH_KEYS`` (``setup_file``, ...) are taken relative to the preset's
folder, so that a preset works from any working directory (Airflow's, CI's, a user's).

A preset is read bounded: at most ``MAX_PRESET_BYTES``, ``MAX_PRESET_DEPTH`` levels of nesting
and no YAML aliases (``load_preset``), so that a small file cannot expand into gigabytes.
"""

from __future__ import annotations

import argparse
import difflib
import json
import math
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, NoReturn

import yaml
from apache_beam.options.pipeline_options import PipelineOptions, _BeamArgumentParser

__all__ = [
    "CONFIG_FLAG",
    "MAX_PRESET_BYTES",
    "MAX_PRESET_DEPTH",
    "PATH_KEYS",
    "ConfigError",
    "UsageError",
    "all_options_help",
    "check_flags",
    "load_preset",
    "merge_config",
    "number_type",
    "preset_flags",
]

CONFIG_FLAG = "--config"

# Options whose values are local files; relative values are resolved against the preset's folder.
PATH_KEYS = frozenset({"setup_file", "requirements_file", "extra_packages"})
# The presets in configs/ are under 1 KiB and two levels deep (a mapping of short lists).
MAX_PRESET_BYTES = 64 * 1024
MAX_PRESET_DEPTH = 8


class ConfigError(ValueError):
    """A preset that cannot be merged: unreadable, not a mapping, unknown key or bad value."""


class UsageError(ValueError):
    """A command line the job refuses before any work: an unknown flag or a bad value."""


class _RaisingParser(_BeamArgumentParser):
    """Beam's option parser, but raising instead of printing usage and exiting."""

    def error(self, message: str) -> NoReturn:
        raise ConfigError(message)


def _all_options_parser() -> _RaisingParser:
    """A parser with every registered ``PipelineOptions`` subclass's options, none required.

    Mirrors ``PipelineOptions.get_all_options``: the job's own options are included as long as
    their module has been imported (``beam_jobs.clean_html`` imports this one, not the reverse).
    """
    parser = _RaisingParser(allow_abbrev=False)
    seen: dict[str, type[PipelineOptions]] = {}
    for cls in PipelineOptions.__subclasses__():
        seen.setdefault(str(cls), cls)
    for cls in seen.values():
        cls._add_argparse_args(parser)
    for action in parser._actions:
        action.required = False
    return parser


def _actions_by_dest(parser: argparse.ArgumentParser) -> dict[str, list[argparse.Action]]:
    by_dest: dict[str, list[argparse.Action]] = {}
    for action in parser._actions:
        if action.option_strings and action.dest != "help":
            by_dest.setdefault(action.dest, []).append(action)
    return by_dest


def _flag(action: argparse.Action, key: str) -> str:
    """The option's own spelling, ``--key``, where it has one (``--experiments``, not ``--experiment``)."""
    if f"--{key}" in action.option_strings:
        return f"--{key}"
    return next((s for s in action.option_strings if s.startswith("--")), action.option_strings[0])


def _flags_for(key: str, value: Any, actions: list[argparse.Action]) -> list[str]:
    """The command-line form of one preset entry, in the way its parser expects it."""
    if isinstance(value, bool):
        # store_true / store_false pairs such as --use_public_ips / --no_use_public_ips.
        for action in actions:
            if action.nargs == 0 and action.const is value:
                return [_flag(action, key)]
        if all(action.nargs == 0 and bool(action.default) is value for action in actions):
            return []  # e.g. ``save_main_session: false``: the default already
        raise ConfigError(f"{key}: takes a value, not {value!r}")
    if any(action.nargs == 0 for action in actions):
        raise ConfigError(f"{key}: is a switch; write true or false, not {value!r}")
    action = next((a for a in actions if f"--{key}" in a.option_strings), actions[0])
    if isinstance(value, dict):
        return [f"{_flag(action, key)}={json.dumps(value)}"]
    if isinstance(value, list):
        if action.nargs in ("+", "*"):
            return [_flag(action, key), *(str(item) for item in value)]
        if isinstance(action, argparse._StoreAction):
            raise ConfigError(f"{key}: takes one value, not a list")
        # Repeatable options (append, Beam's comma-separated lists): one flag per item.
        return [f"{_flag(action, key)}={item}" for item in value]
    if value is None:
        raise ConfigError(f"{key}: has no value (leave the key out to use the default)")
    return [f"{_flag(action, key)}={value}"]


class _PresetLoader(yaml.SafeLoader):
    """YAML's safe loader, refusing aliases and nesting deeper than ``MAX_PRESET_DEPTH``.

    An alias repeats a value without its bytes: ten lines of them make a value of a billion
    items once it is turned into flags (a 500-byte preset took gigabytes). A preset is a flat
    mapping with short lists, so neither has a use; both stop the loader before the value is
    built (nesting first, as the composer recurses once per level)."""

    _depth = 0

    def compose_node(self, parent, index):
        event = self.peek_event()
        where = f"line {event.start_mark.line + 1}"
        if isinstance(event, yaml.AliasEvent):
            raise ConfigError(
                f"YAML alias *{event.anchor} ({where}): a preset holds its values written out"
            )
        if self._depth >= MAX_PRESET_DEPTH:
            raise ConfigError(f"nested more than {MAX_PRESET_DEPTH} levels deep ({where})")
        self._depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def _read_bounded(path: str | os.PathLike[str]) -> str:
    """The text of a preset of at most ``MAX_PRESET_BYTES`` (a pipe or ``/dev/zero`` too)."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_PRESET_BYTES + 1)
    except OSError as e:
        raise ConfigError(f"cannot read it ({e.strerror})") from e
    if len(data) > MAX_PRESET_BYTES:
        raise ConfigError(f"over {MAX_PRESET_BYTES >> 10} KiB: a preset is a few lines of options")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ConfigError(f"not UTF-8 text (byte {e.start})") from None


def load_preset(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read a preset file: a YAML mapping from option names to values (empty file: no options).

    Bounded (see ``_read_bounded`` and ``_PresetLoader``): a preset that is too large, too
    deep or uses YAML aliases is refused with ``ConfigError`` before anything is built."""
    try:
        data = yaml.load(_read_bounded(path), Loader=_PresetLoader)
    except ConfigError as e:
        raise ConfigError(f"{CONFIG_FLAG} {path}: {e}") from None
    except yaml.YAMLError as e:
        raise ConfigError(f"{CONFIG_FLAG} {path}: not valid YAML: {e}") from e
    if data is None:
        return {}
    if not isinstance(data, dict) or not all(isinstance(k, str) for k in data):
        raise ConfigError(f"{CONFIG_FLAG} {path}: must be a mapping of option names to values")
    return data


def _resolve_paths(key: str, value: Any, base: Path) -> Any:
    if key not in PATH_KEYS:
        return value
    if isinstance(value, list):
        return [_resolve_paths(key, item, base) for item in value]
    if isinstance(value, str) and "://" not in value and not os.path.isabs(value):
        return str((base / value).resolve())
    return value


def preset_flags(
    preset: dict[str, Any], *, source: str = "preset", skip: Iterable[str] = ()
) -> list[str]:
    """Validate ``preset`` and return it as command-line flags, leaving out the keys in ``skip``.

    Raises ``ConfigError`` for keys no registered option defines and for values its parser
    rejects; the message starts with ``source`` (the file name) and the key.
    """
    parser = _all_options_parser()
    by_dest = _actions_by_dest(parser)
    skipped = set(skip)
    flags: list[str] = []
    for key, value in preset.items():
        if key == "config":
            raise ConfigError(f"{source}: a preset cannot name another preset ({key!r})")
        if key not in by_dest:
            close = difflib.get_close_matches(key, by_dest, n=3)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise ConfigError(f"{source}: unknown option {key!r}{hint}")
        try:
            entry = _flags_for(key, value, by_dest[key])
            parser.parse_known_args(entry)
        except ConfigError as e:
            message = str(e) if str(e).startswith(f"{key}:") else f"{key}: {e}"
            raise ConfigError(f"{source}: {message}") from None
        if key not in skipped:
            flags += entry
    return flags


def check_flags(argv: Sequence[str]) -> None:
    """Raise ``UsageError`` for a flag that no registered option knows, and for a value its
    option's parser refuses (the job's own options check their ranges).

    Beam only logs a warning for an unknown flag and goes on with the defaults, so that a
    misspelled ``--max_reject_ration 0`` would silently run without its check.
    """
    parser = _all_options_parser()
    try:
        _, unknown = parser.parse_known_args(list(argv))
    except ConfigError as e:
        raise UsageError(str(e)) from None
    if not unknown:
        return
    first = next((arg for arg in unknown if arg.startswith("-")), unknown[0])
    if not first.startswith("-"):
        raise UsageError(f"unexpected argument {first!r} (every option is a --flag)")
    name = first.split("=", 1)[0]
    known = [s for a in parser._actions for s in a.option_strings if s.startswith("--")]
    close = difflib.get_close_matches(name, known, n=3)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    raise UsageError(f"unknown flag {name}{hint}")


def all_options_help() -> str:
    """The help of every registered option: Beam's pipeline options and the job's own."""
    return _all_options_parser().format_help()


def _given_on_command_line(argv: Sequence[str]) -> set[str]:
    """The option dests that ``argv`` sets explicitly (defaults do not count)."""
    parser = _all_options_parser()
    for action in parser._actions:
        action.default = argparse.SUPPRESS
    try:
        given, _ = parser.parse_known_args(list(argv))
    except ConfigError:
        # A malformed command line is reported by the job's own parsing, with Beam's message.
        return set()
    return set(vars(given))


def _config_path(argv: Sequence[str]) -> str | None:
    finder = _RaisingParser(allow_abbrev=False, add_help=False)
    finder.add_argument(CONFIG_FLAG)
    found, _ = finder.parse_known_args(list(argv))
    return found.config


def merge_config(argv: Sequence[str]) -> list[str]:
    """``argv`` with the options of its ``--config`` preset put first, where argv sets none.

    Without ``--config`` the command line is returned unchanged. The ``--config`` flag itself is
    kept, so the job's recorded options say which preset it ran with.
    """
    path = _config_path(argv)
    if path is None:
        return list(argv)
    base = Path(path).resolve().parent
    preset = {k: _resolve_paths(k, v, base) for k, v in load_preset(path).items()}
    return [*preset_flags(preset, source=path, skip=_given_on_command_line(argv)), *argv]


def number_type(kind: type, low: float, *, low_included: bool, high: float = math.inf):
    """An argparse ``type`` that reads ``kind`` and refuses NaN and values outside the range:
    a zero cap would reject every document, a NaN ratio would disable its check."""
    bound = f">= {low}" if low_included else f"> {low}"
    if high != math.inf:
        bound += f" and <= {high}"

    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        below = value < low if low_included else value <= low
        if math.isnan(value) or below or value > high:
            raise argparse.ArgumentTypeError(f"{text!r} is out of range (must be {bound})")
        return value

    parse.__name__ = kind.__name__  # argparse names the type in its messages
    return parse
