"""The table's small truths (issue 33.7): ``N playable`` counts every copy the hand marks, and
under a round limit the table says what ends the match (``round 3 of 4``, ``first to 500 or
after round 4``), read from the view's own ruleset."""

from __future__ import annotations

import dataclasses
import hashlib

from engine.game.rulesets import CLASSIC, CLASSIC_2P, UNO_DUO
from engine.play.match import LocalMatch
from engine.protocol.views import view
from tui_client.models.play_model import PlayModel, prompt_words
from tui_client.widgets.play_widgets import goal_words, round_words, table_text, title_text

SEED = hashlib.sha256(b"unoduo-table-truths").digest()


def test_copies_of_a_playable_card_are_each_counted() -> None:
    seen = {
        "phase": "playing",
        "hand": ["R5", "R5", "G5", "B7", "W"],
        "pending": {"seat": 0, "kind": "turn"},
        "legal": [
            {"type": "play", "card": "R5"},  # listed once, held twice
            {"type": "play", "card": "G5"},
            {"type": "play", "card": "W"},
            {"type": "draw"},
        ],
    }
    words = prompt_words(seen, 0, ["ann", "bob"])
    assert "4 playable" in words, words


def test_a_round_limit_is_said_where_the_target_was() -> None:
    classic = {"rules": {"scoring": "winner_scores", "round_limit": 4}, "target": 500}
    assert round_words({**classic, "round": 3}) == "round 3 of 4"
    assert round_words({**classic, "round": 5}) == "round 5 (tied after 4)"
    assert goal_words(classic) == "first to 500 or after round 4"
    duo = {"rules": {"scoring": "loser_scores", "round_limit": 2}, "target": 200}
    assert goal_words(duo) == "target 200 or after round 2"
    plain = {"rules": {"scoring": "winner_scores"}, "target": 500, "round": 3}
    assert (round_words(plain), goal_words(plain)) == ("round 3", "target 500")


def test_the_table_reads_the_limit_from_the_engines_view() -> None:
    for ruleset, seats in ((CLASSIC, 4), (CLASSIC_2P, 2), (UNO_DUO, 2)):
        limited = dataclasses.replace(ruleset, round_limit=4)
        entropies = tuple(f"p{seat}" for seat in range(seats))
        match = LocalMatch.start(SEED, limited, entropies=entropies, seats=seats if seats > 2 else None)
        model = PlayModel("m_x", 0, [f"p{seat}" for seat in range(seats)])
        model.view = view(match.state, 0)
        table = table_text(model).plain
        first = "first to 500" if ruleset.target == 500 else "target 200"
        assert f"{first} or after round 4" in table, table
        if seats > 2:
            assert "round 1 of 4" in title_text(model).plain
        else:
            assert "round 1 of 4" in table
