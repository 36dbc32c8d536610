"""Results winner first, with the rule of the ruleset (engine/game/score_words.py), as the scrubber's
and the table's narration say them (tui_client/models/narration.py)."""

from __future__ import annotations

from engine.game.rulesets import CLASSIC_2P, UNO_DUO
from engine.game.score_words import result_words, rule_words, totals_words
from tui_client.models.narration import Voice, describe, describe_event, match_result, rules_of_view


def test_the_rule_of_each_ruleset() -> None:
    assert rule_words(UNO_DUO.to_dict()) == "lowest total wins"  # the loser scores; the target loses
    assert rule_words(CLASSIC_2P.to_dict()) == "first to 500 wins"  # the winner scores; the target wins
    assert rule_words({**CLASSIC_2P.to_dict(), "target": 100}) == "first to 100 wins"
    assert rule_words(None) == "" and rule_words({"name": "uno-duo"}) == ""  # not known: no guess


def test_the_winners_total_comes_first() -> None:
    assert totals_words([229, 31], 1) == "31–229"
    assert totals_words([31, 229], 0) == "31–229"
    assert result_words("bob", [229, 31], 1, UNO_DUO.to_dict()) == "bob wins 31–229 (lowest total wins)"
    assert result_words("ann", [512, 340], 0, CLASSIC_2P.to_dict()) == "ann wins 512–340 (first to 500 wins)"
    assert result_words("ann", [150, 40], 0, UNO_DUO.to_dict(), forfeit=True) == "ann wins 150–40 (by forfeit)"


def test_the_narration_says_it_from_each_side() -> None:
    ended = {"winner": 1, "loser": 0, "scores": [202, 67], "rounds": 5}
    rules = UNO_DUO.to_dict()
    scrubber = Voice(None, ["ann", "bob"])
    assert describe("match_ended", ended, scrubber, rules=rules) == (
        "match over: bob wins 67–202 (lowest total wins) after 5 rounds"
    )
    assert match_result(ended, Voice(0, ["ann", "bob"]), rules) == "you lost: bob wins 67–202 (lowest total wins)"
    assert match_result(ended, Voice(1, ["ann", "bob"]), rules) == "you win 67–202 (lowest total wins)"
    classic = {"winner": 0, "loser": 1, "scores": [505, 120], "rounds": 9}
    assert describe("match_ended", classic, scrubber, rules=CLASSIC_2P.to_dict()) == (
        "match over: ann wins 505–120 (first to 500 wins) after 9 rounds"
    )


def test_the_live_log_takes_the_rule_from_the_view() -> None:
    view = {"ruleset": "classic-2p", "target": 500}
    assert rules_of_view(view) == {
        "name": "classic-2p",
        "target": 500,
        "scoring": "winner_scores",
        "draw_two_stacking": False,
    }
    event = {"type": "match_ended", "data": {"winner": 0, "loser": 1, "scores": [510, 90], "rounds": 4}}
    words = describe_event(event, seat=1, names=["ann", "bob"], before=view)
    assert words == "match over: you lost: ann wins 510–90 (first to 500 wins) after 4 rounds"


def test_a_draw_two_drawn_at_once_is_not_called_a_volley() -> None:
    """Without stacking (classic, RULES.md D25) the cards a Draw Two makes a seat draw are the Draw
    Two's; "the volley" is said only where Draw Twos stack (UNO Duo)."""
    drawn = {"seat": 1, "count": 2, "reason": "volley"}
    voice = Voice(0, ["ann", "bob"])
    assert describe("cards_drawn", drawn, voice, rules=CLASSIC_2P.to_dict()) == "bob drew 2 cards (the Draw Two)"
    assert describe("cards_drawn", drawn, voice, rules=UNO_DUO.to_dict()) == "bob drew 2 cards (the volley)"
    live_table = {"ruleset": "classic-2p", "target": 500, "rules": CLASSIC_2P.to_dict()}
    event = {"type": "cards_drawn", "data": drawn}
    assert describe_event(event, seat=0, names=["ann", "bob"], before=live_table) == "bob drew 2 cards (the Draw Two)"
    stacking = {**live_table, "rules": {**CLASSIC_2P.to_dict(), "draw_two_stacking": True}}
    assert describe_event(event, seat=0, names=["ann", "bob"], before=stacking) == "bob drew 2 cards (the volley)"
