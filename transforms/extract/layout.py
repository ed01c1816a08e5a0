"""Turn a cleaned Lexbor subtree into text that keeps its block structure.

The text stays in C: one compiled walk of the subtree (``walk.marked_text``) reads its text
with marker characters where blocks, lines and cells start and end, then a few passes over
the whole string (``walk.render``) collapse whitespace and turn the markers into line breaks.
The markers are Unicode noncharacters (U+FDD0..U+FDD4), reserved for a program's internal
use; private-use characters, which icon fonts put into pages, would be taken for markers. A
page may carry them all the same (literally or as ``&#xFDD0;``): ``drop_page_markers`` takes
them out of its text nodes before any layout (the character policy removes noncharacters
anyway), so that they are not read as layout.

- block elements (p, div, headings, lists, tables, ...) are separated by a blank line;
- list items, table rows, ``<br>`` and ``<dt>/<dd>`` start a new line;
- table cells on a row are joined with " | ";
- ``<pre>`` (and block-level ``<code>`` inside it) keeps its whitespace verbatim.
"""

from __future__ import annotations

from selectolax.lexbor import LexborNode, create_tag

from transforms.extract import walk
from transforms.extract.tree import rewrite_text_nodes

BLANK = "\ufdd0"  # a blank line, inside a block marker
LINE = "\ufdd1"  # a line break
# A blank line between blocks. Its line markers take the spaces next to it away with theirs
# and make a run of block and line markers a run of line markers, squeezed like any.
PARA = LINE + BLANK + LINE
CELL = "\ufdd2"  # a table-cell separator
PRE_SPACE = "\ufdd3"  # a protected space inside <pre>
PRE_TAB = "\ufdd4"  # a protected tab inside <pre>

BLOCK_TAGS = (
    "address, article, aside, blockquote, center, details, dialog, div, dl, fieldset, "
    "figcaption, figure, footer, form, h1, h2, h3, h4, h5, h6, header, hgroup, hr, legend, "
    "main, nav, ol, p, section, summary, table, ul, caption, menu, search"
)
LINE_TAGS = "li, tr, dt, dd, option"
CELL_TAGS = "td, th"


def _protect_pre(node: LexborNode) -> None:
    """Replace a <pre> subtree by its text with its whitespace protected from collapsing."""
    text = node.text(deep=True).strip("\n")
    text = text.replace("\r\n", "\n").replace(" ", PRE_SPACE).replace("\t", PRE_TAB)
    text = text.replace("\n", LINE)
    node.replace_with(PARA + text + PARA)


# The markers as UTF-8 bytes, as the compiled walk writes them.
_PARA, _LINE, _CELL = (marker.encode() for marker in (PARA, LINE, CELL))

_BR = b"br"
PRE = b"pre"
_KIND_BY_TAG = {tag.strip(): _PARA for tag in BLOCK_TAGS.split(",")}
_KIND_BY_TAG.update({tag.strip(): _LINE for tag in LINE_TAGS.split(",")})
_KIND_BY_TAG.update({tag.strip(): _CELL for tag in CELL_TAGS.split(",")})
_KIND_BY_TAG["br"] = _BR
# Keyed by Lexbor's tag id: ``node.tag_id`` is an int read from the node, where ``node.tag``
# decodes a new string for every element. Lexbor numbers the tag names it knows (all of
# these) statically, so an element has one of these ids exactly when it has that name.
_KIND = {create_tag(tag).tag_id: kind for tag, kind in _KIND_BY_TAG.items()}
_KIND_OR_PRE = {**_KIND, create_tag("pre").tag_id: PRE}


_KIND_TABLE = bytearray(max(_KIND) + 1)
for _tag_id, _kind in _KIND.items():
    _KIND_TABLE[_tag_id] = {_PARA: 1, _LINE: 2, _CELL: 3, _BR: 4}[_kind]
_KIND_TABLE = bytes(_KIND_TABLE)
_PRE = create_tag("pre").tag_id


def marked_text(root: LexborNode, has_pre: bool = True) -> str:
    """The text of ``root``'s subtree with the block, line and cell markers in it.

    The markers of the elements inside ``root`` are written by one compiled walk
    (``walk.marked_text``) that leaves the subtree as it is: each block element's text
    between block markers, each line element's between line markers, a cell marker before
    each cell, a line marker for each ``<br>``, and each ``<pre>`` as its text with its
    whitespace protected (``_protect_pre``). ``root`` itself is not marked: its markers would
    be its siblings, outside its text, and would stay in the tree after it is set apart (a
    comment thread), to be read by the next rendering of the page (and written out by
    Markdown). A ``<pre>`` root is replaced by its protected text, and its own text read as
    it was; a ``<br>`` root by a line marker. ``has_pre=False`` ignores ``<pre>``.
    """
    kind = (_KIND_OR_PRE if has_pre else _KIND).get(root.tag_id)
    if kind is _BR:
        root.replace_with(_LINE)
    elif kind is PRE and root.parent is not None:
        _protect_pre(root)
    return walk.marked_text(root, _KIND_TABLE, _PRE if has_pre else 0, _PARA, _LINE, _CELL)


# Collapse whitespace inside blocks and turn the markers into line breaks: ``split``/``join``
# collapse whitespace to single spaces, the spaces next to a line marker go (every block marker
# starts and ends with one), runs of line markers become one, then every marker becomes a line
# break, so a run with a block marker in it becomes three or more, and runs of more than two
# line breaks become a blank line. Cell markers lose the spaces around them and their runs,
# those next to a line marker and at the ends go, and the rest become " | ". These passes run
# in C (``walk.render``); ``tests/extract/test_walk.py`` holds them to the same passes written
# as ``str`` operations.
render = walk.render


_MARKERS = (BLANK, LINE, CELL, PRE_SPACE, PRE_TAB)
_NO_MARKERS = dict.fromkeys(map(ord, _MARKERS))


def drop_page_markers(root: LexborNode, holds: bool | None = None) -> None:
    """Remove the page's own marker characters from ``root``'s text nodes, if it has any;
    ``holds``, if given, tells whether it has (``walk.size_and_markers``, a compiled search
    of the text nodes' bytes)."""
    if holds is None:
        holds = walk.size_and_markers(root)[1]
    if holds:
        rewrite_text_nodes(root, lambda node_text: node_text.translate(_NO_MARKERS))


def layout(root: LexborNode, has_pre: bool = True) -> str:
    """The text of ``root`` with its block structure. The page's own marker characters must be
    gone from it (``drop_page_markers``): the extractor removes them from the whole body before
    the first layout."""
    return render(marked_text(root, has_pre))
