"""Bound what the HTML parser is given: flatten nesting deeper than any real page.

Lexbor's parse time grows with the square of the nesting depth: measured here, 10,000 nested
``<div>`` take 0.35 s to parse, 30,000 take 2.6 s and 100,000 take 50 s. Real pages stay far
shallower (the deepest of 300 crawled pages measured: 198 levels). ``cap_nesting`` drops the
opening and closing tags of elements deeper than ``MAX_DEPTH``, keeping their text, so that such
a page costs a fraction of a second and still yields its text (flagged as truncated).

The depth is estimated with a regex over the tags, not a parse: void elements and elements whose
end tag may be omitted (``<p>``, ``<li>``, table cells, ...) are not counted, so the estimate
never exceeds the real depth by much. Pages with fewer tags than ``MAX_DEPTH`` (nearly all) are
not scanned at all.
"""

from __future__ import annotations

import re

__all__ = ["MAX_DEPTH", "cap_nesting", "nesting_depth"]

MAX_DEPTH = 5000

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


def nesting_depth(html: str) -> int:
    """The deepest nesting of elements in ``html``, estimated from its tags."""
    depth = deepest = 0
    for close, name in _TAG.findall(html):
        if name.lower() in _NOT_COUNTED:
            continue
        if close:
            depth = max(depth - 1, 0)
        else:
            depth += 1
            deepest = max(deepest, depth)
    return deepest


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


def cap_nesting(html: str, max_depth: int = MAX_DEPTH) -> tuple[str, bool]:
    """``html`` with elements nested deeper than ``max_depth`` unwrapped (their text kept), and
    whether anything was unwrapped."""
    tags = html.count("<")
    # Exact shortcuts before the scan: the depth is at most the number of opening tags, which is
    # at most the number of "<" that do not start a closing tag.
    if tags <= max_depth or tags - html.count("</") <= max_depth:
        return html, False
    if nesting_depth(html) <= max_depth:
        return html, False
    return _flatten(html, max_depth), True
