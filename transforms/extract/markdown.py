"""Render a cleaned main-content subtree as Markdown (CommonMark, with GitHub's pipe tables).

The sibling of ``transforms.extract.layout`` for ``format="markdown"``: the same subtree, the
same text, with its structure written as Markdown instead of blank lines:

- ``h1``-``h6`` become ``#`` lines by level; ``<p>``, ``<div>`` and the other block elements of
  ``layout.BLOCK_TAGS`` become paragraphs separated by a blank line; ``<br>`` a hard line break
  (a backslash at the end of the line);
- ``<ul>``/``<ol>`` become ``-`` / ``1.`` lists (``start`` kept), nested lists indented under
  their item; an item the parser put inside a formatting element it reopened (``_REOPENED``)
  is an item still;
- a ``<table>`` becomes a pipe table, its first row the header when it is in ``<thead>`` or all
  ``<th>``, else an empty header row (a pipe table needs one). A table used for layout (one
  column, or cells holding lists, headings, code, quotes or tables) is rendered cell by cell as
  blocks, as the text layout reads it;
- ``<pre>`` becomes a fenced code block with its text verbatim (the fence longer than any run
  of backticks inside); inline ``<code>`` a code span; ``<blockquote>`` lines starting with
  ``>``; ``<hr>`` a ``---`` line;
- a ``<code>`` holding blocks or line breaks, which no code span can hold, is laid out as its
  content with each run of text between them a code span (text in a heading or a table cell
  is read flat, as elsewhere). The parser makes such trees of ordinary markup: a ``<code>``
  left open is reopened around the next block when text (even an invisible character, or a
  space) comes before it, and inside it otherwise; either way the words are code;
- links are their text, or ``[text](url)`` with ``links=True``: only links to http, https,
  mailto, ftp and relative URLs, resolved against the page's base, written so that a renderer
  reads the whole URL (``links``).

Ordinary text is escaped where Markdown would read it as syntax: ``\\ ` * _ [ ] < ~`` anywhere
(``_`` unless between two letters or digits, where it cannot start emphasis; ``&`` only before an entity), and
at a line's start ``#``, ``>``, ``+``/``-`` list markers, ``1.`` list numbers and ``===`` /
``---`` lines. Whitespace is collapsed as in the text layout, so that with the syntax removed
the words are those of ``format="text"``.

The text layout stays in C (markers and one ``text()`` call); Markdown needs to know, for each
piece of text, the list depth, the table cell and the quote it is in, so this is a Python walk
of the subtree (recursive; it does not change the tree). A subtree deeper than Python's
recursion limit raises ``RecursionError``, and the caller falls back to the text layout.

The character policy (``characters``) is applied by the repair to the Markdown written, as to
the text layout, where that is safe: a character inside a word or between words. One removed
where the escaping depended on it (at a line's start, where a ``#`` would then head the line;
after ``&``; beside a backtick or ``_``) is taken out of the text nodes instead, before the
escaping, and the Markdown written again.
"""

from __future__ import annotations

import functools
import re

from selectolax.lexbor import LexborNode, create_tag

from transforms.extract.characters import (
    removed_at,
    right_to_left,
    strip_unwanted_in_node,
    suspect,
)
from transforms.extract.layout import BLOCK_TAGS, CELL_TAGS, LINE_TAGS
from transforms.extract.links import link_target
from transforms.extract.tree import rewrite_text_nodes

__all__ = ["markdown", "strip_title_line"]

# A hard line break inside a paragraph: NUL, which the parser never leaves in a text node, so
# that no character of the page can be read as one.
_BREAK = "\x00"


def _ids(*tags: str) -> frozenset[int]:
    return frozenset(create_tag(tag).tag_id for tag in tags)


def _names(tags: str) -> list[str]:
    return [tag.strip() for tag in tags.split(",")]


_TEXT = 2  # Lexbor's tag id of a text node
_HEADING = {create_tag(f"h{n}").tag_id: n for n in range(1, 7)}
_LISTS = _ids("ul", "ol", "menu")
_ORDERED = create_tag("ol").tag_id
_LI = create_tag("li").tag_id
_TABLE = create_tag("table").tag_id
_PRE = create_tag("pre").tag_id
_QUOTE = create_tag("blockquote").tag_id
_HR = create_tag("hr").tag_id
_BR = create_tag("br").tag_id
_CODE = create_tag("code").tag_id
_A = create_tag("a").tag_id
_TR = create_tag("tr").tag_id
_CAPTION = create_tag("caption").tag_id
_ROW_GROUPS = _ids("thead", "tbody", "tfoot")
_THEAD = create_tag("thead").tag_id
_TH = create_tag("th").tag_id
_CELLS = _ids(*_names(CELL_TAGS))
# Elements that start a block of their own (the text layout's block and line tags).
_BLOCKS = _ids(*_names(BLOCK_TAGS), *_names(LINE_TAGS))
# Elements that separate words when their text is read flat (a heading's, a cell's).
_SEPARATING = _BLOCKS | _CELLS | {_BR}
# A table holding any of these is a layout table, not data.
_LAYOUT_TABLE = "table, ul, ol, pre, blockquote, h1, h2, h3, h4, h5, h6"
# The formatting elements the parser reopens where text comes after one was left open: around
# the next list item too, when the text is in the list, outside its items.
_REOPENED = _ids(*_names("a, b, big, code, em, font, i, nobr, s, small, strike, strong, tt, u"))
# Elements that end a line: a link holding one is laid out as its content, a <code> holding one
# as its content with code spans between them.
_BLOCK_IN_LINK = ", ".join(_names(BLOCK_TAGS) + _names(LINE_TAGS) + ["pre", "table", "br"])

# ``_`` is escaped unless a letter or digit is on each side (``\w`` would count a neighbouring
# ``_`` as a word character, and ``__a__`` would read as emphasis)
_INLINE_ESCAPE = re.compile(r"[\\`*\[\]<~]|(?<![^\W_])_|_(?![^\W_])|&(?=#?\w*(?:;|$))")
_LINE_START = re.compile(r"^(?:#{1,6}(?=\s|$)|>|[-+](?=\s|$)|(?==+\s*$)|(?=-+\s*$))")
_LIST_NUMBER = re.compile(r"^(\d{1,9})([.)])(?=\s|$)")
_CLOSING_HASHES = re.compile(r"(\s)(#+)(\s*)$")
_BACKTICKS = re.compile(r"`+")
_ESCAPED = re.compile(r"\\([!-/:-@\[-`{-~])")
_HEADING_MARK = re.compile(r"^#{1,6}\s+")
_JOINERS = "\u200c\u200d"  # ZWNJ, ZWJ
# What the Markdown escaping looks at around a character (see _removed_safely): a line's start
# up to it holding only block markers (quote, list, heading) or the start of one, or a run of
# "=" or "-" (a setext underline, a thematic break); an "&" escaped or not depending on what
# follows it; the characters next to it (beside a space, the tidying of the whitespace and a
# code block's verbatim whitespace differ).
_LINE_PREFIX = re.compile(r"(?:[ >]|[-+*] |\d{1,9}[.)] |#{1,6} )*(?:#{1,6}|\d{1,9}[.)]?|[-+*>=]+)?")
_REFERENCE_BEFORE = re.compile(r"&#?\w*")
_UNSAFE_BEFORE = frozenset(" &`_|#")
_UNSAFE_AFTER = frozenset(" `_|#\\")


def _escape_inline(text: str) -> str:
    return _INLINE_ESCAPE.sub(r"\\\g<0>", text)


def _escape_line_start(line: str) -> str:
    """``line`` with a leading character that Markdown would take for a block marker escaped
    (also after joiners: one alone in its text node is the repair's to keep or remove)."""
    if not line:
        return line
    first = line[0]
    if first in _JOINERS:
        rest = line.lstrip(_JOINERS)
        return line[: len(line) - len(rest)] + _escape_line_start(rest)
    if first.isdigit():
        return _LIST_NUMBER.sub(r"\1\\\2", line, count=1)
    if first in "#>+-=" and _LINE_START.match(line):
        return "\\" + line
    return line


def _collapse(text: str) -> str:
    return " ".join(text.split())


def _code_span(text: str) -> str:
    """``text`` as an inline code span (backticks outnumbering any run inside)."""
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _inline_code(raw: str) -> str:
    """The text ``raw`` of code as a code span, whitespace collapsed, its edge spaces outside
    it (they part words); empty for whitespace."""
    text = _collapse(raw)
    if not text:
        return ""
    lead = " " if raw[:1].isspace() else ""
    trail = " " if raw[-1:].isspace() else ""
    return f"{lead}{_code_span(text)}{trail}"


def _fence(text: str) -> str:
    """``text`` as a fenced code block (a fence longer than any run of backticks inside)."""
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}\n{text}\n{fence}"


def _prefix_lines(text: str, first: str, rest: str) -> str:
    lines = text.split("\n")
    out = [first + lines[0]]
    out += [rest + line if line else rest.rstrip() for line in lines[1:]]
    return "\n".join(out)


def _flat_text(node: LexborNode, out: list[str]) -> None:
    """Append the text of ``node``'s subtree to ``out``, a space around each block."""
    for child in node.iter(include_text=True):
        tag_id = child.tag_id
        if tag_id == _TEXT:
            out.append(child.text_content or "")
        elif tag_id == _PRE:  # its text as it is, blocks inside it too, as the layout reads it
            out.append(f" {child.text(deep=True)} ")
        elif tag_id in _SEPARATING:
            out.append(" ")
            _flat_text(child, out)
            out.append(" ")
        else:
            _flat_text(child, out)


def flat_text(node: LexborNode) -> str:
    """The words of ``node``'s subtree on one line, blocks apart."""
    out: list[str] = []
    _flat_text(node, out)
    return _collapse("".join(out))


class _Renderer:
    """One rendering: appends the Markdown blocks of what it is given to ``self.blocks``."""

    def __init__(self, url: str | None, links: bool, code: bool = False) -> None:
        self.url = url
        self.links = links
        self.blocks: list[str] = []
        self.inline: list[str] = []  # escaped inline text of the paragraph being built
        # Inside a <code> holding blocks: its text is read raw into ``code_run`` until a block
        # or a line break ends the run, which is then one code span.
        self.code = code
        self.code_run: list[str] = []

    # --- paragraphs ---------------------------------------------------------------------------

    def end_code_run(self) -> None:
        if self.code_run:
            self.inline.append(_inline_code("".join(self.code_run)))
            self.code_run = []

    def flush(self) -> None:
        """End the paragraph being built (if it has text) as a block."""
        self.end_code_run()
        if not self.inline:
            return
        text = "".join(self.inline)
        self.inline = []
        lines = [_collapse(line) for line in text.split(_BREAK)]
        lines = [_escape_line_start(line) for line in lines if line]
        if lines:
            self.blocks.append("\\\n".join(lines))

    def sub_blocks(self, node: LexborNode, itself: bool = False) -> list[str]:
        """The blocks of ``node``'s children (of ``node`` itself if ``itself``), rendered
        apart from the current paragraph."""
        renderer = _Renderer(self.url, self.links, self.code)
        if itself:
            renderer.node(node)
        else:
            renderer.children(node)
        renderer.flush()
        return renderer.blocks

    # --- the walk -----------------------------------------------------------------------------

    def children(self, node: LexborNode) -> None:
        for child in node.iter(include_text=True):
            self.node(child)

    def node(self, node: LexborNode) -> None:
        tag_id = node.tag_id
        if tag_id == _TEXT:
            text = node.text_content
            if text:
                if self.code:
                    self.code_run.append(text)
                else:
                    self.inline.append(_escape_inline(text))
        elif tag_id == _BR:
            self.end_code_run()
            self.inline.append(_BREAK)
        elif tag_id in _HEADING:
            self.heading(node, _HEADING[tag_id])
        elif tag_id in _LISTS:
            self.list(node, ordered=tag_id == _ORDERED)
        elif tag_id == _TABLE:
            self.table(node)
        elif tag_id == _PRE:
            self.pre(node)
        elif tag_id == _QUOTE:
            self.flush()
            body = "\n\n".join(self.sub_blocks(node))
            if body:
                self.blocks.append(_prefix_lines(body, "> ", "> "))
        elif tag_id == _HR:
            self.flush()
            self.blocks.append("---")
        elif tag_id in _BLOCKS or tag_id in _CELLS:
            self.flush()
            self.children(node)
            self.flush()
        elif tag_id == _CODE and not self.code:
            if node.css_first(_BLOCK_IN_LINK) is None:
                self.inline.append(_inline_code(node.text(deep=True)))
            else:
                self.code = True
                self.children(node)
                self.end_code_run()
                self.code = False
        elif tag_id == _A and self.links and not self.code:  # no link in a code span
            self.link(node)
        else:  # an inline element (or a comment, which has no children)
            self.children(node)

    def heading(self, node: LexborNode, level: int) -> None:
        self.flush()
        # A heading's text is not read for block markers ("## 1. Intro" is a heading)
        text = _escape_inline(flat_text(node))
        if text:
            text = _CLOSING_HASHES.sub(r"\1\\\2\3", text)
            self.blocks.append("#" * level + " " + text)

    def pre(self, node: LexborNode) -> None:
        self.flush()
        text = node.text(deep=True).replace("\r\n", "\n").replace("\r", "\n").strip("\n")
        if text.strip():
            self.blocks.append(_fence(text))

    def link(self, node: LexborNode) -> None:
        target = link_target(node.attributes.get("href"), self.url)
        if target is None or node.css_first(_BLOCK_IN_LINK):
            self.children(node)
            return
        text = _escape_inline(flat_text(node))
        if text:
            self.inline.append(f"[{text}]({target})")

    def list(self, node: LexborNode, ordered: bool) -> None:
        self.flush()
        items: list[list[str]] = []
        run: _Renderer | None = None  # text and elements outside any item: one item per run

        def end_run() -> None:
            nonlocal run
            if run is not None:
                run.flush()
                items.append(run.blocks)
                run = None

        def visit(parent: LexborNode) -> None:
            nonlocal run
            for child in parent.iter(include_text=True):
                tag_id = child.tag_id
                if tag_id == _LI:
                    end_run()
                    items.append(self.sub_blocks(child))
                elif tag_id in _LISTS and (items or run):  # a list put straight into a list
                    end_run()
                    items[-1].extend(self.sub_blocks(child, itself=True))
                elif run is None and tag_id == _TEXT and not (child.text_content or "").strip():
                    continue
                elif tag_id in _REOPENED and child.css_first("li") is not None:
                    # the parser's: its items are this list's, a <code>'s text code
                    code = self.code
                    self.code = code or tag_id == _CODE
                    visit(child)
                    self.code = code
                else:
                    if run is None:
                        run = _Renderer(self.url, self.links, self.code)
                    elif run.code and not self.code:
                        run.end_code_run()
                    run.code = self.code
                    run.node(child)

        visit(node)
        end_run()
        number = _start(node) if ordered else 0
        rendered = []
        for blocks in items:
            if not blocks:
                continue
            marker = f"{number}. " if ordered else "- "
            number += 1
            body = blocks[0]
            for block in blocks[1:]:
                tight = block.startswith(("- ", "1. ")) or _LIST_NUMBER.match(block)
                body += ("\n" if tight else "\n\n") + block
            rendered.append(_prefix_lines(body, marker, " " * len(marker)))
        if rendered:
            self.blocks.append("\n".join(rendered))

    def table(self, node: LexborNode) -> None:
        self.flush()
        rows: list[tuple[bool, list[LexborNode]]] = []  # (in <thead>, cells)
        captions: list[LexborNode] = []
        for child in node.iter():
            if child.tag_id in _ROW_GROUPS:
                head = child.tag_id == _THEAD
                rows += [(head, _cells(row)) for row in child.iter() if row.tag_id == _TR]
            elif child.tag_id == _TR:
                rows.append((False, _cells(child)))
            elif child.tag_id == _CAPTION:
                captions.append(child)
        width = max((len(cells) for _, cells in rows), default=0)
        if width <= 1 or any(_holds_blocks(cell) for _, cells in rows for cell in cells):
            self.children(node)  # a layout table: its cells as blocks
            self.flush()
            return
        for caption in captions:
            self.blocks.extend(self.sub_blocks(caption, itself=True))
        texts = [[_cell_text(cell) for cell in cells] for _, cells in rows]
        texts = [row + [""] * (width - len(row)) for row in texts]
        first_head, first_cells = rows[0]
        has_header = first_head or all(cell.tag_id == _TH for cell in first_cells)
        header = texts.pop(0) if has_header else [""] * width
        lines = [_row(header), _row(["---"] * width)]
        lines += [_row(row) for row in texts]
        self.blocks.append("\n".join(lines))


def _start(node: LexborNode) -> int:
    try:
        return int((node.attributes.get("start") or "1").strip())
    except ValueError:
        return 1


def _holds_blocks(cell: LexborNode) -> bool:
    """True for a cell of a layout table: it holds lists, headings, code, quotes or tables."""
    return cell.css_first(_LAYOUT_TABLE) is not None


def _cells(row: LexborNode) -> list[LexborNode]:
    return [cell for cell in row.iter() if cell.tag_id in _CELLS]


def _cell_text(cell: LexborNode) -> str:
    return _escape_inline(flat_text(cell)).replace("|", "\\|")


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |" if any(cells) else "|" + " |" * len(cells)


def markdown(root: LexborNode, url: str | None = None, links: bool = False) -> str:
    """The Markdown of ``root``'s subtree (``root`` included), its links resolved against
    ``url`` (the page's base). The tree is not changed, unless a character the policy removes
    sits where removing it from the Markdown would change what is read: then the text nodes
    are rewritten without them and the Markdown written again."""
    text = _markdown(root, url, links)
    if suspect(text) and not _removed_safely(text):
        raw = root.text(deep=True)
        if rewrite_text_nodes(
            root, functools.partial(strip_unwanted_in_node, rtl=right_to_left(raw))
        ):
            text = _markdown(root, url, links)
    return text


def _markdown(root: LexborNode, url: str | None, links: bool) -> str:
    renderer = _Renderer(url, links)
    renderer.node(root)
    renderer.flush()
    return "\n\n".join(block for block in renderer.blocks if block)


def _removed_safely(text: str) -> bool:
    """Whether the characters the policy removes from the Markdown ``text`` can be removed from
    it as it is written (by the repair) with the same result as from the page: the escaping
    around each run of them was decided with it there. Not where only block markers precede it
    on its line (a quote's, a list item's, a heading's, or one begun: ``#``, ``1``, ``-``,
    ``=``; removed, it would let a ``#`` head the line or leave an empty heading), not after
    ``&`` and a word (a reference would be read), not beside a backtick, ``_``, ``|`` or a
    space (code spans, emphasis, table cells, a code block's whitespace), not beside ``#``
    (a heading's closing hashes), not before a backslash (escapes, hard breaks)."""
    runs: list[list[int]] = []  # [start, end) of each run of removed characters
    for i in removed_at(text):
        if runs and runs[-1][1] == i:
            runs[-1][1] = i + 1
        else:
            runs.append([i, i + 1])
    for start, end in runs:
        line_start = text.rfind("\n", 0, start) + 1
        if _LINE_PREFIX.fullmatch(text, line_start, start):
            return False
        after = text[end] if end < len(text) else "\n"
        if text[start - 1] in _UNSAFE_BEFORE or after in _UNSAFE_AFTER:
            return False
        ampersand = text.rfind("&", line_start, start)
        if ampersand >= 0 and _REFERENCE_BEFORE.fullmatch(text, ampersand, start):
            return False
    return True


def strip_title_line(line: str) -> str:
    """A Markdown line as plain text, for comparing it with the title: heading marks and
    backslash escapes removed."""
    return _ESCAPED.sub(r"\1", _HEADING_MARK.sub("", line)).strip()
