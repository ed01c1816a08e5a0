"""Pages built to take a parser's memory or time: the probe of ``benchmarks.pathological``.

Each bomb is one HTML page that holds an article (``ARTICLE``, with ``MARKER`` in it) after,
or around, the hostile markup: what the page must end as is a row holding the article (maybe
``truncated``), in well under the guard's time limit and memory cap. The classes:

- **reconstruction**: formatting elements (``<b>``, ``<a>``, ``<font>``, ...) left open, then
  many paragraphs: the parser re-creates every open one in each paragraph, attributes copied;
- **adoption**: misnested formatting elements (``<b><p></b>``), foster parenting in tables;
- **attributes**: many attributes on one element, or merged into ``<html>``/``<body>``;
- **nesting**: deep trees the depth estimate must see (``<div></span>``, lists, tables, ...);
- **volume**: millions of tiny elements, entities, long words, huge ``<pre>``/``<textarea>``/
  ``<noscript>``/``srcdoc``/MathML;
- **size**: markup that is not text (a ``<title>``, a ``data:`` image, an SVG sprite) filling
  the 5M-character cap before the article;
- **shadow**: the article inside a declarative shadow root (``<template shadowrootmode>``).

``BOMBS`` maps a name to ``(class, builder)``; builders are cheap and deterministic.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["ARTICLE", "BOMBS", "MARKER", "bomb_page", "thin_reopening"]

MARKER = "The marker sentence of the article survives the bomb"
ARTICLE = (
    "<article><h1>Bees in the city</h1>"
    + "".join(
        f"<p>Paragraph {i}: urban beekeeping has doubled in five years, and hives now sit on "
        f"many roofs of the old town, where they find linden trees and gardens.</p>"
        for i in range(4)
    )
    + f"<p>{MARKER}.</p></article>"
)
FORMATTING = ["a", "b", "big", "code", "em", "font", "i", "nobr", "s", "small", "strike",
              "strong", "tt", "u"]  # fmt: skip


def bomb_page(bomb: str, *, title: str = "Bees in the city", after: str = "") -> bytes:
    """A page with ``bomb`` in its body before the article (``after`` follows the article)."""
    return (
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{title}</title>"
        "</head><body><nav><a href='/'>Home</a> <a href='/about'>About</a></nav>"
        f"{bomb}{ARTICLE}{after}</body></html>"
    ).encode()


def _opened(tag: str, n: int, attribute: str = "x") -> str:
    return "".join(f"<{tag} {attribute}={i}>" for i in range(n))


def thin_reopening(opened: int = 1000, paragraphs: int = 4000) -> bytes:
    """Open ``<b>`` elements and paragraphs, each followed by 20-odd characters of text: no
    2 KB of it is dense in tags, so ``limits`` leaves it to the crash guard's memory cap
    (``opened`` x ``paragraphs`` elements: 1,000 x 4,000 take 1.6 GB)."""
    return bomb_page(
        "<p>"
        + "".join(f"<b x={i}>bold words here {i}" for i in range(opened))
        + "<p>a paragraph of some words" * paragraphs
    )


def _reconstruction(tag: str, n: int = 3000, m: int = 7500) -> Callable[[], bytes]:
    return lambda: bomb_page("<p>" + _opened(tag, n) + "<p>x" * m + "</p>")


BOMBS: dict[str, tuple[str, Callable[[], bytes]]] = {}


def _add(kind: str, name: str, builder: Callable[[], bytes]) -> None:
    BOMBS[name] = (kind, builder)


# -- reconstruction of open formatting elements ------------------------------------------------
_add("reconstruction", "b-13kb", _reconstruction("b", 1000, 1000))
for _tag in FORMATTING:
    _add("reconstruction", f"{_tag}-58kb", _reconstruction(_tag))
_add(
    "reconstruction",
    "mixed-formatting",
    lambda: bomb_page(
        "<p>" + "".join(f"<{FORMATTING[i % 14]} x={i}>" for i in range(3000)) + "<p>x" * 7500
    ),
)
_add(
    "reconstruction",
    "b-closed-by-div",
    lambda: bomb_page("<div>" + _opened("b", 3000) + "</div><div>x</div>" * 5000),
)
_add(
    "reconstruction",
    "b-closed-by-li",
    lambda: bomb_page("<ul><li>" + _opened("b", 3000) + "<li>x" * 7500 + "</ul>"),
)
_add(
    "reconstruction",
    "a-with-100kb-href",
    lambda: bomb_page("<p><a href='/" + "x" * 100_000 + "'>link" + "<p>x" * 10_000 + "</p>"),
)
_add(
    "reconstruction",
    "b-with-long-attributes",
    lambda: bomb_page(
        "<p>" + "".join(f"<b title='{i}{'y' * 2000}'>" for i in range(50)) + "<p>x" * 5000
    ),
)
_add("reconstruction", "b-spread-thin-1.6gb", thin_reopening)
_add(
    "reconstruction",
    "b-no-attributes-nested",
    lambda: bomb_page("<p>" + "<b><i><u><s>" * 2000 + "<p>x" * 7500),
)

# -- the adoption agency and foster parenting --------------------------------------------------
_add(
    "adoption",
    "b-p-misnested",
    lambda: bomb_page("<b x=0><p>x</b>y</p>" * 20_000),
)
_add(
    "adoption",
    "open-b-then-misnested-closes",
    lambda: bomb_page(_opened("b", 3000) + "<p>x</b>" * 7500),
)
_add(
    "adoption",
    "a-in-p-chain",
    lambda: bomb_page("".join(f"<a href=/{i}><p>x" for i in range(20_000))),
)
_add(
    "adoption",
    "b-around-many-blocks",
    lambda: bomb_page(("<b x=1>" + "<div>x</div>" * 2000 + "<p>y</b>") * 20),
)
_add(
    "adoption",
    "table-foster-parenting",
    lambda: bomb_page("<table>" + _opened("b", 3000) + "<tr>x" * 7500 + "</table>"),
)
_add(
    "adoption",
    "table-text-foster",
    lambda: bomb_page("<table>" + "<b x=1>x<td>y" * 20_000 + "</table>"),
)

# -- attributes ---------------------------------------------------------------------------------
_add(
    "attributes",
    "100k-on-one-element",
    lambda: bomb_page("<div " + " ".join(f"a{i}=1" for i in range(100_000)) + ">x</div>"),
)
_add(
    "attributes",
    "200k-duplicates",
    lambda: bomb_page("<div" + " a" * 200_000 + ">x</div>"),
)
_add(
    "attributes",
    "100k-with-quoted-gt",
    lambda: bomb_page(
        "<div "
        + " ".join(f"a{i}=1" + (" t='>'" if i % 500 == 0 else "") for i in range(100_000))
        + ">x</div>"
    ),
)
_add(
    "attributes",
    "merged-into-body",
    lambda: bomb_page("".join(f"<body a{i}=1>" for i in range(60_000))),
)
_add(
    "attributes",
    "merged-into-html",
    lambda: bomb_page("".join(f"<html a{i}=1>" for i in range(60_000))),
)
_add(
    "attributes",
    "spread-1000-elements",
    lambda: bomb_page(("<span " + " ".join(f"a{i}=1" for i in range(1000)) + ">x</span>") * 1000),
)
_add(
    "attributes",
    "huge-values",
    lambda: bomb_page(
        "<div " + " ".join(f"a{i}='{'v' * 40_000}'" for i in range(100)) + ">x</div>"
    ),
)

# -- nesting the depth estimate must see --------------------------------------------------------
for _name, _unit in {
    "div-stray-span-close": "<div></span>",
    "span-stray-div-close": "<span></div>",
    "div-stray-b-close": "<div></b>",
    "div-stray-custom-close": "<div></x-y>",
    "ul-li": "<ul><li>",
    "dl-dd": "<dl><dd>",
    "table-td": "<table><td>",
    "template": "<template>",
    "nobr": "<nobr>",
    "b": "<b>",
    "object": "<object>",
    "math-mrow": "<math><mrow>",
    "svg-g": "<svg><g>",
    "select-option": "<select><option>",
    "button": "<button>",
    "blockquote-p": "<blockquote><p>",
}.items():
    _add("nesting", f"deep-{_name}", (lambda unit: lambda: bomb_page(unit * 90_000))(_unit))
_add("nesting", "divs-then-list-items", lambda: bomb_page("<div>" * 4900 + "<li>x" * 90_000))
_add("nesting", "divs-then-dd", lambda: bomb_page("<div>" * 4900 + "<dd>x" * 90_000))
_add("nesting", "svg-breakouts", lambda: bomb_page("<svg><p>x" * 90_000))
_add(
    "options",
    "select-100k-options",
    lambda: bomb_page("<select>" + "<option>x" * 100_000 + "</select>"),
)
_add(
    "options",
    "select-40k-long-options",
    lambda: bomb_page(
        "<select>"
        + "".join(
            f"<option value='{i}'>Option number {i} of the list</option>" for i in range(40_000)
        )
        + "</select>"
    ),
)
_add(
    "nesting",
    "unclosed-select-before-article",
    lambda: bomb_page("<select><option>one" + "<div>x</div>" * 50_000),
)

# -- volume -------------------------------------------------------------------------------------
_add("volume", "tiny-elements-700k", lambda: bomb_page("<i></i>" * 700_000))
_add("volume", "br-1m", lambda: bomb_page("<br>" * 1_200_000))
_add("volume", "paragraphs-1m", lambda: bomb_page("<p>x" * 1_200_000))
_add("volume", "entities-1m", lambda: bomb_page("<p>" + "&amp;" * 1_000_000 + "</p>"))
_add("volume", "numeric-entities", lambda: bomb_page("<p>" + "&#x41;" * 800_000 + "</p>"))
_add("volume", "unknown-entities", lambda: bomb_page("<p>" + "&zzzz;" * 800_000 + "</p>"))
_add("volume", "long-word-5mb", lambda: bomb_page("<p>" + "a" * 4_900_000 + "</p>"))
_add(
    "volume",
    "line-without-spaces",
    lambda: bomb_page("<p>" + "word,".join("" for _ in range(1_000_000)) + "</p>"),
)
_add(
    "volume",
    "pre-5mb",
    lambda: bomb_page("<pre>" + "let x = a < b && c > d;\n" * 200_000 + "</pre>"),
)
_add(
    "volume",
    "textarea-5mb",
    lambda: bomb_page("<textarea>" + "<p>line</p>\n" * 400_000 + "</textarea>"),
)
_add(
    "volume",
    "noscript-5mb",
    lambda: bomb_page("<noscript>" + "<p>Enable JavaScript.</p>" * 200_000 + "</noscript>"),
)
_add(
    "volume",
    "iframe-srcdoc-4mb",
    lambda: bomb_page(
        "<iframe srcdoc='" + "&lt;p&gt;framed text&lt;/p&gt;" * 130_000 + "'></iframe>"
    ),
)
_add(
    "volume",
    "mathml-200k",
    lambda: bomb_page("<math>" + "<mi>x</mi><mo>+</mo>" * 100_000 + "</math>"),
)
_add("volume", "plaintext-5mb", lambda: bomb_page("<plaintext>" + "a < b\n" * 800_000))
_add("volume", "comments-1m", lambda: bomb_page("<!---->" * 700_000))
_add("volume", "unclosed-comment-5mb", lambda: bomb_page("<!-- " + "text " * 1_000_000))
_add("volume", "long-entity-name", lambda: bomb_page("<p>&" + "a" * 4_000_000 + ";</p>"))
_add(
    "volume",
    "cdata-in-svg-5mb",
    lambda: bomb_page("<svg><![CDATA[" + "x < y " * 800_000 + "]]></svg>"),
)
_add("volume", "tag-name-4mb", lambda: bomb_page("<a" + "b" * 4_000_000 + ">x"))
_add(
    "volume", "unquoted-value-4mb", lambda: bomb_page("<div title=" + "v" * 4_000_000 + ">x</div>")
)

# -- markup that is not text, filling the size cap ----------------------------------------------
_add(
    "size",
    "title-5mb",
    lambda: bomb_page("", title="Bees " * 1_000_000),
)
_add(
    "size",
    "data-image-6mb",
    lambda: bomb_page("<img src='data:image/png;base64," + "iVBORw0K" * 750_000 + "'>"),
)
_add(
    "size",
    "svg-sprite-6mb",
    lambda: bomb_page(
        "<svg style='display:none'>"
        + "".join(
            f"<symbol id='i{i}'><path d='{'M10 10L20 20' * 40}'/></symbol>" for i in range(12_000)
        )
        + "</svg>"
    ),
)
_add(
    "size",
    "style-attributes-6mb",
    lambda: bomb_page(("<span style='" + "color:red;" * 600 + "'></span>") * 1000),
)

# -- the article inside a declarative shadow root -----------------------------------------------
_add(
    "shadow",
    "shadow-root-open",
    lambda: bomb_page("").replace(
        ARTICLE.encode(),
        f"<x-app><template shadowrootmode='open'>{ARTICLE}</template></x-app>".encode(),
    ),
)
