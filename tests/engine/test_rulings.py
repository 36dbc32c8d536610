"""The list of rulings a director may cite (engine/game/rulings.py) holds every ruling of docs/RULES.md
and nothing else; the CLI's help and the server's check both read it (issue 33, point 7: the help
said D1 … D17 after the rules reached D25, and the server refused D13c, D25 and D26)."""

from __future__ import annotations

import re
from pathlib import Path

from engine.game.rulings import LAST_RULING, RULING_PATTERN, RULING_RANGE, RULINGS

DOCS = Path(__file__).resolve().parents[2] / "docs" / "RULES.md"


def test_every_ruling_of_the_rules_is_citable() -> None:
    headed = re.findall(r"^### (D\d+[a-z]?)\b", DOCS.read_text(encoding="utf-8"), re.MULTILINE)
    assert len(headed) >= 25
    assert set(headed) <= set(RULINGS), set(headed) - set(RULINGS)
    assert RULINGS[0] == "D1" and RULINGS[-1] == f"D{LAST_RULING}" and "D13c" in RULINGS
    assert RULINGS.index("D13c") == RULINGS.index("D13") + 1
    assert len(set(RULINGS)) == len(RULINGS) == LAST_RULING + 1


def test_the_pattern_takes_exactly_the_rulings() -> None:
    for ruling in RULINGS:
        assert re.fullmatch(RULING_PATTERN, ruling)
    for other in ("D0", "D27", "D13C", "d1", "D1 ", "D2a", "D013", "", "D"):
        assert not re.search(RULING_PATTERN, other), other
    assert RULING_RANGE == f"D1 … D{LAST_RULING} (D13c too)"
