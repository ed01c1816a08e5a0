"""Which characters the title, the text and the comments keep: one policy, applied once.

A page holds characters that no reader sees and that split words for every tokenizer (a soft
hyphen or a zero-width space inside a word), characters that make the text shown differ from the
text stored (a right-to-left override turns ``user\\u202egnp.exe`` into "userexe.png"), and
controls and noncharacters that have no business in text at all. Some invisible characters are
what a script needs, though. The policy, class by class (``README.md`` has the same table):

==============================================  ==========================================
class                                           ends as
==============================================  ==========================================
tab, line feed                                  kept
other C0 controls, DEL (a terminal colour       removed (whitespace ones, outside a code
escape ``ESC[31m`` as a whole)                  block, were a space already)
C1 controls U+0080-U+009F                       read by the mojibake repair as the
                                                windows-1252 character it stands for, if
                                                any; the rest removed
soft hyphen U+00AD, zero-width space U+200B,    removed: invisible, and they split the word
word joiner U+2060, U+FEFF inside the text
invisible operators U+2061-U+2064, deprecated   removed
format characters U+206A-U+206F,
interlinear annotation U+FFF9-U+FFFB, object
replacement U+FFFC, unassigned U+2065 and
U+FFF0-U+FFF8
bidi embeddings, overrides and isolates         removed: they reorder what is shown
U+202A-U+202E, U+2066-U+2069
LRM, RLM, ALM (U+200E, U+200F, U+061C)          kept in a text with right-to-left letters,
                                                where they place punctuation and digits;
                                                removed elsewhere
ZWJ, ZWNJ (U+200D, U+200C)                      kept next to a character of Hebrew and the
                                                scripts after it (Arabic, Persian, Indic,
                                                emoji, ...), which join or part letters
                                                with them; removed between Latin, Greek or
                                                Cyrillic letters, where they only ask for or
                                                forbid a ligature
Mongolian vowel separator U+180E                kept between Mongolian letters; removed
                                                elsewhere
tag characters U+E0000-U+E007F                  kept in an emoji tag sequence (the flags of
                                                England, Scotland, Wales); removed elsewhere
other unassigned ignorables U+E0080-U+E0FFF     removed
noncharacters U+FDD0-U+FDEF, U+xFFFE, U+xFFFF   removed (the extractor's own layout markers
                                                are among them: a page's are not read as
                                                layout)
lone surrogates (none come from the parser)     U+FFFD (the repair's)
variation selectors, CGJ U+034F, Hangul         kept: part of how their scripts and emoji
fillers, Arabic number signs, Egyptian and      are written
shorthand format controls
private use, code points unassigned in this     kept: an icon font's glyph or a newer
Python's Unicode                                character; a corpus can drop them knowing
                                                they are there
==============================================  ==========================================

Where it applies. To the title's sources as they are read (``title``), so that the headline is
chosen among what a reader sees; to Markdown's text nodes, before its escaping (``markdown``: a
character removed after it could leave a ``#`` at a line's start, and the line would become a
heading); and to everything in ``repair.repair_text``, the last step of the title, the text and
the comments (for the text layout, the only one). There what the policy removes goes before
the mojibake repair (ftfy), but for the soft hyphens and C1 controls that may be bytes of
mis-decoded UTF-8 ("Ã\\xad" is "í"): those go after it. In laid-out text the spaces and line
breaks around what is removed are tidied as the layout would have left them (``_tidy``).

Cost. ``suspect`` is the one check every text pays: a compiled search for one of the
characters the policy looks at (``walk.suspect_found``, a bitmap of the Basic Multilingual
Plane tested per character, under a nanosecond each; sre's search for the same class,
``_SUSPECT``, which the tests hold it to, took some 5 ns). Every character beyond U+FFFF is a
suspect, so a text with emoji takes the slow path: there each run of suspects is decided
character by character, which costs per run, not per character of the text.
"""

from __future__ import annotations

import re
import unicodedata

from transforms.extract import walk

__all__ = ["removed_at", "right_to_left", "strip_unwanted", "strip_unwanted_in_node", "suspect"]

# The characters looked at, in the Basic Multilingual Plane: the classes of the table, ZWJ and
# ZWNJ, and the line breaks and surrogates that ftfy fixes (``repair``) though the policy does
# not. Everything beyond U+FFFF is looked at too.
_LOOKED_AT = (
    (0x00, 0x08),
    (0x0B, 0x1F),  # with CR, a line break: in the text only inside Markdown code blocks
    (0x7F, 0x9F),
    (0xAD, 0xAD),
    (0x61C, 0x61C),
    (0x180E, 0x180E),
    (0x200B, 0x200F),
    (0x2028, 0x202E),
    (0x2060, 0x206F),
    (0xD800, 0xDFFF),
    (0xFDD0, 0xFDEF),
    (0xFEFF, 0xFEFF),
    (0xFFF0, 0xFFFC),
    (0xFFFE, 0xFFFF),
)


def _negated_class(ranges: tuple[tuple[int, int], ...]) -> str:
    """A regex class of the characters outside the BMP ``ranges``: every BMP character that
    is not in one of them is excluded, so it matches those ranges and everything beyond U+FFFF."""
    parts, start = [], 0
    for low, high in ranges:
        if low > start:
            parts.append(f"\\U{start:08x}-\\U{low - 1:08x}")
        start = high + 1
    if start <= 0xFFFF:
        parts.append(f"\\U{start:08x}-\\U0000ffff")
    return "[^" + "".join(parts) + "]"


# A run written "[...][...]*", not "[...]+": sre skips ahead to a pattern's first character
# only when the pattern starts with a class (2.5 times faster on text with no suspect).
_SUSPECT = re.compile(_negated_class(_LOOKED_AT))
# The same as a bitmap of the BMP, for the compiled search (``walk.suspect_found``; tested
# equal to ``_SUSPECT``): sre tests a class of many ranges at some 5 ns a character.
_LOOKED_AT_BITS = bytearray(0x10000 // 8)
for _low, _high in _LOOKED_AT:
    for _code in range(_low, _high + 1):
        _LOOKED_AT_BITS[_code >> 3] |= 1 << (_code & 7)
_LOOKED_AT_BITS = bytes(_LOOKED_AT_BITS)
_SUSPECT_RUN = re.compile(_negated_class(_LOOKED_AT) * 2 + "*")
_TERMINAL_ESCAPE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_RIGHT_TO_LEFT = re.compile(
    "[\u0590-\u08ff\ufb1d-\ufdcf\ufdf0-\ufdff\ufe70-\ufefe\U00010800-\U00010fff"
    "\U0001e800-\U0001efff]"
)
_FLAG = re.compile("\U0001f3f4[\U000e0020-\U000e007e]+\U000e007f")
_GONE = "\x00"  # marks a run removed whole, for the tidying (no NUL is left after the policy)

_KEPT_FOR_REPAIR = frozenset("\t\n\r\u2028\u2029")
_BIDI_MARKS = frozenset("\u200e\u200f\u061c")
_JOINERS = frozenset("\u200c\u200d")
_MVS = "\u180e"
# C1 controls that windows-1252 leaves undefined: ftfy keeps them, so they are removed here
# unless they may be a byte of mis-decoded UTF-8.
_C1_UNDEFINED = frozenset("\x81\x8d\x8f\x90\x9d")
# Mis-decoded UTF-8 (read as Latin-1 or windows-1252): a lead byte (U+00C2-U+00F4) and one to
# three continuation bytes (U+0080-U+00BF, or the windows-1252 characters of 0x80-0x9F). A soft
# hyphen (byte 0xAD) or C1 control is left for the repair only as such a continuation.
_LEAD_BYTES = frozenset(map(chr, range(0xC2, 0xF5)))
_CONTINUATION_BYTES = frozenset(
    [chr(c) for c in range(0x80, 0xC0)] + list(bytes(range(0x80, 0xA0)).decode("cp1252", "ignore"))
)


def _may_be_mojibake(text: str, i: int) -> bool:
    """Whether ``text[i]`` (a continuation byte read as a character) is inside a whole UTF-8
    sequence read that way: a lead byte within three characters before it, and as many
    continuation bytes after the lead as it announces (C2-DF: one, E0-EF: two, F0-F4: three)."""
    for lead in range(i - 1, max(i - 4, -1), -1):
        if text[lead] in _LEAD_BYTES:
            break
        if text[lead] not in _CONTINUATION_BYTES:
            return False
    else:
        return False
    code = ord(text[lead])
    end = lead + (2 if code <= 0xDF else 3 if code <= 0xEF else 4)
    return i < end <= len(text) and all(c in _CONTINUATION_BYTES for c in text[lead + 1 : end])


_last_plain: str | None = None  # the last text found to hold no suspect


def suspect(text: str) -> bool:
    """Whether ``text`` holds a character the policy (or ftfy's character fixes) may act on;
    False means ``strip_unwanted`` returns it as it is.

    The last text found to hold none is remembered (by identity: a ``str`` does not change):
    Markdown is checked when written and again by the repair, the same string both times."""
    global _last_plain
    if text is _last_plain:
        return False
    if not walk.suspect_found(text, _LOOKED_AT_BITS):
        _last_plain = text
        return False
    return True


def right_to_left(text: str) -> bool:
    """Whether ``text`` holds a right-to-left letter (Hebrew, Arabic, Syriac, Thaana, N'Ko, ...)."""
    return _RIGHT_TO_LEFT.search(text) is not None


def _joins(char: str) -> bool:
    """Whether a ZWJ or ZWNJ next to ``char`` may be doing a script's work: from Hebrew on
    (U+0590), outside the General Punctuation block (spaces and invisible characters), and not
    a character the policy removes itself."""
    if not char or char < "\u0590" or "\u2000" <= char <= "\u206f":
        return False
    code = ord(char)
    return not (
        0xFDD0 <= code <= 0xFDEF
        or code & 0xFFFE == 0xFFFE
        or 0xFFF0 <= code <= 0xFFFC
        or code in (0xFEFF, 0x180E)
        or 0xE0000 <= code <= 0xE0FFF
    )


class _Policy:
    """``re.sub`` callback deciding each run of suspects in ``text``, character by character.

    ``for_repair``: a soft hyphen or C1 control that may be part of mojibake is left for the
    repair. ``in_node``: ``text`` is the text of one Markdown text node (or title source), a
    part of the text: a joiner at its edge is left for the decision on the whole, and the
    whitespace is not tidied. ``rtl``: whether the whole text has right-to-left
    letters (found in ``text`` when not given)."""

    def __init__(self, text: str, for_repair: bool, in_node: bool, rtl: bool | None) -> None:
        self.text = text
        self.for_repair = for_repair
        self.in_node = in_node
        self._rtl = rtl
        self.changed = False
        self.removed: list[int] = []  # where a character was removed

    def rtl(self) -> bool:
        if self._rtl is None:
            self._rtl = right_to_left(self.text)
        return self._rtl

    def __call__(self, match: re.Match) -> str:
        text, start, end = self.text, match.start(), match.end()
        run = match.group()
        flags = [m.span() for m in _FLAG.finditer(text, start, end)] if "\U000e007f" in run else []
        kept = []
        for i, char in enumerate(run, start):
            if self._keeps(char, i, flags):
                kept.append(char)
            else:
                self.removed.append(i)
        if len(kept) == len(run):
            return run
        self.changed = True
        if kept or self.in_node:
            return "".join(kept)
        # removed whole: marked for ``_tidy`` where it leaves spaces or a line to tidy
        before = text[start - 1] if start else "\n"
        after = text[end] if end < len(text) else "\n"
        return _GONE if before in " \n" or after in " \n" else ""

    def _keeps(self, char: str, i: int, flags: list[tuple[int, int]]) -> bool:
        text = self.text
        if char in _KEPT_FOR_REPAIR:
            return True
        code = ord(char)
        if code > 0xFFFF:
            if code & 0xFFFE == 0xFFFE:
                return False
            if 0xE0000 <= code <= 0xE0FFF and not 0xE0100 <= code <= 0xE01EF:
                return any(low <= i < high for low, high in flags)
            return True
        if code < 0x20 or code == 0x7F:
            return False
        if code <= 0x9F or code == 0xAD:
            if not self.for_repair:
                return False
            # left for the repair: a C1 control windows-1252 defines, and any that may be mojibake
            return (code <= 0x9F and char not in _C1_UNDEFINED) or _may_be_mojibake(text, i)
        if char in _BIDI_MARKS:
            return self.rtl()
        if char in _JOINERS:
            before = text[i - 1] if i else ""
            after = text[i + 1] if i + 1 < len(text) else ""
            if self.in_node and not (before and after):
                return True
            return _joins(before) or _joins(after)
        if char == _MVS:
            before = text[i - 1] if i else ""
            after = text[i + 1] if i + 1 < len(text) else ""
            return "\u1800" <= before <= "\u18af" and "\u1800" <= after <= "\u18af"
        return False


def _strip(text: str, for_repair: bool, in_node: bool = False, rtl: bool | None = None) -> str:
    if "\x1b" in text:
        text = _TERMINAL_ESCAPE.sub("\x1b", text)
    policy = _Policy(text, for_repair, in_node, rtl)
    stripped = _SUSPECT_RUN.sub(policy, text)
    if not policy.changed:
        return text
    if _GONE in stripped:
        stripped = _tidy(stripped)
    return stripped


def strip_unwanted(text: str, *, checked: bool = False, for_repair: bool = False) -> str:
    """``text`` (a title, laid-out text or Markdown) without what the policy removes, the
    spaces and line breaks around a removed character tidied, in NFC. ``checked``: the caller
    found ``suspect(text)`` true already. ``for_repair``: before the mojibake repair, which
    reads soft hyphens and C1 controls: those that may be mojibake stay (and NFC is the
    repair's)."""
    if not checked and not suspect(text):
        return text
    stripped = _strip(text, for_repair)
    if stripped is not text and not for_repair and not unicodedata.is_normalized("NFC", stripped):
        stripped = unicodedata.normalize("NFC", stripped)
    return stripped


def removed_at(text: str) -> list[int]:
    """Where in ``text`` the characters are that ``strip_unwanted`` removes (a terminal
    escape's ``ESC`` only), in order."""
    if not suspect(text):
        return []
    policy = _Policy(text, for_repair=False, in_node=False, rtl=None)
    _SUSPECT_RUN.sub(policy, text)
    return policy.removed


def strip_unwanted_in_node(text: str, rtl: bool | None = None) -> str:
    """The text of one text node (or one of the title's sources) without what the policy
    removes, leaving what may be part of mojibake to the repair (the whitespace is the
    caller's to collapse); ``rtl``: whether the text the node is part of has right-to-left
    letters (by default: whether ``text`` has)."""
    return _strip(text, for_repair=True, in_node=True, rtl=rtl) if suspect(text) else text


# Where runs removed whole (``_GONE``, several with a space between them counting as one) leave
# whitespace the layout would not have: a space after them at a line's start or before them at a
# line's end, a space on each side, a table cell's separator (lines left with nothing else are
# found by ``_GONE_LINE`` and dropped by ``_tidy``). Each pattern but that one starts with a
# literal (the lookbehinds come after it), so that sre finds the few places quickly.
_GONE_LINE = re.compile("(?:^|\n)[ \x00]*\x00[ \x00]*(?:\n|$)")  # a line of nothing else
_GONE_CELL_FIRST = re.compile("\x00(?<![^\n]\x00)(?: \x00)* \\| ")  # a table row's
_GONE_CELL = re.compile(" \\| \x00(?: \x00)*(?= \\| |\n|\\Z)")  # a cell of nothing else
_GONE_AT_LINE_START = re.compile("\x00(?<![^\n]\x00)(?: \x00)* (?! )")
_GONE_AT_LINE_END = re.compile(" \x00(?<![ \n] \x00)(?: \x00)*(?=\n|\\Z)")
_GONE_BETWEEN_SPACES = re.compile(" \x00(?: \x00)* ")


def _tidy(text: str) -> str:
    """``text`` with each ``_GONE`` mark taken out, and the whitespace around it as the layout
    would have left it without the characters removed: one space between words, none at a
    line's edge, no line left empty, no more than one blank line in a row, none at the ends. A
    line's two or more leading spaces (a code block's indentation) stay; a table cell left
    empty goes with its separator, as the layout drops empty cells."""
    if " | " in text:
        text = _GONE_CELL.sub("", _GONE_CELL_FIRST.sub(_GONE, text))
    if _GONE_LINE.search(text):
        lines: list[str] = []
        dropped = False  # lines were dropped since the last line with text
        for line in text.split("\n"):
            if _GONE in line and not line.replace(_GONE, "").strip(" "):
                dropped = True
                continue
            if dropped and not line and (not lines or not lines[-1]):
                continue  # a blank line where one is already, or at the start
            dropped = dropped and not line
            lines.append(line)
        if dropped:
            while lines and not lines[-1]:
                lines.pop()
        text = "\n".join(lines)
    text = _GONE_AT_LINE_START.sub("", text)
    text = _GONE_AT_LINE_END.sub("", text)
    return _GONE_BETWEEN_SPACES.sub(" ", text).replace(_GONE, "")
