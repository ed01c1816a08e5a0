"""The README's reason-code table is the one users read: keep it equal to the code's list."""

import re
from pathlib import Path

from transforms.reasons import REJECT_REASONS

README = Path(__file__).resolve().parents[2] / "README.md"


def test_readme_lists_every_reject_reason_and_no_other():
    text = README.read_text()
    table = text[text.index("| reason | meaning |") :].split("\n\n", 1)[0]
    documented = dict(re.findall(r"^\| `([a-z_]+)` \| (.+?) \|$", table, flags=re.M))
    assert documented == REJECT_REASONS
