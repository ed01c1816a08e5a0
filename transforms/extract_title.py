"""The page's headline: reconcile ``<title>``, ``og:title`` and the ``<h1>``.

``<title>`` usually carries the site name ("Headline | Site", "Site - Headline"). The headline
is taken, in order of preference, from:

1. an ``<h1>`` whose words are (mostly) contained in ``<title>`` or ``og:title``;
2. ``og:title`` / ``<title>`` with a site-name part removed: the part equal to ``og:site_name``
   or to the URL's host, else the longest part when split on " | ", " - ", " – ", " — ", " · ",
   " :: ", " » ";
3. the first ``<h1>``.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

_SPACES = re.compile(r"\s+")
_WORD = re.compile(r"\w+")
_SEPARATORS = re.compile(r"\s+(?:[|\-–—·•:»«/~]|::)\s+")


def _clean(text: str | None) -> str:
    return _SPACES.sub(" ", text or "").strip()


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _is_site_part(part: str, site_name: str, host_words: set[str]) -> bool:
    words = _words(part)
    if not words:
        return True
    if site_name and words == _words(site_name):
        return True
    # "example.com", "Example News" for example-news.com
    return bool(host_words) and all(w in host_words for w in words)


def strip_site_name(title: str, site_name: str = "", url: str | None = None) -> str:
    """Remove "| Site" / "Site - " parts from a ``<title>``."""
    parts = [p.strip() for p in _SEPARATORS.split(title) if p.strip()]
    if len(parts) < 2:
        return title
    host_words: set[str] = set()
    if url:
        host = urlsplit(url).hostname or ""
        host_words = set(re.split(r"[.\-]", host.lower())) - {"www", ""}
        host_words |= {"".join(host.lower().split(".")[-2:-1])}
    kept = [p for p in parts if not _is_site_part(p, site_name, host_words)]
    if not kept:
        return parts[0]
    if len(kept) < len(parts):
        # The site-name parts were at the edges: keep what is left, in order.
        return " - ".join(kept) if len(kept) > 1 else kept[0]
    return max(kept, key=lambda p: len(_words(p)))


def _contained(inner: str, outer: str) -> float:
    """The share of ``inner``'s words found in ``outer``."""
    words = _words(inner)
    if not words:
        return 0.0
    outer_words = set(_words(outer))
    return sum(w in outer_words for w in words) / len(words)


def find_title(
    html_title: str, metas: dict[str, str], h1s: list[str], url: str | None = None
) -> str:
    """The headline from the ``<title>`` text, the page's ``<meta>`` values (by lowercase
    property or name) and the texts of its first ``<h1>`` elements."""
    html_title = _clean(html_title)
    og_title = _clean(metas.get("og:title") or metas.get("twitter:title"))
    site_name = _clean(metas.get("og:site_name") or metas.get("application-name"))
    h1s = [h for h in (_clean(h) for h in h1s) if h]
    reference = " ".join(filter(None, [html_title, og_title]))
    for h1 in h1s:
        if reference and _contained(h1, reference) >= 0.8:
            return h1
    for candidate in (og_title, html_title):
        if candidate:
            return strip_site_name(candidate, site_name, url)
    return h1s[0] if h1s else ""
