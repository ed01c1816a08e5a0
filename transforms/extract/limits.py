"""Bound what the HTML parser is given: every cap ``extract()`` applies before parsing.

Lexbor builds the tree the HTML standard describes, and some markup makes that tree, or the
work of building it, far larger than the page: a few kilobytes can take gigabytes or a minute.
``bound_page`` rewrites a page only where a bound is passed, so that real pages are parsed
exactly as they came, and looks for such markup at a cost of one compiled pass over the bytes
(``TagCounts``: the "<" in each 2 KB, which the node cap needed already) on nearly every page:

- **Nesting** (``cap_nesting``). Lexbor's work grows with the depth of the tree at each tag (a
  block's start tag looks down the stack of open elements for a ``<p>`` to close): 10,000
  nested ``<div>`` take 0.35 s, 100,000 take 50 s, and 5,000 nested lists followed by 85,000
  items 2.3 s. Real pages stay far shallower (the deepest of 300 crawled pages: 198 levels).
  Elements deeper than ``MAX_NESTING`` are unwrapped (their text kept), and shallower still
  when the depth summed over the tags passes ``MAX_NESTING_WORK``.
- **Formatting elements** opened again (``transforms.extract.rebuild``): 13 KB of open
  ``<b x=i>`` and paragraphs make 400 MB. Read on pages dense in tags (``DENSE_BYTES`` or
  fewer bytes a "<" over 2 KB: such a page is, and 0.5% of corpus pages; a page too short
  to hold many tags is not measured), whose formatting elements are unwrapped when their
  copies could pass ``rebuild.MAX_REBUILT_BYTES``. Markup
  spread thinner is left to the cleaning process's memory cap (``--extract_memory_mb``).
- **Attributes** (``cap_attributes``). Lexbor checks each attribute of a tag against the
  tag's others: 100,000 distinct attributes on one element take 20-36 s. That many need tens
  of kilobytes without a "<", so only the tags starting such a stretch are read (by the
  tokenizer's rules, quotes included); past ``MAX_ATTRIBUTES`` the rest of a tag is dropped.
- **Size** (``cap_size``). Past ``MAX_HTML_CHARS`` characters of markup that can carry text
  (``squeeze_textless``: comments, scripts and styles dropped first, then SVG, attribute values
  past ``MAX_VALUE_CHARS`` and titles past ``MAX_TITLE_CHARS``, then whitespace runs) the page
  is cut, before the bounds above read it; and at ``MAX_NODES`` tags, after.

A page past a bound still yields its text, flagged as truncated.

Then, with ``drop_scripts``, the text of its scripts and styles goes (``rawtext``: the tree is
the same, less that text, and the parse faster) when 30% or more of its 2 KB stretches hold
``SCRIPT_STRETCH_LT`` "<" or fewer, as script, style and JSON do. On pages with less of them the
scan costs more than the parse saves (0.26 us against 0.73 us a KB, on the corpora's pages).

The depth is estimated from the tags, not a parse: void elements and elements whose end tag
may be omitted (``<p>``, ``<li>``, table cells, ...) are not counted, and an end tag counts only
when an element of its name is open (the parser ignores the others: 90,000 ``<div></span>``
nest 90,000 deep). A page whose estimate is over the cap is measured again without its
comments, scripts and styles, whose "tags" are text to the parser (inline JSON state full of
``<a>``, say), and flattened, if it still must be, without them; so is a page over the
formatting bound. Pages with fewer opening tags than ``MAX_NESTING``, and too few tags for the
work cap, are not scanned for depth at all. The scans run on the page's UTF-8 bytes (``utf8``,
when the text is exactly their decoding): the same tags, found in less time than in a text
that holds non-Latin-1 characters.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np

from transforms.extract.markup import ATTRIBUTE_BYTES, SPACE, START_TAG_BYTES, TAG_BODY
from transforms.extract.rawtext import drop_script_text
from transforms.extract.rebuild import (
    MAX_REBUILT_BYTES,
    REBUILT_NODE_BYTES,
    rebuilt_bytes,
    unwrap_formatting,
)
from transforms.extract.tags import STRETCH_WORDS, count_lt, empty_runs
from transforms.extract.title import MAX_TITLE_CHARS

__all__ = [
    "MAX_ATTRIBUTES",
    "MAX_HTML_CHARS",
    "MAX_NESTING",
    "MAX_NESTING_WORK",
    "MAX_NODES",
    "MAX_OPTIONS",
    "MAX_TITLE_CHARS",
    "MAX_VALUE_CHARS",
    "SCRIPT_SHARE",
    "SCRIPT_STRETCH_LT",
    "TagCounts",
    "bound_page",
    "cap_attributes",
    "cap_formatting",
    "cap_nesting",
    "cap_options",
    "cap_size",
    "nesting_depth",
    "squeeze_textless",
    "strip_not_text",
    "strip_textless",
]

MAX_NESTING = 5000
# The depth estimate summed over the tags (one step of the parser's look down the stack each):
# 850 million steps took 2.3 s here, and the estimate may be half the real depth (<li> in <ul>).
MAX_NESTING_WORK = 50_000_000
MIN_FLAT_DEPTH = 256  # the work cap never flattens shallower than this (the extractor's own)
_UNMEASURED_WORK = 4  # a page whose bound on it is under this many times the cap is not measured
MAX_HTML_CHARS = 5_000_000
MAX_NODES = 200_000
MAX_ATTRIBUTES = 1000
MAX_OPTIONS = 5000  # options in one <select>: 0.1 s
# A tag with over MAX_ATTRIBUTES distinct attributes costs ~0.1 s per 8,000 of them (names of
# three characters or more): only tags followed by this many bytes without a "<" are read.
ATTRIBUTE_SCAN_BYTES = 32 << 10
MAX_VALUE_CHARS = 1024  # attribute values are cut to this over the size cap
SCRIPT_STRETCH_LT = 4  # a 2 KB stretch with this many "<" or fewer is mostly script or style
SCRIPT_SHARE = 0.3  # of the stretches: the page's script text is cut (drop_script_text)
# A page with a 2 KB stretch holding a "<" every DENSE_BYTES bytes or fewer is read for the
# formatting bound (the bombs measured hold one every 4-9 bytes; 8 of 1,678 corpus pages qualify).
DENSE_BYTES = 10
_CHUNK_BYTES = 8 * STRETCH_WORDS
_LT, _GT, _SLASH = ord("<"), ord(">"), ord("/")
_NO_CHUNKS = np.zeros(0, dtype=np.int64)

# Markup that holds no element and no visible text: comments, scripts and styles (an unclosed
# one runs to the end, as the parser reads it). Found start by start, each end by a search from
# its start: one regex with a lazy ``.*?`` tries the end pattern at every character of every
# script, 20 ns a character (100 ms on a 5 MB page of inline scripts).
# ASCII case only, as HTML reads tag names ("<ſcript>", with a long s, is no script).
_TEXTLESS_START = re.compile(r"<!--|<(script|style)\b[^>]*>", re.IGNORECASE | re.ASCII)
_TEXTLESS_END = {
    name: re.compile(rf"</{name}\s*>", re.IGNORECASE | re.ASCII) for name in ("script", "style")
}
_WHITESPACE_RUN = re.compile(r"([ \t\n\r\f])[ \t\n\r\f]+")  # HTML whitespace, not U+00A0


def strip_textless(html: str) -> str:
    """``html`` without its comments, scripts and styles."""
    kept, pos = [], 0
    while (start := _TEXTLESS_START.search(html, pos)) is not None:
        kept.append(html[pos : start.start()])
        name = start.group(1)
        if name is None:
            end = html.find("-->", start.end())
            pos = len(html) if end < 0 else end + 3
        else:
            found = _TEXTLESS_END[name.lower()].search(html, start.end())
            pos = len(html) if found is None else found.end()
    if not kept:
        return html
    kept.append(html[pos:])
    return "".join(kept)


_SVG_TAG = re.compile(r"<(/?)svg(?=[\t\n\f\r />])[^>]*>", re.IGNORECASE | re.ASCII)
_TITLE = re.compile(r"<title(?=[\t\n\f\r />])[^>]*>", re.IGNORECASE | re.ASCII)
_TITLE_END = re.compile(r"</title[\t\n\f\r />]", re.IGNORECASE | re.ASCII)
_LONG_VALUES = [
    re.compile(rf"(={SPACE}*\"[^\"]{{{MAX_VALUE_CHARS}}})[^\"]+(?=\")"),
    re.compile(rf"(={SPACE}*'[^']{{{MAX_VALUE_CHARS}}})[^']+(?=')"),
    re.compile(rf"(={SPACE}*[^\t\n\f\r >\"'][^\t\n\f\r >]{{{MAX_VALUE_CHARS - 1}}})[^\t\n\f\r >]+"),
]


def _cut_elements(html: str, start: re.Pattern[str], end: re.Pattern[str], keep: int) -> str:
    """``html`` with the content of each element ``start`` finds cut to ``keep`` characters
    (its end, ``end``, kept; an unclosed one cut at the end of ``html``)."""
    kept, pos = [], 0
    while (found := start.search(html, pos)) is not None:
        closing = end.search(html, found.end())
        stop = len(html) if closing is None else closing.start()
        kept.append(html[pos : min(found.end() + keep, stop)])
        pos = stop
    if not kept:
        return html
    kept.append(html[pos:])
    return "".join(kept)


def _empty_svg(html: str) -> str:
    """``html`` with the content of its outermost ``<svg>`` elements dropped (their tags
    kept; an unclosed one runs to the end)."""
    kept, pos, depth = [], 0, 0
    for tag in _SVG_TAG.finditer(html):
        if not tag.group(1):
            if not depth:
                kept.append(html[pos : tag.end()])
            depth += 1
        elif depth:
            depth -= 1
            if not depth:
                pos = tag.start()
    if not kept:
        return html
    if not depth:
        kept.append(html[pos:])
    return "".join(kept)


def strip_not_text(html: str) -> str:
    """``html`` without what cannot be text beside comments, scripts and styles: the content
    of ``<svg>`` elements (never shown as text by the extractor), attribute values past
    ``MAX_VALUE_CHARS`` characters (a ``data:`` image, a 6 KB ``style``) and ``<title>`` texts
    past ``MAX_TITLE_CHARS``."""
    html = _empty_svg(html)
    html = _cut_elements(html, _TITLE, _TITLE_END, MAX_TITLE_CHARS)
    for pattern in _LONG_VALUES:
        html = pattern.sub(r"\1", html)
    return html


def squeeze_textless(html: str, max_chars: int = 0) -> str:
    """The part of a page that can become text, for the extractor's size cap: ``html``
    without comments, scripts and styles; if that is still over ``max_chars`` characters,
    without what else cannot be text (``strip_not_text``); and if still over, with each
    whitespace run cut to its first character too (whitespace is kept when it fits, for
    ``<pre>``; squeezing it costs 10 ms a megabyte)."""
    html = strip_textless(html)
    if len(html) > max_chars:
        html = strip_not_text(html)
    return html if len(html) <= max_chars else _WHITESPACE_RUN.sub(r"\1", html)


# -- counting the tags -------------------------------------------------------------------


class TagCounts:
    """How many "<" a page's UTF-8 bytes hold, in all and in each 2 KB, from one compiled pass
    (``tags.count_lt``).

    Every node needs a "<", so ``count`` bounds the nodes; a 2 KB stretch holding one every
    ``DENSE_BYTES`` bytes or fewer makes the page ``dense``; runs of stretches without one are
    where a tag can hold tens of thousands of attributes (``long_tags``)."""

    def __init__(self, data: bytes, text: str | None = None) -> None:
        self.data = data
        self._text = text
        self._is_lt: np.ndarray | None = None
        self._opening: int | None = None
        if len(data) < _CHUNK_BYTES:  # shorter than a stretch: read it whole, it is cheap
            self.chunks = _NO_CHUNKS
            self.count = data.count(b"<")
            self.dense = self.count > 0
            return
        self.chunks = np.empty(len(data) // _CHUNK_BYTES, dtype=np.int64)
        self.count = count_lt(data, self.chunks)
        self.dense = bool(self.chunks.max() * DENSE_BYTES >= _CHUNK_BYTES)

    @property
    def text(self) -> str:
        """The page as text: the one given, else ``data`` decoded when first asked for (a bound
        that rewrites the page needs it; most pages are parsed as their bytes, never read so)."""
        if self._text is None:
            self._text = self.data.decode("utf-8", "replace")
        return self._text

    @property
    def is_lt(self) -> np.ndarray:
        """Which bytes are "<"."""
        if self._is_lt is None:
            self._is_lt = np.frombuffer(self.data, dtype=np.uint8) == _LT
        return self._is_lt

    def opening(self) -> int:
        """How many "<" are not followed by "/": a bound on the opening tags."""
        if self._opening is None:
            after = np.frombuffer(self.data, dtype=np.uint8)[1:][self.is_lt[:-1]]
            self._opening = self.count - int(np.count_nonzero(after == _SLASH))
        return self._opening

    def sparse_share(self) -> float:
        """The share of the 2 KB stretches that hold ``SCRIPT_STRETCH_LT`` "<" or fewer."""
        if not len(self.chunks):
            return 0.0
        return int(np.count_nonzero(self.chunks <= SCRIPT_STRETCH_LT)) / len(self.chunks)

    def long_tags(self, min_bytes: int) -> list[int]:
        """Where the tags begin that are followed by ``min_bytes`` or more without a "<":
        found from the runs of 2 KB stretches without one (a "<" before each); ``min_bytes``
        spans two stretches at least (4 KB)."""
        runs = (min_bytes - 1) // _CHUNK_BYTES - 1  # whole stretches inside such a gap
        if runs < 1:
            return []
        found = []
        for first in empty_runs(self.chunks, runs):
            tag = self.data.rfind(b"<", 0, first * _CHUNK_BYTES)
            if tag >= 0:
                found.append(tag)
        return found


# -- nesting ---------------------------------------------------------------------------------

_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9-]*)[^>]*>")
# Void elements, and elements whose end tag the parser supplies itself when omitted.
_NOT_COUNTED = frozenset(
    [
        "area",
        "base",
        "br",
        "col",
        "embed",
        "hr",
        "img",
        "input",
        "link",
        "meta",
        "param",
        "source",
        "track",
        "wbr",
        "p",
        "li",
        "dt",
        "dd",
        "option",
        "optgroup",
        "tr",
        "td",
        "th",
        "thead",
        "tbody",
        "tfoot",
        "rp",
        "rt",
        "colgroup",
        "caption",
        "select",  # a <select> start tag closes the open one; inside one, blocks are ignored
    ]
)
# Tag names are told apart by their first bytes, lower-cased, read as one integer: every
# skipped name is at most this long.
_KEY_BYTES = 8


def _key(name: str) -> int:
    return int.from_bytes(name.encode().ljust(_KEY_BYTES, b"\0"), "little")


_SKIPPED_KEYS = np.array(sorted(_key(name) for name in _NOT_COUNTED), dtype=np.uint64)
_FOREIGN = frozenset(["svg", "math"])
# Tags that may end foreign content, or hold HTML inside it: HTML integration points (and
# the longer foreignObject and annotation-xml, as any long name) and the HTML elements whose
# start tag breaks out of it (the HTML standard's list; their end tags too, to be safe).
_LEAVE_FOREIGN = frozenset([
    "desc", "title", "mi", "mo", "mn", "ms", "mtext", "b", "big", "blockquote", "body", "br",
    "center", "code", "dd", "div", "dl", "dt", "em", "embed", "font", "h1", "h2", "h3", "h4",
    "h5", "h6", "head", "hr", "i", "img", "li", "listing", "menu", "meta", "nobr", "ol", "p",
    "pre", "ruby", "s", "small", "span", "strong", "strike", "sub", "sup", "table", "tt", "u",
    "ul", "var"
])  # fmt: skip
_FOREIGN_KEYS = np.array(sorted(_key(name) for name in _FOREIGN), dtype=np.uint64)
_LEAVE_FOREIGN_KEYS = np.array(  # a longer name (blockquote) leaves it as any long name does
    sorted(_key(name) for name in _LEAVE_FOREIGN if len(name) <= _KEY_BYTES), dtype=np.uint64
)
_NAME_BYTE = np.zeros(256, dtype=bool)
_NAME_BYTE[list(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-")] = True
_LETTER = np.zeros(256, dtype=bool)
_LETTER[list(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")] = True


def _member(keys: np.ndarray, sorted_keys: np.ndarray) -> np.ndarray:
    """Which ``keys`` are among ``sorted_keys`` (a few, sorted): a binary search each, where
    ``np.isin`` sorts ``keys`` (a third of the walk's time on pages with 20,000 tags)."""
    spots = np.minimum(np.searchsorted(sorted_keys, keys), sorted_keys.size - 1)
    return sorted_keys[spots] == keys


def _per_name_steps(keys: np.ndarray, close: np.ndarray) -> np.ndarray:
    """+1 for each opening tag, -1 for each closing tag while an element of its name is open
    (counting the opening and closing tags of that name so far), 0 for the closing tags the
    parser ignores; ``keys`` are the names, in the page's order.

    The tags are grouped by name (a stable sort), and in each group the open count is a walk
    that never goes below 0 (``_deepest``); the group's running minimum is taken in one pass by
    shifting each group below the ones before it."""
    order = np.argsort(keys, kind="stable")
    sorted_keys, step = keys[order], np.where(close[order], -1, 1)
    first = np.ones(order.size, dtype=bool)
    first[1:] = sorted_keys[1:] != sorted_keys[:-1]
    group = np.cumsum(first) - 1
    walk = np.cumsum(step)
    walk -= (walk - step)[first][group]  # the walk of each group from 0
    shift = group * (order.size + 1)
    after = walk - np.minimum(np.minimum.accumulate(walk - shift) + shift, 0)
    before = np.zeros(order.size, dtype=np.int64)  # the group's open count before the tag
    before[1:] = np.where(first[1:], 0, after[:-1])
    steps = np.empty(order.size, dtype=np.int64)
    steps[order] = np.where(step > 0, 1, np.where(before > 0, -1, 0))
    return steps


def _deepest(steps: np.ndarray) -> int:
    """The deepest level of a walk of +1 (open) and -1 (close) steps that never goes below 0.

    Such a walk stands at ``S[k] - min(0, S[0], ..., S[k])``, ``S`` being the plain running sum.
    """
    if not steps.size:
        return 0
    walk = np.cumsum(steps)
    return max(int((walk - np.minimum(np.minimum.accumulate(walk), 0)).max()), 0)


def _nesting_walk(html: str | bytes) -> tuple[np.ndarray, int]:
    """The estimated depth after each tag of ``html`` (text, or UTF-8 bytes), and the number
    of tags (``nesting_depth`` says how)."""
    data = html.encode("utf-8", "surrogatepass") if isinstance(html, str) else html
    buf = np.frombuffer(data, dtype=np.uint8)
    lt, gt = np.flatnonzero(buf == _LT), np.flatnonzero(buf == _GT)
    empty = np.zeros(0, dtype=np.int64)
    if not lt.size or not gt.size:
        return empty, 0
    padded = np.zeros(buf.size + _LONG_NAME_BYTES + 2, dtype=np.uint8)
    padded[: buf.size] = buf
    close = padded[lt + 1] == _SLASH
    name = lt + 1 + close  # where the name starts
    end = np.searchsorted(gt, lt)  # the ">" ending a tag that starts there (none: past gt)
    tag = _LETTER[padded[name]] & (end < gt.size)
    close, name, end = close[tag], name[tag], end[tag]
    if not end.size:
        return empty, 0
    first = np.ones(end.size, dtype=bool)  # not inside the tag before it (same ">")
    first[1:] = end[1:] != end[:-1]
    close, name, end = close[first], name[first], end[first]
    window = padded[name[:, None] + np.arange(_KEY_BYTES + 1)]
    in_name = _NAME_BYTE[window]
    length = np.where(in_name.all(axis=1), _KEY_BYTES + 1, in_name.argmin(axis=1))
    # "| 0x20" lower-cases letters and leaves digits and "-" as they are
    kept = np.arange(_KEY_BYTES) < length[:, None]
    lowered = np.where(kept, window[:, :_KEY_BYTES] | 0x20, 0).astype(np.uint8)
    keys = np.ascontiguousarray(lowered).view("<u8").ravel()
    long_name = np.flatnonzero(length > _KEY_BYTES)
    if long_name.size:  # custom elements: told apart by their last bytes and length too
        keys = keys.copy()
        keys[long_name] = _long_name_keys(padded, name[long_name])
    short = length <= _KEY_BYTES
    counted = ~(short & _member(keys, _SKIPPED_KEYS))
    counted &= ~_foreign_self_closing(keys, short, close, padded[gt[end] - 1] == _SLASH)
    steps = _per_name_steps(keys[counted], close[counted])
    walk = np.cumsum(steps) if steps.size else empty
    return walk, int(close.size)


def _foreign_self_closing(
    keys: np.ndarray, short: np.ndarray, close: np.ndarray, self_closing: np.ndarray
) -> np.ndarray:
    """Which tags are self-closing (``<path/>``) inside ``<svg>`` or ``<math>``, where such a
    tag opens nothing (in HTML, ``<div/>`` opens a ``<div>``): those after a start tag of
    either with no tag between that may leave foreign content (an end tag of either, an HTML
    integration point, a start or end tag of an HTML element that breaks out of it, any long
    name). Dense SVG drawings hold thousands (7,668 ``<path/>`` on one corpus page)."""
    if not np.any(self_closing):
        return self_closing
    index = np.arange(keys.size)
    foreign = short & _member(keys, _FOREIGN_KEYS)
    opened = foreign & ~close & ~self_closing
    leave = (foreign & close) | (short & _member(keys, _LEAVE_FOREIGN_KEYS)) | ~short
    last_open = np.maximum.accumulate(np.where(opened, index, -1))
    last_leave = np.maximum.accumulate(np.where(leave, index, -1))
    return self_closing & (last_open > last_leave)


_LONG_NAME_BYTES = 64


def _long_name_keys(padded: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Keys for names longer than ``_KEY_BYTES`` (those of ``_TAG``, starting at ``starts``
    in ``padded``): their first and last ``_KEY_BYTES`` bytes, lower-cased, and their length
    (up to ``_LONG_NAME_BYTES``) mixed into one integer with its top bit set, which no short
    name's key has. Two long names alike in all three count as one."""
    spots = np.minimum(starts[:, None] + np.arange(_LONG_NAME_BYTES), padded.size - 1)
    in_name = _NAME_BYTE[padded[spots]]
    length = np.where(in_name.all(axis=1), _LONG_NAME_BYTES, in_name.argmin(axis=1))
    head = padded[starts[:, None] + np.arange(_KEY_BYTES)] | 0x20
    tail = padded[(starts + length - _KEY_BYTES)[:, None] + np.arange(_KEY_BYTES)] | 0x20
    mixed = np.ascontiguousarray(head).view("<u8").ravel() * np.uint64(0x9E3779B97F4A7C15)
    mixed ^= np.ascontiguousarray(tail).view("<u8").ravel()
    mixed ^= length.astype(np.uint64) << np.uint64(48)
    return mixed | np.uint64(1 << 63)


def nesting_depth(html: str | bytes) -> int:
    """The deepest nesting of elements in ``html`` (text, or UTF-8 bytes), estimated from its
    tags: a closing tag closes one level when an element of its name is open and is ignored
    otherwise, as the parser ignores it; void and optional-end elements do not count.

    The tags are those ``_TAG`` finds, found with numpy on the bytes (a regex and a Python
    loop over the names took ~3 ms on a page with 10,000 tags): a tag starts at a "<" followed
    by a letter or "/" and a letter, and runs to the next ">"; a "<" before that ">" is inside
    the tag. Names are ASCII, and no byte of a multi-byte UTF-8 character is "<", ">" or
    ASCII: the tags in the bytes are those in the text."""
    walk, _ = _nesting_walk(html)
    return int(walk.max()) if walk.size else 0


def _work_depth(walk: np.ndarray, tags: int, max_depth: int, max_work: int) -> int:
    """The depth to flatten to: ``max_depth``, or shallower when the depth summed over the
    ``tags`` (the counted ones at the depth ``walk`` gives, the others at its mean) passes
    ``max_work``."""
    if walk.size and float(walk.mean()) * tags > max_work:
        return min(max_depth, max(MIN_FLAT_DEPTH, max_work // tags))
    return max_depth


def _flatten(html: str, max_depth: int) -> str:
    """``html`` with the opening tags past ``max_depth`` levels dropped, each with the closing
    tag that closes it (the last one of its name still open), as ``_nesting_walk`` counts."""
    depth = 0
    open_by_name: dict[str, list[bool]] = {}  # per name, whether each open one was kept
    in_foreign = False  # as _foreign_self_closing reads it

    def keep_or_drop(match: re.Match) -> str:
        nonlocal depth, in_foreign
        name = match.group(2).lower()
        self_closing = match.group(0).endswith("/>")
        if name in _FOREIGN:
            if match.group(1):
                in_foreign = False
            elif not self_closing:
                in_foreign = True
        elif name in _LEAVE_FOREIGN or len(name) > _KEY_BYTES:
            in_foreign = False
        if name in _NOT_COUNTED or (self_closing and in_foreign):
            return match.group(0)
        opened = open_by_name.setdefault(name, [])
        if match.group(1):
            if not opened:
                return match.group(0)  # nothing of its name is open: the parser ignores it
            if opened.pop():
                depth -= 1
                return match.group(0)
            return ""
        kept = depth < max_depth
        opened.append(kept)
        depth += kept
        return match.group(0) if kept else ""

    return _TAG.sub(keep_or_drop, html)


def cap_nesting(
    html: str | None,
    max_depth: int = MAX_NESTING,
    *,
    utf8: bytes | None = None,
    max_work: int = MAX_NESTING_WORK,
    counts: TagCounts | None = None,
) -> tuple[str, bool]:
    """``html`` with elements nested deeper than ``max_depth`` unwrapped (their text kept),
    or shallower when the depth summed over the tags passes ``max_work``, and whether anything
    was unwrapped. ``utf8``, if given, must be ``html.encode("utf-8")``: the depth is then
    measured on it (faster), with the same result; ``counts``, its ``TagCounts``, if at hand
    (then ``html`` may be None: ``counts.text``, made only if the page is flattened)."""
    source: str | bytes = html if utf8 is None else utf8
    if counts is None and isinstance(source, bytes):
        counts = TagCounts(source)
    if counts is None:
        count = html.count("<")
        opening = count - html.count("</") if count > max_depth else count
    else:
        count = counts.count
        opening = counts.opening() if count > max_depth else count
    # The depth never passes the number of opening tags, nor the work their product with the
    # number of tags: a page whose product is under a few times the cap is not measured (real
    # pages are far shallower than their opening tags, and measuring costs a millisecond)
    if opening <= max_depth and opening * count <= _UNMEASURED_WORK * max_work:
        return html, False
    walk, found = _nesting_walk(source)
    depth = _work_depth(walk, found, max_depth, max_work)
    if not walk.size or int(walk.max()) <= depth:
        return html, False
    visible = strip_textless(counts.text if html is None else html)
    walk, found = _nesting_walk(visible)
    depth = _work_depth(walk, found, max_depth, max_work)
    if not walk.size or int(walk.max()) <= depth:
        return html, False
    return _flatten(visible, depth), True


# -- formatting elements and attributes ------------------------------------------------------


def cap_formatting(counts: TagCounts, max_bytes: int = MAX_REBUILT_BYTES) -> str | None:
    """The page (``counts.text``) with its formatting elements unwrapped when the parser could
    spend more than ``max_bytes`` opening them again (``rebuild.rebuilt_bytes``), or None when
    it could not. Read on ``dense`` pages only; measured again without comments, scripts and
    styles before anything is unwrapped, and unwrapped without them."""
    if not counts.dense:
        return None
    # Each element opened again at most once a tag, none larger than the page and its own cost:
    # a bound that spares short pages (all dense, being shorter than a stretch) the measuring.
    if counts.count**2 * (REBUILT_NODE_BYTES + len(counts.data)) <= max_bytes:
        return None
    if rebuilt_bytes(counts.data, counts.is_lt) <= max_bytes:
        return None
    visible = strip_textless(counts.text)
    if rebuilt_bytes(visible.encode("utf-8", "ignore")) <= max_bytes:
        return None
    return unwrap_formatting(visible, max_bytes)


_PLAIN_NAME = re.compile(rb"<[A-Za-z][A-Za-z0-9._-]*[\t\n\f\r />]")


def _attributes_past(data: bytes, start: int, max_attributes: int) -> tuple[int, int] | None:
    """Where the attribute after the first ``max_attributes`` of the start tag at ``start``
    begins and where the tag ends, or None when it has no more than that many. Read with
    ``START_TAG_BYTES`` only when cheaper tests cannot tell: a tag whose first ">" comes before
    any quote ends there, and a name with characters no element name has is script text
    (``for(i=0;i<n;i++)``)."""
    close = data.find(b">", start, start + 256)
    if close > 0 and b'"' not in data[start:close] and b"'" not in data[start:close]:
        return None
    if _PLAIN_NAME.match(data, start) is None:
        return None
    tag = START_TAG_BYTES.match(data, start)
    if tag is None or tag.end() - start < 2 * max_attributes:
        return None
    attributes = ATTRIBUTE_BYTES.finditer(data, tag.end(1), tag.end())
    for count, attribute in enumerate(attributes, 1):
        if count == max_attributes:
            return attribute.end(), tag.end()
    return None


def cap_attributes(counts: TagCounts, max_attributes: int = MAX_ATTRIBUTES) -> str | None:
    """The page with each start tag cut after its first ``max_attributes`` attributes, or None
    when none has more. Only the tags followed by ``ATTRIBUTE_SCAN_BYTES`` or more without a "<"
    are read (``TagCounts.long_tags``; on its bytes, quotes included): a tag with so many
    attributes that Lexbor takes seconds over them cannot be shorter."""
    data = counts.data
    cuts = [
        cut
        for start in counts.long_tags(ATTRIBUTE_SCAN_BYTES)
        if (cut := _attributes_past(data, start, max_attributes)) is not None
    ]
    if not cuts:
        return None
    kept, pos = [], 0
    for cut, end in cuts:
        kept += [data[pos:cut], b">"]
        pos = end
    kept.append(data[pos:])
    return b"".join(kept).decode("utf-8", "surrogatepass")


_OPTION_BYTES = np.frombuffer(b"option", dtype=np.uint8)
_NAME_END = np.zeros(256, dtype=bool)
_NAME_END[list(b"\t\n\f\r />")] = True
_SELECT_OR_OPTION = re.compile(
    r"<(/?)(select|option)(?=[\t\n\f\r />])" + TAG_BODY, re.IGNORECASE | re.ASCII
)


def _option_tags(counts: TagCounts, at_least: int) -> int:
    """How many ``<option>`` start tags the page holds (outside scripts and comments too), if
    it holds ``at_least`` "<o": the few other names so begun (``<ol>``, ``<object>``) are
    counted first, by whole-page numpy, without finding where each "<" is."""
    buf = np.frombuffer(counts.data + b"\0" * 8, dtype=np.uint8)
    begun = counts.is_lt[:-1] & ((buf[1 : len(counts.data)] | 0x20) == ord("o"))
    if np.count_nonzero(begun) < at_least:
        return 0
    lt = np.flatnonzero(begun)
    window = buf[lt[:, None] + np.arange(1, 8)]
    name = (window[:, :6] | 0x20) == _OPTION_BYTES
    return int(np.count_nonzero(name.all(axis=1) & _NAME_END[window[:, 6]]))


def cap_options(counts: TagCounts, max_options: int = MAX_OPTIONS) -> str | None:
    """The page with the ``<option>`` tags of each ``<select>`` past its first ``max_options``
    dropped (their text stays, in the option before them), or None when none is: Lexbor
    takes time growing with the square of a select's options (8,000 take 0.25 s, 90,000
    about 30 s). Only pages with more opening tags than ``max_options`` can have that many;
    only those are counted."""
    if counts.count <= max_options or counts.opening() <= max_options:
        return None
    if _option_tags(counts, max_options) <= max_options:
        return None
    options = -1  # in no select
    dropped = False

    def keep_or_drop(tag: re.Match) -> str:
        nonlocal options, dropped
        if tag.group(2).lower() == "select":  # a select start tag ends an open select too
            options = -1 if tag.group(1) else 0
            return tag.group(0)
        if options < 0:
            return tag.group(0)
        if not tag.group(1):
            options += 1
        if options > max_options:
            dropped = True
            return ""
        return tag.group(0)

    html = _SELECT_OR_OPTION.sub(keep_or_drop, counts.text)
    return html if dropped else None


# -- size -------------------------------------------------------------------------------------


def _cap_chars(text: str, max_chars: int) -> tuple[str, bool]:
    """``text`` within ``max_chars`` characters of markup that can carry text: squeezed
    (``squeeze_textless``) when over, cut when still over; and whether it was cut."""
    if len(text) <= max_chars:
        return text, False
    text = squeeze_textless(text, max_chars)
    if len(text) <= max_chars:
        return text, False
    return text[:max_chars], True


def _cap_nodes(data: bytes, counts: TagCounts, max_nodes: int) -> tuple[bytes, bool]:
    """``data`` cut before its ``max_nodes`` + 1st "<" ("<" is ASCII: never inside a
    character), and whether it was."""
    if counts.count <= max_nodes:
        return data, False
    return data[: int(np.flatnonzero(counts.is_lt)[max_nodes - 1])], True


def cap_size(
    text: str,
    utf8: bytes | None = None,
    max_chars: int = MAX_HTML_CHARS,
    max_nodes: int = MAX_NODES,
) -> tuple[bytes, bool]:
    """The UTF-8 bytes to parse, within the character and node caps, and whether a cap cut them.

    Text is encoded here as the parser would encode it (``errors="ignore"``: a lone surrogate
    has no UTF-8 form); ``utf8``, the UTF-8 form of ``text``, is used as it is. Past the
    character cap, comments, scripts and styles are dropped first, then the rest of what cannot
    be text, then whitespace runs if still over (``squeeze_textless``): a 6 MB inline script,
    comment, SVG sprite, ``data:`` image or ``<title>`` before the article must not push the
    article past the cap. Pages under the cap (nearly all) are parsed exactly as they came."""
    capped, cut = _cap_chars(text, max_chars)
    data = utf8 if utf8 is not None and capped is text else capped.encode("utf-8", "ignore")
    data, cut_nodes = (
        _cap_nodes(data, TagCounts(data), max_nodes) if len(data) > max_nodes else (data, False)
    )
    return data, cut or cut_nodes


def bound_page(
    text: str | None,
    utf8: bytes | None = None,
    *,
    max_chars: int = MAX_HTML_CHARS,
    max_nodes: int = MAX_NODES,
    max_nesting: int = MAX_NESTING,
    drop_scripts: bool = False,
) -> tuple[bytes, bool]:
    """Every bound in turn: the character cap (so that what cannot be text is gone before the
    tags are counted), the node cap, nesting, formatting elements, attributes, options. The
    UTF-8 bytes to parse, and whether a bound changed them; with ``drop_scripts``, without the
    text of scripts and styles where they make much of the page (see the module's docstring).
    ``utf8``, if given, must be ``text.encode("utf-8")``: the tags are counted on it, and it is
    parsed as it is when no bound changes the page. ``text`` may be None when ``utf8`` is valid
    UTF-8: the page's text is then made only if a bound needs it (see
    ``transforms.decode.utf8_source``)."""
    if text is None and len(utf8) > max_chars:  # (never fewer bytes than characters)
        text = utf8.decode("utf-8", "replace")
    html, cut = _cap_chars(text, max_chars) if text is not None else (None, False)
    data = utf8 if utf8 is not None and html is text else html.encode("utf-8", "ignore")
    counts = TagCounts(data, html)
    data, cut_nodes = _cap_nodes(data, counts, max_nodes)
    if cut_nodes:
        counts = TagCounts(data, data.decode("utf-8", "ignore"))
    changes = [cut, cut_nodes]
    for bound in (_nesting_bound(max_nesting), cap_formatting, cap_attributes, cap_options):
        bounded = bound(counts)
        if bounded is not None:
            counts = TagCounts(bounded.encode("utf-8", "ignore"), bounded)
        changes.append(bounded is not None)
    if drop_scripts and counts.sparse_share() >= SCRIPT_SHARE:
        return drop_script_text(counts.data), any(changes)
    return counts.data, any(changes)


def _nesting_bound(max_depth: int) -> Callable[[TagCounts], str | None]:
    """``cap_nesting`` as the other bounds are called: on a page's ``TagCounts``, giving the
    page rewritten or None."""

    def bound(counts: TagCounts) -> str | None:
        flat, changed = cap_nesting(None, max_depth, utf8=counts.data, counts=counts)
        return flat if changed else None

    return bound
