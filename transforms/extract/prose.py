"""What counts as a paragraph of prose, the same in every script.

Lengths are counted in characters, never in words: Chinese, Japanese and Thai put no spaces
between words, so a word count (``split()``, ``\\w+`` runs) sees a whole paragraph of them as
one word. A character of Chinese or Japanese (or a Hangul syllable) carries about as much as
three or four Latin letters, so a paragraph of prose is ``PROSE_CHARS`` characters, or
``PROSE_CJK_CHARS`` of those.
"""

from __future__ import annotations

import re

import numpy as np
from selectolax.lexbor import LexborNode, create_tag

from transforms.extract import walk

__all__ = ["PROSE_CHARS", "PROSE_CJK_CHARS", "holds_prose", "is_prose", "text_weight"]

PROSE_CHARS = 200
PROSE_CJK_CHARS = 60
# CJK ideographs, kana, Hangul syllables, and the CJK and full-width punctuation between them
CJK_RANGES = (
    (0x3000, 0x30FF),
    (0x3400, 0x4DBF),
    (0x4E00, 0x9FFF),
    (0xF900, 0xFAFF),
    (0xAC00, 0xD7AF),
    (0xFF00, 0xFFEF),
)
_CJK = re.compile("[" + "".join(f"{chr(lo)}-{chr(hi)}" for lo, hi in CJK_RANGES) + "]")
# CJK characters are counted by the run: a list of one string a character costs 15 times as
# much on CJK text
_CJK_RUN = re.compile(_CJK.pattern + "+")
_CJK_WEIGHT = PROSE_CHARS / PROSE_CJK_CHARS - 1  # what a CJK character weighs over one
# Elements whose own text (without their child elements) can be a paragraph: a <div> or a
# <td> holding text broken by <br> is as much a paragraph as a <p>.
_TEXT_HOLDERS = "p, div, td, dd, li, blockquote, pre, section, article, span, font"


def text_weight(text: str) -> float:
    """The length of ``text`` in Latin-letter equivalents: a CJK character (or Hangul
    syllable) counts ``PROSE_CHARS / PROSE_CJK_CHARS`` times."""
    n = len(text)
    if n < PROSE_CJK_CHARS or text.isascii():
        return n
    first = _CJK.search(text)
    if first is None:
        return n
    return n + _CJK_WEIGHT * sum(map(len, _CJK_RUN.findall(text, first.start())))


def is_prose(text: str) -> bool:
    """Whether ``text`` is long enough to be a paragraph of prose, in any script."""
    return len(text) >= PROSE_CHARS or text_weight(text) >= PROSE_CHARS


_HOLDER_TABLE = bytearray(
    max(create_tag(tag.strip()).tag_id for tag in _TEXT_HOLDERS.split(",")) + 1
)
for _tag in _TEXT_HOLDERS.split(","):
    _HOLDER_TABLE[create_tag(_tag.strip()).tag_id] = 1
_HOLDER_TABLE = bytes(_HOLDER_TABLE)
_CJK_TABLE = np.array(CJK_RANGES, dtype=np.uint32)


def holds_prose(node: LexborNode) -> bool:
    """Whether ``node`` holds a paragraph of prose: an element (itself included, else one of
    ``_TEXT_HOLDERS``) whose own text is prose (``is_prose``), told in one compiled walk
    (``walk.holds_prose``) without building the texts."""
    return walk.holds_prose(
        node, _HOLDER_TABLE, PROSE_CHARS, _CJK_WEIGHT, PROSE_CJK_CHARS, _CJK_TABLE
    )
