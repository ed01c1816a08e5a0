"""Turn a cleaned Lexbor subtree into text that keeps its block structure.

The text stays in C: block boundaries are marked by inserting marker characters as text nodes
around block elements (found by one walk of the subtree), then a single ``text()`` call gets
the whole string, whitespace is collapsed by ``split``/``join``, and a few
whole-string passes turn the markers into line breaks. The markers are Unicode noncharacters
(U+FDD0..U+FDD4), reserved for a program's internal use; private-use characters, which icon fonts
put into pages, would be taken for markers. A page may carry them all the same (literally or as
``&#xFDD0;``): ``drop_page_markers`` takes them out of its text nodes before any layout (the
character policy removes noncharacters anyway), so that they are not read as layout.

- block elements (p, div, headings, lists, tables, ...) are separated by a blank line;
- list items, table rows, ``<br>`` and ``<dt>/<dd>`` start a new line;
- table cells on a row are joined with " | ";
- ``<pre>`` (and block-level ``<code>`` inside it) keeps its whitespace verbatim.
"""

from __future__ import annotations

import re

from selectolax.lexbor import LexborNode, create_tag

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

# Runs squeezed in one regex pass (a replace() loop makes a pass per halving of the run); a
# run is two or more: a lone marker would be a match (~130 ns each) replaced by itself.
_CELL_RUN = re.compile(f"{CELL}{CELL}+")
_LINE_RUN = re.compile(f"{LINE}{LINE}+")
_BLANK_RUN = re.compile("\n\n\n+")


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


def mark_blocks(root: LexborNode, has_pre: bool = True) -> None:
    """Insert the block, line and cell markers into ``root``'s subtree (mutates it).

    One Python walk of the subtree with a dict lookup per element finds every element that
    starts a block, a line or a cell (it beats the 45-selector CSS group: Lexbor tests every
    selector on every element), in document order. ``<pre>`` elements are found by the same
    walk and replaced as they come (before any of their descendants, which come after them,
    is marked); the markers then put into those detached descendants are out of the tree and
    out of its text, so there is no second walk. ``has_pre=False`` ignores ``<pre>``. The
    root itself is not marked: its markers would be its siblings, outside its text, and
    would stay in the tree after it is set apart (a comment thread), to be read by the next
    rendering of the page.
    """
    kind_of = (_KIND_OR_PRE if has_pre else _KIND).get  # bound once: ~14% off the walk
    # collected first: the loop below mutates the tree
    marked = [(node, kind) for node in root.traverse() if (kind := kind_of(node.tag_id))]
    if marked and marked[0][0].mem_id == root.mem_id:
        del marked[0]  # not the root (see above)
    for node, kind in marked:
        if kind is _CELL:
            _insert_before(node, kind)
        elif kind is _BR:
            _replace_with(node, _LINE)
        elif kind is PRE:
            if node.parent is not None:
                _protect_pre(node)
        else:
            _insert_before(node, kind)
            _insert_after(node, kind)


def render(text: str) -> str:
    """Collapse whitespace inside blocks and turn the markers into line breaks.

    Only whole-string C-level operations (a few passes, no per-block Python): ``split`` and
    ``join`` collapse whitespace to single spaces, the spaces next to a line marker go (every
    block marker starts and ends with one), runs of line markers become one, then every
    marker becomes a line break, so a run with a block marker in it becomes three or more,
    and runs of more than two line breaks become a blank line (runs squeezed by regex).
    """
    text = " ".join(text.split())
    if CELL in text:
        text = _CELL_RUN.sub(CELL, text.replace(" " + CELL, CELL).replace(CELL + " ", CELL))
        # no separator before a row's first or after its last cell
        text = text.replace(LINE + CELL, LINE).replace(CELL + LINE, LINE)
        text = text.strip(CELL).replace(CELL, " | ")
    text = text.replace(" " + LINE, LINE).replace(LINE + " ", LINE)
    # Most runs of line markers are pairs (a block's end marker next to the next one's start
    # marker): one replace() pass halves them without the regex's cost per match (~130 ns).
    text = _LINE_RUN.sub(LINE, text.replace(LINE + LINE, LINE))
    text = text.replace(LINE, "\n").replace(BLANK, "\n")
    text = _BLANK_RUN.sub("\n\n", text).strip()
    # two replace() passes: str.translate is ~10x slower on non-ASCII text
    return text.replace(PRE_SPACE, " ").replace(PRE_TAB, "\t")


_MARKERS = (BLANK, LINE, CELL, PRE_SPACE, PRE_TAB)
_NO_MARKERS = dict.fromkeys(map(ord, _MARKERS))


def drop_page_markers(root: LexborNode, text: str | None = None) -> None:
    """Remove the page's own marker characters from ``root``'s text nodes, if it has any;
    ``text``, if given, is ``root``'s text, already read (the check is then five ``str``
    searches, which stop at once in a text without characters past U+00FF)."""
    if text is None:
        text = root.text(deep=True)
    if any(marker in text for marker in _MARKERS):
        rewrite_text_nodes(root, lambda node_text: node_text.translate(_NO_MARKERS))


def layout(root: LexborNode, has_pre: bool = True) -> str:
    """The text of ``root`` with its block structure (mutates the subtree). The page's own
    marker characters must be gone from it (``drop_page_markers``): the extractor removes
    them from the whole body before the first layout."""
    mark_blocks(root, has_pre)
    return render(root.text(deep=True))
