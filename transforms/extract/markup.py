"""Tags as the HTML tokenizer reads them, for the rewrites ``limits`` makes before parsing.

A tag's name runs to whitespace, "/" or ">"; each attribute is a name (whose first character
may be "=" or a quote) and maybe "=" and a value, quoted (a ">" or "<" inside is part of it) or
not; "/" separates like whitespace; the first ">" outside a quoted value ends the tag. The
patterns use atomic groups, so that tag soup cannot make them try their ways of splitting a
name. Each comes as text (``str``) and, where rewrites work on bytes, as bytes.
"""

from __future__ import annotations

import re

__all__ = ["ATTRIBUTE_BYTES", "NAME_ENDS", "SPACE", "START_TAG_BYTES", "TAG_BODY", "tags_named"]

NAME_ENDS = "\t\n\f\r />"
SPACE = r"[\t\n\f\r ]"  # HTML whitespace
_ATTRIBUTE = (
    r"(?>[^\t\n\f\r />][^\t\n\f\r /=>]*)"
    rf"(?>{SPACE}*={SPACE}*(?>\"[^\"]*\"?|'[^']*'?|[^\t\n\f\r >]*))?"
)
TAG_BODY = rf"(?>[\t\n\f\r /]+|{_ATTRIBUTE})*>?"  # what follows a tag's name
# A start tag (its name the first group), and each attribute of a tag after its name.
START_TAG_BYTES = re.compile(rf"<([A-Za-z][^\t\n\f\r />]*){TAG_BODY}".encode())
ATTRIBUTE_BYTES = re.compile(rf"[\t\n\f\r /]*({_ATTRIBUTE})".encode())


def tags_named(names: str) -> re.Pattern[str]:
    """The start and end tags of the elements ``names`` ("a|b|..."), attributes and all."""
    return re.compile(rf"</?(?:{names})(?=[\t\n\f\r />]){TAG_BODY}", re.IGNORECASE | re.ASCII)
