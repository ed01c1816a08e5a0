"""Mojibake repair for extracted text, with ftfy set up to leave wanted content alone, then the
character policy (``characters``): the last form of the title, the text and the comments.

Run on extracted text only, not whole pages: ftfy is slow on large inputs. Plain ASCII text
cannot hold mojibake and is returned without calling ftfy (less any control characters). The
policy comes after the repair, which reads soft hyphens and C1 controls as bytes of mis-decoded
UTF-8 ("Ã\xad" is "í") and may itself bring a character the policy removes.

ftfy fixes text line by line and pays a fixed cost per line (some 15 us), which on extracted
text (hundreds of short lines and blank lines per page) cost as much as the extraction itself.
So lines that no enabled ftfy step would change are passed over: a line is left alone when it
holds none of the characters the character-level fixers act on, is already NFC, and ftfy's
mojibake pattern (``BADNESS_RE``, the test behind ``ftfy.badness.is_bad``) finds nothing in it:
ftfy's encoding fixer returns such a line unchanged. A whole text is passed over on the same
test, with the pattern's ``^`` matching at the start of every line (ftfy reads "Â " there as a
lost no-break space, as each line is a string of its own to it), unless it is longer than
``max_decode_length``, past which ftfy cuts a line into pieces that each start a string too.
That pattern is only tried (in C, ``walk.mojibake_found``) around the places where one of its
matches can be: each holds two neighbours from ftfy's classes (``_FIRST`` then ``_SECOND``) or
one of ``_LONE``, within its first three characters, and is at most six long; a test checks
this on the pattern's branches.
The result is the same as calling ``ftfy.fix_text`` on the whole text; a test checks this.

The search for the characters ftfy fixes is the policy's own (``characters.suspect``): a text
free of both is found with one search.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator

import ftfy
from ftfy.badness import BADNESS_RE, MOJIBAKE_CATEGORIES

from transforms.extract.characters import strip_unwanted, suspect
from transforms.extract.walk import mojibake_found

__all__ = ["REPAIR_CONFIG", "looks_like_mojibake", "repair_text"]

# Fix encoding mix-ups, but keep curly quotes, literal "&amp;" (entities were already
# unescaped by the extractor), full-width characters and ligatures as the author wrote them.
REPAIR_CONFIG = ftfy.TextFixerConfig(
    unescape_html=False,
    uncurl_quotes=False,
    fix_character_width=False,
    fix_latin_ligatures=False,
    normalization="NFC",
    explain=False,
)


# Characters that one of ftfy's enabled character-level fixers would replace or remove: control
# characters (remove_control_chars, remove_terminal_escapes), C1 controls (fix_c1_controls),
# line breaks other than "\n" (fix_line_breaks) and lone surrogates (fix_surrogates). All of
# them are ``characters.suspect``s.
_FIXABLE_CHARS = re.compile(
    "[\x00-\x08\x0b\x0d-\x1f\x7f-\x9f\u2028\u2029\u206a-\u206f\ufeff\ufff9-\ufffc\ud800-\udfff]"
)


# ftfy's classes (ftfy.badness.MOJIBAKE_CATEGORIES) that can be the first and the second of two
# neighbours in a match of BADNESS_RE, and the characters a match may hold without such a pair.
_FIRST = (
    "bad lower_accented upper_accented box start_punctuation end_punctuation currency numeric law"
    " lower_common upper_common"
)
_SECOND = (
    "bad lower_accented upper_accented box start_punctuation end_punctuation currency numeric law"
    " kaomoji c1 common"
)
_FIRST_TOO = "\N{LATIN CAPITAL LETTER U WITH GRAVE}"  # Arabic's "[ØÙ][...]"
_SECOND_TOO = "\N{CYRILLIC CAPITAL LETTER DJE}"  # the second of "вЂ"
_LONE = "\x80-\x9f\N{LATIN CAPITAL LIGATURE OE}\N{LATIN SMALL LIGATURE OE}\xc3\xc2"
# Every match of BADNESS_RE has its pair or lone character at offset 0, 1 or 2 and ends within
# this many characters of it.
_BADNESS_BEFORE = 2
_BADNESS_LONGEST = 6

# BADNESS_RE as ftfy applies it to a text, one line at a time: its "^" (of "^[ÃÂ][ ]") matches
# at the start of every line. Searched over several lines, it may also find a match that spans
# two of them, which ftfy would not see: such a text is only fixed line by line.
_BADNESS_BY_LINE_RE = re.compile(BADNESS_RE.pattern, BADNESS_RE.flags | re.MULTILINE)


def _flags() -> bytes:
    """A flag byte per code point of the Basic Multilingual Plane (where all of ftfy's classes
    lie): 1 a first, 2 a second, 4 a lone character."""
    plane = "".join(map(chr, range(0x80, 0x10000)))
    table = bytearray(0x10000)
    for flag, chars in (
        (1, "".join(MOJIBAKE_CATEGORIES[name] for name in _FIRST.split()) + _FIRST_TOO),
        (2, "".join(MOJIBAKE_CATEGORIES[name] for name in _SECOND.split()) + _SECOND_TOO),
        (4, _LONE),
    ):
        for char in re.findall(f"[{chars}]", plane):
            table[ord(char)] |= flag
    return bytes(table)


_MOJIBAKE_FLAGS = _flags()


def looks_like_mojibake(text: str) -> bool:
    """Whether ``ftfy.badness.is_bad`` is true of a line of ``text`` (``_BADNESS_BY_LINE_RE``),
    searching only where a match can be."""
    return mojibake_found(
        text, _MOJIBAKE_FLAGS, _BADNESS_BY_LINE_RE.search, _BADNESS_BEFORE, _BADNESS_LONGEST
    )


def _unchanged_by_ftfy(text: str) -> bool:
    """True when ``ftfy.fix_text(text, REPAIR_CONFIG)`` would return ``text`` as it is."""
    return (
        len(text) <= REPAIR_CONFIG.max_decode_length
        and _FIXABLE_CHARS.search(text) is None
        and unicodedata.is_normalized("NFC", text)
        and not looks_like_mojibake(text)
    )


def _segments(text: str) -> Iterator[str]:
    """The pieces ``ftfy.fix_text`` fixes one at a time: lines, cut at ``max_decode_length``."""
    limit = REPAIR_CONFIG.max_decode_length
    pos = 0
    while pos < len(text):
        end = text.find("\n", pos) + 1 or len(text)
        end = min(end, pos + limit)
        yield text[pos:end]
        pos = end


def repair_text(text: str) -> str:
    """Repair mojibake such as "cafÃ©" -> "café", normalize to NFC and apply the character
    policy (``characters.strip_unwanted``).

    What the policy removes goes first, but for the soft hyphens and C1 controls that may be
    bytes of mis-decoded UTF-8 (``for_repair``): a zero-width space inside a mojibake sequence
    would keep ftfy from reading it, and ftfy's own removals would leave the spaces around
    them. Those left go after the repair."""
    if text.isascii():
        return strip_unwanted(text)
    if suspect(text):
        text = strip_unwanted(text, checked=True, for_repair=True)
        if _unchanged_by_ftfy(text):
            return strip_unwanted(text) if "\xad" in text else text
    elif (
        len(text) <= REPAIR_CONFIG.max_decode_length
        and unicodedata.is_normalized("NFC", text)
        and not looks_like_mojibake(text)
    ):
        return text
    return strip_unwanted(
        "".join(
            segment if _unchanged_by_ftfy(segment) else ftfy.fix_text(segment, REPAIR_CONFIG)
            for segment in _segments(text)
        )
    )
