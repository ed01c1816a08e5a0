"""Main-content selection: which subtree of the cleaned page holds the main content."""

from __future__ import annotations

from selectolax.lexbor import LexborHTMLParser, LexborNode

_MAIN_SELECTORS = ("article", "main", "[role=main]")


def main_root(tree: LexborHTMLParser) -> LexborNode | None:
    """The largest ``<article>``, else ``<main>``/``[role=main]``, else ``<body>``."""
    for selector in _MAIN_SELECTORS:
        nodes = tree.css(selector)
        if nodes:
            return max(nodes, key=lambda n: len(n.text(deep=True)))
    return tree.body
