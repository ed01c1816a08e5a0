"""Main-content extraction from HTML: the page's title and its text with block structure.

Usage without Beam::

    from transforms.extract import extract
    result = extract(html_bytes_or_str, url, mode="main")   # or mode="full"
    result.title, result.text, result.truncated

and from the command line: ``python -m transforms.extract page.html [--mode full]``.

``Extractor`` holds the settings and is built once per Beam worker (``DoFn.setup``); calling it
is deterministic, uses no network, and is bounded by an input-size cap and a node-count cap
(``Extracted.truncated`` says when one was hit).
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from selectolax.lexbor import LexborHTMLParser

from transforms.extract_layout import layout
from transforms.extract_scoring import (
    LinkStats,
    PageInfo,
    choose_root,
    drop_boilerplate,
    drop_furniture,
    prune_link_lists,
    scan_head,
)
from transforms.extract_title import find_title

MODES = ("main", "full")
MAX_HTML_CHARS = 5_000_000
MAX_NODES = 200_000

# Never visible, in any mode.
INVISIBLE_TAGS = ["script", "style", "noscript", "template", "svg", "iframe", "object", "head"]

_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?([\w\-]+)""", re.I)


@dataclass(frozen=True)
class Extracted:
    title: str
    text: str
    truncated: bool = False  # an input-size or node-count cap was hit
    language: str = ""  # <html lang>, as written


def drop_leading_title(text: str, title: str) -> str:
    """The headline is the title; do not repeat it as the first line of the text."""
    first, sep, rest = text.partition("\n")
    if title and first.strip() == title:
        return rest.lstrip("\n")
    return text


def _noscript_holds_content(tree: LexborHTMLParser) -> bool:
    """Some apps render the page for crawlers inside <noscript> and nothing outside it."""
    body = tree.body
    if body is None:
        return False
    inside = sum(len(node.text()) for node in body.css("noscript"))
    return inside > 0.5 * len(body.text())


def _decode(html: bytes) -> str:
    try:
        return html.decode("utf-8")
    except UnicodeDecodeError:
        pass
    match = _META_CHARSET.search(html[:4096])
    if match:
        try:
            return html.decode(match.group(1).decode("ascii"), errors="replace")
        except LookupError:
            pass
    return html.decode("cp1252", errors="replace")


class Extractor:
    """A configured extractor; call it with ``(html, url)`` to get an ``Extracted``."""

    def __init__(
        self, mode: str = "main", max_html_chars: int = MAX_HTML_CHARS, max_nodes: int = MAX_NODES
    ) -> None:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, not {mode!r}")
        self.mode = mode
        self.max_html_chars = max_html_chars
        self.max_nodes = max_nodes

    def _bounded(self, html: bytes | str) -> tuple[str, bool]:
        text = _decode(html) if isinstance(html, bytes | bytearray) else str(html)
        truncated = False
        if len(text) > self.max_html_chars:
            text, truncated = text[: self.max_html_chars], True
        if text.count("<") > self.max_nodes:  # every node needs a "<": a cheap upper bound
            pos = -1
            for _ in range(self.max_nodes):
                pos = text.find("<", pos + 1)
            text, truncated = text[:pos], True
        return text, truncated

    def __call__(self, html: bytes | str, url: str | None = None) -> Extracted:
        text, truncated = self._bounded(html)
        tree = LexborHTMLParser(text)
        main = self.mode == "main"
        html_node = tree.css_first("html")
        language = (html_node.attributes.get("lang") or "").strip() if html_node else ""
        info = PageInfo()
        scan_head(tree.head, info)
        if "<noscript" in text and _noscript_holds_content(tree):
            tree.unwrap_tags(["noscript"])  # a server-rendered copy for crawlers
        tree.strip_tags(INVISIBLE_TAGS)
        body = tree.body
        if body is None:
            return Extracted(find_title(info.title, info.metas, [], url), "", truncated, language)
        drop_furniture(body, info, main)
        title = find_title(info.title, info.metas, info.h1s, url)
        root = body
        if main:
            links = LinkStats(body)
            root = choose_root(body, links)
            prune_link_lists(root, links)
        drop_boilerplate(root, main)
        text = layout(root)
        if main:
            text = drop_leading_title(text, title)
        return Extracted(title, text, truncated, language)


_DEFAULT = {mode: Extractor(mode) for mode in MODES}


def extract(html: bytes | str, url: str | None = None, *, mode: str = "main") -> Extracted:
    """Extract the title and the main content (``mode="main"``) or all visible text
    (``mode="full"``) of an HTML page given as bytes (UTF-8 or a ``<meta charset>``) or str."""
    if mode not in _DEFAULT:
        raise ValueError(f"mode must be one of {MODES}, not {mode!r}")
    return _DEFAULT[mode](html, url)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Extract the title and text of an HTML file.")
    parser.add_argument("path", help="an HTML file, or - for stdin")
    parser.add_argument("--mode", choices=MODES, default="main")
    parser.add_argument("--url", default=None)
    args = parser.parse_args(argv)
    data = sys.stdin.buffer.read() if args.path == "-" else Path(args.path).read_bytes()
    result = extract(data, args.url, mode=args.mode)
    print(result.title)
    print()
    print(result.text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
