"""Line and paragraph signals: bullets, ellipses, terminal punctuation, short lines, repeats.

A line is a line of the text with its surrounding whitespace stripped; blank lines are not
lines. A paragraph is a run of lines between blank lines (the cleaning job puts one between
blocks). Characters are counted over the lines (line breaks and the stripped whitespace do not
count), so that every character fraction here has the same denominator.

The rules they serve:
- Gopher (Rae et al. 2021, appendix A): at most 90% of lines starting with a bullet, at most
  30% ending with an ellipsis; duplicate lines at most 30% of lines and 20% of characters,
  duplicate paragraphs likewise.
- C4 (Raffel et al. 2020): keep only lines ending in terminal punctuation; here, as a row
  signal, the fraction of lines that do.
- FineWeb (Penedo et al. 2024): drop a document when at most 12% of its lines end in
  punctuation, when 10% or more of its characters are in duplicated lines, or when 67% or more
  of its lines are shorter than 30 characters.

A line or paragraph is a duplicate when the same one came earlier in the text: the first
occurrence is the original, every later copy counts (as datatrove does for Gopher and FineWeb).
"""

from __future__ import annotations

from itertools import repeat
from typing import NamedTuple

__all__ = ["BULLETS", "SHORT_LINE_CHARS", "TERMINAL_PUNCTUATION", "LineSignals", "line_signals"]

# Characters that start a bulleted line (after NFKC): list markers of plain text and Markdown.
BULLETS = (
    "-", "*", "+", "•", "‣", "⁃", "◦", "▪", "▫", "●", "○", "■", "□", "►", "▶", "➢", "➤", "✓",
    "✔", "·", "–", "—",
)  # fmt: skip
# C4's ". ! ? \"" and the closing quotes and full stops of other scripts (NFKC has already
# turned full-width ! ? . into ASCII).
TERMINAL_PUNCTUATION = (
    ".", "!", "?", '"', "'", "”", "’", "»", "。", "」", "』", "؟", "۔", "।", "॥", "።",
)  # fmt: skip
ELLIPSIS = "..."  # NFKC writes "…" as three dots
SHORT_LINE_CHARS = 30  # FineWeb: "lines shorter than 30 characters"


class LineSignals(NamedTuple):
    lines: int
    bullet_line_fraction: float
    ellipsis_line_fraction: float
    punctuation_line_fraction: float
    short_line_fraction: float
    duplicate_line_fraction: float
    duplicate_line_char_fraction: float
    duplicate_paragraph_fraction: float
    duplicate_paragraph_char_fraction: float


def _repeats(items: list[tuple[str, ...]]) -> tuple[int, int]:
    """How many of ``items`` (each a tuple of lines) repeat an earlier one, and the characters
    of their lines."""
    seen: set[tuple[str, ...]] = set()
    count = chars = 0
    for item in items:
        if item in seen:
            count += 1
            chars += sum(map(len, item))
        else:
            seen.add(item)
    return count, chars


def line_signals(text: str) -> LineSignals:
    """The line and paragraph signals of ``text`` (NFKC-normalised, case kept)."""
    lines: list[str] = []
    paragraphs: list[tuple[str, ...]] = []
    start = 0  # where the current paragraph's lines start in ``lines``
    for raw in text.splitlines():
        line = raw.strip()
        if line:
            lines.append(line)
        elif start < len(lines):
            paragraphs.append(tuple(lines[start:]))
            start = len(lines)
    if start < len(lines):
        paragraphs.append(tuple(lines[start:]))
    n = len(lines)
    if n == 0:
        return LineSignals(0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    lengths = list(map(len, lines))
    chars = sum(lengths)
    dup_lines, dup_line_chars = _repeats([(line,) for line in lines])
    dup_paragraphs, dup_paragraph_chars = _repeats(paragraphs)
    return LineSignals(
        lines=n,
        bullet_line_fraction=sum(map(str.startswith, lines, repeat(BULLETS))) / n,
        ellipsis_line_fraction=sum(map(str.endswith, lines, repeat(ELLIPSIS))) / n,
        punctuation_line_fraction=sum(map(str.endswith, lines, repeat(TERMINAL_PUNCTUATION))) / n,
        short_line_fraction=sum(map(SHORT_LINE_CHARS.__gt__, lengths)) / n,
        duplicate_line_fraction=dup_lines / n,
        duplicate_line_char_fraction=dup_line_chars / chars,
        duplicate_paragraph_fraction=dup_paragraphs / len(paragraphs),
        duplicate_paragraph_char_fraction=dup_paragraph_chars / chars,
    )
