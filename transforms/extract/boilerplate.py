"""Boilerplate: what is dropped from the body before the main content is located.

- Never visible: ``script``, ``style``, ``noscript``, ``template``, ``svg``, ... (all modes);
  nor the readings of ruby annotations (``<rt>``, ``<rp>``): the base text is the text.
- Page furniture by tag: ``nav``, ``aside``, ``footer``, form controls, figure captions, ...
- Hidden elements: ``hidden``, ``aria-hidden="true"``, ``display:none``/``visibility:hidden``;
  containers hidden by a CSS framework's class ("hidden", "d-none", "visually-hidden": a
  paywall's offers, structured data for search engines; ``names.HIDDEN_CLASSES``).
- Containers named as boilerplate: an ARIA role (navigation, complementary, ...) or a word of
  a generic, multilingual boilerplate vocabulary in the class or id (share, related,
  comments, cookie, newsletter, sidebar, ... werbung, kommentare, compartir, ...; the
  vocabulary and its search are in ``names``).
- Inside the main block, a teaser of another story under a "read also" label in one of the
  crawl's languages ("Lesen Sie auch", "Lire aussi", "Czytaj też", ...), the label of an
  ad ("Anzeige", "Publicité", "Reklam", ...), and a short box calling to subscribe ("la suite
  est réservée aux abonnés", "この記事は会員限定です", ...) or the placeholder of an
  embedded post asking for consent ("Um eingebettete Inhalte anzuzeigen", ...), and the
  skip links of the page's top ("Skip to main content": a link to a place in the page;
  ``drop_labelled``); and a box named as a teaser with a headline-long link, in an
  article's text (``drop_teasers``).

Whatever is dropped by attributes is guarded: it stays if it holds half of the page's
text, or if its name (a hidden class aside) also has a content word (article, main, content,
...), since sites put such names on page-wide wrappers ("main has-sidebar", "article
modal-enabled"). Not so a box hidden by its class when the page has an article outside it
(beside one, it is hidden for what it is: a comparison of products, a tab), nor a
``<header>`` holding no prose beside an empty main landmark (the page is a shell a script
fills: its banner is no content). A dialog (ARIA role ``dialog``) or a box named for cookies
or consent stays only if it holds 90% of the text, as a ``<dialog>`` does: consent managers
fill one with pages of legal prose beside a short article. One holding an ``<h1>`` or an
``<article>`` (an article shown in a modal, a page wrapper with a class such as
"has-cookie-notice") is guarded like the rest.

Comment threads are not guarded so: one longer than the article is still set apart from it,
when the page has an article and does not declare itself a forum thread (see ``comments``);
their text is returned.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from typing import NamedTuple

from ahocorasick_rs import AhoCorasick, Implementation
from selectolax.lexbor import LexborNode, create_tag

from transforms.extract import walk
from transforms.extract.comments import has_prose_outside, looks_like_thread
from transforms.extract.layout import drop_page_markers, layout
from transforms.extract.names import classify_names, is_consent_name
from transforms.extract.prose import holds_prose
from transforms.extract.tree import MAX_MEASURED, MAX_WALK_DEPTH, TooComplex, size

# Tags that never hold main content.
FURNITURE_TAGS = frozenset(
    {"nav", "aside", "footer", "dialog", "menu", "button", "select", "input", "textarea", "figcaption",
     "label", "option", "datalist", "output", "search"}
)  # fmt: skip
# Tags that usually are furniture but that some sites wrap around the whole page.
GUARDED_TAGS = frozenset({"form", "header"})
# A page with this many <article> elements that have a <header> lists them: their headers
# (headline, teaser) are the listing's content, not the page's header.
LISTED_ARTICLES = 3
BOILERPLATE_ROLES = frozenset(
    {"navigation", "complementary", "contentinfo", "banner", "search", "dialog", "alertdialog",
     "menu", "menubar", "toolbar"}
)  # fmt: skip

# Dialogs and consent boxes (consent managers put pages of legal prose in one) are kept only
# when they hold this share of the text, as a <dialog> element is (``_GUARDED_FURNITURE``),
# not half of it.
DIALOG_ROLES = frozenset({"dialog", "alertdialog"})
DIALOG_SHARE = 0.9
# ... unless they hold one of these: an article shown in a modal, a page-wide wrapper.
_DIALOG_CONTENT = "h1, article"

# A <header>'s scope: the nearest of these ancestors; in the last two, it heads content.
_SECTIONING = frozenset({"body", "article", "aside", "nav", "section", "main"})
_SECTION_CONTENT = frozenset({"section", "main"})
# The page's main landmarks: an empty one beside a banner marks a page a script renders.
_MAIN_LANDMARKS = 'main, [role="main"]'
_SECTIONING_IDS = frozenset(create_tag(tag).tag_id for tag in _SECTIONING)
_SECTION_CONTENT_IDS = frozenset(create_tag(tag).tag_id for tag in _SECTION_CONTENT)
_ARTICLE = create_tag("article").tag_id

_DISPLAY_NONE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden")

# Elements whose attributes are checked for boilerplate and hidden-ness (inline elements
# are not: they hold little text, and skipping them halves the pass).
CONTAINER_TAGS = ("div", "section", "article", "ul", "ol", "dl", "table", "p", "figure")
INVISIBLE_TAGS = ("script", "style", "noscript", "template", "svg", "iframe", "object", "embed")
# Ruby annotations: the reading (<rt>) and its fallback parentheses (<rp>) are small print
# above the base text; kept, they would be glued into it ("子こども" for 子ども).
RUBY_ANNOTATION_TAGS = ("rt", "rp")
_STRIPPED_TAGS = (*(tag for tag in INVISIBLE_TAGS if tag != "noscript"), *RUBY_ANNOTATION_TAGS)
# What counts as hidden by attribute, as a CSS selector (``walk.sort_body`` finds these).
HIDDEN_SELECTOR = (
    '[hidden], [aria-hidden="true"], [style*="display:none" i], [style*="display: none" i]'
)
_INVISIBLE = frozenset(INVISIBLE_TAGS)
_DROP_TAGS = _INVISIBLE | FURNITURE_TAGS
_GUARDED_FURNITURE = frozenset({"nav", "aside", "footer", "dialog", "menu", "search"})
_NOSCRIPT_CONTENT = "p, li, h1, h2, h3, article, td"
# (the same as a table by tag id, for ``walk.holds_tag``: a CSS query parses its selector each time)
_NOSCRIPT_CONTENT_IDS = frozenset(
    create_tag(t.strip()).tag_id for t in _NOSCRIPT_CONTENT.split(",")
)
_NOSCRIPT_CONTENT_TABLE = bytes(
    t in _NOSCRIPT_CONTENT_IDS for t in range(max(_NOSCRIPT_CONTENT_IDS) + 1)
)
_CANDIDATE_TAGS = frozenset(CONTAINER_TAGS) | GUARDED_TAGS


class BodyElements(NamedTuple):
    """The elements of a body that the cleaning passes look at, by tag, in document order.

    One walk of the body sorts them out (``sort_elements``), where a CSS query per pass cost
    two and a half times as much: Lexbor tests every selector of a list on every element,
    and the passes' lists hold 36 tag names. Elements that a pass drops stay in the lists,
    detached: Lexbor's removal unlinks every node of the removed subtree, so an element still
    in the tree is one with a parent."""

    stripped: list[LexborNode]  # never visible: removed first
    furniture: list[LexborNode]  # furniture tags, and h1 and noscript (looked at by drop_furniture)
    containers: list[LexborNode]  # candidates of drop_boilerplate: forms, headers, and the
    # other container tags if they have attributes
    hidden: list[LexborNode]  # hidden by attribute (``HIDDEN_SELECTOR``), any tag
    article_body: list[LexborNode]  # marked up as the article body (schema.org microdata)

    def headline(self) -> LexborNode | None:
        """The page's first ``<h1>`` still in the tree."""
        return next((n for n in self.furniture if n.tag_id == _H1 and n.parent is not None), None)


# Keyed by Lexbor's tag id (an int read from the node; see layout.mark_blocks): the index of
# the list of BodyElements an element goes to.
_LIST_OF = {
    **{create_tag(tag).tag_id: 0 for tag in _STRIPPED_TAGS},
    **{create_tag(tag).tag_id: 1 for tag in ("h1", "noscript", *FURNITURE_TAGS)},
    **{create_tag(tag).tag_id: 2 for tag in _CANDIDATE_TAGS},
}
_FURNITURE_IDS = frozenset(tag_id for tag_id, index in _LIST_OF.items() if index == 1)
_H1, _NOSCRIPT, _HEADER = (create_tag(tag).tag_id for tag in ("h1", "noscript", "header"))
_GUARDED_FURNITURE_IDS = frozenset(create_tag(tag).tag_id for tag in _GUARDED_FURNITURE)
_INVISIBLE_IDS = frozenset(create_tag(tag).tag_id for tag in _INVISIBLE)


# walk.sort_body's table: a container goes to its list only if it has attributes (drop_boilerplate
# passes over the others but for forms and headers), which spares a LexborNode for most of them.
_TABLE = bytearray(max(_LIST_OF) + 1)
for _tag_id, _index in _LIST_OF.items():
    _TABLE[_tag_id] = _index + 1
for _tag in CONTAINER_TAGS:
    _TABLE[create_tag(_tag).tag_id] |= walk.WITH_ATTRIBUTES
_TABLE = bytes(_TABLE)


def sort_elements(body: LexborNode) -> BodyElements:
    """The elements of ``body`` (itself included) that the cleaning passes look at: one
    compiled walk (``walk.sort_body``)."""
    (stripped, furniture, containers), hidden, marked = walk.sort_body(body, _TABLE, 3)
    return BodyElements(stripped, furniture, containers, hidden, marked)


_GUARDED_IDS = frozenset(create_tag(tag).tag_id for tag in GUARDED_TAGS)
_GUARDED_TABLE = bytes(t in _GUARDED_IDS for t in range(max(_GUARDED_IDS) + 1))

# schema.org's comment types (itemtype), and the comment property (itemprop)
_SCHEMA_COMMENT = re.compile(r"schema\.org/(?:Comment|UserComments)\b|^\s*comments?\s*$", re.I)


def drop_furniture(
    body: LexborNode,
    h1s: list[str],
    main: bool,
    keep_hidden: bool = False,
    elements: BodyElements | None = None,
) -> tuple[int, int]:
    """Drop what is never visible (scripts, styles, ...) and, in main mode, the furniture
    tags and hidden elements; collect the first ``<h1>`` texts into ``h1s``.

    Hidden elements stay if they hold half of the body's visible text (streaming apps
    park their content in a hidden element until a script moves it), furniture boxes (nav,
    aside, footer, ...) if they hold 90% of it (an unclosed ``<aside>`` swallows the page).
    Sizes are measured before anything is removed.

    ``keep_hidden`` keeps hidden elements whatever their size (the extractor's second
    opinion: apps that stream their content into hidden chunks). ``elements`` are the body's
    (``sort_elements``), if already sorted out.

    Returns the length of the text inside ``<noscript>`` elements holding real markup
    (paragraphs, list items, headings): some apps render the page for crawlers only there;
    and the length of the hidden and guarded furniture elements dropped (the text the main
    content could have been in)."""
    elements = elements or sort_elements(body)
    for node in elements.stripped:
        node.decompose()
    found: list[tuple[LexborNode, float]] = []  # (node, share that keeps it)
    noscript_chars = 0
    for node in walk.attached(elements.furniture):  # (others were in a stripped element)
        tag = node.tag_id
        if tag == _H1:
            if len(h1s) < 3:
                h1s.append(node.text())
            continue
        if tag == _NOSCRIPT:
            if walk.holds_tag(node, _NOSCRIPT_CONTENT_TABLE):
                noscript_chars += size(node)
        elif not main:
            continue
        # a furniture box: kept if it holds the page
        found.append((node, 0.9 if tag in _GUARDED_FURNITURE_IDS else 0.0))
    if main and not keep_hidden:
        for node in walk.attached(elements.hidden):  # (others were in a stripped element)
            if node.tag_id not in _FURNITURE_IDS:  # (furniture is taken by its tag)
                found.append((node, 0.5))  # hidden: kept if it holds half the page
    if sum(1 for _, guard in found if guard) > MAX_MEASURED:
        raise TooComplex("too many hidden or furniture elements to measure")
    dropped = 0
    if any(guard for _, guard in found):
        sizes = {n.mem_id: size(n) for n, guard in found if guard or n.tag_id in _INVISIBLE_IDS}
        visible = size(body) - sum(sizes[n.mem_id] for n, _ in found if n.tag_id in _INVISIBLE_IDS)
        found = [(n, g) for n, g in found if not g or sizes[n.mem_id] < g * visible]
        dropped = sum(sizes[n.mem_id] for n, g in found if g)  # nested ones count twice
    for node, _ in reversed(found):
        node.decompose()
    return noscript_chars, dropped


def drop_boilerplate(
    root: LexborNode,
    main: bool = True,
    relaxed: bool = False,
    containers: list[LexborNode] | None = None,
    bodies: list[LexborNode] | None = None,
    discussion: Callable[[LexborNode], bool] | None = None,
) -> tuple[int, str, int]:
    """Drop elements inside ``root`` that are hidden, or (main mode) have a boilerplate
    class/id word or role, or are a ``form``/``header``, when they hold under half of the
    root's text (a dialog: under ``DIALOG_SHARE`` of it; not the ``<header>`` of a
    ``<section>`` or of ``<main>``: that one heads part of the content, see
    ``_heads_a_section``). Names that also have a content word (article, main, content,
    ...) are spared: page-wide wrappers carry such names ("main has-sidebar").

    The candidates are taken outermost first (document order); one inside an element
    already doomed is skipped without measuring it, so nested candidates cost nothing.
    Sizes are measured before anything is removed. Returns the size of ``root`` after, the
    text of the comment threads set apart (main mode; see ``comments``), and the length of
    the text dropped.

    ``relaxed`` (the extractor's second opinion) drops only the forms, headers, ARIA
    landmarks and consent boxes: no hidden elements, no other names. ``containers`` are
    ``root``'s (those of ``sort_elements``, detached ones included), if already sorted out.
    The containers named as an article's body (``names.BODY_NAMES``) are appended to
    ``bodies`` if given, in document order. ``discussion(thread)``: whether the page of a
    thread declares itself a discussion, where its threads stay
    (``comments.declares_discussion``)."""
    if containers is None:
        containers = sort_elements(root).containers
    root_id = root.mem_id
    # (node, None) is a candidate; (node, "class id") one if that name is boilerplate; the
    # candidates with an ARIA dialog role
    pending, dialogs = walk.boilerplate_pending(
        walk.attached(containers),  # (the others were dropped)
        _GUARDED_TABLE,
        main,
        relaxed,
        BOILERPLATE_ROLES,
        DIALOG_ROLES,
        _DISPLAY_NONE.search,
        _SCHEMA_COMMENT.search,
    )
    headers = [node for node, name in pending if name is None and node.tag_id == _HEADER]
    item_headers = {n.mem_id for n in headers if n.parent and n.parent.tag_id == _ARTICLE}
    if len(item_headers) < LISTED_ARTICLES:  # else a listing: the headers are its items' content
        item_headers = set()
    # the header of a section of the main content (its heading and intro) is no page banner
    spared = item_headers | {n.mem_id for n in headers if _heads_a_section(n)}
    if spared:  # (headers are never named: the name test spares most look-ups)
        pending = [(n, name) for n, name in pending if name is not None or n.mem_id not in spared]
    body_named: set[str] | None = set() if bodies is not None else None
    hidden_named: set[str] = set()
    named, comment_named = classify_names(
        [name for _, name in pending if name is not None], body_named, hidden_named
    )
    if body_named:
        bodies.extend(node for node, name in pending if name in body_named)
    if relaxed:  # no article's box is named for consent
        named = {name for name in named if is_consent_name(name)}
    else:  # a box hidden by its class goes as a hidden one does (kept if it holds half)
        named |= hidden_named
    # (node, boilerplate-named, comment-named, name). The parts of a comment (its author, date,
    # text, each named "comment-...") are left out: the comment itself stands for them, and
    # following each one up the tree costs (a page of comments has hundreds).
    comment_ids = (
        {node.mem_id for node, name in pending if name in comment_named} if comment_named else ()
    )
    candidates = [
        (node, name is None or name in named, name in comment_named, name)
        for node, name in pending
        if name is None
        or name in named
        or (
            name in comment_named and (node.parent is None or node.parent.mem_id not in comment_ids)
        )
    ]
    root_size, holds_markers = walk.size_and_markers(root)
    before = root_size
    # before any layout: a page's own markers would be read as layout
    drop_page_markers(root, holds_markers)
    if not candidates:
        return root_size, "", 0
    if len(candidates) > MAX_MEASURED:
        raise TooComplex("too many boilerplate candidates to measure")
    limit = 0.5 * root_size
    doomed: dict[int, LexborNode] = {}  # by mem_id
    # the outermost comment-named elements: thread id -> [node, boilerplate-named, items]
    threads: dict[int, list] = {}
    for node, boilerplate, comment, name in candidates:
        nid = node.mem_id
        if nid == root_id:
            continue
        # the doomed element or thread above it, if any (walk.first_above: the parents in C)
        up = walk.first_above(node, root, doomed, threads, MAX_WALK_DEPTH)
        if up == -1:
            raise TooComplex("boilerplate nested too deep")
        if up is not None and up in threads:
            if comment:
                threads[up][2] += 1
                continue
            up = None  # boilerplate inside a thread goes as it would elsewhere
        if up is None and comment:
            threads[nid] = [node, boilerplate, 0]
        elif (
            up is None
            and boilerplate
            and (
                _small_enough(node, (node_size := size(node)), before, nid in dialogs, name)
                or (name in hidden_named and _hidden_beside_an_article(node, root, doomed))
                or (node.tag_id == _HEADER and _banner_beside_an_empty_main(node, root))
            )
            and not (node.tag_id in _GUARDED_IDS and holds_prose(node))
        ):
            doomed[nid] = node
            root_size -= node_size  # the doomed are disjoint: their sizes add up
    for node in doomed.values():
        node.decompose()
    if not threads:
        return root_size, "", before - root_size
    root_size, comments, apart = _with_threads(
        root, root_size, limit, list(threads.values()), discussion
    )
    return root_size, comments, before - root_size - apart


def _small_enough(
    node: LexborNode, node_size: int, root_size: int, dialog: bool, name: str | None
) -> bool:
    """Whether a boilerplate candidate is small enough to drop: under half of the root's
    text; a ``dialog`` or a consent box (``names.CONSENT_SUBSTRINGS``) under
    ``DIALOG_SHARE`` of it, unless it holds an ``<h1>`` or an ``<article>`` (then it is an
    article shown in a modal, or a page-wide wrapper with a state class such as
    "has-cookie-notice"). Those are looked at only for the few candidates over half."""
    if node_size < 0.5 * root_size:
        return True
    if node_size >= DIALOG_SHARE * root_size or not (
        dialog or (name is not None and is_consent_name(name))
    ):
        return False
    return node.css_first(_DIALOG_CONTENT) is None


def _hidden_beside_an_article(
    node: LexborNode, root: LexborNode, doomed: dict[int, LexborNode]
) -> bool:
    """Whether ``node``, a box hidden by its class that holds half of ``root``'s text or more,
    goes all the same: the page has an article outside it (``has_prose_outside``, boxes
    already doomed not counted). Half the page is kept hidden for pages whose visible text is
    a shell (an app parks the article there until a script shows it); beside a visible
    article, a hidden box is hidden for what it is (a comparison of products, a tab, a
    panel), however long."""
    return has_prose_outside(root, [node, *doomed.values()])


def _banner_beside_an_empty_main(header: LexborNode, root: LexborNode) -> bool:
    """Whether ``header``, holding half of ``root``'s text or more, is a page banner beside
    an empty main landmark (``<main>``, ``role="main"``; none holding text, none inside the
    header): the page is a shell whose content a script renders, and its banner's menus and
    utility links are no content, however much of what is left they are. (A ``<header>``
    wrapped around the whole page holds its ``<main>``.)"""
    mains = root.css(_MAIN_LANDMARKS)
    return (
        bool(mains)
        and not any(main.text(strip=True) for main in mains)
        and header.css_first(_MAIN_LANDMARKS) is None
    )


def _heads_a_section(header: LexborNode) -> bool:
    """Whether ``header``'s nearest sectioning ancestor is a ``<section>`` or ``<main>``: then
    it is that section's heading and intro, not the page's banner (as HTML-AAM maps it: a
    ``<header>`` is a banner landmark only outside article, aside, main, nav and section).
    Headers of an ``<article>`` stay candidates: there they hold the byline and date."""
    up, steps = header.parent, 0
    while up is not None and up.tag_id not in _SECTIONING_IDS:
        up, steps = up.parent, steps + 1
        if steps > MAX_WALK_DEPTH:
            raise TooComplex("header nested too deep")
    return up is not None and up.tag_id in _SECTION_CONTENT_IDS


def _with_threads(
    root: LexborNode,
    root_size: int,
    limit: float,
    found: list[list],
    discussion: Callable[[LexborNode], bool] | None = None,
) -> tuple[int, str, int]:
    """Set the comment threads among ``found`` (``[node, boilerplate-named, comment items]``,
    disjoint) apart from ``root`` when it has an article outside them and the page is no
    declared discussion (``discussion(thread)``, asked only then): removed, their text
    returned with their size. Otherwise (a forum: the posts are the content) they stay,
    except those named as boilerplate too that hold under ``limit`` of the text, dropped like
    any boilerplate. Returns the size of ``root`` after."""
    # comments side by side, with no container named as a thread, are a thread too
    siblings = Counter(node.parent.mem_id for node, _, _ in found if node.parent is not None)
    threads = [
        node
        for node, _, items in found
        if looks_like_thread(node, items)
        or (node.parent is not None and siblings[node.parent.mem_id] >= 2)
    ]
    texts, apart, apart_size = [], set(), 0
    if (
        threads
        and has_prose_outside(root, threads)
        and not (discussion is not None and discussion(threads[0]))
    ):
        apart = {node.mem_id for node in threads}
        for node in threads:
            node_size = size(node)
            root_size -= node_size
            apart_size += node_size
            texts.append(layout(node))
            node.decompose()
    for node, boilerplate, _ in found:
        if node.mem_id not in apart and boilerplate and (node_size := size(node)) < limit:
            root_size -= node_size
            node.decompose()
    return root_size, "\n\n".join(t for t in texts if t), apart_size


# The labels news sites put over a teaser of another story, or a few links to them, inside an
# article ("Lesen Sie auch: <a>...</a>"), or over the article's tags, in the languages of the
# crawl. Whole labels only
# (an optional colon after): not "Read more", a listing's link to each of its items.
READ_ALSO_LABELS = (
    # de
    "lesen sie auch", "lesen sie mehr", "auch interessant", "mehr zum thema", "zum thema",
    "das könnte sie auch interessieren", "das könnte dich auch interessieren", "lesetipp",
    "passend zum thema", "auch lesenswert", "empfehlungen der redaktion", "mehr dazu",
    # en
    "read also", "also read", "related", "related articles", "related stories",
    "you may also like", "you might also like", "recommended for you",
    # fr, es, it, pt, nl
    "lire aussi", "à lire aussi", "a lire aussi", "lire également", "sur le même sujet",
    "lee también", "leer también", "te puede interesar", "noticias relacionadas",
    "leggi anche", "potrebbe interessarti", "articoli correlati", "leia também",
    "veja também", "lees ook", "ook interessant",
    # sv, no, da, pl, cs, tr, ru
    "läs också", "les også", "læs også", "czytaj też", "czytaj także", "zobacz też",
    "zobacz także", "čtěte také", "přečtěte si také", "ayrıca okuyun", "ilgili haberler",
    "читайте также",
    # ja, zh, ko
    "関連記事", "あわせて読みたい", "おすすめ情報", "こんな特集も", "関連キーワード",
    # a box of the article's tags
    "schlagwörter zu diesem artikel", "schlagwörter", "tags", "themen", "mots-clés", "etiquetas",
    "相关阅读", "延伸阅读", "관련기사",
)  # fmt: skip
# The labels over an ad or a sponsored item, which stay when their box is not named as one
AD_LABELS = (
    "advertisement", "sponsored", "anzeige", "werbung", "publicité", "publicidad",
    "pubblicità", "reklam", "reklama", "advertentie", "annonse", "annons", "[pr]", "広告", "광고",
)  # fmt: skip
# Sentences of a call to subscribe or register set in the article's box (the rest is for
# members, the article is cut short): anywhere in a text node, lower-cased
SUBSCRIBE_CALLS = (
    "by signing up you consent to receive", "la suite est réservée aux abonnés",
    "この記事は会員限定です", "有料会員になると", "会員の方のみご利用いただけます",
)  # fmt: skip
# Sentences of the placeholder of an embedded post or video that asks for consent before it
# loads (de sites, under the GDPR): the largest box of ``EMBED_CHARS`` or fewer around one goes
EMBED_CONSENTS = (
    "um eingebettete inhalte anzuzeigen", "ich bin damit einverstanden, dass mir",
)  # fmt: skip
EMBED_CHARS = 1000
# How the skip links of a page's top start ("Skip to main content", "Jump to review", "Zum
# Inhalt springen"): the links, for keyboard and screen-reader users, to a place further down
# the page, shown only when focused. A link to a place in the page (``href="#..."``) whose
# whole text starts so is dropped: on a page whose content a script renders, it is the only
# text left. (Not "go to": common in prose, it would send many pages through the text nodes.)
SKIP_LINKS = (
    "skip to", "skip navigation", "jump to", "zum inhalt", "direkt zum inhalt",
    "aller au contenu", "passer au contenu", "ir al contenido", "saltar al contenido",
    "vai al contenuto", "passa al contenuto", "naar de inhoud", "spring til indhold",
    "hoppa till innehåll", "przejdź do treści", "přejít na obsah", "перейти к содержанию",
    "本文へ", "跳到主要内容", "본문 바로가기",
)  # fmt: skip
# One automaton for all labels, searched in the lower-cased text (a regex alternation of them
# takes ~5 ms on a page's text, this 0.1 ms)
_LABEL_SEARCH = AhoCorasick(
    [*READ_ALSO_LABELS, *AD_LABELS, *SKIP_LINKS, *SUBSCRIBE_CALLS, *EMBED_CONSENTS],
    implementation=Implementation.DFA,
)
_CALL_SEARCH = AhoCorasick(SUBSCRIBE_CALLS, implementation=Implementation.DFA)
_EMBED_SEARCH = AhoCorasick(EMBED_CONSENTS, implementation=Implementation.DFA)
_READ_ALSO_SET = frozenset(READ_ALSO_LABELS)
_AD_SET = frozenset(AD_LABELS)
TEASER_CHARS = 300  # a teaser box under a label holds this many characters or fewer


def drop_labelled(root: LexborNode) -> int:
    """Drop the teasers of other stories inside ``root`` that a label introduces
    (``READ_ALSO_LABELS``: "Lesen Sie auch", "Lire aussi", ...): the largest box around the
    label, below ``root``, of ``TEASER_CHARS`` or fewer, if links are half of its text
    besides the label (a paragraph that starts with the word stays); and the labels of ads
    (``AD_LABELS``: "Anzeige", "Sponsored", ...), the box that holds one alone; and the
    largest box of ``TEASER_CHARS`` or fewer around a call to subscribe (``SUBSCRIBE_CALLS``,
    anywhere in a text node: a long paragraph quoting one stays), or of ``EMBED_CHARS`` or
    fewer around a placeholder's call for consent (``EMBED_CONSENTS``); and the skip links
    (``SKIP_LINKS``, ``_skip_links``). The number of boxes dropped.

    One search finds whether any label or skip link is there (few pages have one), in the
    few text nodes that can hold one (``walk.label_candidates``); the text nodes are read only
    for a label, the in-page links for a skip link (``_labelled``)."""
    candidates = walk.label_candidates(
        root, _LABEL_CHARS, EMBED_CHARS, *_FRAGMENT_SEARCH, *_SKIP_SEARCH, _SKIP_BYTES
    )
    labelled, skips = _labelled(candidates.lower())
    boxes = _skip_links(root) if skips else []
    if not labelled:
        return _drop(boxes)
    root_id = root.mem_id
    for node in root.traverse(include_text=True):
        if not node.is_text_node:
            continue
        label = " ".join((node.text_content or "").split()).rstrip(":").strip().lower()
        is_ad = label in _AD_SET
        is_call = not is_ad and bool(_CALL_SEARCH.find_matches_as_indexes(label))
        is_embed = not (is_ad or is_call) and bool(_EMBED_SEARCH.find_matches_as_indexes(label))
        if not (is_ad or is_call or is_embed or label in _READ_ALSO_SET):
            continue
        if node.parent is None or node.parent.mem_id == root_id:
            continue
        box, up = node.parent, node.parent.parent
        limit = len(label) if is_ad else EMBED_CHARS if is_embed else TEASER_CHARS
        while up is not None and up.mem_id != root_id and size(up) <= limit:
            box, up = up, up.parent
        if up is None or size(box) > limit:
            continue
        if is_ad or is_call or is_embed or _link_chars(box) >= (size(box) - len(label)) / 2:
            boxes.append(box)
    return _drop(boxes)


def _drop(boxes: list[LexborNode]) -> int:
    """Remove ``boxes`` (those inside one removed before are gone with it); their number."""
    for box in boxes:
        if box.parent is not None:
            box.decompose()
    return len(boxes)


# A teaser of another story set in the article: a box of ``TEASER_CHARS`` or fewer around a
# box whose class names it a teaser ("teaser", "u-teaser__content", "Teaser_wrapper"), with a
# link as long as a headline; taken when all of them are under ``TEASER_SHARE`` of the root.
# (A lead some sites name "teaser" holds no headline-long link.)
TEASER_HEADLINE = 16
TEASER_SHARE = 1 / 3
TEASER_ARTICLE = 0.5  # ... and the root is an article: this share of its text in <p>s


def drop_teasers(root: LexborNode) -> int:
    """Drop the teasers of other stories inside ``root``: the largest box of
    ``TEASER_CHARS`` or fewer, below ``root``, around a box whose class names it a teaser,
    holding a link as long as a headline (``TEASER_HEADLINE``), when the root is an
    article's text (``TEASER_ARTICLE``) and those boxes are under ``TEASER_SHARE`` of it: a
    listing of teasers is most of its root, so it stays. The number dropped."""
    root_id = root.mem_id
    boxes: dict[int, LexborNode] = {}
    for named in root.css('[class*="teaser" i]'):
        if named.parent is None or size(named) > TEASER_CHARS:
            continue
        box, up = named, named.parent
        while up is not None and up.mem_id != root_id and size(up) <= TEASER_CHARS:
            box, up = up, up.parent
        if up is None or box.mem_id in boxes:
            continue
        links = [box] if box.tag == "a" else box.css("a")
        if max(map(size, links), default=0) < TEASER_HEADLINE:
            continue
        boxes[box.mem_id] = box
    if not boxes:
        return 0
    root_chars = size(root)
    if sum(map(size, boxes.values())) >= TEASER_SHARE * root_chars:
        return 0
    if sum(map(size, root.css("p"))) < TEASER_ARTICLE * root_chars:
        return 0  # not an article's text: a listing, a documentation page, a service page
    for box in boxes.values():
        if box.parent is not None:
            box.decompose()
    return len(boxes)


def _skip_links(root: LexborNode) -> list[LexborNode]:
    """The skip links inside ``root``: links to a place in the page (``href="#..."``) whose
    whole text starts as one does (``SKIP_LINKS``), standing apart from any text beside them
    (a link within a sentence, "you can jump to the end of the list", is read). One CSS
    query for the in-page links, asked only when the root's text holds such a start."""
    found = []
    for link in root.css('a[href^="#"]'):
        label = " ".join(link.text().split()).lower()
        if label.startswith(SKIP_LINKS) and not any(
            side is not None and side.is_text_node and side.text(strip=True)
            for side in (link.prev, link.next)
        ):
            found.append(link)
    return found


_NODE_BREAK = "\x00"  # between the text nodes of a text searched by ``_labelled``
# the automaton's patterns: whole labels first, then the starts of skip links, then the calls
_SKIP_FROM = len(READ_ALSO_LABELS) + len(AD_LABELS)
_LABEL_COUNT = _SKIP_FROM + len(SKIP_LINKS)
_LABEL_CHARS = max(map(len, (*READ_ALSO_LABELS, *AD_LABELS)))


def _caseless(c: str) -> bool:
    """Whether every capitalisation spells ``c`` alike once its ASCII is lower-cased."""
    return c.isascii() or c.lower() == c.upper()


def _caseless_part(text: str) -> str:
    """The longest word-long run of ``text`` (lower-case) in characters that every
    capitalisation spells alike once its ASCII is lower-cased: ASCII letters and characters
    without case ("suite" of "la suite est réservée ..."). Not across a space: a page may
    space its words with any whitespace."""
    runs = "".join(c if _caseless(c) and not c.isspace() else " " for c in text)
    return max(runs.split(), key=lambda run: len(run.encode()), default="")


def _search(parts: list[bytes]) -> tuple[bytes, bytes]:
    """``walk.label_candidates``' form of ``parts`` (lower-case bytes): a table of their first
    two bytes (bit ``p & 7`` of byte ``p >> 3`` for the pair ``p``), and the parts, each
    ended by a NUL."""
    table = bytearray(8192)
    for part in parts:
        first, second = part[:2]
        table[first << 5 | second >> 3] |= 1 << (second & 7)
    return bytes(table), b"".join(part + b"\x00" for part in parts)


def _caseless_prefix(word: str) -> str:
    """The start of ``word`` up to its first character with case beyond ASCII."""
    for i, c in enumerate(word):
        if not _caseless(c):
            return word[:i]
    return word


def _skip_keys(start: str) -> list[bytes]:
    """What a text node must start with to start as ``start`` (a skip link's start) does, in
    any capitalisation: its first word up to a character with case beyond ASCII ("przejd" of
    "przejdź"), or where that is shorter than two bytes, the first two bytes of each of its
    spellings ("п" and "П" of "перейти")."""
    word = start.split()[0]
    prefix = _caseless_prefix(word).encode()
    if len(prefix) >= 2:
        return [prefix.lower()]
    return sorted({w.encode()[:2].lower() for w in (word, word.upper(), word.capitalize())})


# ``walk.label_candidates``' searches: a part of each sentence anywhere in a text node, and
# the start of each skip link at the start of one; how many bytes of that start to read
_FRAGMENT_SEARCH = _search(
    [_caseless_part(s).encode() for s in (*SUBSCRIBE_CALLS, *EMBED_CONSENTS)]
)
_SKIP_SEARCH = _search(sorted({key for start in SKIP_LINKS for key in _skip_keys(start)}))
_SKIP_BYTES = max(
    len(spelling.encode()) for start in SKIP_LINKS for spelling in (start, start.upper())
)


def _labelled(text: str) -> tuple[bool, bool]:
    """Whether ``text`` (text nodes lower-cased, separated by ``_NODE_BREAK``, their
    whitespace runs one space) has a text node that ``drop_labelled`` looks at: one that is a
    label whole, or holds a call to subscribe or for consent; and whether one starts as a skip
    link does. A label's word inside a sentence ("tags", "themen", "related") is no reason to read
    every text node."""
    labelled = skips = False
    for pattern, start, end in _LABEL_SEARCH.find_matches_as_indexes(text, overlapping=True):
        if pattern >= _LABEL_COUNT:
            labelled = True
        elif pattern >= _SKIP_FROM:  # (at the start of its text node)
            skips = skips or not text[text.rfind(_NODE_BREAK, 0, start) + 1 : start].strip()
        elif not labelled:
            stop = text.find(_NODE_BREAK, end)
            node = text[text.rfind(_NODE_BREAK, 0, start) + 1 : stop if stop >= 0 else len(text)]
            label = " ".join(node.split()).rstrip(":").strip()
            labelled = label in _READ_ALSO_SET or label in _AD_SET
        if labelled and skips:
            break
    return labelled, skips


def _link_chars(node: LexborNode) -> int:
    return sum(size(link) for link in node.css("a"))
