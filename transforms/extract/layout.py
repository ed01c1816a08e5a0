"""Turn a cleaned Lexbor subtree into text that keeps its block structure.

The text stays in C: one compiled walk of the subtree (``walk.marked_text``) reads its text
with marker characters where blocks, lines and cells start and end, then a few passes over
the whole string (``walk.render``) collapse whitespace and turn the markers into line breaks.
The markers are Unicode noncharacters (U+FDD0..U+FDD4), reserved for a program's internal
use, so pages do not carry them; private-use characters, which icon fonts put into pages,
would be taken for markers.

- block elements (p, div, headings, lists, tables, ...) are separated by a blank line;
- list items, table rows, ``<br>`` and ``<dt>/<dd>`` start a new line;
- table cells on a row are joined with " | ";
- ``<pre>`` (and block-level ``<code>`` inside it) keeps its whitespace verbatim.
"""

from __future__ import annotations

from selectolax.lexbor import LexborNode, create_tag

from transforms.extract import walk

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


def _specialization(method, arg_type: str):
    """``method`` compiled for one argument type. selectolax's node-editing methods are Cython
    fused functions: each call picks the specialization matching its argument's type, which
    costs more than the edit itself (~240 ns a call against ~100 ns); picking it once here
    halves the cost of inserting the markers. Falls back to ``method`` when it is not fused."""
    try:
        return method[arg_type]
    except (TypeError, KeyError):
        return method


# The markers as UTF-8 bytes, the argument type the node-editing calls below are compiled for.
_PARA, _LINE, _CELL = (marker.encode() for marker in (PARA, LINE, CELL))
_insert_before = _specialization(LexborNode.insert_before, "bytes")
_insert_after = _specialization(LexborNode.insert_after, "bytes")
_replace_with = _specialization(LexborNode.replace_with, "bytes")

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
    whitespace protected (``_protect_pre``). ``root``'s own markers go around it, into the
    tree, as text nodes: they part it from what follows if it is later removed and the rest
    read again. A ``<pre>`` root is replaced by its protected text, and its own text read as
    it was. ``has_pre=False`` ignores ``<pre>``.
    """
    kind = (_KIND_OR_PRE if has_pre else _KIND).get(root.tag_id)
    if kind is _CELL:
        _insert_before(root, kind)
    elif kind is _BR:
        _replace_with(root, _LINE)
    elif kind is PRE:
        if root.parent is not None:
            _protect_pre(root)
    elif kind is not None:
        _insert_before(root, kind)
        _insert_after(root, kind)
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


def layout(root: LexborNode, has_pre: bool = True) -> str:
    """The text of ``root`` with its block structure (``root``'s own markers are put around
    it: see ``marked_text``)."""
    return render(marked_text(root, has_pre))
