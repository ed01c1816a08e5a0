"""Read declarative shadow roots: the content web components render on the server.

``<my-app><template shadowrootmode="open">...</template></my-app>`` is how a server sends the
shadow tree of a web component (``shadowroot``, without "mode", in Chrome before 2023): a
browser attaches the template's content to the host and shows it. A parser without shadow DOM
keeps it as a ``<template>``, whose content is no part of the document tree, and the page's
article can be in there. So a page that holds one (``has_shadow_root``, asked of the templates
the extractor's element walk found anyway: nothing is added to other pages) is parsed again
with the tags of its shadow-root templates dropped (``open_shadow_roots``): their content
becomes the host's, before its light children (which a ``<slot>`` would place, but whose text
is read the same).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from selectolax.lexbor import LexborNode, create_tag

from transforms.extract.markup import TAG_BODY

__all__ = ["has_shadow_root", "open_shadow_roots"]

_ATTRIBUTES = ("shadowrootmode", "shadowroot")
_TEMPLATE = create_tag("template").tag_id  # (read from the node, where a tag name is decoded)
_TEMPLATE_TAG = re.compile(
    rb"<(/?)template(?=[\t\n\f\r />])" + TAG_BODY.encode(), re.IGNORECASE | re.ASCII
)
_SHADOW_ROOT = re.compile(rb"[\t\n\f\r /]shadowroot(?:mode)?[\t\n\f\r ]*=", re.IGNORECASE)


def has_shadow_root(nodes: Iterable[LexborNode]) -> bool:
    """Whether one of ``nodes`` is a ``<template>`` that is a declarative shadow root."""
    return any(
        node.tag_id == _TEMPLATE and any(name in node.attributes for name in _ATTRIBUTES)
        for node in nodes
    )


def open_shadow_roots(html: bytes) -> bytes:
    """``html`` without the start and end tags of its shadow-root templates; other templates,
    and templates inside those, stay."""
    kept, pos, shadows = [], 0, []
    for tag in _TEMPLATE_TAG.finditer(html):
        if tag.group(1):
            shadow = shadows.pop() if shadows else False
        else:
            shadow = _SHADOW_ROOT.search(tag.group(0)) is not None
            shadows.append(shadow)
        if shadow:
            kept.append(html[pos : tag.start()])
            pos = tag.end()
    if not kept:
        return html
    kept.append(html[pos:])
    return b"".join(kept)
