"""Bound what the HTML parser is given: every cap ``extract()`` applies before parsing.

``bound_page`` applies them in order: nesting deeper than any real page is flattened
(``cap_nesting``), then the text is cut at ``MAX_HTML_CHARS`` characters of markup that can
carry text (``squeeze_textless`` drops comments, scripts and styles first, then whitespace runs
if still over) and at ``MAX_NODES`` elements. A page past a cap still yields its text, flagged
as truncated.

Lexbor's parse time grows with the square of the nesting depth: measured here, 10,000 nested
``<div>`` take 0.35 s to parse, 30,000 take 2.6 s and 100,000 take 50 s. Real pages stay far
shallower (the deepest of 300 crawled pages measured: 198 levels). ``cap_nesting`` drops the
opening and closing tags of elements deeper than ``MAX_NESTING``, keeping their text, so that such
a page costs a fraction of a second and still yields its text (flagged as truncated).

The depth is estimated with a regex over the tags, not a parse: void elements and elements whose
end tag may be omitted (``<p>``, ``<li>``, table cells, ...) are not counted, so the estimate
never exceeds the real depth by much. A page whose estimate is over the cap is measured again
without its comments, scripts and styles, whose "tags" are text to the parser (inline JSON
state full of ``<a>``, say), and flattened, if it still must be, without them. Pages with fewer
opening tags than ``MAX_NESTING`` (all but a few percent) are not scanned at all. Given the
page's UTF-8 bytes as well (``utf8``, when the text is exactly their decoding), the counts and
the scan run on those bytes: the same tags, found in less time than in a text that holds
non-Latin-1 characters.
"""

from __future__ import annotations

import re

import numpy as np

__all__ = [
    "MAX_HTML_CHARS",
    "MAX_NESTING",
    "MAX_NODES",
    "bound_page",
    "cap_nesting",
    "cap_size",
    "nesting_depth",
    "squeeze_textless",
    "strip_textless",
]

MAX_NESTING = 5000
MAX_HTML_CHARS = 5_000_000
MAX_NODES = 200_000
_LT = ord("<")

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


def squeeze_textless(html: str, max_chars: int = 0) -> str:
    """``html`` without comments, scripts and styles and, if that is still over ``max_chars``
    characters, with each whitespace run cut to its first character too: the part of a page
    that can become text, for the extractor's size cap (whitespace is kept when it fits, for
    ``<pre>``; squeezing it costs 10 ms a megabyte)."""
    html = strip_textless(html)
    return html if len(html) <= max_chars else _WHITESPACE_RUN.sub(r"\1", html)


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
    ]
)


_GT, _SLASH = ord(">"), ord("/")
# Tag names are told apart by their first bytes, lower-cased, read as one integer: every
# skipped name is at most this long.
_KEY_BYTES = 8
_SKIPPED_KEYS = np.array(
    sorted(
        int.from_bytes(name.encode().ljust(_KEY_BYTES, b"\0"), "little") for name in _NOT_COUNTED
    ),
    dtype=np.uint64,
)
_NAME_BYTE = np.zeros(256, dtype=bool)
_NAME_BYTE[list(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-")] = True
_LETTER = np.zeros(256, dtype=bool)
_LETTER[list(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")] = True


def _deepest(steps: np.ndarray) -> int:
    """The deepest level of a walk of +1 (open) and -1 (close) steps that never goes below 0.

    Such a walk stands at ``S[k] - min(0, S[0], ..., S[k])``, ``S`` being the plain running sum.
    """
    if not steps.size:
        return 0
    walk = np.cumsum(steps)
    return max(int((walk - np.minimum(np.minimum.accumulate(walk), 0)).max()), 0)


def nesting_depth(html: str | bytes) -> int:
    """The deepest nesting of elements in ``html`` (text, or UTF-8 bytes), estimated from its
    tags: a closing tag closes one level (none below 0), void and optional-end elements do not
    count.

    The tags are those ``_TAG`` finds, found with numpy on the bytes (a regex and a Python
    loop over the names took ~3 ms on a page with 10,000 tags): a tag starts at a "<" followed
    by a letter or "/" and a letter, and runs to the next ">"; a "<" before that ">" is inside
    the tag. Names are ASCII, and no byte of a multi-byte UTF-8 character is "<", ">" or
    ASCII: the tags in the bytes are those in the text."""
    data = html.encode("utf-8", "surrogatepass") if isinstance(html, str) else html
    buf = np.frombuffer(data, dtype=np.uint8)
    lt, gt = np.flatnonzero(buf == _LT), np.flatnonzero(buf == _GT)
    if not lt.size or not gt.size:
        return 0
    padded = np.zeros(buf.size + _KEY_BYTES + 2, dtype=np.uint8)
    padded[: buf.size] = buf
    close = padded[lt + 1] == _SLASH
    name = lt + 1 + close  # where the name starts
    end = np.searchsorted(gt, lt)  # the ">" ending a tag that starts there (none: past gt)
    tag = _LETTER[padded[name]] & (end < gt.size)
    close, name, end = close[tag], name[tag], end[tag]
    if not end.size:
        return 0
    first = np.ones(end.size, dtype=bool)  # not inside the tag before it (same ">")
    first[1:] = end[1:] != end[:-1]
    close, name = close[first], name[first]
    window = padded[name[:, None] + np.arange(_KEY_BYTES + 1)]
    in_name = _NAME_BYTE[window]
    length = np.where(in_name.all(axis=1), _KEY_BYTES + 1, in_name.argmin(axis=1))
    # "| 0x20" lower-cases letters and leaves digits and "-" as they are
    kept = np.arange(_KEY_BYTES) < length[:, None]
    lowered = np.where(kept, window[:, :_KEY_BYTES] | 0x20, 0).astype(np.uint8)
    keys = np.ascontiguousarray(lowered).view("<u8").ravel()
    skipped = (length <= _KEY_BYTES) & np.isin(keys, _SKIPPED_KEYS)
    return _deepest(np.where(close[~skipped], -1, 1))


def _few_opening_tags(html: str | bytes, max_depth: int) -> bool:
    """True when ``html`` has at most ``max_depth`` opening tags, by counting "<" (each tag
    starts with one) and then "<" not followed by "/": an exact bound on the depth."""
    if isinstance(html, str):
        tags = html.count("<")
        return tags <= max_depth or tags - html.count("</") <= max_depth
    # A vectorised count over the bytes: bytes.count("</") alone costs three times as much.
    data = np.frombuffer(html, dtype=np.uint8)
    is_lt = data == _LT
    tags = int(np.count_nonzero(is_lt))
    if tags <= max_depth:
        return True
    return tags - int(np.count_nonzero(data[1:][is_lt[:-1]] == _SLASH)) <= max_depth


def _flatten(html: str, max_depth: int) -> str:
    depth = dropped = 0

    def keep_or_drop(match: re.Match) -> str:
        nonlocal depth, dropped
        if match.group(2).lower() in _NOT_COUNTED:
            return match.group(0)
        if match.group(1):  # a closing tag closes the deepest element: a dropped one first
            if dropped:
                dropped -= 1
                return ""
            depth = max(depth - 1, 0)
            return match.group(0)
        if depth >= max_depth:
            dropped += 1
            return ""
        depth += 1
        return match.group(0)

    return _TAG.sub(keep_or_drop, html)


def cap_nesting(
    html: str, max_depth: int = MAX_NESTING, *, utf8: bytes | None = None
) -> tuple[str, bool]:
    """``html`` with elements nested deeper than ``max_depth`` unwrapped (their text kept), and
    whether anything was unwrapped. ``utf8``, if given, must be ``html.encode("utf-8")``: the
    depth is then measured on it (faster), with the same result."""
    source: str | bytes = html if utf8 is None else utf8
    if _few_opening_tags(source, max_depth) or nesting_depth(source) <= max_depth:
        return html, False
    visible = strip_textless(html)
    if nesting_depth(visible) <= max_depth:
        return html, False
    return _flatten(visible, max_depth), True


def cap_size(
    text: str,
    utf8: bytes | None = None,
    max_chars: int = MAX_HTML_CHARS,
    max_nodes: int = MAX_NODES,
) -> tuple[bytes, bool]:
    """The UTF-8 bytes to parse, within the character and node caps, and whether a cap cut them.

    Text is encoded here as the parser would encode it (``errors="ignore"``), so that the node
    cap can count on the bytes: numpy counts "<" in a 300 KB page in ~0.02 ms, where
    ``str.count`` takes ~0.1 ms. ``utf8``, the UTF-8 form of ``text``, is used as it is. Past
    the character cap, comments, scripts and styles are dropped first, then whitespace runs if
    still over (``squeeze_textless``): they carry no text, and a 6 MB inline script or comment
    before the article must not push the article past the cap. Pages under the cap (nearly
    all) are parsed exactly as they came."""
    data = utf8
    truncated = False
    if len(text) > max_chars:
        text, data = squeeze_textless(text, max_chars), None
        if len(text) > max_chars:
            text, truncated = text[:max_chars], True
    if data is None:
        data = text.encode("utf-8", "ignore")
    # every node needs a "<": a cheap upper bound (and no more "<" than bytes)
    if len(data) > max_nodes:
        is_lt = np.frombuffer(data, dtype=np.uint8) == _LT
        if np.count_nonzero(is_lt) > max_nodes:
            # up to the last "<" within the cap ("<" is ASCII: never inside a character)
            data = data[: int(np.flatnonzero(is_lt)[max_nodes - 1])]
            truncated = True
    return data, truncated


def bound_page(
    text: str,
    utf8: bytes | None = None,
    *,
    max_chars: int = MAX_HTML_CHARS,
    max_nodes: int = MAX_NODES,
    max_nesting: int = MAX_NESTING,
) -> tuple[bytes, bool]:
    """Every cap in turn (nesting, then characters and nodes): the UTF-8 bytes to parse, and
    whether a cap changed them. ``utf8``, if given, must be ``text.encode("utf-8")``."""
    text, flattened = cap_nesting(text, max_nesting, utf8=utf8)
    data, truncated = cap_size(text, None if flattened else utf8, max_chars, max_nodes)
    return data, truncated or flattened
