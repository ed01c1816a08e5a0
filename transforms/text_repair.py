"""Mojibake repair for extracted text, with ftfy set up to leave wanted content alone.

Run on extracted text only, not whole pages: ftfy is slow on large inputs. Plain ASCII text
cannot hold mojibake and is returned untouched without calling ftfy.
"""

from __future__ import annotations

import ftfy

__all__ = ["REPAIR_CONFIG", "repair_text"]

# Fix encoding mix-ups, but keep curly quotes, literal "&amp;" (entities were already
# unescaped by the extractor), full-width characters and ligatures as the author wrote them.
REPAIR_CONFIG = ftfy.TextFixerConfig(
    unescape_html=False,
    uncurl_quotes=False,
    fix_character_width=False,
    fix_latin_ligatures=False,
    normalization="NFC",
    explain=False,
)


def repair_text(text: str) -> str:
    """Repair mojibake such as "cafÃ©" -> "café" and normalize to NFC."""
    if text.isascii():
        return text
    return ftfy.fix_text(text, REPAIR_CONFIG)
