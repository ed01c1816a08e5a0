from __future__ import annotations

import re
import unicodedata

import ftfy
import pytest
from ftfy.badness import BADNESS_RE, MOJIBAKE_CATEGORIES, is_bad
from hypothesis import example, given, settings
from hypothesis import strategies as st

from transforms.extract import repair
from transforms.extract.characters import strip_unwanted
from transforms.extract.repair import REPAIR_CONFIG, looks_like_mojibake, repair_text

try:  # the parser of the re module, to read BADNESS_RE's branches
    from re import _constants, _parser
except ImportError:  # Python 3.10
    import sre_constants as _constants
    import sre_parse as _parser


@pytest.mark.parametrize(
    ("broken", "fixed"),
    [
        ("cafÃ©", "café"),
        ("Ã¼ber naÃ¯ve", "über naïve"),
        ("It\u00e2\u20ac\u2122s", "It\u2019s"),  # a UTF-8 right quote read as windows-1252
        ("ÐŸÑ€Ð¸Ð²ÐµÑ‚", "Привет"),
    ],
)
def test_mojibake_is_repaired(broken: str, fixed: str) -> None:
    assert repair_text(broken) == fixed


@pytest.mark.parametrize(
    "kept",
    [
        "Fish &amp; chips",  # a literal entity in the text stays literal
        "\u201ccurly\u201d and \u2018single\u2019 quotes",
        "ＦＵＬＬ　ＷＩＤＴＨ",
        "ﬁne ligature",
        "café déjà vu",
        "Привет, 世界",
    ],
)
def test_wanted_content_is_kept(kept: str) -> None:
    assert repair_text(kept) == kept


def test_ascii_is_returned_as_is() -> None:
    text = "plain ascii &amp; text"
    assert repair_text(text) is text


def test_nfc_normalization() -> None:
    decomposed = unicodedata.normalize("NFD", "café")
    assert repair_text(decomposed) == "café"


def test_mojibake_of_a_soft_hyphen_or_c1_control_is_repaired_before_the_policy_removes_them():
    # "í" is UTF-8 C3 AD, read as Latin-1 "Ã" and a soft hyphen; "Á" is C3 81
    assert repair_text("fr\u00c3\u00ado y \u00c3\u0081lvaro") == "frío y Álvaro"
    assert repair_text("\x93quoted\x94 caf\u00e9") == "\u201cquoted\u201d café"  # windows-1252
    assert repair_text("Donau\u00addampf caf\u00e9 \x81") == "Donaudampf café"


def test_controls_are_removed_from_ascii_text_too():
    assert repair_text("bell\x07 and \x1b[31mred\x1b[0m text") == "bell and red text"
    assert repair_text("caf\u00e9 bell\x07 and \x1b[31mred") == "café bell and red"


# repair_text passes over lines ftfy would not change; the result must be ftfy's own, then the
# character policy's.
_MOJIBAKE = ["cafÃ©", "It\u00e2\u20ac\u2122s", "ÐŸÑ€Ð¸Ð²ÐµÑ‚", "Ã¼ber", "\u00c3\u00a0 la"]
_PIECES = st.one_of(
    st.sampled_from(_MOJIBAKE + ["\n", "\r\n", "\r", "\u2028", "\x85", "\x1b[31m", "\ufeff"]),
    st.text(
        alphabet=st.sampled_from(
            list(
                "ab. é\u00e9\u0301\u00c3\u00c2\u00a9\u2019\u201c\u00a0\u2014\u20ac\u2122ПрЖГВЂΒΓ世ØÙ×²\x00\x07\x0c\t\n\x9d"
            )
        ),
        max_size=12,
    ),
)


@given(st.lists(_PIECES, max_size=30).map("".join))
@example("\n\u00c2 ")  # ftfy reads "Â " at the start of a line as a lost no-break space
@example("caf\u00e9\n\u00c3 la")
@settings(max_examples=400, deadline=None)
def test_same_result_as_ftfy_on_the_whole_text(text: str) -> None:
    # ASCII text is not given to ftfy (see test_ascii_is_returned_as_is); ftfy is given the text
    # without what the policy removes, but what may be mojibake (see repair_text).
    expected = text
    if not text.isascii():
        expected = ftfy.fix_text(strip_unwanted(text, for_repair=True), REPAIR_CONFIG)
    assert repair_text(text) == strip_unwanted(expected)


def test_same_result_as_ftfy_where_it_cuts_a_long_line(monkeypatch) -> None:
    # ftfy fixes a line longer than max_decode_length in pieces, each read as a line of its
    # own: "Â " opens the second piece here, so is read as a lost no-break space.
    config = REPAIR_CONFIG._replace(max_decode_length=6)
    monkeypatch.setattr(repair, "REPAIR_CONFIG", config)
    text = "caf\u00e91 \u00c2 x"
    assert ftfy.fix_text(text, config) == "caf\u00e91 \xa0x"
    assert repair_text(text) == ftfy.fix_text(text, config)


def test_same_result_as_ftfy_on_a_page_of_lines() -> None:
    lines = ["A plain line.", "", "Caf\u00e9 \u201cquoted\u201d", "It\u00e2\u20ac\u2122s broken"]
    text = "\n".join(lines * 50) + "\r\nlast line\u2028"
    assert repair_text(text) == ftfy.fix_text(text, REPAIR_CONFIG)  # no character it removes


def _branch_items(branch: list) -> list[tuple[set[int] | None, int, int]]:
    """``(characters, fewest, most)`` per item of a parsed branch of a pattern: the set of
    characters it matches (None: not one character from a known set) and its widths."""
    items = []
    for op, arg in branch:
        if op is _constants.LITERAL:
            items.append(({arg}, 1, 1))
        elif op is _constants.IN and all(
            kind in (_constants.LITERAL, _constants.RANGE) for kind, _ in arg
        ):
            chars = set()
            for kind, value in arg:
                chars |= (
                    {value} if kind is _constants.LITERAL else set(range(value[0], value[1] + 1))
                )
            items.append((chars, 1, 1))
        elif op is _constants.AT:
            items.append((None, 0, 0))
        elif op is _constants.MAX_REPEAT and all(
            sub_op in (_constants.IN, _constants.LITERAL) for sub_op, _ in arg[2]
        ):
            items.append((None, arg[0] * len(arg[2]), arg[1] * len(arg[2])))
        else:  # IN with a category or a negation, ANY
            assert op in (_constants.IN, _constants.ANY), op
            items.append((None, 1, 1))
    return items


def test_every_match_of_ftfy_pattern_holds_a_place_looked_at() -> None:
    """The premise of looks_like_mojibake: each branch of BADNESS_RE matches a lone character,
    or a first followed by a second, at most _BADNESS_BEFORE into the match, and ends within
    _BADNESS_LONGEST of it; whatever characters the branch's items match."""
    flags = repair._MOJIBAKE_FLAGS

    def all_flagged(chars: set[int] | None, flag: int) -> bool:
        return chars is not None and all(c < len(flags) and flags[c] & flag for c in chars)

    ((op, (_, branches)),) = _parser.parse(BADNESS_RE.pattern, BADNESS_RE.flags)
    assert op is _constants.BRANCH and len(branches) > 30
    for branch in branches:
        items = _branch_items(branch)
        longest = sum(most for _, _, most in items)
        fewest_before = most_before = 0
        for k, (chars, fewest, most) in enumerate(items):
            pair = k + 1 < len(items) and all_flagged(chars, 1) and all_flagged(items[k + 1][0], 2)
            if all_flagged(chars, 4) or pair:
                assert most_before <= repair._BADNESS_BEFORE, branch
                assert longest - fewest_before <= repair._BADNESS_LONGEST, branch
                break
            fewest_before += fewest
            most_before += most
        else:
            raise AssertionError(f"no place looked at in {branch}")


def test_the_flags_are_ftfy_classes() -> None:
    """Every flagged character is in one of ftfy's classes (the search is not widened to
    characters the pattern cannot hold) and none is ASCII."""
    flags = repair._MOJIBAKE_FLAGS
    classes = re.compile(f"[{''.join(MOJIBAKE_CATEGORIES.values())}ŒœÃÂ]")
    flagged = [chr(c) for c in range(len(flags)) if flags[c]]
    assert all(classes.fullmatch(c) for c in flagged)
    assert not any(c.isascii() for c in flagged)


def _assert_is_bad_by_line(text: str) -> None:
    """looks_like_mojibake is BADNESS_RE over the whole text with "^" at every line start, so
    true when is_bad is true of the text or of one of its lines (ftfy tries each line alone)."""
    found = looks_like_mojibake(text)
    assert found == (re.search(BADNESS_RE.pattern, text, BADNESS_RE.flags | re.M) is not None)
    if is_bad(text) or any(is_bad(line) for line in re.findall("[^\n]*\n?", text)):
        assert found


def test_looks_like_mojibake_reads_each_line_as_ftfy_does() -> None:
    # "^[ÃÂ][ ]" of BADNESS_RE: not at the start of the text, but of a line
    assert not is_bad("caf\u00e9\n\u00c2 x") and is_bad("\u00c2 x")
    assert looks_like_mojibake("caf\u00e9\n\u00c2 x")
    assert not looks_like_mojibake("caf\u00e9 \u00c2 x")


@given(st.lists(_PIECES, max_size=30).map("".join))
@example("\n\u00c2 ")
@settings(max_examples=400, deadline=None)
def test_looks_like_mojibake_is_ftfy_is_bad_by_line(text: str) -> None:
    _assert_is_bad_by_line(text)


# Every character of ftfy's classes, with ASCII and scripts next to them: the neighbours the
# flags tell apart.
_FTFY_CHARS = re.findall(
    f"[{''.join(MOJIBAKE_CATEGORIES.values())}]", "".join(map(chr, range(0x80, 0x10000)))
)
_ALPHABET = st.sampled_from(_FTFY_CHARS + list("aZ .,?!\n\t\u3000世界ПрикδΩ\U0001f600ŒœÃÂ"))


@given(st.text(alphabet=_ALPHABET, max_size=40))
@settings(max_examples=3000, deadline=None)
def test_looks_like_mojibake_is_is_bad_on_ftfy_characters(text: str) -> None:
    _assert_is_bad_by_line(text)


def test_looks_like_mojibake_is_is_bad_on_corpus_texts(shared_dir) -> None:
    """The reference texts of every corpus (23 languages), each also read back as windows-1252
    and as Latin-1 from its UTF-8 (mojibake)."""
    import json

    texts = 0
    for path in sorted((shared_dir / "corpus").glob("*/ground-truth*")):
        if path.is_file():
            truth = json.loads(path.read_text(encoding="utf-8"))
            found = [page.get("articleBody", "") for page in truth.values()]
        else:
            found = []
            for page in sorted(path.glob("*.json")):
                record = json.loads(page.read_text(encoding="utf-8"))
                truth = record.get("ground_truth", record)
                found += [truth.get("text") or truth.get("main_content") or "", truth.get("title")]
        for text in filter(None, found):
            for variant in (
                text,
                text.encode("utf-8").decode("cp1252", "replace"),
                text.encode("utf-8").decode("latin-1"),
            ):
                _assert_is_bad_by_line(variant)
                texts += 1
    assert texts > 5000
