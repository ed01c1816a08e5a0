"""The page's headline: reconcile JSON-LD, ``<title>``, ``og:title`` and the ``<h1>``.

``<title>`` usually carries the site name ("Headline | Site", "Site - Headline"). The headline
is taken, in order of preference, from:

1. the ``headline`` of the page's article in its JSON-LD (schema.org ``NewsArticle``,
   ``Article``, ``BlogPosting``, ...): the editors' headline, where ``og:title`` and
   ``<title>`` are often written for search and social sites, and the ``<h1>`` may be one of
   several; unless it names the site;
2. an ``<h1>`` whose words are (mostly) contained in ``<title>`` or ``og:title``;
3. ``og:title`` / ``<title>`` with a site-name part removed: the part equal to ``og:site_name``
   or to the URL's host, else the longest part when split on " | ", " - ", " – ", " — ", " · ",
   " :: ", " » ";
4. the first ``<h1>``.

Each of them is read up to ``MAX_TITLE_CHARS`` characters: a headline is shorter, and a 5 MB
``<title>`` must not become a 5 MB title.
"""

from __future__ import annotations

import functools
import html
import json
import re
from collections.abc import Iterable, Iterator
from urllib.parse import urlsplit

from selectolax.lexbor import LexborNode, create_tag

from transforms.extract import walk
from transforms.extract.characters import strip_unwanted_in_node
from transforms.extract.comments import DISCUSSION_TYPES

MAX_TITLE_CHARS = 1000
_WORD = re.compile(r"\w+")
_SEPARATORS = re.compile(
    r"\s+(?:[|\-–—·•:»«/~]|::)\s+"  # " | ", " - ", " – ", " :: ", ...
    r"|\s*[｜丨]\s*"  # full-width bars (CJK titles)
    r"|(?<=[^\x00-\x7f])_(?=[^\x00-\x7f])"  # "标题_网站" (CJK titles join with "_")
)
# What _SEPARATORS matches in an ASCII title, found in a fifth of the time (its other branches
# try every character)
_ASCII_SEPARATORS = re.compile(r"\s+(?:[|\-:/~]|::)\s+")


# JSON-LD: the types of schema.org whose headline is the page's (NewsArticle, TechArticle,
# BlogPosting, LiveBlogPosting, Report, ...); a script longer than this is not read.
_ARTICLE_TYPE = re.compile(r"(?:Article|BlogPosting|Report)$")
MAX_JSON_LD_CHARS = 200_000
_SCRIPT = create_tag("script").tag_id


def _clean(text: str | None) -> str:
    """``text`` on one line, at most ``MAX_TITLE_CHARS``, without the characters the policy
    removes (``characters``): the headline is chosen among what the reader sees. Only the
    head of a huge text is read."""
    text = (text or "").lstrip()[: 2 * MAX_TITLE_CHARS]
    return " ".join(strip_unwanted_in_node(text).split())[:MAX_TITLE_CHARS]


@functools.lru_cache(maxsize=256)
def _words(text: str) -> tuple[str, ...]:
    """The lower-cased words of ``text``, kept for the texts a page compares several times
    (each ``<h1>`` with each title and part of one)."""
    return tuple(_WORD.findall(text.lower()))


class _Site:
    """What names the site: ``og:site_name`` and the words of the URL's host."""

    def __init__(self, site_name: str, url: str | None) -> None:
        self.name_words = _words(site_name)
        self.host_words: set[str] = set()
        if url:
            host = (urlsplit(url).hostname or "").lower()
            labels = [w for w in re.split(r"[.\-]", host) if w and w != "www"]
            self.host_words = set(labels) | {"".join(host.split(".")[-2:-1])}

    def names(self, text: str) -> bool:
        """Whether ``text`` is the site's name ("Example News" on example-news.com)."""
        words = _words(text)
        if not words:
            return True
        if self.name_words and words == self.name_words:
            return True
        joined = "".join(words)
        return bool(self.host_words) and (
            all(w in self.host_words for w in words) or joined in self.host_words
        )


def split_title(title: str) -> list[str]:
    """The parts of a ``<title>`` split on " | ", " - ", " – ", " — ", " · ", " :: ", ..."""
    separators = _ASCII_SEPARATORS if title.isascii() else _SEPARATORS
    return [p.strip() for p in separators.split(title) if p.strip()]


def _strip(title: str, site: _Site) -> str:
    parts = split_title(title)
    if len(parts) < 2:
        return title
    kept = [p for p in parts if not site.names(p)]
    return kept[0] if kept else parts[0]


def similar(a: str, b: str) -> bool:
    """Most words of each are in the other."""
    return _contained(a, b) >= 0.8 and _contained(b, a) >= 0.6


def overlapping(a: str, b: str) -> bool:
    """Most words of one are in the other (a title cut short, or reworded around its words)."""
    return max(_contained(a, b), _contained(b, a)) >= 0.6


def _contained(inner: str, outer: str) -> float:
    """The share of ``inner``'s words found in ``outer``."""
    words = _words(inner)
    if not words:
        return 0.0
    outer_words = set(_words(outer))
    return sum(w in outer_words for w in words) / len(words)


def _site(metas: dict[str, str], url: str | None) -> _Site:
    return _site_of(metas.get("og:site_name") or metas.get("application-name"), url)


@functools.lru_cache(maxsize=16)
def _site_of(site_name: str | None, url: str | None) -> _Site:
    """The ``_Site`` of a page, made once for the two or three titles a page works out (its
    URL parsed, its name cleaned; the object is only read)."""
    return _Site(_clean(site_name), url)


def _json_ld_title(headline: str, site: _Site) -> str:
    """The JSON-LD ``headline``, cleaned, unless the site's name is all of it or one of its
    parts (then "")."""
    headline = _clean(headline)
    if headline and not any(site.names(part) for part in [headline, *split_title(headline)]):
        return headline
    return ""


def json_ld_title(headline: str, metas: dict[str, str], url: str | None = None) -> str:
    """The title ``find_title`` takes from a JSON-LD ``headline``, or "" when it takes none."""
    return _json_ld_title(headline, _site(metas, url)) if headline else ""


def find_title(
    html_title: str,
    metas: dict[str, str],
    h1s: list[str],
    url: str | None = None,
    headline: str = "",
) -> str:
    """The headline from the ``<title>`` text, the page's ``<meta>`` values (by lowercase
    property or name), the texts of its first ``<h1>`` elements and its JSON-LD ``headline``
    (``json_ld_headline``).

    The JSON-LD headline wins unless the site's name is all of it or one of its parts; else
    an ``<h1>`` that is not the site's name and matches ``og:title``/``<title>`` or one of
    their parts; else ``og:title`` or ``<title>`` without its site-name parts; else the first
    ``<h1>``."""
    site = _site(metas, url)
    headline = _json_ld_title(headline, site)
    if headline:
        return headline
    html_title = _clean(html_title)
    og_title = _clean(metas.get("og:title") or metas.get("twitter:title"))
    h1s = [h for h in (_clean(h) for h in h1s) if h and not site.names(h)]
    titles = [t for t in (og_title, html_title) if t]
    candidates = titles + [part for t in titles for part in split_title(t)]
    for h1 in h1s:
        if any(similar(h1, c) for c in candidates):
            return h1
    for t in titles:
        headline = _strip(t, site)
        if h1s and site.names(headline):  # the title is only the site's name
            return h1s[0]
        return headline
    return h1s[0] if h1s else ""


# read_head's walk: tag id -> 1 for <title>, 2 for <meta>, 3 for <script> (see walk.sort_body)
_HEAD_TAGS = ("title", "meta", "script")
_HEAD_TABLE = bytearray(max(create_tag(tag).tag_id for tag in _HEAD_TAGS) + 1)
for _index, _tag in enumerate(_HEAD_TAGS):
    _HEAD_TABLE[create_tag(_tag).tag_id] = _index + 1
_HEAD_TABLE = bytes(_HEAD_TABLE)


def read_head(head: LexborNode | None) -> tuple[str, dict[str, str], list[LexborNode]]:
    """The first ``<title>``'s text, the ``<meta>`` values (by lowercase property or name,
    the first of each) and the ``<script>`` elements (as ``head.css("script")`` gives them),
    read in one compiled walk of the head."""
    title, metas = "", {}
    if head is None:
        return title, metas, []
    (titles, found, scripts), _, _ = walk.sort_body(head, _HEAD_TABLE, 3)
    for node in titles:
        title = title or node.text()
    for values in walk.attribute_values(found, ("property", "name", "content")):
        if values is None:
            continue
        key = values[0] or values[1]
        if key and key.lower() not in metas:
            metas[key.lower()] = values[2] or ""
    return title, metas, scripts


def json_ld_texts(nodes: Iterable[LexborNode]) -> list[str]:
    """The texts of the JSON-LD scripts among ``nodes`` that hold a ``headline`` or declare a
    discussion (``comments.DISCUSSION_TYPES``: read by ``comments.declares_discussion``), their
    ``type`` read without an attribute dict each (``walk.attribute_values``)."""
    scripts = [node for node in nodes if node.tag_id == _SCRIPT]
    texts = []
    for node, values in zip(scripts, walk.attribute_values(scripts, ("type",)), strict=True):
        if values is not None and "ld+json" in (values[0] or "").lower():
            text = node.text()
            if len(text) <= MAX_JSON_LD_CHARS and (
                '"headline"' in text or any(kind in text for kind in DISCUSSION_TYPES)
            ):
                texts.append(text)
    return texts


def json_ld_headline(texts: Iterable[str]) -> str:
    """The ``headline`` of the first article (``_ARTICLE_TYPE``) in the JSON-LD ``texts``, its
    HTML entities decoded (sites escape them twice), or ""."""
    for text in texts:
        try:
            data = json.loads(text)
        except ValueError:  # a broken script, or several objects glued together
            continue
        for item in _items(data):
            kinds = item.get("@type")
            kinds = kinds if isinstance(kinds, list) else [kinds]
            headline = item.get("headline")
            if isinstance(headline, str) and any(
                isinstance(kind, str) and _ARTICLE_TYPE.search(kind) for kind in kinds
            ):
                return html.unescape(headline)
    return ""


def _items(data: object, depth: int = 0) -> Iterator[dict]:
    """The objects of a JSON-LD document: itself, those of a list, those of an ``@graph``."""
    if depth > 3:
        return
    if isinstance(data, list):
        for item in data:
            yield from _items(item, depth + 1)
    elif isinstance(data, dict):
        yield data
        if "@graph" in data:
            yield from _items(data["@graph"], depth + 1)
