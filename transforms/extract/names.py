"""Which class/id names mark a boilerplate box: one multi-word search per page.

A name (an element's ``class`` and ``id`` values joined by a space) marks boilerplate when it
holds a word of a generic, multilingual boilerplate vocabulary and no content word:

- ``BOILERPLATE_SUBSTRINGS`` match anywhere in a token (long enough not to occur inside
  content words): "site-footer", "commentlist", "werbung-top";
- ``BOILERPLATE_WORDS`` only as whole words between ``-``, ``_`` or whitespace: "ad-slot"
  and "nav" but not "header" or "canvas";
- ``CONTENT_WORDS`` anywhere in the name spare it: sites put such names on page-wide wrappers
  ("main has-sidebar", "article modal-enabled");
- ``CONSENT_SUBSTRINGS`` (cookie, consent), among the boilerplate words, mark consent
  managers' boxes, dropped even when they hold most of the text (see ``boilerplate``).
- ``HIDDEN_CLASSES`` (hidden, d-none, visually-hidden, ...) as a whole class token mark a box
  that a stylesheet hides, unless a responsive class shows it again on some screens
  ("d-none d-md-block", "hidden md:flex"); see ``hidden_names``.
- ``BODY_NAMES`` ("article-body", "entry-content", ``articleBody``, ...) as a whole class or
  id token mark the box that holds an article's body (see ``scoring.named_body``).

The same search finds the names of comment threads (``COMMENT_SUBSTRINGS``: "comments",
"kommentare", "commentaires", "disqus_thread", ...), told apart from other boilerplate
because a long thread is not dropped like a share bar: it is set aside from the article (see
``comments``). A content word in the same class token does not spare a comment name
("comment-content", "entry-comments" are parts of a thread); one in another token does
("article has-comments" is the article).

A page has a hundred or so distinct names and a crawl has millions, mostly generated
("css-1x2y3z"), so memoising names does not pay. Instead the distinct names of a page are
lower-cased, joined by newlines and searched for every vocabulary word at once with one
Aho-Corasick automaton (in Rust): about 0.06 ms per page against 0.23 ms for memoised regex
searches per token, with no cache to bound.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import accumulate

from ahocorasick_rs import AhoCorasick, Implementation

from transforms.extract import walk

__all__ = [
    "BOILERPLATE_SUBSTRINGS",
    "BOILERPLATE_WORDS",
    "COMMENT_SUBSTRINGS",
    "CONSENT_SUBSTRINGS",
    "CONTENT_WORDS",
    "BODY_NAMES",
    "HIDDEN_CLASSES",
    "boilerplate_names",
    "classify_names",
    "hidden_names",
    "is_consent_name",
]

BOILERPLATE_SUBSTRINGS = (
    "advert", "comments", "commentlist", "cookie", "consent", "disqus", "footer", "newsletter",
    "masthead", "navbar", "navigation", "pagination", "popup", "related", "sharing",
    "share-", "social", "sidebar", "signup", "subscribe", "byline", "author-bio", "skip-link",
    "skiplink", "toolbar", "recommend", "outbrain", "taboola", "modal", "overlay", "caption",
    "credit", "lightbox", "reviews",
    # the same ideas in other languages
    "werbung", "anzeige", "publicidad", "publicite", "pubblicita", "reklam", "kommentare",
    "commentaires", "comentarios", "commenti", "komentar", "verwandt", "teilen", "partage",
    "compartir", "condividi", "bewertungen", "opiniones", "recensioni",
)  # fmt: skip
BOILERPLATE_WORDS = (
    "ad", "ads", "nav", "menu", "share", "tags", "pub", "print", "tooltip", "popover",
)  # fmt: skip
# Consent managers' boxes, among the above: dropped even when they hold most of a page's text
# (pages of legal prose beside a short article; see ``boilerplate``).
CONSENT_SUBSTRINGS = ("cookie", "consent")
# ("column" is not one: CSS grids name every box of a page "column(s)", comment threads too)
CONTENT_WORDS = ("article", "body", "content", "main", "entry", "story")
# Classes that hide a box in the common CSS frameworks and themes (Bootstrap, Tailwind,
# Foundation, WordPress): display:none, or clipped to nothing but for screen readers.
HIDDEN_CLASSES = ("hidden", "hide", "d-none", "visually-hidden", "visuallyhidden")
_HIDDEN_SET = frozenset(HIDDEN_CLASSES)
# ... unless the box also has a class that shows it on some screens: Tailwind's "md:block",
# "show@medium", Bootstrap's "d-md-flex"
_SHOWN_AGAIN = (":", "@", "d-sm-", "d-md-", "d-lg-", "d-xl-", "d-xxl-")
# The box of an article's body as content management systems and themes name it: a class or
# id token that is one of these, its words joined by "-", "_", "__" or nothing (article-body,
# article__body, articleBody). English names are used by sites in every language; a few
# others are those of Spanish, Italian, French, Polish and German sites.
BODY_NAMES = (
    "article body", "article content", "article text", "entry content", "entry body",
    "post content", "post body", "post text", "story body", "story content", "story text",
    "news body", "news content", "news text", "body text", "text body", "body copy",
    "cuerpo noticia", "contenido noticia", "texto noticia", "articulo cuerpo", "corpo articolo",
    "testo articolo", "contenu article", "texte article", "tresc artykulu", "artikel text",
    "artikel inhalt",
)  # fmt: skip
# Comment threads, in the words sites use in several languages: comment(s), commentaire(s),
# commento/i (it), kommentar(e) (de, nordic), komentar/komentarz (slavic, id), comentario(s)
# (es, pt), reactie(s) (nl), yorum (tr), hozzaszolas (hu), pinglun (zh pinyin), Disqus, and
# WordPress' comment form ("respond"), "discussion".
COMMENT_SUBSTRINGS = (
    "comment", "komment", "koment", "comentar", "reactie", "yorum", "hozzaszol", "pinglun",
    "disqus", "discussion", "respond",
)  # fmt: skip

_BODY_FORMS = [sep.join(name.split()) for name in BODY_NAMES for sep in ("", "-", "_", "__")]
_SUBSTRING, _WORD, _CONTENT, _COMMENT, _BODY, _HIDDEN = range(6)
_KINDS = (
    [_SUBSTRING] * len(BOILERPLATE_SUBSTRINGS)
    + [_WORD] * len(BOILERPLATE_WORDS)
    + [_CONTENT] * len(CONTENT_WORDS)
    + [_COMMENT] * len(COMMENT_SUBSTRINGS)
    + [_BODY] * len(_BODY_FORMS)
    + [_HIDDEN] * len(HIDDEN_CLASSES)
)
_KIND_TABLE = bytes(_KINDS)  # (for ``walk.name_matches``, which numbers the kinds alike)
# A DFA, chosen here: the default picks an NFA for this many patterns, which searches a page's
# names in twice the time (39 against 22 us a page); the DFA takes 155 kB (the NFA 44 kB).
_AUTOMATON = AhoCorasick(
    [*BOILERPLATE_SUBSTRINGS, *BOILERPLATE_WORDS, *CONTENT_WORDS, *COMMENT_SUBSTRINGS,
     *_BODY_FORMS, *HIDDEN_CLASSES],
    implementation=Implementation.DFA,
)  # fmt: skip


def boilerplate_names(names: Iterable[str]) -> set[str]:
    """The ``names`` (``"class id"`` strings) that mark a boilerplate box."""
    return classify_names(names)[0]


def hidden_names(names: Iterable[str]) -> set[str]:
    """The ``names`` (``"class id"`` strings) with a token of ``HIDDEN_CLASSES`` and none that
    shows the box again on some screens (class names are case-sensitive, as in CSS)."""
    hidden: set[str] = set()
    classify_names(names, hidden=hidden)
    return hidden


def _is_hidden(name: str) -> bool:
    """Whether ``name`` has a token of ``HIDDEN_CLASSES`` (as written) and none that shows the
    box again on some screens."""
    return not _HIDDEN_SET.isdisjoint(name.split()) and not any(
        mark in name for mark in _SHOWN_AGAIN
    )


def is_consent_name(name: str) -> bool:
    """Whether ``name`` (``"class id"``) holds a word of ``CONSENT_SUBSTRINGS``."""
    lowered = name.lower()
    return any(word in lowered for word in CONSENT_SUBSTRINGS)


def _token_at(text: str, pos: int) -> tuple[int, int]:
    """The bounds of the whitespace-separated token of ``text`` around ``pos``."""
    start = pos
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    end = pos
    while end < len(text) and not text[end].isspace():
        end += 1
    return start, end


def classify_names(
    names: Iterable[str], bodies: set[str] | None = None, hidden: set[str] | None = None
) -> tuple[set[str], set[str]]:
    """The ``names`` (``"class id"`` strings) that mark a boilerplate box, and those that
    mark a comment thread (or a part of one); those with a token of ``BODY_NAMES`` are
    added to ``bodies`` if given, those hidden by a class (``hidden_names``) to ``hidden``."""
    distinct = list(dict.fromkeys(names))
    text = "\n".join(distinct)
    if text.isascii():  # (most pages: lower-cased at once, each name keeping its length)
        text = text.lower()
        lengths = map(len, distinct)
    else:  # a non-ASCII name may change length lower-cased ("İ")
        lowered = [name.lower() for name in distinct]
        text = "\n".join(lowered)
        lengths = map(len, lowered)
    starts = [0, *accumulate(n + 1 for n in lengths)]
    # Where each name's comment and content words start. Their tokens are looked up only
    # for names that have both (few): a name with comment words and no content word is a
    # comment name whatever its tokens. (The matches are sorted out in C: a page has hundreds.)
    matches = _AUTOMATON.find_matches_as_indexes(text, overlapping=True)
    boilerplate, content, comment_at, content_at, body_at, hidden_at = walk.name_matches(
        matches, _KIND_TABLE, text, starts, bodies is not None
    )
    if bodies is not None:
        bodies.update(distinct[i] for i in body_at)
    if hidden is not None:
        # class names are case-sensitive, as in CSS: "Hidden" is no framework's class
        hidden.update(distinct[i] for i in hidden_at if _is_hidden(distinct[i]))
    comments = set()
    for i, positions in comment_at.items():
        if i in content_at:  # a content word in a token without a comment word spares it
            tokens = {_token_at(text, pos) for pos in positions}
            if any(_token_at(text, pos) not in tokens for pos in content_at[i]):
                continue
        comments.add(distinct[i])
    return {distinct[i] for i in boilerplate - content}, comments
