"""Main-content extraction from HTML: the page's title and its text with block structure.

Usage without Beam::

    from transforms.extract import extract
    result = extract(html_bytes_or_str, url, mode="main")   # or mode="full"
    result.title, result.text, result.truncated
    extract(html, url, format="markdown").text              # the text as Markdown

and from the command line: ``python -m transforms.extract page.html [--mode full]
[--format markdown]``.

``Extractor`` holds the settings and is built once per Beam worker (``DoFn.setup``); calling it
is deterministic, uses no network, and is bounded by an input-size cap, a node-count cap and
work caps on pathological trees (``Extracted.truncated`` says when one was hit).

Modules: ``limits`` (the caps, applied before parsing, with ``rebuild`` and ``markup``),
``shadow`` (declarative shadow roots read as content), ``boilerplate`` (what is dropped),
``comments`` (comment threads set apart, ``Extracted.comments``), ``scoring`` (where the main
content is), ``prose`` (text measures that mean the same in every script), ``layout`` (text with
block structure), ``markdown`` (the same as Markdown; ``links``: its link targets), ``title`` (the
headline), ``repair`` (ftfy, then ``characters``: which characters the output keeps), ``tree``
(sizes, parent-chain memo, work caps).

The second opinion (``Extractor._extract``): when the text dropped as hidden, furniture or
boilerplate is more than ``SECOND_OPINION_DROPPED`` times the main text, the page is parsed
again and the main block chosen without dropping hidden elements or named boxes (consent
boxes aside); that text is taken when its prose not already in the first (``prose_mass``)
weighs more than ``SECOND_OPINION_GAIN`` times the first's, plus a paragraph. Streaming apps
park the article in hidden chunks, and sites give the article's box a name that reads as
boilerplate; a hidden copy of the article, or a hidden tab beside a visible article, is no
gain.

A block that repeats itself (``repeats_itself``: a carousel of per-region banners, a ticker,
its distinct sentences under a third of its prose) is set aside and the main block chosen
again from the rest of the page; the other block is taken when its distinct sentences weigh
more.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import gc
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from selectolax.lexbor import LexborDocumentOptions, LexborHTMLParser, LexborNode, create_tag

from transforms.decode import decode_text, utf8_form, utf8_source
from transforms.extract.boilerplate import (
    INVISIBLE_TAGS,
    BodyElements,
    drop_boilerplate,
    drop_furniture,
    drop_labelled,
    drop_teasers,
    sort_elements,
)
from transforms.extract.characters import strip_unwanted_in_node
from transforms.extract.comments import declares_discussion
from transforms.extract.layout import drop_page_markers, layout
from transforms.extract.limits import MAX_HTML_CHARS, MAX_NODES, bound_page
from transforms.extract.links import document_base
from transforms.extract.markdown import markdown, strip_title_line
from transforms.extract.prose import PROSE_CHARS, PROSE_CJK_CHARS, text_weight
from transforms.extract.repair import repair_text
from transforms.extract.scoring import (
    LinkStats,
    article_within,
    choose_root,
    headline_article,
    headline_articles,
    headline_lead,
    lead_before,
    main_landmark,
    main_within,
    marked_article_body,
    named_body,
    prune_link_lists,
    refine_to_prose,
)
from transforms.extract.shadow import has_shadow_root, open_shadow_roots
from transforms.extract.title import (
    find_title,
    json_ld_headline,
    json_ld_texts,
    json_ld_title,
    overlapping,
    read_head,
    similar,
)
from transforms.extract.tree import MAX_WALK_DEPTH, TooComplex, size

MODES = ("main", "full")
FORMATS = ("text", "markdown")
# The second opinion: asked when the text dropped (hidden, furniture, boilerplate names) is
# more than this many times the main text; taken when its paragraphs of prose weigh more
# than this many times the first one's, plus one paragraph.
SECOND_OPINION_DROPPED = 4.0
SECOND_OPINION_GAIN = 2.0
SENTENCE_CHARS = PROSE_CJK_CHARS // 4  # no line shorter than this is a sentence in any script
# A main text is mostly repeats when, in its first REPEAT_SAMPLE characters, the distinct
# sentences weigh under this share of the lines of prose (each said three times); that is
# measured when the last REPEAT_TAIL characters of the sample's first or last line occur
# REPEATS times or more in it.
REPEATED_SHARE = 1 / 3
REPEAT_SAMPLE = 4000
REPEAT_TAIL = 32
REPEATS = 3
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])\s*")


_INVISIBLE = ", ".join(INVISIBLE_TAGS)
_H1 = create_tag("h1").tag_id  # (a tag id is read from the node; a tag name is decoded)
# Parsed without Lexbor's DOM mutation events: the side effects a browser applies to the tree,
# such as the chosen <option> copied into <selectedcontent> (text the page would hold twice).
# The parse and every decompose() then skip a callback per node.
_parse = functools.partial(LexborHTMLParser, options=LexborDocumentOptions.WO_EVENTS)


@dataclass(frozen=True)
class Extracted:
    title: str
    text: str
    truncated: bool = False  # an input-size or node-count cap was hit
    comments: str = ""  # main mode: the comment thread set apart from the article, if any


def drop_leading_title(text: str, title: str, output_format: str = "text", h1: str = "") -> str:
    """The headline is the title; do not repeat it as the first line of the text (in Markdown,
    the first line read as plain text; cleaned as the title's sources are, ``title._clean``:
    the text keeps what the policy removes until its repair), nor the page's first ``<h1>``
    (``h1``), which may be worded apart from the title taken from JSON-LD."""
    first, sep, rest = text.partition("\n")
    if output_format == "markdown":
        first = strip_title_line(first)
    first = " ".join(strip_unwanted_in_node(first).split())
    if first and first in (title, " ".join(h1.split())):
        return rest.lstrip("\n")
    return text


class Extractor:
    """A configured extractor; call it with ``(html, url)`` to get an ``Extracted``.

    ``output_format="markdown"`` writes the text as Markdown (``transforms.extract.markdown``),
    with links as ``[text](url)`` when ``links`` is true; ``"text"`` is the plain layout.
    """

    def __init__(
        self,
        mode: str = "main",
        max_html_chars: int = MAX_HTML_CHARS,
        max_nodes: int = MAX_NODES,
        output_format: str = "text",
        links: bool = False,
    ) -> None:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, not {mode!r}")
        if output_format not in FORMATS:
            raise ValueError(f"output_format must be one of {FORMATS}, not {output_format!r}")
        self.mode = mode
        self.max_html_chars = max_html_chars
        self.max_nodes = max_nodes
        self.output_format = output_format
        self.links = links

    def _render(self, root, url: str | None) -> str:
        """The text of ``root``'s subtree in the configured format (mutates it)."""
        if self.output_format == "markdown":
            try:
                return markdown(root, url, self.links)
            except RecursionError:  # deeper than Python's stack: the plain layout
                pass
        return layout(root)

    def __call__(
        self, html: bytes | str | None, url: str | None = None, *, utf8: bytes | None = None
    ) -> Extracted:
        """Bytes are decoded with the job's charset chain; ``utf8``, if given with a str
        ``html``, is ``html.encode("utf-8")`` and is parsed as it is. ``html`` None with
        ``utf8``: the page is those bytes, plain UTF-8 (``transforms.decode.utf8_source``),
        its text made only if a bound needs it.

        The page is bounded before parsing (nesting flattened past ``limits.MAX_NESTING``
        levels, then the character and node caps) and the title and text are repaired with
        ftfy after, so that this call is exactly what the job runs on a page.

        Python's cyclic garbage collector is paused during the call (``_paused_collector``)."""
        with _paused_collector():
            return self._call(html, url, utf8)

    def _call(self, html: bytes | str | None, url: str | None, utf8: bytes | None) -> Extracted:
        if isinstance(html, bytes | bytearray):
            data = bytes(html)
            if utf8_source(data) is not None:  # strict UTF-8: its text is made only if needed
                html, utf8 = None, data
            else:
                decoded = decode_text(data)
                html, utf8 = decoded.text, utf8_form(data, decoded)
        elif utf8 is None and html is not None:
            utf8 = _utf8(html)
        source, truncated = bound_page(
            html, utf8, max_chars=self.max_html_chars, max_nodes=self.max_nodes, drop_scripts=True
        )
        tree = _parse(source)
        html_title, metas, head_scripts = read_head(tree.head)
        h1s: list[str] = []
        # JSON-LD scripts: the head's here, the body's as the body is sorted out (_extract)
        ld_texts = json_ld_texts(head_scripts)
        if tree.body is None:
            headline = json_ld_headline(ld_texts)
            title = repair_text(find_title(html_title, metas, [], url, headline))
            return Extracted(title, "", truncated)
        trees = [tree]
        comments = ""
        base = document_base(tree, url) if self.links else url  # what links resolve against
        try:
            # the <title> or og:title, worked out if a rule asks for it
            page_title = _once(functools.partial(find_title, html_title, metas, [], url))
            body_text, comments = self._extract(trees, source, h1s, base, page_title, ld_texts)
        except TooComplex:  # thousands of nested boxes: the plain layout of what is left
            body = trees[-1].body
            for node in reversed(body.css(_INVISIBLE)):
                node.decompose()
            drop_page_markers(body)
            body_text = layout(body)
            truncated = True
        shown = find_title(html_title, metas, h1s, url)  # from the <h1> and <title>
        headline = json_ld_headline(ld_texts)
        # the JSON-LD headline, else the title shown (find_title's order, without its work twice)
        title = json_ld_title(headline, metas, url) or shown
        if self.mode == "main":
            body_text = drop_leading_title(body_text, title, self.output_format, shown)
        return Extracted(
            repair_text(title), repair_text(body_text), truncated, repair_text(comments)
        )

    def _extract(
        self,
        trees: list[LexborHTMLParser],
        source: bytes,
        h1s: list[str],
        url: str | None,
        page_title: Callable[[], str] = str,
        ld_texts: list[str] | None = None,
    ) -> tuple[str, str]:
        """The text of the page's body and of the comment threads set apart from it
        (collecting its first ``<h1>`` texts into ``h1s``, and the texts of its JSON-LD
        scripts with a headline or a discussion's type into ``ld_texts``), links resolved
        against ``url``; a re-parsed tree (of ``source``, what was parsed) is appended to
        ``trees``.
        ``page_title()``: the ``<title>`` or ``og:title`` without the site's name."""
        main = self.mode == "main"
        body = trees[-1].body
        elements = sort_elements(body)
        if ld_texts is not None:  # (read before the scripts go)
            ld_texts.extend(json_ld_texts(elements.stripped))
        if has_shadow_root(elements.stripped):  # web components rendered on the server
            source = open_shadow_roots(source)
            body = self._reparse(trees, source, noscript=False)
            elements = sort_elements(body)
        noscript_chars, dropped = drop_furniture(body, h1s, main, elements=elements)
        noscript = bool(noscript_chars) and noscript_chars > size(body)
        if noscript:  # the page is rendered for crawlers inside <noscript> only: use that copy
            body = self._reparse(trees, source, noscript)
            h1s.clear()
            elements = sort_elements(body)
            _, dropped = drop_furniture(body, h1s, main, elements=elements)
        if not main:
            drop_boilerplate(body, main, containers=elements.containers)
            return self._render(body, url), ""
        render = functools.partial(self._render, url=url)
        ld_texts = ld_texts if ld_texts is not None else []
        text, comments, removed = _main_text(
            body, render, elements, page_title=page_title, ld_texts=ld_texts
        )
        if dropped + removed > SECOND_OPINION_DROPPED * len(text):
            # Second opinion: most of the page's text was dropped as hidden or as boilerplate.
            # Without those cuts, is there clearly more prose? (streamed apps park the article
            # in hidden chunks; sites give the article's box a name that reads as boilerplate)
            body = self._reparse(trees, source, noscript)
            elements = sort_elements(body)
            drop_furniture(body, [], main, keep_hidden=True, elements=elements)
            other, other_comments, _ = _main_text(
                body, render, elements, relaxed=True, page_title=page_title, ld_texts=ld_texts
            )
            if prose_mass(other, text) > SECOND_OPINION_GAIN * prose_mass(text) + PROSE_CHARS:
                return other, other_comments
        return text, comments

    @staticmethod
    def _reparse(trees: list[LexborHTMLParser], source: bytes, noscript: bool) -> LexborNode:
        """The body of a new parse of ``source`` (appended to ``trees``), with the content
        of ``<noscript>`` elements unwrapped if ``noscript``."""
        tree = _parse(source)
        if noscript:
            tree.unwrap_tags(["noscript"])
        trees.append(tree)
        return tree.body


@contextlib.contextmanager
def _paused_collector() -> Iterator[None]:
    """Pause the cyclic garbage collector, if it runs, for the duration of the block.

    A page's extraction holds thousands of short-lived objects at once (a ``LexborNode`` per
    element it looks at, the lists and tuples around them), nearly all freed by reference
    counting when it returns. With the collector running, they trigger collections that
    promote them to the older generations, and every few pages a full collection, which walks
    every object of the process: in a worker with Beam loaded (130,000 objects), 0.2 s each,
    a third of the time on a page with 10,000 elements. Paused, the collector has nothing of
    the page left to look at afterwards but the few cycles the page made, taken at its next
    young collection. Threads sharing the process are safe: the collector is only resumed by
    the call that paused it, and never paused when it was off."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


_T = TypeVar("_T")


def _once(make: Callable[[], _T]) -> Callable[[], _T]:
    """``make`` called the first time the function returned is, its value kept:
    ``functools.cache`` on a function of no arguments, without the set-up of its wrapper
    (``update_wrapper`` looks for attributes a ``partial`` does not have, 10 us a page)."""
    kept: list[_T] = []

    def value() -> _T:
        if not kept:
            kept.append(make())
        return kept[0]

    return value


def _utf8(text: str) -> bytes | None:
    """``text`` as UTF-8, or None if it holds lone surrogates (which have no UTF-8 form).

    A str page is encoded once, up front: the parser needs the bytes anyway, and the nesting
    cap counts tags on bytes with numpy in a quarter of the time ``str.count`` takes."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return None


def _main_text(
    body: LexborNode,
    render: Callable[[LexborNode], str],
    elements: BodyElements,
    relaxed: bool = False,
    page_title: Callable[[], str] = str,
    ld_texts: list[str] | None = None,
) -> tuple[str, str, int]:
    """The main content's text (``render``), the comment threads' text and the length of the
    text dropped as boilerplate, for a ``body`` cleaned of its furniture (``elements``: the
    body's, from ``sort_elements``; ``relaxed``: see ``drop_boilerplate``; ``page_title``: see
    ``Extractor._extract``; ``ld_texts``: the page's JSON-LD texts, from ``json_ld_texts``)."""
    # Whether the page declares itself a forum thread or a question's answers: asked only when
    # a comment thread would be set apart from a first post long enough to be an article
    # (most pages never ask). A thread kept so is also why the first post's <article> is not
    # taken alone (``_main_block``): asking there instead, on every page whose headline has
    # an <article>, cost 3% of a typical page.
    declared: list[bool] = []

    def discussion(thread: LexborNode) -> bool:
        if not declared:
            declared.append(declares_discussion(thread, ld_texts or []))
        return declared[0]

    def thread_kept() -> bool:  # a thread stayed for the page's declaration
        return bool(declared) and declared[0]

    # the <article>s of the <h1>s, found before their <header>s may go as boilerplate
    h1s = [node for node in elements.furniture if node.tag_id == _H1 and node.parent is not None]
    articles = headline_articles(h1s)

    headline_text = _words(h1s[0]) if h1s else ""  # (read now: its <header> may go)

    def titled() -> bool:  # the first <h1> is the page's title
        return bool(headline_text) and similar(headline_text, page_title())

    # the lead after the headline, serialized before its <header> may go
    lead_after = headline_lead(h1s[0]) if h1s else None
    lead_html = lead_after.html if lead_after is not None else None
    lead_words = " ".join(lead_after.text().split()) if lead_after is not None else ""

    bodies: list[LexborNode] = []
    body_size, comments, removed = drop_boilerplate(
        body, True, relaxed, elements.containers, bodies, discussion
    )
    links = LinkStats(body)
    marked = marked_article_body(body, links, elements.article_body)
    headline = elements.headline()
    root = _main_block(
        body, links, marked, body_size, headline, bodies, articles, titled, thread_kept
    )
    lead = None if marked is not None else lead_before(root, links, headline)
    drop_labelled(root)
    drop_teasers(root)
    text = render(root)
    if lead is not None:  # the standfirst set apart from the body's box
        text = f"{render(lead)}\n\n{text}"
    elif lead_html and lead_words not in (words := " ".join(text.split())):
        # the standfirst under the article's headline (the page's title, maybe reworded or
        # cut short, or the page has none), left out of the root
        lead_text = render(_parse(lead_html).body)
        if (
            lead_text
            and " ".join(lead_text.split()) not in words
            and (not (title := page_title()) or overlapping(headline_text, title))
        ):
            text = f"{lead_text}\n\n{text}"
    if marked is None and root.mem_id != body.mem_id and repeats_itself(text):
        # The block says the same thing over and over (a carousel of per-country banners, a
        # ticker): look again without it, and take the other block if it says more.
        root.decompose()
        other = render(_main_block(body, LinkStats(body), headline=headline, bodies=bodies))
        if prose_mass(other) > prose_mass(text):
            return other, comments, removed
    return text, comments, removed


def _main_block(
    body: LexborNode,
    links: LinkStats,
    marked: LexborNode | None = None,
    body_size: int | None = None,
    headline: LexborNode | None = None,
    bodies: list[LexborNode] | None = None,
    articles: list[LexborNode] | None = None,
    titled: Callable[[], bool] = bool,
    thread_kept: Callable[[], bool] = bool,
) -> LexborNode:
    """The main block: the one ``marked`` as the article body, else the one chosen by text mass
    and refined to its prose, or the ``headline``'s article beside a box of other articles, or
    the headline's article inside it (``articles``, ``titled``: ``scoring.article_within``),
    or, when a comment thread stayed because the page declares itself a discussion
    (``thread_kept()``), the box holding both that article (its first post) and the block
    chosen (the replies), or the one box in it
    named as the article's body (``bodies``; see ``scoring``); its link lists pruned."""
    root = marked
    if root is None:
        root = choose_root(body, links, body_size)
        if root.mem_id == body.mem_id:  # no block holds two thirds of the page
            root = main_landmark(body, links) or root
        else:
            root = main_within(root, links) or root
        root = refine_to_prose(root, links)
        article = headline_article(root, headline) or article_within(
            root, articles or [], links, titled
        )
        if article is not None:
            # on a forum, the headline's article is the first post: the content with the
            # replies, not without them (the smallest box holding both)
            root = _around(article, root) if thread_kept() else article
        if bodies:
            root = named_body(root, bodies, links) or root
    prune_link_lists(root, links)
    return root


def _around(node: LexborNode, other: LexborNode) -> LexborNode:
    """The smallest element holding both ``node`` and ``other`` (either, if one holds the
    other)."""
    above, up = set(), node
    while up is not None:
        above.add(up.mem_id)
        up = up.parent
        if len(above) > MAX_WALK_DEPTH:
            raise TooComplex("content nested too deep")
    up, steps = other, 0
    while up is not None and up.mem_id not in above:
        up, steps = up.parent, steps + 1
        if steps > MAX_WALK_DEPTH:
            raise TooComplex("content nested too deep")
    return up if up is not None else other


def _words(node: LexborNode) -> str:
    """The text of ``node`` with its words spaced (``<h1>A <span>B</span></h1>``: "A B")."""
    return " ".join(node.text(separator=" ").split())


def _sentences(line: str) -> list[str]:
    return [s for s in _SENTENCE_END.split(line) if s]


def prose_mass(text: str, besides: str = "") -> float:
    """The weight (``text_weight``) of the sentences in ``text`` that are on lines of a
    quarter of a paragraph of prose or more (labels, menu items and prices weigh nothing),
    in any script; each distinct sentence once, and none that is in ``besides`` (a hidden
    second copy of the article is no gain)."""
    seen = set(_sentences(besides.replace("\n", " "))) if besides else set()
    total = 0.0
    for line in _prose_lines(text):
        for sentence in _sentences(line):
            if sentence not in seen:
                seen.add(sentence)
                total += text_weight(sentence)
    return total


def _prose_lines(text: str) -> list[str]:
    """The lines of ``text`` that ``prose_mass`` weighs (a quarter of a paragraph or more)."""
    return [
        line
        for line in text.split("\n")
        if len(line) >= SENTENCE_CHARS and text_weight(line) >= PROSE_CHARS / 4
    ]


def repeats_itself(text: str) -> bool:
    """Whether ``text`` is mostly repeats: in its first ``REPEAT_SAMPLE`` characters, the
    distinct sentences (``prose_mass``) weigh under ``REPEATED_SHARE`` of the lines of prose,
    and those weigh a paragraph or more.

    Measured only when the end of the sample's first or last line recurs ``REPEATS`` times
    or more in it (a few ``str.count`` calls): a carousel of variants or a ticker repeats its
    own lines, and splitting every page's text into sentences would cost about 1% of the
    extractor."""
    sample = text[:REPEAT_SAMPLE]
    first = sample.partition("\n")[0]
    head, _, last = sample.rpartition("\n")
    if len(text) > REPEAT_SAMPLE:  # the sample's last line is cut short: the one before it
        last = head.rpartition("\n")[2]
    ends = [line[-REPEAT_TAIL:] for line in (first, last) if len(line) >= REPEAT_TAIL]
    if not any(sample.count(end) >= REPEATS for end in ends):
        return False
    lines = sum(text_weight(line) for line in _prose_lines(sample))
    return lines >= PROSE_CHARS and prose_mass(sample) < REPEATED_SHARE * lines


_DEFAULT = {
    (mode, output_format, links): Extractor(mode, output_format=output_format, links=links)
    for mode in MODES
    for output_format in FORMATS
    for links in (False, True)
}


def extract(
    html: bytes | str,
    url: str | None = None,
    *,
    mode: str = "main",
    format: str = "text",  # noqa: A002 -- the name users expect, as --format
    links: bool = False,
) -> Extracted:
    """Extract the title and the main content (``mode="main"``) or all visible text
    (``mode="full"``) of an HTML page given as str, or as bytes decoded by
    ``transforms.decode.charset.decode_text`` (a byte-order mark, a ``<meta charset>``, else
    detected). ``format="markdown"`` gives the text as Markdown, with links as ``[text](url)``
    if ``links``."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, not {mode!r}")
    if format not in FORMATS:
        raise ValueError(f"format must be one of {FORMATS}, not {format!r}")
    return _DEFAULT[mode, format, links](html, url)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Extract the title and text of an HTML file.")
    parser.add_argument("path", help="an HTML file, or - for stdin")
    parser.add_argument("--mode", choices=MODES, default="main")
    parser.add_argument("--format", choices=FORMATS, default="text")
    parser.add_argument("--links", action="store_true", help="Markdown links as [text](url)")
    parser.add_argument("--url", default=None)
    args = parser.parse_args(argv)
    data = sys.stdin.buffer.read() if args.path == "-" else Path(args.path).read_bytes()
    result = extract(data, args.url, mode=args.mode, format=args.format, links=args.links)
    print(result.title)
    print()
    print(result.text)
    return 0
