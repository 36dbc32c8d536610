"""The numbered rulings of RULES.md a director may cite: one list, read by the server's check of a
cited ruling and by ``unoduo tournament rule --help``, so neither can fall behind the rules.

``D1`` … ``D26``, and ``D13c`` (classic's Wild Draw Four rule, a ruling of its own between D13 and
D14). A new ruling of RULES.md is one more here (``tests/engine/test_rulings.py`` checks that every
ruling docs/RULES.md gives a heading is in the list).
"""

from __future__ import annotations

import re

LAST_RULING = 26  # RULES.md "D26 Time called"
LETTERED = ("D13c",)  # rulings numbered with a letter, after the one they belong to

RULINGS: tuple[str, ...] = tuple(
    ruling for n in range(1, LAST_RULING + 1) for ruling in (f"D{n}", *(x for x in LETTERED if x[1:-1] == str(n)))
)
RULING_PATTERN = "^(" + "|".join(re.escape(r) for r in RULINGS) + ")$"  # a cited ruling, exactly
RULING_RANGE = f"D1 … D{LAST_RULING} ({', '.join(LETTERED)} too)"  # how help texts name the list
