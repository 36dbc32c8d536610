"""A match's result in words, winner first and with the rule that made it (docs/RULES.md D16).

``bob wins 31–229 (lowest total wins)`` under uno-duo, where the loser of each round scores
and reaching the target loses; ``ann wins 512–340 (first to 500 wins)`` under classic, where
the winner scores and reaching the target wins. A match ended by a forfeit says so instead of
the rule: its totals did not decide it. Without the ruleset, no rule is said (never a guess). The one wording for ``unoduo audit``, the scrubber and
the terminal client's narration (which passes its own names: "you").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["result_words", "rule_words", "totals_words"]

LOSER_SCORES = "loser_scores"


def rule_words(ruleset: Mapping[str, Any] | None) -> str:
    """How a match under ``ruleset`` (its dict) is won: ``lowest total wins`` or ``first to 500
    wins``; "" when the ruleset (or its scoring) is not known, rather than a guess."""
    rules = ruleset or {}
    scoring = rules.get("scoring")
    if scoring is None:
        return ""
    if scoring == LOSER_SCORES:
        return "lowest total wins"
    return f"first to {rules.get('target')} wins"


def totals_words(scores: Sequence[int], winner: int) -> str:
    """``31–229``: the winner's total first."""
    if winner not in (0, 1) or len(scores) < 2:
        return "–".join(str(s) for s in scores)
    return f"{scores[winner]}–{scores[1 - winner]}"


def result_words(
    winner_name: str,
    scores: Sequence[int],
    winner: int,
    ruleset: Mapping[str, Any] | None,
    *,
    verb: str = "wins",
    forfeit: bool = False,
) -> str:
    """``bob wins 31–229 (lowest total wins)``; ``by forfeit`` in place of the rule after a forfeit.
    ``verb``: ``win`` for "you"."""
    why = "by forfeit" if forfeit else rule_words(ruleset)
    return f"{winner_name} {verb} {totals_words(scores, winner)}" + (f" ({why})" if why else "")
