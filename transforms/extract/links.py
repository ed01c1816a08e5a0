"""Link targets for Markdown's ``[text](url)``: only URLs a reader can follow without running
anything, written so that a renderer reads all of each.

**Schemes.** A link is kept only with no scheme (a relative reference, ``//host`` included) or
with one of ``ALLOWED_SCHEMES``; any other (``javascript:``, ``vbscript:``, ``data:``,
``file:``, ...) leaves the link's text alone. The scheme is read as a browser reads it, which is
what a renderer's ``href`` becomes: character references are already decoded by the parser
(``&#x4A;avascript&colon;`` is ``Javascript:``), case does not matter, leading and trailing
controls and spaces and every tab and line break are dropped (``java\\tscript:``); other control
characters are dropped too before it is read (some renderers and old browsers skip them), so no
spelling of a scheme passes for a relative path. A percent-encoded colon is no scheme
(``javascript%3A`` is a path, for browsers as here).

**Base.** Relative references resolve against the page's first ``<base href>``, itself resolved
against the page's URL, when that gives an ``http``, ``https`` or ``ftp`` URL (a ``javascript:``
or relative base with no page URL is ignored, as browsers ignore the first); else against the
page's URL; else they stay relative.

**Writing.** The URL is percent-encoded where CommonMark would end or misread a link destination
(spaces, parentheses, ``<``, ``>``, backslashes, controls, non-ASCII), and an ``&`` that would
start a character reference is escaped (a renderer decodes ``&colon;`` in a destination).
"""

from __future__ import annotations

import functools
import re
from urllib.parse import quote, urljoin

from selectolax.lexbor import LexborHTMLParser, create_tag

__all__ = ["ALLOWED_SCHEMES", "document_base", "link_target", "scheme"]

ALLOWED_SCHEMES = frozenset({"http", "https", "mailto", "ftp"})
_BASE_SCHEMES = frozenset({"http", "https", "ftp"})
_BASE = create_tag("base").tag_id

_EDGES = "".join(map(chr, range(0x21)))  # C0 controls and space, dropped at a URL's ends
_TAB_OR_NEWLINE = re.compile("[\t\n\r]")
_CONTROLS = re.compile("[\x00-\x1f\x7f]")
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.\-]*):")
_REFERENCE = re.compile(r"&(?=#?[0-9A-Za-z]+;)")  # what CommonMark would decode in a destination
# Kept as they are in a destination: URL syntax, and "%" (the URL is percent-encoded already).
_SAFE = "/:?#[]@!$&'*+,;=%~"


def _as_browsers_read(href: str) -> str:
    """``href`` as a browser parses it: without leading and trailing C0 controls and spaces,
    without tabs and line breaks."""
    href = href.strip(_EDGES)
    if "\t" in href or "\n" in href or "\r" in href:
        href = _TAB_OR_NEWLINE.sub("", href)
    return href


def scheme(url: str) -> str | None:
    """The scheme of ``url``, lower-cased, as a browser reads it (and with any control character
    taken out first); None for a relative reference."""
    url = url.strip(_EDGES)
    if not url.isprintable():  # a control character inside (rare): taken out
        url = _CONTROLS.sub("", url)
    found = _SCHEME.match(url)
    return found.group(1).lower() if found else None


@functools.lru_cache(maxsize=64)
def _resolves_to_allowed(base: str | None) -> bool:
    """Whether relative references resolved against ``base`` get an allowed scheme or none
    (the base of one page after another: cached)."""
    return scheme(base or "") in ALLOWED_SCHEMES | {None}


def document_base(tree: LexborHTMLParser, url: str | None) -> str | None:
    """The URL that relative links of the page at ``url`` resolve against: its first ``<base>``
    with an ``href`` when that resolves to an http, https or ftp URL, else ``url``.

    Looked for among the head's elements, where the parser puts every ``<base>`` written before
    the body's content (as HTML wants it); one written inside the body is not looked for
    (searching the whole document costs 5% of an extraction)."""
    head = tree.head
    node = None
    if head is not None:
        node = next((n for n in head.iter() if n.tag_id == _BASE and "href" in n.attrs), None)
    if node is None:
        return url
    href = _as_browsers_read(node.attrs.get("href") or "")
    try:
        base = urljoin(url, href) if url else href
    except ValueError:  # an invalid IPv6 host, say
        return url
    return base if scheme(base) in _BASE_SCHEMES else url


def link_target(href: str | None, base: str | None) -> str | None:
    """The Markdown link destination for an ``<a href>`` on a page whose links resolve against
    ``base``, or None when the link is to be its text only: no target, a fragment of this
    page, a scheme not allowed, or a URL that cannot be parsed."""
    href = _as_browsers_read(href or "")
    if not href or href[0] == "#":
        return None
    found = _SCHEME.match(href)
    if found is None and not href.isprintable():  # a control character in the scheme?
        found = _SCHEME.match(_CONTROLS.sub("", href))
    kind = found.group(1).lower() if found else None
    if kind is None:  # relative: resolved, it takes the base's scheme
        if not _resolves_to_allowed(base):
            return None
    elif kind not in ALLOWED_SCHEMES:
        return None
    try:
        target = urljoin(base, href) if base else href
    except ValueError:
        return None
    target = quote(target, safe=_SAFE)
    return _REFERENCE.sub(r"\\&", target) if "&" in target else target
