"""What counts as a paragraph of prose, the same in every script.

Lengths are counted in characters, never in words: Chinese, Japanese and Thai put no spaces
between words, so a word count (``split()``, ``\\w+`` runs) sees a whole paragraph of them as
one word. A character of Chinese or Japanese (or a Hangul syllable) carries about as much as
three or four Latin letters, so a paragraph of prose is ``PROSE_CHARS`` characters, or
``PROSE_CJK_CHARS`` of those.
"""

from __future__ import annotations

import re

from selectolax.lexbor import LexborNode

__all__ = ["PROSE_CHARS", "PROSE_CJK_CHARS", "holds_prose", "is_prose", "text_weight"]

PROSE_CHARS = 200
PROSE_CJK_CHARS = 60
# CJK ideographs, kana, Hangul syllables, and the CJK and full-width punctuation between them
_CJK = re.compile(
    "[\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af\uff00-\uffef]"
)
# Elements whose own text (without their child elements) can be a paragraph: a <div> or a
# <td> holding text broken by <br> is as much a paragraph as a <p>.
_TEXT_HOLDERS = "p, div, td, dd, li, blockquote, pre, section, article, span, font"


def text_weight(text: str) -> float:
    """The length of ``text`` in Latin-letter equivalents: a CJK character (or Hangul
    syllable) counts ``PROSE_CHARS / PROSE_CJK_CHARS`` times."""
    n = len(text)
    if n < PROSE_CJK_CHARS or text.isascii():
        return n
    return n + (PROSE_CHARS / PROSE_CJK_CHARS - 1) * len(_CJK.findall(text))


def is_prose(text: str) -> bool:
    """Whether ``text`` is long enough to be a paragraph of prose, in any script."""
    return len(text) >= PROSE_CHARS or text_weight(text) >= PROSE_CHARS


def holds_prose(node: LexborNode) -> bool:
    """Whether ``node`` holds a paragraph of prose: an element (itself included) whose own
    text is prose."""
    for element in (node, *node.css(_TEXT_HOLDERS)):
        if is_prose(element.text(deep=False, strip=True)):
            return True
    return False
