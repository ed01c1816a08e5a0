"""Noise gate: on generated pages, the main text keeps the article and drops the furniture.

Fails the build when noise leaks into the text or content is lost. The cases live in
``tests/gates/gate_pages.py``; add one there when a new kind of noise is found in the wild.
"""

import pytest

from tests.gates.gate_pages import NOISE_CASES
from transforms.extract import extract


@pytest.mark.parametrize("case", NOISE_CASES, ids=lambda case: case.name)
def test_main_text_keeps_content_and_drops_noise(case):
    text = extract(case.html).text
    lost = [keep for keep in case.keep if keep not in text]
    leaked = [drop for drop in case.drop if drop in text]
    assert not lost, f"content lost: {lost}\n---\n{text}"
    assert not leaked, f"noise leaked: {leaked}\n---\n{text}"
