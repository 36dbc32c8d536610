"""The greedy bot's heuristic, decision by decision, on hand-made views."""

from __future__ import annotations

import random
from typing import Any

from engine.bots import get_bot
from engine.bots.greedy import GreedyBot
from tests.engine.bots.helpers import craft_view, table_view

RNG = random.Random(0)


def plays(*cards: str) -> list[dict[str, Any]]:
    return [{"type": "play", "card": c} for c in cards]


def test_it_keeps_wilds_for_later() -> None:
    view = craft_view(hand=["W", "R5", "G7", "G8", "B1", "B2"], legal=[*plays("W", "R5"), {"type": "draw"}])
    assert GreedyBot().choose(view, RNG) == {"type": "play", "card": "R5"}


def test_with_only_a_wild_playable_early_it_draws_and_late_it_plays_it() -> None:
    legal = [*plays("W"), {"type": "draw"}]
    early = craft_view(hand=["W", "G7", "G8", "B1", "B2", "Y4"], legal=legal)
    assert GreedyBot().choose(early, RNG) == {"type": "draw"}
    late = craft_view(hand=["W", "G7", "G8"], legal=legal)
    assert GreedyBot().choose(late, RNG) == {"type": "play", "card": "W", "color": "green"}
    empty_pile = craft_view(hand=["W", "G7", "G8", "B1", "B2", "Y4"], legal=legal, draw_pile=0)
    assert GreedyBot().choose(empty_pile, RNG)["card"] == "W"


def test_a_wild_draw_four_only_when_it_is_a_legal_play() -> None:
    legal = [*plays("W+4"), {"type": "draw"}]
    # uno-duo (no_playable): nothing else could be played -> legal, and it plays it
    honest = craft_view(hand=["W+4", "G7", "B8"], legal=legal, top="R3", color="red")
    assert GreedyBot().choose(honest, RNG)["card"] == "W+4"
    # uno-duo: a plain Wild left in hand could have been played -> illegal, so it keeps the W+4
    wild = craft_view(
        hand=["W+4", "W", "G7", "B8", "B9", "Y1"], legal=[*plays("W+4", "W"), {"type": "draw"}], top="R3", color="red"
    )
    assert GreedyBot().choose(wild, RNG) == {"type": "draw"}
    # classic-2p (no_match, D13c): a red card, or a card of the same number, makes it illegal -> no bluff
    bluff = craft_view(ruleset="classic-2p", hand=["W+4", "R7", "B8"], legal=legal, top="R3", color="red")
    assert GreedyBot().choose(bluff, RNG) == {"type": "draw"}
    number = craft_view(ruleset="classic-2p", hand=["W+4", "G3", "B8"], legal=legal, top="R3", color="red")
    assert GreedyBot().choose(number, RNG) == {"type": "draw"}
    # classic-2p: a plain Wild does not match, so W+4 with only a W besides is legal
    classic_wild = craft_view(ruleset="classic-2p", hand=["W+4", "W", "G7", "B8"], legal=legal, top="R3", color="red")
    assert GreedyBot().choose(classic_wild, RNG)["card"] == "W+4"


def test_it_always_says_uno_with_the_play_that_leaves_one_card() -> None:
    view = craft_view(hand=["R5", "G7"], legal=[*plays("R5"), {"type": "draw"}])
    assert GreedyBot().choose(view, RNG) == {"type": "play", "card": "R5", "uno": True}


def test_it_catches_the_opponent_and_declares_its_own_card() -> None:
    catch = craft_view(
        hand=["R5", "G7", "B1"], hand_counts=[3, 1], legal=[*plays("R5"), {"type": "draw"}, {"type": "uno"}]
    )
    assert GreedyBot().choose(catch, RNG) == {"type": "uno"}
    out_of_turn = craft_view(pending={"kind": "turn", "seat": 1}, hand=["R5", "G7"], legal=[{"type": "uno"}])
    assert GreedyBot().choose(out_of_turn, RNG) == {"type": "uno"}


def test_it_volleys_a_draw_two() -> None:
    view = craft_view(
        pending={"kind": "volley", "seat": 0, "total": 2},
        top="R+2",
        hand=["G+2", "B5", "Y1"],
        legal=[*plays("G+2"), {"type": "draw"}],
    )
    assert GreedyBot().choose(view, RNG) == {"type": "play", "card": "G+2"}


def test_it_prefers_a_reverse_that_opens_a_big_dump_and_dumps_ending_on_a_draw_two() -> None:
    hand = ["RR", "R1", "R+2", "RS", "G9", "B9"]
    turn = craft_view(hand=hand, top="R3", legal=[*plays("RR", "R1", "R+2", "RS"), {"type": "draw"}])
    assert GreedyBot().choose(turn, RNG)["card"] == "RR"
    dump = craft_view(
        pending={"kind": "dump", "seat": 0, "color": "red", "starter": False},
        hand=["R1", "R+2", "RS", "G9", "B9"],
        top="RR",
        legal=[{"type": "dump", "cards": ["R1", "R+2", "RS"]}, {"type": "pass"}],
    )
    command = GreedyBot().choose(dump, RNG)
    assert (
        command["type"] == "dump" and command["cards"][-1] == "R+2" and sorted(command["cards"]) == ["R+2", "R1", "RS"]
    )
    assert "uno" not in command


def test_a_dump_that_leaves_one_card_says_uno() -> None:
    dump = craft_view(
        pending={"kind": "dump", "seat": 0, "color": "red", "starter": False},
        hand=["R1", "RS", "G9"],
        top="RR",
        legal=[{"type": "dump", "cards": ["R1", "RS"]}, {"type": "pass"}],
    )
    command = GreedyBot().choose(dump, RNG)
    assert command == {"type": "dump", "cards": ["R1", "RS"], "uno": True}


def facing_wild_draw_four(opponent_cards: int, **extra: Any) -> dict[str, Any]:
    return craft_view(
        pending={"kind": "wild_draw_four", "seat": 0, "played_by": 1},
        top="W+4",
        color="blue",
        hand=["R1", "G2", "Y3"],
        hand_counts=[3, opponent_cards],
        legal=[{"type": "accept"}, {"type": "challenge"}],
        **extra,
    )


def test_it_challenges_when_the_odds_favour_it() -> None:
    assert GreedyBot().choose(facing_wild_draw_four(6), RNG) == {"type": "challenge"}
    assert GreedyBot().choose(facing_wild_draw_four(1), RNG) == {"type": "accept"}  # 1 card: unlikely
    assert GreedyBot().choose(facing_wild_draw_four(0), RNG) == {"type": "accept"}  # D15: must fail


def test_it_learns_from_the_verdicts_of_its_own_challenges() -> None:
    bot = GreedyBot()
    failed = {"by": 0, "player": 1, "verdict": "legal", "hand": ["G1"], "evidence": {}}
    assert bot.choose(facing_wild_draw_four(4), RNG) == {"type": "challenge"}
    challenges = 1
    for _ in range(10):
        # its next view shows the verdict of the challenge it just made
        bot.choose(craft_view(hand=["R5", "G7", "B1"], legal=[{"type": "draw"}], last_challenge=failed), RNG)
        if bot.choose(facing_wild_draw_four(4, last_challenge=failed), RNG) == {"type": "accept"}:
            break
        challenges += 1
    else:
        raise AssertionError("it never stopped challenging an opponent whose plays were always legal")
    assert 2 <= challenges <= 4
    upheld = {"by": 0, "player": 1, "verdict": "illegal", "hand": ["G1", "B4"], "evidence": {}}
    bluffed = GreedyBot()
    for _ in range(5):
        assert bluffed.choose(facing_wild_draw_four(2), RNG) == {"type": "challenge"}
        bluffed.choose(craft_view(hand=["R5"], legal=[{"type": "draw"}], last_challenge=upheld), RNG)
    # an opponent caught bluffing five times: even its single-card Wild Draw Four is challenged
    assert bluffed.choose(facing_wild_draw_four(1), RNG) == {"type": "challenge"}
    # ...while a bot from the registry starts each match knowing nothing of this opponent
    assert get_bot("greedy").choose(facing_wild_draw_four(1), RNG) == {"type": "accept"}


def test_wild_colours_and_the_starter_colour_are_the_colour_it_holds_most() -> None:
    view = craft_view(
        pending={"kind": "color", "seat": 0, "starter": "W"},
        top="W",
        color=None,
        hand=["B1", "B2", "G3", "W"],
        legal=[{"type": "color"}],
    )
    assert GreedyBot().choose(view, RNG) == {"type": "color", "color": "blue"}


def test_draft_keeps_wilds_actions_and_colours_it_holds() -> None:
    def draft(card: str, hand: list[str]) -> dict[str, Any]:
        return craft_view(
            phase="draft",
            pending={"kind": "draft", "seat": 0, "step": 3, "card": card},
            hand=hand,
            legal=[{"type": "draft", "keep": True}, {"type": "draft", "keep": False}],
        )

    assert GreedyBot().choose(draft("W+4", []), RNG) == {"type": "draft", "keep": True}
    assert GreedyBot().choose(draft("YS", ["R1"]), RNG) == {"type": "draft", "keep": True}
    assert GreedyBot().choose(draft("Y7", ["Y1"]), RNG) == {"type": "draft", "keep": True}
    assert GreedyBot().choose(draft("Y7", ["R1"]), RNG) == {"type": "draft", "keep": False}


def test_a_drawn_card_is_played_when_it_may_be() -> None:
    view = craft_view(
        pending={"kind": "drawn", "seat": 0, "card": "R9"},
        hand=["R9", "G1", "B2", "Y3", "Y4"],
        legal=[*plays("R9"), {"type": "pass"}],
    )
    assert GreedyBot().choose(view, RNG) == {"type": "play", "card": "R9"}


# ---------------------------------------------------------------- tables of more than two (classic)


def test_at_a_table_it_plays_its_wild_when_any_other_seat_is_close_to_going_out() -> None:
    hand = ["W", "G7", "G8", "B1", "B2", "Y4"]
    legal = [*plays("W"), {"type": "draw"}]
    assert GreedyBot().choose(table_view([6, 7, 7, 7], hand=hand, legal=legal), RNG) == {"type": "draw"}
    late = GreedyBot().choose(table_view([6, 7, 3, 7], hand=hand, legal=legal), RNG)
    assert late["card"] == "W"  # seat 2, not the next seat, holds 3 cards


def test_at_a_table_it_challenges_by_the_hand_of_the_seat_that_played_the_wild_draw_four() -> None:
    def facing(played_by: int) -> dict[str, Any]:
        return table_view(
            [1, 6, 3, 1],
            viewer=2,
            pending={"kind": "wild_draw_four", "seat": 2, "played_by": played_by},
            top="W+4",
            color="blue",
            hand=["R1", "G2", "Y3"],
            legal=[{"type": "accept"}, {"type": "challenge"}],
        )

    assert GreedyBot().choose(facing(1), RNG) == {"type": "challenge"}  # six cards held: likely a bluff
    assert GreedyBot().choose(facing(3), RNG) == {"type": "accept"}  # one card held: unlikely


def test_at_a_table_a_reverse_turns_the_play_away_from_the_shorter_next_hand() -> None:
    """Seat 1 holds 5 cards, seat 3 holds 7: clockwise the Reverse hands the turn to seat 3 instead
    of seat 1 and beats the Skip; counter-clockwise it would hand it to seat 1, so the Skip wins."""
    hand = ["RR", "RS", "G1", "B2"]
    legal = [*plays("RR", "RS"), {"type": "draw"}]
    clockwise = table_view([4, 5, 6, 7], hand=hand, top="R3", legal=legal)
    assert GreedyBot().choose(clockwise, RNG)["card"] == "RR"
    counter = table_view([4, 5, 6, 7], direction=-1, hand=hand, top="R3", legal=legal)
    assert GreedyBot().choose(counter, RNG)["card"] == "RS"


def test_at_a_table_it_catches_any_other_seat_and_says_its_own_uno() -> None:
    catch = table_view(
        [3, 5, 1, 6], hand=["R5", "G7", "B1"], legal=[{"type": "uno"}], pending={"kind": "turn", "seat": 3}
    )
    assert GreedyBot().choose(catch, RNG) == {"type": "uno"}
    out = table_view([2, 5, 4, 6], hand=["R5", "G7"], top="R3", legal=[*plays("R5"), {"type": "draw"}])
    assert GreedyBot().choose(out, RNG) == {"type": "play", "card": "R5", "uno": True}


def test_a_classic_table_of_two_decides_as_classic_2p() -> None:
    """At two seats a classic Reverse acts as a Skip (D20): the same choices as classic-2p's go-again Reverse."""
    hands = [["RR", "R9", "G1"], ["RR", "R+2", "RS", "B2"], ["R1", "RR", "W"], ["RS", "RR", "G2", "G3"]]
    for hand in hands:
        legal = [*plays(*(c for c in hand if c.startswith("R") or c.startswith("W"))), {"type": "draw"}]
        two = GreedyBot().choose(table_view([len(hand), 3], hand=hand, top="R3", legal=legal), RNG)
        classic_2p = GreedyBot().choose(
            craft_view(ruleset="classic-2p", hand=hand, hand_counts=[len(hand), 3], top="R3", legal=legal), RNG
        )
        assert two == classic_2p, hand
