"""Self-play: deterministic from (seed, match index), seats swap (at a table, entrants move one
seat a match), a match nobody plays in still ends (D17, D24 blocked rounds), any other seat
catches an open UNO window (D22), a runaway match is stopped, over 1,000 matches greedy beats
random in at least 70%, and at a table of four greedy beats three random bots."""

from __future__ import annotations

import multiprocessing
import random
import time
from typing import Any

import pytest

import engine.play.selfplay as selfplay
from engine import CLASSIC_2P, UNO_DUO
from engine.game.cards import parse_card
from engine.game.rulesets import CLASSIC, Ruleset
from engine.play.selfplay import MatchResult, MatchStuck, match_seed, play_match
from engine.play.tally import Tally, summarize, wilson_interval
from tests.engine.playing import short

SEED = 2026  # the fixed seed of the README figure (`unoduo simulate -n 1000 --seed 2026`)


def test_the_same_seed_and_index_give_the_same_match() -> None:
    a = play_match(["greedy", "random"], UNO_DUO, 5, 3)
    b = play_match(["bot:greedy", "random"], UNO_DUO, 5, 3)
    assert a == b and a.events == b.events
    c = play_match(["greedy", "random"], UNO_DUO, 5, 4)
    assert c.server_seed != a.server_seed and c.events != a.events
    assert match_seed(5, 3) == a.server_seed and len(a.server_seed) == 32


def test_entrants_swap_seats_every_match() -> None:
    even = play_match(["greedy", "random"], CLASSIC_2P, 1, 0)
    odd = play_match(["greedy", "random"], CLASSIC_2P, 1, 1)
    assert even.bots == ("greedy", "random") and even.entrants == (0, 1)
    assert odd.bots == ("random", "greedy") and odd.entrants == (1, 0)
    assert odd.players == ("bot:random", "bot:greedy")


def test_results_count_what_the_log_shows() -> None:
    result = play_match(["greedy", "random"], UNO_DUO, 9, 2)
    types = [e.type for e in result.events]
    assert result.rounds == types.count("round_ended")
    assert result.actions == types.count("command")
    assert sum(result.challenges) == types.count("challenge_resolved")
    assert sum(result.catches) == types.count("uno_caught")
    ended = result.events[-2]
    assert ended.type == "match_ended" and ended.data["winner"] == result.winner
    assert result.without_events().events == ()


class Drawer:
    """Never plays: draws, keeps, accepts. Two of them hold every card and can only draw nothing."""

    name = "drawer"

    def choose(self, view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
        for wanted in ({"type": "draft", "keep": True}, {"type": "draw"}, {"type": "pass"}, {"type": "accept"}):
            if wanted in view["legal"]:
                return wanted
        if {"type": "color"} in view["legal"]:
            return {"type": "color", "color": "red"}
        return dict(view["legal"][0])


def _points(ruleset: Ruleset, hand: list[str]) -> int:
    return sum(ruleset.points(parse_card(code)) for code in hand)


@pytest.mark.parametrize("ruleset", [UNO_DUO, CLASSIC_2P], ids=lambda r: r.name)
@pytest.mark.parametrize("index", [0, 1, 2])
def test_a_match_in_which_nobody_ever_plays_ends_with_blocked_rounds(
    monkeypatch: pytest.MonkeyPatch, ruleset: Ruleset, index: int
) -> None:
    """Two bots that only draw: once every card is held, two empty draws in a row end each
    round (D17), the lower hand winning, so the match finishes instead of looping for ever."""
    monkeypatch.setattr(selfplay, "get_bot", lambda name: Drawer())
    monkeypatch.setattr(selfplay, "normalize_bot_name", lambda name: name)
    result = play_match(["drawer", "drawer"], ruleset, 1, index)
    events = result.events
    types = [e.type for e in events]
    assert "card_played" not in types
    assert types[-2:] == ["match_ended", "seed_revealed"]
    ends = [i for i, t in enumerate(types) if t == "round_ended"]
    assert len(ends) == result.rounds >= 1
    scores = [0, 0]
    for end in ends:
        data = events[end].data
        assert data["blocked"] is True
        # the two draws just before: each seat's own draw, one after the other, receiving nothing
        lapses = [e.data for e in events[:end] if e.type in ("draw_lapsed", "cards_drawn")][-2:]
        assert [d.get("received") for d in lapses] == [0, 0]
        assert {d["seat"] for d in lapses} == {0, 1}
        assert all(d["reason"] in ("draw", "volley") for d in lapses)
        points = [_points(ruleset, hand) for hand in data["hands"]]
        if points[0] == points[1]:
            assert (data["winner"], data["loser"], data["points"]) == (None, None, 0)
            continue
        winner = 0 if points[0] < points[1] else 1
        assert (data["winner"], data["loser"], data["points"]) == (winner, 1 - winner, points[1 - winner])
        scorer = 1 - winner if ruleset.name == "uno-duo" else winner
        scores[scorer] += points[1 - winner]
        assert data["scores"] == scores
    assert list(result.scores) == scores


@pytest.mark.parametrize("seats", [3, 4, 7])
def test_at_a_table_a_match_in_which_nobody_ever_plays_ends_with_blocked_rounds(
    monkeypatch: pytest.MonkeyPatch, seats: int
) -> None:
    """D24: once every seat in turn has drawn nothing the round ends; the lowest hand scores the
    others' hands, and nobody scores when the lowest value is shared."""
    monkeypatch.setattr(selfplay, "get_bot", lambda name: Drawer())
    monkeypatch.setattr(selfplay, "normalize_bot_name", lambda name: name)
    result = play_match(["drawer"] * seats, CLASSIC, 2, 0)
    types = [e.type for e in result.events]
    assert "card_played" not in types and types[-2:] == ["match_ended", "seed_revealed"]
    scores = [0] * seats
    for end in (i for i, t in enumerate(types) if t == "round_ended"):
        data = result.events[end].data
        assert data["blocked"] is True and data["loser"] is None
        lapses = [e.data for e in result.events[:end] if e.type in ("draw_lapsed", "cards_drawn")][-seats:]
        assert [d.get("received") for d in lapses] == [0] * seats
        assert {d["seat"] for d in lapses} == set(range(seats))  # every seat, one after the other
        points = [_points(CLASSIC, hand) for hand in data["hands"]]
        lowest = [seat for seat, p in enumerate(points) if p == min(points)]
        if len(lowest) > 1:
            assert (data["winner"], data["points"]) == (None, 0)
        else:
            assert data["winner"] == lowest[0] and data["points"] == sum(points) - points[lowest[0]]
            scores[lowest[0]] += data["points"]
        assert data["scores"] == scores
    assert list(result.scores) == scores


def test_at_a_table_the_entrants_move_one_seat_every_match() -> None:
    bots = ["greedy", "random", "random", "random"]
    seen = [play_match(bots, CLASSIC, 3, index) for index in range(4)]
    assert [r.entrants for r in seen] == [(0, 1, 2, 3), (1, 2, 3, 0), (2, 3, 0, 1), (3, 0, 1, 2)]
    assert [r.bots.index("greedy") for r in seen] == [0, 3, 2, 1]  # greedy sat in every seat once
    assert all(r.seats == 4 and len(r.scores) == len(r.catches) == 4 for r in seen)
    assert seen[1].players == ("bot:random", "bot:random", "bot:random", "bot:greedy")
    assert seen[0].events[0].data["seats"] == 4


def test_at_a_table_every_other_seat_catches_open_uno_windows() -> None:
    """D22: the referee lets any other seat speak while a window is open, not only the next one."""
    catchers: set[int] = set()
    for index in range(6):
        result = play_match(["random"] * 5, short(CLASSIC, 100), 8, index)
        for event in result.events:
            if event.type == "uno_caught":
                catchers.add((event.data["by"] - event.data["seat"]) % 5)
    assert catchers == {1, 2, 3, 4}


@pytest.mark.parametrize("ruleset", [UNO_DUO, CLASSIC_2P], ids=lambda r: r.name)
def test_a_two_seat_ruleset_takes_two_bots_only(ruleset: Ruleset) -> None:
    with pytest.raises(ValueError, match="seats 2 to 2 bots, not 3"):
        play_match(["greedy", "random", "random"], ruleset, 1, 0)
    with pytest.raises(ValueError, match="seats 2 to 10 bots, not 11"):
        play_match(["random"] * 11, CLASSIC, 1, 0)


def test_a_match_that_runs_past_its_action_bound_is_stopped() -> None:
    with pytest.raises(MatchStuck, match="did not finish within 40 actions"):
        play_match(["greedy", "random"], UNO_DUO, 1, 0, max_actions=40)


def test_wilson_interval() -> None:
    low, high = wilson_interval(700, 1000)
    assert 0.670 < low < 0.672 and 0.727 < high < 0.729
    assert wilson_interval(0, 10)[0] == 0.0 and wilson_interval(10, 10)[1] == pytest.approx(1.0)
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_a_summary_adds_up_per_entrant_whatever_the_seat() -> None:
    results = [play_match(["greedy", "random"], UNO_DUO, 4, i) for i in range(4)]
    summary = summarize(results, ["greedy", "random"], "uno-duo", 4)
    assert summary.matches == 4
    assert sum(e.wins for e in summary.entrants) == 4
    assert summary.rounds == sum(r.rounds for r in results)
    greedy_catches = sum(r.catches[r.entrants.index(0)] for r in results)
    assert summary.entrants[0].catches == greedy_catches and summary.entrants[0].bot == "greedy"
    assert summary.mean_actions_per_round == summary.actions / summary.rounds


def _counts(index: int) -> MatchResult:
    return play_match(["greedy", "random"], UNO_DUO, SEED, index).without_events()


@pytest.mark.slow
def test_greedy_beats_random_in_at_least_70_percent_of_1000_matches() -> None:
    started = time.perf_counter()
    context = multiprocessing.get_context("fork")
    with context.Pool(2) as pool:
        results = pool.map(_counts, range(1000), chunksize=25)
    tally = Tally(["greedy", "random"], "uno-duo", SEED)
    for result in results:
        tally.add(result)
    summary = tally.summary()
    rate = summary.win_rate(0)
    print(f"greedy won {summary.entrants[0].wins}/1000 ({rate:.1%}) in {time.perf_counter() - started:.1f} s")
    assert summary.matches == 1000
    assert rate >= 0.70
    assert summary.win_interval(0)[0] >= 0.70  # and not by luck: the whole 95% interval clears it


@pytest.mark.slow
def test_at_a_table_of_four_greedy_beats_three_random_bots_far_above_the_chance_of_one_in_four() -> None:
    """docs/BENCHMARKS.md: over 1,000 matches (seed 2026) greedy won every one, 95% interval
    99.6-100%. Here 200 matches of another seed, against a bound far below that: at least 80%,
    and the 95% interval's low end above one in two (chance at a table of four: 25%)."""
    bots = ["greedy", "random", "random", "random"]
    tally = Tally(bots, "classic", 21)
    for index in range(200):
        tally.add(play_match(bots, CLASSIC, 21, index).without_events())
    summary = tally.summary()
    assert summary.matches == 200 and sum(e.wins for e in summary.entrants) == 200
    assert summary.win_rate(0) >= 0.80
    assert summary.win_interval(0)[0] >= 0.50
