"""The seed's naive cleaner, reimplemented as a comparison peer (not product code).

Parse with Lexbor, drop script/style/nav/footer/header/aside/form/svg/iframe/noscript, take
article, main, [role=main] or body, ``text(separator=" ")``, collapse whitespace; the title is
the ``<title>`` text as is.
"""

from __future__ import annotations

import re

from selectolax.lexbor import LexborHTMLParser

_DROP = "script, style, nav, footer, header, aside, form, svg, iframe, noscript"
_SPACE = re.compile(r"\s+")


def seed_clean(html: str | bytes) -> tuple[str, str]:
    """Return ``(title, text)`` the way the seed did."""
    tree = LexborHTMLParser(html)
    title_node = tree.css_first("title")
    title = title_node.text() if title_node is not None else ""
    for node in tree.css(_DROP):
        node.decompose()
    root = (
        tree.css_first("article")
        or tree.css_first("main")
        or tree.css_first("[role=main]")
        or tree.body
    )
    text = root.text(separator=" ") if root is not None else ""
    return title, _SPACE.sub(" ", text).strip()
