"""Holdout-style black-box tests of classic UNO at 2–10 seats (docs/RULES.md D18–D24).

Every ``docs/scenarios/d18_*`` … ``d24_*`` file is run through the ``unoduo scenario`` command and
only its JSON output is read. The outcome is checked against the rulings as they are written out
here, from the rulebook, and not against the file's own ``expect`` (tests/engine/test_docs_scenarios.py
checks that): who deals and who moves first (D18, D19), where the turn goes after each action
card (D20), what a draw takes (D21), who may catch a forgotten UNO (D22), what a round winner
scores and who places where (D23), and who wins a blocked round (D24). The ``classic`` table of two
is checked against ``classic-2p``: the same scripts give the same answers, card for card.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import random
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from cli.main import app
from tests.server.helpers import shedding

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ROOT / "docs" / "scenarios"
TABLE_FILES = sorted(p for p in SCENARIOS.glob("d*_*.json") if 18 <= int(p.name[1:3]) <= 24)
CLASSIC_2P_FILES = sorted(
    p for p in SCENARIOS.glob("*.json") if json.loads(p.read_text()).get("ruleset") == "classic-2p"
)
runner = CliRunner()

Output = dict[str, Any]


def spec_of(path: Path) -> dict[str, Any]:
    spec = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(spec, dict)
    return spec


def run_command(spec: Mapping[str, Any], tmp_path: Path, name: str = "scenario.json") -> Output:
    """``unoduo scenario FILE``: its exit status must be 0 and its stdout one JSON object."""
    path = tmp_path / name
    path.write_text(json.dumps(spec), encoding="utf-8")
    result = runner.invoke(app, ["scenario", str(path)])
    assert result.exit_code == 0, result.output
    output = json.loads(result.stdout)
    assert isinstance(output, dict)
    return output


@pytest.fixture(scope="module")
def outputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[dict[str, Any], Output]]:
    """Every table scenario's spec and the command's answer, by file name."""
    tmp = tmp_path_factory.mktemp("table")
    return {path.name: (spec_of(path), run_command(spec_of(path), tmp, path.name)) for path in TABLE_FILES}


# ---------------------------------------------------------------- reading the answer


def value(code: str) -> int:
    """D23's points of a card: number = face value, Skip / Reverse / Draw Two 20, wilds 50."""
    if code in ("W", "W+4"):
        return 50
    rank = code[1:]
    return int(rank) if rank.isdigit() else 20


COLOURS = {"R": "red", "Y": "yellow", "G": "green", "B": "blue"}


def matches(code: str, top: str, color: str | None) -> bool:
    """A non-wild card plays on ``top`` in ``color`` when its colour or its rank is the top's."""
    return COLOURS[code[0]] == color or code[1:] == top[1:]


@dataclass
class Step:
    """One accepted command (or the setup, ``index`` -1) and the events it gave."""

    index: int
    seat: int | None
    command: dict[str, Any] | None
    events: list[dict[str, Any]]


def steps(spec: Mapping[str, Any], output: Output) -> Iterator[Step]:
    yield Step(-1, None, None, output["setup"])
    for index, ((seat, command), result) in enumerate(zip(spec["commands"], output["results"], strict=True)):
        if result["ok"]:
            yield Step(index, seat, command, result["events"])


def every_event(spec: Mapping[str, Any], output: Output) -> list[dict[str, Any]]:
    return [event for step in steps(spec, output) for event in step.events]


def seats_of(spec: Mapping[str, Any]) -> int:
    return int(spec.get("seats", 2))


@dataclass
class Table:
    """What the test follows itself through the events: the top, the colour, the direction."""

    seats: int
    top: str = ""
    color: str | None = None
    direction: int = 1
    dealer: int = 0
    hands: dict[int, Counter[str]] = field(default_factory=dict)

    def next(self, seat: int, steps_: int = 1) -> int:
        return (seat + steps_ * self.direction) % self.seats

    def see(self, event: Mapping[str, Any]) -> None:
        data = event["data"]
        kind = event["type"]
        if kind == "round_started":
            self.dealer, self.direction = data["player1"], 1
        elif kind == "cards_dealt":
            self.hands = {s: Counter(data.get(f"hand{s}", [])) for s in range(self.seats)}
        elif kind == "starter_turned":
            self.top = data["code"]
            self.color = COLOURS.get(data["code"][0]) if data["code"][0] in COLOURS else None
            if data["code"][1:] == "R" and self.seats > 2:
                self.direction = -1
        elif kind == "card_played":
            self.top, self.color = data["code"], data["color"]
            self.hands[data["seat"]][data["code"]] -= 1
            if data["code"][1:] == "R" and self.seats > 2:
                self.direction = -self.direction
        elif kind == "cards_drawn":
            self.hands[data["seat"]].update(data["codes"])


# ---------------------------------------------------------------- the files are there


RULINGS = [f"D{n}" for n in range(18, 25)]


def test_every_new_ruling_and_switch_has_a_table_scenario() -> None:
    by_ruling = {ruling: [p for p in TABLE_FILES if p.name.startswith(f"d{ruling[1:]}_")] for ruling in RULINGS}
    assert all(by_ruling.values()), {r: len(f) for r, f in by_ruling.items()}
    specs = [spec_of(p) for p in TABLE_FILES]
    assert all(s["ruleset"] == "classic" and "seats" in s and "dealer" in s for s in specs)
    assert {seats_of(s) for s in specs} >= {2, 3, 4, 5}
    big = [s for s in specs if seats_of(s) >= 3]
    switches = [s.get("rules", {}) for s in big]
    assert {"draw_two_stacking": True} in switches
    assert {"wd4_check": "challenge"} in switches
    assert {"draw": "until_playable"} in switches


def test_the_command_runs_as_a_program(tmp_path: Path) -> None:
    """The same answer from ``unoduo scenario`` run as its own process, as a club would run it."""
    path = SCENARIOS / "d22_catch_by_any_seat.json"
    done = subprocess.run(
        [sys.executable, "-c", "from cli.main import app; app()", "scenario", str(path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["results"] == run_command(spec_of(path), tmp_path)["results"]


# ---------------------------------------------------------------- D18 the deal, D19 the starter


@pytest.mark.parametrize("path", TABLE_FILES, ids=lambda p: p.name)
def test_d18_the_dealer_deals_from_the_left_one_card_at_a_time(
    path: Path, outputs: dict[str, tuple[dict[str, Any], Output]]
) -> None:
    spec, output = outputs[path.name]
    seats, dealer = seats_of(spec), spec["dealer"]
    hand_size = spec.get("rules", {}).get("hand_size", 7)
    deck = spec["decks"][0]
    started = next(e for e in output["setup"] if e["type"] == "round_started")
    assert started["data"]["round"] == 1 and started["data"]["player1"] == dealer
    dealt = next(e for e in output["setup"] if e["type"] == "cards_dealt")["data"]
    for seat in range(seats):
        mine = [deck[i] for i in range(hand_size * seats) if (dealer + 1 + i) % seats == seat]
        assert sorted(dealt[f"hand{seat}"]) == sorted(mine), f"seat {seat}"
    assert dealt["counts"] == [hand_size] * seats
    starter = next(e for e in output["setup"] if e["type"] == "starter_turned")["data"]["code"]
    assert starter == deck[hand_size * seats]
    for view in output["views"]:  # each seat's view says the table's size and this round's dealer
        assert view["seats"] == seats and view["player1"] == view["dealer"]


@pytest.mark.parametrize("path", TABLE_FILES, ids=lambda p: p.name)
def test_d19_the_starter_decides_who_moves_first(path: Path, outputs: dict[str, tuple[dict[str, Any], Output]]) -> None:
    spec, output = outputs[path.name]
    seats, dealer = seats_of(spec), spec["dealer"]
    setup = output["setup"]
    turned = next(i for i, e in enumerate(setup) if e["type"] == "starter_turned")
    starter, after = setup[turned]["data"]["code"], setup[turned + 1 :]
    left = (dealer + 1) % seats
    if starter in ("W", "W+4"):  # dealt again from a fresh shuffle
        assert any(e["type"] == "round_started" and e["data"]["restart"] == 1 for e in after)
        return
    awaiting = next(e["data"] for e in after if e["type"] == "awaiting")
    if starter.endswith("+2"):
        drawn = next(e["data"] for e in after if e["type"] == "cards_drawn")
        assert (drawn["seat"], drawn["count"]) == (left, 2)
        assert awaiting["seat"] == (left + 1) % seats
    elif starter.endswith("S"):
        assert awaiting["seat"] == (left + 1) % seats
    elif starter.endswith("R") and seats > 2:
        assert awaiting["seat"] == dealer  # the direction turns: the dealer moves first
    else:
        assert awaiting["seat"] == left
    assert awaiting["kind"] == "turn"


def test_d18_the_deal_passes_to_the_next_seat_clockwise(outputs: dict[str, tuple[dict[str, Any], Output]]) -> None:
    spec, output = outputs["d18_deal_passes_left.json"]
    seats = seats_of(spec)
    starts = [
        e["data"] for e in every_event(spec, output) if e["type"] == "round_started" and e["data"]["restart"] == 0
    ]
    assert len(starts) >= 3
    for earlier, later in itertools.pairwise(starts):
        assert later["player1"] == (earlier["player1"] + 1) % seats


# ---------------------------------------------------------------- D18, D20: where the turn goes


@pytest.mark.parametrize("path", TABLE_FILES, ids=lambda p: p.name)
def test_d20_the_turn_goes_round_in_the_direction(
    path: Path, outputs: dict[str, tuple[dict[str, Any], Output]]
) -> None:
    """After a play that does not end the round, the next decision is the next player's: one
    seat on in the direction; two after a Skip (or a Draw Two or Wild Draw Four without a
    stack or a challenge, whose victim draws and loses the turn); a Reverse turns the direction
    first, and at two seats the player moves again."""
    spec, output = outputs[path.name]
    seats = seats_of(spec)
    rules = spec.get("rules", {})
    table = Table(seats)
    checked = 0
    for step in steps(spec, output):
        played = [e["data"] for e in step.events if e["type"] == "card_played"]
        for event in step.events:
            table.see(event)
        awaiting = [e["data"] for e in step.events if e["type"] == "awaiting"]
        if not played or not awaiting or any(e["type"] == "round_ended" for e in step.events):
            continue
        seat, rank = played[-1]["seat"], played[-1]["code"][1:]
        if rank == "+2" and rules.get("draw_two_stacking"):
            expected, kinds = table.next(seat), {"volley"}
        elif rank == "+4" and rules.get("wd4_check") == "challenge":
            expected, kinds = table.next(seat), {"wild_draw_four"}
        elif rank in ("S", "+2", "+4"):
            expected, kinds = table.next(seat, 2), {"turn"}
        elif rank == "R" and seats == 2:
            expected, kinds = seat, {"turn"}
        else:
            expected, kinds = table.next(seat), {"turn"}
        last = awaiting[-1]
        if rank == "+2" and last["kind"] == "volley" and not rules.get("draw_two_stacking"):
            # the victim is asked to take its two cards (as classic-2p asks): it may only draw
            assert last["seat"] == table.next(seat) and last["total"] == 2
            continue
        assert (last["seat"], last["kind"] in kinds) == (expected, True), f"command {step.index}: {played[-1]}"
        checked += 1
    TURNS_CHECKED[path.name] = checked


TURNS_CHECKED: dict[str, int] = {}


def test_the_turn_model_checked_plays_of_every_kind(outputs: dict[str, tuple[dict[str, Any], Output]]) -> None:
    for path in TABLE_FILES:
        test_d20_the_turn_goes_round_in_the_direction(path, outputs)
    assert sum(TURNS_CHECKED.values()) >= 25
    assert all(TURNS_CHECKED[f"d20_{name}.json"] for name in ("skip", "reverse", "reverse_two_seats", "wild"))


def test_d20_a_draw_two_without_stacking_costs_the_next_player_two_cards_and_the_turn(
    outputs: dict[str, tuple[dict[str, Any], Output]],
) -> None:
    spec, output = outputs["d20_draw_two.json"]
    seats = seats_of(spec)
    events = every_event(spec, output)
    played = next(i for i, e in enumerate(events) if e["type"] == "card_played" and e["data"]["code"].endswith("+2"))
    player = events[played]["data"]["seat"]
    victim, after = (player + 1) % seats, (player + 2) % seats
    later = events[played + 1 :]
    drawn = next(e["data"] for e in later if e["type"] == "cards_drawn")
    assert (drawn["seat"], drawn["count"]) == (victim, 2)
    turn = next(e["data"] for e in later if e["type"] == "awaiting" and e["data"]["kind"] == "turn")
    assert turn["seat"] == after
    stacked = [
        r
        for (seat, c), r in zip(spec["commands"], output["results"], strict=True)
        if seat == victim and c["type"] == "play" and c["card"].endswith("+2")
    ]
    assert stacked and not any(r["ok"] for r in stacked)  # its own Draw Two was not stacked on it
    assert not any(e["type"] == "card_played" and e["data"]["seat"] == victim for e in later)


def test_d20_draw_two_stacking_passes_the_total_on_in_the_direction(
    outputs: dict[str, tuple[dict[str, Any], Output]],
) -> None:
    spec, output = outputs["d20_draw_two_stacking.json"]
    seats = seats_of(spec)
    events = every_event(spec, output)
    twos = [e["data"]["seat"] for e in events if e["type"] == "card_played" and e["data"]["code"].endswith("+2")]
    assert len(twos) >= 2 and all(b == (a + 1) % seats for a, b in itertools.pairwise(twos))
    drawn = next(e["data"] for e in events if e["type"] == "cards_drawn" and e["data"]["reason"] != "deal")
    assert drawn["seat"] == (twos[-1] + 1) % seats and drawn["count"] == 2 * len(twos)
    last_turn = [e["data"] for e in events if e["type"] == "awaiting"][-1]
    assert last_turn == {**last_turn, "seat": (drawn["seat"] + 1) % seats, "kind": "turn"}


# ---------------------------------------------------------------- D20 the Wild Draw Four


def _hand_matches(hand: Sequence[str], top: str, color: str | None) -> list[str]:
    """D13c (no_match): the cards other than wilds that match the top's colour, number or symbol."""
    return [c for c in hand if c not in ("W", "W+4") and matches(c, top, color)]


@pytest.mark.parametrize("path", TABLE_FILES, ids=lambda p: p.name)
def test_d20_a_wild_draw_four_is_judged_on_the_hand_it_left(
    path: Path, outputs: dict[str, tuple[dict[str, Any], Output]]
) -> None:
    """Enforced: refused while the hand holds a matching card, else the next player draws 4.
    Challenged: only the next player may challenge; illegal, the player draws 4 and the
    challenger plays; legal, the challenger draws 6 and loses the turn; the challenged hand is
    shown to the challenger alone (and the auditor)."""
    spec, output = outputs[path.name]
    seats = seats_of(spec)
    challenge = spec.get("rules", {}).get("wd4_check") == "challenge"
    table = Table(seats)
    for event in output["setup"]:
        table.see(event)
    for (seat, command), result in zip(spec["commands"], output["results"], strict=True):
        wild_draw_four = command["type"] == "play" and command.get("card") == "W+4"
        if wild_draw_four and not challenge:
            hand = list((table.hands[seat] - Counter(["W+4"])).elements())
            matching = _hand_matches(hand, table.top, table.color)
            if result["ok"]:
                assert not matching, f"a Wild Draw Four was taken from a hand holding {matching}"
            elif result["error"]["code"] == "card_not_playable":
                assert matching, "a Wild Draw Four was refused from a hand with no matching card"
        if not result["ok"]:
            continue
        events = result["events"]
        for event in events:
            if event["type"] == "challenge_resolved":
                data = event["data"]
                player, by = data["player"], data["by"]
                assert by == seat == table.next(player), "only the next player may challenge"
                illegal = bool(_hand_matches(data["hand"], data["evidence"]["top"], data["evidence"]["color"]))
                assert data["verdict"] == ("illegal" if illegal else "legal")
                drawn = next(e["data"] for e in events if e["type"] == "cards_drawn")
                turn = [e["data"] for e in events if e["type"] == "awaiting"][-1]
                if illegal:
                    assert (drawn["seat"], drawn["count"], turn["seat"]) == (player, 4, by)
                else:
                    assert (drawn["seat"], drawn["count"], turn["seat"]) == (by, 6, table.next(by))
            table.see(event)
    resolved = [e["data"] for e in every_event(spec, output) if e["type"] == "challenge_resolved"]
    if resolved:
        by = resolved[-1]["by"]
        for seat, view in enumerate(output["views"]):
            assert (view["last_challenge"]["hand"] is not None) == (seat == by), f"seat {seat}"
        assert output["audit"]["last_challenge"]["hand"] == resolved[-1]["hand"]


def test_d20_only_the_next_player_may_challenge(outputs: dict[str, tuple[dict[str, Any], Output]]) -> None:
    spec, output = outputs["d20_challenge_illegal.json"]
    seats = seats_of(spec)
    resolved = next(e["data"] for e in every_event(spec, output) if e["type"] == "challenge_resolved")
    others = [
        r
        for (seat, c), r in zip(spec["commands"], output["results"], strict=True)
        if c["type"] == "challenge" and seat != resolved["by"]
    ]
    assert others and not any(r["ok"] for r in others)
    assert resolved["by"] == (resolved["player"] + 1) % seats


# ---------------------------------------------------------------- D21 drawing


@pytest.mark.parametrize("path", TABLE_FILES, ids=lambda p: p.name)
def test_d21_a_draw_takes_one_card_or_draws_until_playable_at_most_ten(
    path: Path, outputs: dict[str, tuple[dict[str, Any], Output]]
) -> None:
    spec, output = outputs[path.name]
    until = spec.get("rules", {}).get("draw") == "until_playable"
    table = Table(seats_of(spec))
    for step in steps(spec, output):
        top, color = table.top, table.color
        for event in step.events:
            table.see(event)
        if step.command != {"type": "draw"}:
            continue
        drawn_now = [e["data"] for e in step.events if e["type"] == "cards_drawn" and e["data"]["reason"] == "draw"]
        if not drawn_now:
            continue  # a volley's total, or an empty pile (D24)
        codes = [c for d in drawn_now for c in d["codes"]]
        if not until:
            assert len(codes) == 1
            continue
        plays = [c in ("W", "W+4") or matches(c, top, color) for c in codes]
        assert 1 <= len(codes) <= 10 and not any(plays[:-1]), codes  # it stops at the first playable card
        assert plays[-1] or len(codes) == 10, codes  # ...or after ten
        if plays[-1]:
            drawn = [e["data"] for e in step.events if e["type"] == "awaiting"][-1]
            assert (drawn["seat"], drawn["kind"], drawn["code"]) == (step.seat, "drawn", codes[-1])  # it may play it


def test_d21_until_playable_stops_at_ten(outputs: dict[str, tuple[dict[str, Any], Output]]) -> None:
    _spec, output = outputs["d21_until_playable_cap.json"]
    draws = [sum(e["data"]["count"] for e in r["events"] if e["type"] == "cards_drawn") for r in output["results"]]
    assert draws[0] == 10


# ---------------------------------------------------------------- D22 UNO


@pytest.mark.parametrize("path", TABLE_FILES, ids=lambda p: p.name)
def test_d22_any_other_seat_catches_a_forgotten_uno(
    path: Path, outputs: dict[str, tuple[dict[str, Any], Output]]
) -> None:
    spec, output = outputs[path.name]
    for step in steps(spec, output):
        for index, event in enumerate(step.events):
            if event["type"] == "uno_caught":
                caught, by = event["data"]["seat"], event["data"]["by"]
                assert by != caught and by == step.seat
                penalty = next(e["data"] for e in step.events[index:] if e["type"] == "cards_drawn")
                assert (penalty["seat"], penalty["count"]) == (caught, 2)


def test_d22_a_seat_that_is_not_adjacent_catches(outputs: dict[str, tuple[dict[str, Any], Output]]) -> None:
    spec, output = outputs["d22_catch_by_any_seat.json"]
    seats = seats_of(spec)
    caught = [e["data"] for e in every_event(spec, output) if e["type"] == "uno_caught"]
    assert len(caught) == 1 and (caught[0]["by"] - caught[0]["seat"]) % seats not in (1, seats - 1)
    later = [r for (s, c), r in zip(spec["commands"], output["results"], strict=True) if c["type"] == "uno"][1:]
    assert later and all(r["error"]["code"] == "uno_not_open" for r in later)  # the first catch closed it


def test_d22_the_window_closes_when_the_next_player_has_begun(
    outputs: dict[str, tuple[dict[str, Any], Output]],
) -> None:
    spec, output = outputs["d22_window_closes.json"]
    assert not any(e["type"] == "uno_caught" for e in every_event(spec, output))
    assert output["results"][-1]["error"]["code"] == "uno_not_open"


# ---------------------------------------------------------------- D23 scoring and places, D24 blocked


def _places(scores: Sequence[int]) -> list[int]:
    """D23: places follow the totals, highest first; equal totals share a place."""
    return [1 + sum(1 for other in scores if other > mine) for mine in scores]


@pytest.mark.parametrize("path", TABLE_FILES, ids=lambda p: p.name)
def test_d23_the_winner_scores_every_other_hand(path: Path, outputs: dict[str, tuple[dict[str, Any], Output]]) -> None:
    spec, output = outputs[path.name]
    seats = seats_of(spec)
    totals = [0] * seats
    target = output["audit"]["target"]
    for event in every_event(spec, output):
        data = event["data"]
        if event["type"] == "round_ended":
            hands = data["hands"] if seats > 2 else None
            winner = data["winner"]
            if hands is not None:
                assert len(hands) == seats
                worth = [sum(value(c) for c in hand) for hand in hands]
                if not data["blocked"]:
                    assert hands[winner] == []
                if winner is not None:
                    assert data["points"] == sum(w for s, w in enumerate(worth) if s != winner)
                assert data["loser"] is None
            if winner is not None:
                totals[winner] += data["points"]
            assert data["scores"] == totals
        if event["type"] == "match_ended":
            assert data["scores"] == totals and totals[data["winner"]] >= target
            assert sum(1 for t in totals if t >= target) == 1  # the first to reach it: nobody else has
            assert data["places"] == _places(totals)


def test_d23_places_are_shared_by_equal_totals(outputs: dict[str, tuple[dict[str, Any], Output]]) -> None:
    spec, output = outputs["d23_places.json"]
    ended = next(e["data"] for e in every_event(spec, output) if e["type"] == "match_ended")
    assert ended["places"][ended["winner"]] == 1 and ended["loser"] is None
    assert len(set(ended["places"])) < len(ended["places"])  # two seats share a place


def test_d23_a_final_draw_two_is_drawn_before_the_hands_are_scored(
    outputs: dict[str, tuple[dict[str, Any], Output]],
) -> None:
    _spec, output = outputs["d23_final_draw_two.json"]
    last = output["results"][-1]["events"]
    kinds = [e["type"] for e in last]
    assert kinds.index("cards_drawn") < kinds.index("round_ended")
    drawn = next(e["data"] for e in last if e["type"] == "cards_drawn")
    ended = next(e["data"] for e in last if e["type"] == "round_ended")
    assert Counter(drawn["codes"]) <= Counter(ended["hands"][drawn["seat"]])


@pytest.mark.parametrize("name", ["d24_blocked_round.json", "d24_blocked_tie.json"])
def test_d24_a_blocked_round_goes_to_the_lowest_hand(
    name: str, outputs: dict[str, tuple[dict[str, Any], Output]]
) -> None:
    spec, output = outputs[name]
    seats = seats_of(spec)
    results = output["results"]
    last = results[-seats:]
    lapsed = [next(e["data"] for e in r["events"] if e["type"] == "draw_lapsed") for r in last]
    assert [d["received"] for d in lapsed] == [0] * seats and len({d["seat"] for d in lapsed}) == seats
    assert not any(e["type"] == "round_ended" for r in results[:-1] if r["ok"] for e in r["events"])
    ended = next(e["data"] for e in results[-1]["events"] if e["type"] == "round_ended")
    worth = [sum(value(c) for c in hand) for hand in ended["hands"]]
    lowest = [s for s, w in enumerate(worth) if w == min(worth)]
    assert ended["blocked"] is True
    if len(lowest) == 1:
        assert ended["winner"] == lowest[0] and ended["points"] == sum(worth) - worth[lowest[0]]
    else:
        assert ended["winner"] is None and ended["points"] == 0 and ended["scores"] == [0] * seats
    assert name != "d24_blocked_tie.json" or len(lowest) > 1


# ---------------------------------------------------------------- a classic table of two is classic-2p

SEAT_VIEW_ONLY = {"ruleset", "rules", "seats", "dealer", "direction", "departed"}


def _normal(events: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Events without what only names the ruleset: match_created's ruleset, match_ended's places."""
    out = []
    for event in events:
        data = dict(event["data"])
        if event["type"] == "match_created":
            data.pop("ruleset")
            data.pop("seats", None)
        if event["type"] == "match_ended":
            data.pop("places", None)
        out.append({"type": event["type"], "data": data})
    return out


def _normal_view(view: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in view.items() if k not in SEAT_VIEW_ONLY}


def assert_same_answers(two: Output, table: Output) -> None:
    assert _normal(two["setup"]) == _normal(table["setup"])
    assert [r["ok"] for r in two["results"]] == [r["ok"] for r in table["results"]]
    for index, (a, b) in enumerate(zip(two["results"], table["results"], strict=True)):
        if a["ok"]:
            assert _normal(a["events"]) == _normal(b["events"]), f"command {index}"
        else:
            assert a["error"] == b["error"], f"command {index}"
    assert [_normal_view(v) for v in two["views"]] == [_normal_view(v) for v in table["views"]]
    assert _normal_view(two["audit"]) == _normal_view(table["audit"])


def as_classic(spec: Mapping[str, Any]) -> dict[str, Any]:
    return {**spec, "ruleset": "classic", "seats": 2}


@pytest.mark.parametrize("path", CLASSIC_2P_FILES, ids=lambda p: p.name)
def test_a_classic_table_of_two_answers_every_classic_2p_scenario_alike(path: Path, tmp_path: Path) -> None:
    spec = spec_of(path)
    assert_same_answers(run_command(spec, tmp_path, "two.json"), run_command(as_classic(spec), tmp_path, "table.json"))


def server_seed(seed: int) -> bytes:
    return hashlib.sha256(f"classic table of two {seed}".encode()).digest()


def random_script(seed: int, length: int) -> list[list[Any]]:
    """A classic-2p match of random legal commands, with a refused one now and then (a play of a
    card not held, a seat out of turn, a draw when a pass is due), from the scenario's seed."""
    from engine.game.commands import parse_seat_command
    from engine.game.errors import CommandRefused
    from engine.game.rulesets import CLASSIC_2P
    from engine.play.match import LocalMatch

    rng = random.Random(seed)
    match = LocalMatch.start(server_seed(seed), CLASSIC_2P)
    script: list[list[Any]] = []
    faces = ["R5", "G+2", "BS", "YR", "W", "W+4", "B0"]
    while len(script) < length and match.state.phase.value not in ("match_over",):
        seat = match.state.pending.seat if match.state.pending.seat is not None else 0
        legal = match.view(seat)["legal"]
        if not legal:
            break
        if rng.random() < 0.15:
            command: dict[str, Any] = rng.choice(
                [{"type": "play", "card": rng.choice(faces), "color": "red"}, {"type": "pass"}, {"type": "uno"}]
            )
            seat = rng.choice([0, 1])
        else:
            command = dict(rng.choice(shedding(legal)))
            if command["type"] == "play" and command["card"] in ("W", "W+4"):
                command["color"] = rng.choice(["red", "yellow", "green", "blue"])
        script.append([seat, command])
        try:
            match.apply(parse_seat_command(seat, command))
        except CommandRefused:
            pass
    return script


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_classic_table_of_two_plays_a_seeded_match_like_classic_2p(seed: int, tmp_path: Path) -> None:
    """The same seed, the same commands: the same cut, the same cards, the same refusals, the same scores."""
    spec = {"ruleset": "classic-2p", "seed": server_seed(seed).hex(), "commands": random_script(seed, 400)}
    two = run_command(spec, tmp_path, "two.json")
    assert sum(1 for r in two["results"] if not r["ok"]) > 10, "the script refuses nothing: nothing is compared"
    assert any(e["type"] == "round_ended" for r in two["results"] if r["ok"] for e in r["events"])
    assert_same_answers(two, run_command(as_classic(spec), tmp_path, "table.json"))


# ---------------------------------------------------------------- the checks can fail


def _forged(outputs: dict[str, tuple[dict[str, Any], Output]], name: str) -> tuple[dict[str, Any], Output]:
    spec, output = outputs[name]
    copied: tuple[dict[str, Any], Output] = json.loads(json.dumps([spec, output]))
    return copied


def _event(output: Output, type_: str) -> dict[str, Any]:
    found: dict[str, Any] = next(
        e
        for r in [{"events": output["setup"], "ok": True}, *output["results"]]
        if r["ok"]
        for e in r["events"]
        if e["type"] == type_
    )
    return found


def test_each_ruling_check_fails_on_a_forged_answer(outputs: dict[str, tuple[dict[str, Any], Output]]) -> None:
    forgeries = []
    spec, output = _forged(outputs, "d18_dealer_and_order.json")
    dealt = _event(output, "cards_dealt")["data"]
    dealt["hand0"], dealt["hand1"] = dealt["hand1"], dealt["hand0"]
    forgeries.append(
        (test_d18_the_dealer_deals_from_the_left_one_card_at_a_time, "d18_dealer_and_order.json", spec, output)
    )
    spec, output = _forged(outputs, "d19_starter_reverse.json")
    next(e for e in output["setup"] if e["type"] == "awaiting")["data"]["seat"] = 2
    forgeries.append((test_d19_the_starter_decides_who_moves_first, "d19_starter_reverse.json", spec, output))
    spec, output = _forged(outputs, "d20_skip.json")
    [e for e in output["results"][0]["events"] if e["type"] == "awaiting"][-1]["data"]["seat"] = 2
    forgeries.append((test_d20_the_turn_goes_round_in_the_direction, "d20_skip.json", spec, output))
    spec, output = _forged(outputs, "d20_challenge_legal.json")
    output["views"][3]["last_challenge"]["hand"] = ["G1"]
    forgeries.append(
        (test_d20_a_wild_draw_four_is_judged_on_the_hand_it_left, "d20_challenge_legal.json", spec, output)
    )
    spec, output = _forged(outputs, "d20_challenge_illegal.json")
    _event(output, "challenge_resolved")["data"]["verdict"] = "legal"
    forgeries.append(
        (test_d20_a_wild_draw_four_is_judged_on_the_hand_it_left, "d20_challenge_illegal.json", spec, output)
    )
    spec, output = _forged(outputs, "d21_until_playable.json")
    first_drawn = _event(output, "cards_drawn")["data"]
    first_drawn["codes"] = ["R8"]  # a playable card, yet the drawing went on
    forgeries.append(
        (test_d21_a_draw_takes_one_card_or_draws_until_playable_at_most_ten, "d21_until_playable.json", spec, output)
    )
    spec, output = _forged(outputs, "d22_catch_by_any_seat.json")
    _event(output, "uno_caught")["data"]["by"] = 1
    forgeries.append((test_d22_any_other_seat_catches_a_forgotten_uno, "d22_catch_by_any_seat.json", spec, output))
    spec, output = _forged(outputs, "d23_winner_scores_everyone.json")
    _event(output, "round_ended")["data"]["points"] += 1
    forgeries.append((test_d23_the_winner_scores_every_other_hand, "d23_winner_scores_everyone.json", spec, output))
    spec, output = _forged(outputs, "d23_places.json")
    _event(output, "match_ended")["data"]["places"] = [4, 2, 1, 3]
    forgeries.append((test_d23_the_winner_scores_every_other_hand, "d23_places.json", spec, output))
    for check, name, spec, output in forgeries:
        with pytest.raises(AssertionError):
            check(TABLE_FILES[[p.name for p in TABLE_FILES].index(name)], {name: (spec, output)})
    spec, output = _forged(outputs, "d24_blocked_round.json")
    ended = output["results"][-1]["events"]
    next(e for e in ended if e["type"] == "round_ended")["data"]["winner"] = 1
    with pytest.raises(AssertionError):
        test_d24_a_blocked_round_goes_to_the_lowest_hand(
            "d24_blocked_round.json", {"d24_blocked_round.json": (spec, output)}
        )


def test_a_what_if_from_a_five_seat_replay_edits_any_seats_hand(tmp_path: Path) -> None:
    from engine.record.replay import replay_text
    from tests.engine.test_verify import play_table

    events = play_table(5, 5)
    path = tmp_path / "t5.jsonl"
    path.write_text(replay_text("t5", "classic", [f"p{s}" for s in range(5)], events), encoding="utf-8")
    at = next(i for i, e in enumerate(events, start=1) if e.type == "awaiting" and e.data["seat"] == 1)
    result = runner.invoke(app, ["scenario", "--from", str(path), "--at", str(at), "--hand", "3=R5,G7"])
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    assert answer["views"][3]["hand"] == ["R5", "G7"] and len(answer["views"]) == 5
    refused = runner.invoke(app, ["scenario", "--from", str(path), "--at", str(at), "--hand", "5=R5"])
    assert refused.exit_code == 2 and "a seat from 0 to 4" in refused.output
