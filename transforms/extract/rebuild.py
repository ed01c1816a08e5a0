"""Bound the formatting elements the parser opens again: a memory bomb of a few kilobytes.

When a block closes while formatting elements opened inside it are still open (``<p><b>text
<p>``), the HTML parser opens them again before the next text, each a new element with its
attributes copied. Lexbor does so as the standard says: 1,000 open ``<b x=i>`` and 1,000
``<p>x`` (13 KB) make a million elements (400 MB); 58 KB passed 4 GB; one ``<a>`` with a
100 KB ``href`` before 10,000 paragraphs takes 1 GB. Real pages leave a few open (the largest
count of elements opened again on the 2,130 corpus pages: 554).

``rebuilt_bytes`` bounds that memory from the tags alone (numpy on the page's bytes: each "<"
and the bytes of the names after it): an element can be opened again only while it is in the
parser's list of formatting elements, once per tag at most, so the tags it stays there for,
times its size, bound it. It stays from its start tag to the end tag that closes it, counted
by name (an end tag with none of its name open is ignored, as the parser ignores it); an
``<a>`` at most until the next ``<a>`` (whose start tag closes it). Its size is
``REBUILT_NODE_BYTES`` and the bytes from its tag to the next "<" (its attributes are no more),
the largest of its name. A page over ``MAX_REBUILT_BYTES`` is measured again without its
comments, scripts and styles (whose "tags" are text: templates full of ``<b>``), and if still
over, its formatting elements are unwrapped (``unwrap_formatting``): their text stays, the
elements go, the ``<a>`` too when they alone could pass the bound.
"""

from __future__ import annotations

import numpy as np

from transforms.extract.markup import NAME_ENDS, tags_named

__all__ = [
    "FORMATTING",
    "MAX_REBUILT_BYTES",
    "REBUILT_NODE_BYTES",
    "rebuilt_bytes",
    "unwrap_formatting",
]

# The formatting elements besides <a>. <nobr> is left out: a <nobr> start tag closes the open
# one, as an <a> start tag closes an open <a> (and neither bombs: measured).
FORMATTING = ("b", "big", "code", "em", "font", "i", "s", "small", "strike", "strong", "tt", "u")
ANCHOR = "a"
MAX_REBUILT_BYTES = 128 << 20
# What each element opened again costs besides its tag's bytes: a million copies of
# <b x=i> took 380 MB.
REBUILT_NODE_BYTES = 384
_LT, _SLASH = ord("<"), ord("/")
_KEY_BYTES = 8


def _key(name: str) -> int:
    return int.from_bytes(name.encode().ljust(_KEY_BYTES, b"\0"), "little")


_KEYS = np.array([_key(name) for name in (*FORMATTING, ANCHOR)], dtype=np.uint64)
_NAME_END = np.zeros(256, dtype=bool)
_NAME_END[list(NAME_ENDS.encode())] = True
# The first two bytes of a tag's name (the first lower-cased) as indexes: a one-letter
# formatting element, an <a>, or the start of a longer formatting element's name.
_ONE_LETTER, _ANCHOR, _LONGER = 1, 2, 4
_PREFIX_KIND = np.zeros((256, 256), dtype=np.uint8)
_PREFIX_KIND[ord(ANCHOR), _NAME_END] = _ANCHOR
for _name in FORMATTING:
    if len(_name) == 1:
        _PREFIX_KIND[ord(_name), _NAME_END] = _ONE_LETTER
    else:
        _PREFIX_KIND[ord(_name[0]), [ord(_name[1]), ord(_name[1].upper())]] = _LONGER


def _names(buf: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """The names starting at ``starts`` as integers of their first ``_KEY_BYTES`` bytes,
    lower-cased, read to whitespace, "/" or ">" as the tokenizer reads them; 0 for a longer
    name."""
    spots = np.minimum(starts[:, None] + np.arange(_KEY_BYTES + 1), buf.size - 1)
    window = buf[spots]
    ends = _NAME_END[window]
    length = np.where(ends.any(axis=1), ends.argmax(axis=1), _KEY_BYTES + 1)
    lowered = np.where(length[:, None] > np.arange(_KEY_BYTES), window[:, :-1] | 0x20, 0)
    keys = np.ascontiguousarray(lowered.astype(np.uint8)).view("<u8").ravel()
    return np.where(length <= _KEY_BYTES, keys, 0)


def rebuilt_bytes(data: bytes, is_lt: np.ndarray | None = None) -> int:
    """An upper bound on the memory of the formatting elements the parser opens again on the
    page ``data`` (UTF-8 bytes; ``is_lt``, its bytes that are "<", if at hand)."""
    buf = np.frombuffer(data + b"\0\0\0", dtype=np.uint8)
    lt = np.flatnonzero(buf[: len(data)] == _LT if is_lt is None else is_lt)
    if not lt.size:
        return 0
    close = buf[lt + 1] == _SLASH
    name = lt + 1 + close  # where each name starts
    kinds = _PREFIX_KIND[buf[name] | 0x20, buf[name + 1]]
    marked = np.flatnonzero(kinds)
    if not marked.size:
        return 0
    # Which name each marked tag has (none: <style>, <col>, <form>, ...), a column each; the
    # <a> has the last one, and one of them at most is open.
    which = _names(buf, name[marked])[:, None] == _KEYS
    known = which.any(axis=1)
    marked, which, closing = marked[known], which[known], close[marked[known]]
    if not marked.size:
        return 0
    counts = np.cumsum(np.where(closing, -1, 1)[:, None] * which, axis=0)
    open_now = counts - np.minimum(np.minimum.accumulate(counts, axis=0), 0)
    open_now[:, -1] = np.minimum(open_now[:, -1], 1)
    # Open after one marked tag, an element can be closed by each tag up to the next marked one,
    # and by that one too if it stays open past it (a formatting end tag closes those above)
    between = np.diff(marked, append=lt.size) - 1
    past_next = np.minimum(open_now, np.vstack([open_now[1:], open_now[-1:] * 0]))
    spans = np.diff(lt, append=len(data))[marked]  # to the next "<": no less than the tag
    widest = np.zeros(which.shape[1], dtype=np.int64)  # the longest start tag of each name
    np.maximum.at(widest, which[~closing].argmax(axis=1), spans[~closing])
    each = REBUILT_NODE_BYTES + widest
    return int((open_now * between[:, None] + past_next).sum(axis=0) @ each)


_FORMATTING_TAGS = tags_named("|".join(FORMATTING))
_ANCHOR_TAGS = tags_named(ANCHOR)


def unwrap_formatting(html: str, max_bytes: int = MAX_REBUILT_BYTES) -> str:
    """``html`` without the tags of its formatting elements (their text kept), and without
    its ``<a>`` tags too if the parser could still spend more than ``max_bytes`` on them."""
    html = _FORMATTING_TAGS.sub("", html)
    if rebuilt_bytes(html.encode("utf-8", "ignore")) > max_bytes:
        html = _ANCHOR_TAGS.sub("", html)
    return html
