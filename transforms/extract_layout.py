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

_PARA_RUN = re.compile(f"{LINE}*{PARA}[{PARA}{LINE}]*")
_LINE_RUN = re.compile(f"{LINE}+")
_CELL_RUN = re.compile(f"{CELL}+")
_PRE_DECODE = str.maketrans({PRE_SPACE: " ", PRE_TAB: "\t"})


def _protect_pre(node: LexborNode) -> None:
    """Replace a <pre> subtree by its text with its whitespace protected from collapsing."""
    text = node.text(deep=True).strip("\n")
    text = text.replace("\r\n", "\n").replace(" ", PRE_SPACE).replace("\t", PRE_TAB)
    text = text.replace("\n", LINE)
    node.replace_with(PARA + text + PARA)


def mark_blocks(root: LexborNode) -> None:
    """Insert the block, line and cell markers into ``root``'s subtree (mutates it)."""
    for node in root.css("pre"):
        if node.parent is not None:
            _protect_pre(node)
    for node in root.css(BLOCK_TAGS):
        node.insert_before(PARA)
        node.insert_after(PARA)
    for node in root.css(LINE_TAGS):
        node.insert_before(LINE)
        node.insert_after(LINE)
    for node in root.css(CELL_TAGS):
        node.insert_before(CELL)
    for node in root.css("br"):
        node.replace_with(LINE)
    # Inline elements whose text would otherwise glue to a neighbour's word.
    for node in root.css("img[alt], input, button, select, textarea, label"):
        node.insert_after(" ")


def render(text: str) -> str:
    """Collapse whitespace inside blocks and turn the markers into line breaks.

    All in C-level string operations: ``split``/``join`` collapses whitespace (single spaces
    remain), the spaces next to a marker are dropped, then each run of markers becomes a blank
    line (if it holds a block marker) or a line break.
    """
    text = " ".join(text.split())
    for marker in (PARA, LINE, CELL):
        text = text.replace(" " + marker, marker).replace(marker + " ", marker)
    if CELL in text:
        text = _CELL_RUN.sub(CELL, text)
        for marker in (PARA, LINE):  # no separator before a row's first or after its last cell
            text = text.replace(marker + CELL, marker).replace(CELL + marker, marker)
        text = text.strip(CELL).replace(CELL, " | ")
    text = _PARA_RUN.sub("\n\n", text)
    text = _LINE_RUN.sub("\n", text).strip("\n")
    if PRE_SPACE in text or PRE_TAB in text:
        text = text.translate(_PRE_DECODE)
    return text


def layout(root: LexborNode) -> str:
    """The text of ``root`` with its block structure (mutates the subtree)."""
    mark_blocks(root)
    return render(root.text(deep=True))
