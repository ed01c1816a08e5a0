"""Turn a cleaned Lexbor subtree into text that keeps its block structure.

The walk stays in C: block boundaries are marked by inserting private-use marker characters as
text nodes around block elements (one CSS query per kind), then a single ``text()`` call gets the
whole string, whitespace is collapsed in one regex pass, and the markers become line breaks.

- block elements (p, div, headings, lists, tables, ...) are separated by a blank line;
- list items, table rows, ``<br>`` and ``<dt>/<dd>`` start a new line;
- table cells on a row are joined with " | ";
- ``<pre>`` (and block-level ``<code>`` inside it) keeps its whitespace verbatim.
"""

from __future__ import annotations

import re

from selectolax.lexbor import LexborNode

PARA = "\ue000"  # a blank line between blocks
LINE = "\ue001"  # a line break
CELL = "\ue002"  # a table-cell separator
PRE_SPACE = "\ue003"  # a protected space inside <pre>
PRE_TAB = "\ue004"  # a protected tab inside <pre>

BLOCK_TAGS = (
    "address, article, aside, blockquote, center, details, dialog, div, dl, fieldset, "
    "figcaption, figure, footer, form, h1, h2, h3, h4, h5, h6, header, hgroup, hr, legend, "
    "main, nav, ol, p, section, summary, table, ul, caption, menu, search"
)
LINE_TAGS = "li, tr, dt, dd, option"
CELL_TAGS = "td, th"

_CELL_RUN = re.compile(f"{CELL}+")
_PRE_DECODE = str.maketrans({PRE_SPACE: " ", PRE_TAB: "\t"})


def _protect_pre(node: LexborNode) -> None:
    """Replace a <pre> subtree by its text with its whitespace protected from collapsing."""
    text = node.text(deep=True).strip("\n")
    text = text.replace("\r\n", "\n").replace(" ", PRE_SPACE).replace("\t", PRE_TAB)
    text = text.replace("\n", LINE)
    node.replace_with(PARA + text + PARA)


_KIND = {tag.strip(): PARA for tag in BLOCK_TAGS.split(",")}
_KIND.update({tag.strip(): LINE for tag in LINE_TAGS.split(",")})
_KIND.update({tag.strip(): CELL for tag in CELL_TAGS.split(",")})
_KIND["br"] = "br"
_MARK_SELECTOR = ", ".join(_KIND)


def mark_blocks(root: LexborNode, has_pre: bool = True) -> None:
    """Insert the block, line and cell markers into ``root``'s subtree (mutates it).

    One CSS query finds every element that starts a block, a line or a cell. ``<pre>`` is
    replaced first (its descendants are then gone from the tree); ``has_pre=False`` skips
    that query when the page has no ``<pre>``.
    """
    if has_pre:
        for node in root.css("pre"):
            if node.parent is not None:
                _protect_pre(node)
    for node in root.css(_MARK_SELECTOR):
        kind = _KIND[node.tag]
        if kind is CELL:
            node.insert_before(CELL)
        elif kind == "br":
            node.replace_with(LINE)
        else:
            node.insert_before(kind)
            node.insert_after(kind)


def _squeeze(text: str, run: str, by: str) -> str:
    """Replace runs of ``run`` by ``by`` (plain ``replace`` passes beat a regex here)."""
    while run in text:
        text = text.replace(run, by)
    return text


def render(text: str) -> str:
    """Collapse whitespace inside blocks and turn the markers into line breaks.

    Only whole-string C-level operations (a few passes, no per-block Python): ``split`` and
    ``join`` collapse whitespace to single spaces, the spaces next to a line marker go, runs
    of line markers become one, then line markers become a line break and block markers a
    blank line, and runs of more than one blank line are collapsed.
    """
    text = " ".join(text.split())
    if CELL in text:
        text = _CELL_RUN.sub(CELL, text.replace(" " + CELL, CELL).replace(CELL + " ", CELL))
        for marker in (PARA, LINE):  # no separator before a row's first or after its last cell
            text = text.replace(marker + CELL, marker).replace(CELL + marker, marker)
        text = text.strip(CELL).replace(CELL, " | ")
    text = text.replace(" " + LINE, LINE).replace(LINE + " ", LINE)
    text = _squeeze(text, LINE + LINE, LINE).replace(LINE, "\n").replace(PARA, "\n\n")
    text = text.replace(" \n", "\n").replace("\n ", "\n")
    text = _squeeze(text, "\n\n\n", "\n\n").strip()
    if PRE_SPACE in text or PRE_TAB in text:
        text = text.translate(_PRE_DECODE)
    return text


def layout(root: LexborNode, has_pre: bool = True) -> str:
    """The text of ``root`` with its block structure (mutates the subtree)."""
    mark_blocks(root, has_pre)
    return render(root.text(deep=True))
