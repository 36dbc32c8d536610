"""The auditor's kit (replays/README.md): every replay in replays/ verifies, each curated sample shows
the situation its name claims, replays/make_samples.py --check finds the committed files up to date,
and the audit report of every sample challenge agrees with the match that produced it, re-played here
from the seed and bots the generator recorded."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Sequence
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from engine.fairness.audit_report import ChallengeFacts, audit, full_events
from engine.fairness.verify import verify_replay
from engine.game.cards import Card, Color, Rank, parse_card
from engine.game.events import Event, EventType
from engine.game.evolve import evolve, fold
from engine.game.rulesets import Ruleset
from engine.game.state import INITIAL_STATE, MatchState
from engine.play.selfplay import play_match
from engine.record.replay import parse_replay

ROOT = Path(__file__).resolve().parents[2]
REPLAYS = ROOT / "replays"
MANIFEST: dict[str, Any] = json.loads((REPLAYS / "samples.json").read_text(encoding="utf-8"))
SAMPLES: dict[str, dict[str, Any]] = {s["file"]: s for s in MANIFEST["samples"]}
CHALLENGE_SAMPLES = sorted(name for name in SAMPLES if name.startswith("wd4-"))


def events_of(name: str) -> list[Event]:
    _header, lines = parse_replay((REPLAYS / name).read_text(encoding="utf-8"))
    return full_events(lines)


def state_before(events: Sequence[Event], seq: int) -> MatchState:
    """The match just before event ``seq`` (1-based): every earlier event folded."""
    return fold(list(events[: seq - 1]))


def codes(state: MatchState, ids: Sequence[int]) -> list[str]:
    return [state.card(i).code for i in ids]


# ---------------------------------------------------------------- every file verifies


@pytest.mark.parametrize("path", sorted(REPLAYS.glob("*.jsonl")), ids=lambda p: p.name)
def test_every_replay_in_the_directory_verifies(path: Path) -> None:
    report = verify_replay(path.read_text(encoding="utf-8"))
    assert report.ok, f"{path.name}: line {report.line}: {report.failure}"
    assert any(check.startswith("re-run:") for check in report.checks)


def test_the_kit_is_complete_and_small() -> None:
    assert set(SAMPLES) | {entry["file"] for entry in MANIFEST["not_found"]} == set(CLAIMS)
    for name, sample in SAMPLES.items():
        assert (REPLAYS / name).is_file(), name
        assert (REPLAYS / name).stat().st_size == sample["bytes"]
    for entry in MANIFEST["not_found"]:  # a situation no match showed has no file (the README says so)
        assert not (REPLAYS / entry["file"]).exists()
        assert entry["matches"] > 0
    assert sum(s["bytes"] for s in SAMPLES.values()) < 2_000_000
    assert (REPLAYS / "README.md").is_file()


# ---------------------------------------------------------------- each sample shows its situation


def _ruleset_of(events: Sequence[Event]) -> dict[str, Any]:
    assert events[0].type == EventType.MATCH_CREATED and events[-1].type == EventType.SEED_REVEALED
    ruleset: dict[str, Any] = events[0].data["ruleset"]
    return ruleset


def _challenge(verdict: str, ruleset_name: str, rule: str) -> Callable[[Sequence[Event], dict[str, Any]], None]:
    def check(events: Sequence[Event], sample: dict[str, Any]) -> None:
        ruleset = _ruleset_of(events)
        assert (ruleset["name"], ruleset["wd4_rule"], ruleset["wd4_check"]) == (ruleset_name, rule, "challenge")
        resolved = events[sample["seq"] - 1]
        assert resolved.type == EventType.CHALLENGE_RESOLVED
        data = resolved.data
        assert data["verdict"] == verdict and data["evidence"]["rule"] == rule
        assert bool(data["matching"]) == (verdict == "illegal")
        played = [
            e for e in events[: sample["seq"] - 1] if e.type == EventType.CARD_PLAYED and e.data["code"] == "W+4"
        ][-1]
        assert played.data["seat"] == data["player"] != data["by"]
        penalty = events[sample["seq"]]
        if verdict == "legal":  # the challenger was wrong: it draws 6 (D13)
            expected = {"seat": data["by"], "count": 6, "reason": "challenge_failed"}
        else:  # the player of the illegal card draws 4
            expected = {"seat": data["player"], "count": 4, "reason": "challenge_upheld"}
        assert penalty.type == EventType.CARDS_DRAWN
        assert {k: penalty.data[k] for k in expected} == expected

    return check


def _volley(events: Sequence[Event], sample: dict[str, Any]) -> None:
    assert _ruleset_of(events)["draw_two_stacking"] is True
    seq = sample["seq"]
    drawn = events[seq - 1]
    assert drawn.type == EventType.CARDS_DRAWN and drawn.data["reason"] == "volley" and drawn.data["count"] >= 6
    stretch: list[Event] = []  # back to the decision before the first Draw Two
    for event in reversed(events[: seq - 1]):
        if event.type == EventType.AWAITING and event.data["kind"] != "volley":
            break
        stretch.insert(0, event)
    count = drawn.data["count"]
    totals = [e.data["total"] for e in stretch if e.type == EventType.AWAITING]
    assert totals == list(range(2, count + 1, 2))  # each answer raised the total by 2 (D8)
    twos = [e for e in stretch if e.type == EventType.CARD_PLAYED][-(count // 2) :]
    assert [e.data["code"][-2:] for e in twos] == ["+2"] * (count // 2)
    seats = [e.data["seat"] for e in twos]
    assert all(a != b for a, b in pairwise(seats))  # back and forth
    assert seats[-1] != drawn.data["seat"]  # the first seat that did not answer drew the whole total


def _reverse_dump(events: Sequence[Event], sample: dict[str, Any]) -> None:
    assert _ruleset_of(events)["reverse"] == "dump"
    seq = sample["seq"]
    head = events[seq - 1]
    assert head.type == EventType.COMMAND and head.data["command"]["type"] == "dump"
    seat, cards = head.data["seat"], head.data["command"]["cards"]
    assert len(cards) >= 3 and cards[-1][1:] in ("S", "+2")
    offer, reverse = events[seq - 2], events[seq - 3]
    assert offer.type == EventType.AWAITING and offer.data == {"seat": seat, "kind": "dump"}
    assert reverse.type == EventType.CARD_PLAYED and reverse.data["seat"] == seat and reverse.data["code"][1:] == "R"
    colour = reverse.data["color"]
    played = events[seq : seq + len(cards)]
    assert [(e.type, e.data["seat"], e.data["code"], e.data["color"]) for e in played] == [
        (EventType.CARD_PLAYED, seat, code, colour) for code in cards
    ]
    after = fold(list(events[: seq + len(cards)]))
    assert all(after.card(i).color is not Color(colour) for i in after.hands[seat])  # every card of it (D10)
    effect = events[seq + len(cards)]
    if cards[-1].endswith("+2"):  # only the last card acts: the opponent faces a Draw Two
        assert effect.data == {"seat": 1 - seat, "kind": "volley", "total": 2}
    else:  # a Skip: the dumper plays again
        assert effect.data == {"seat": seat, "kind": "turn"}


def _uno_catch(events: Sequence[Event], sample: dict[str, Any]) -> None:
    seq = sample["seq"]
    caught = events[seq - 1]
    assert caught.type == EventType.UNO_CAUGHT
    seat, by = caught.data["seat"], caught.data["by"]
    assert seat != by
    command = events[seq - 2]
    assert command.type == EventType.COMMAND and command.data == {"seat": by, "command": {"type": "uno"}}
    before = state_before(events, seq)
    assert len(before.hands[seat]) == 1 and before.uno_open[seat] and not before.uno_said[seat]
    penalty = events[seq]
    assert penalty.type == EventType.CARDS_DRAWN
    assert (penalty.data["seat"], penalty.data["count"], penalty.data["reason"]) == (seat, 2, "uno_penalty")


def _match_to_200(events: Sequence[Event], sample: dict[str, Any]) -> None:
    ruleset = _ruleset_of(events)
    assert (ruleset["name"], ruleset["target"], ruleset["scoring"]) == ("uno-duo", 200, "loser_scores")
    ended = events[sample["seq"] - 1]
    assert ended.type == EventType.MATCH_ENDED and sample["seq"] == len(events) - 1
    scores = ended.data["scores"]
    assert max(scores) >= 200 > min(scores) > 0  # both seats scored; one reached 200 and so lost (D16)
    assert ended.data["loser"] == scores.index(max(scores)) == 1 - ended.data["winner"]
    rounds = [e.data for e in events if e.type == EventType.ROUND_ENDED]
    assert len(rounds) == ended.data["rounds"] >= 2
    totals = [0, 0]
    for data in rounds:
        assert not data["blocked"]
        totals[data["loser"]] += data["points"]
        assert data["scores"] == totals
    assert totals == scores


def _blocked_round(events: Sequence[Event], sample: dict[str, Any]) -> None:
    ended = events[sample["seq"] - 1]
    assert ended.type == EventType.ROUND_ENDED and ended.data["blocked"] is True
    assert [e.type for e in events[sample["seq"] - 3 : sample["seq"] - 1]].count(EventType.DRAW_LAPSED) >= 1


def _table_of_four(events: Sequence[Event], sample: dict[str, Any]) -> None:
    ruleset = _ruleset_of(events)
    assert (ruleset["name"], ruleset["target"], events[0].data["seats"]) == ("classic", 200, 4)
    ended = events[sample["seq"] - 1]
    assert ended.type == EventType.MATCH_ENDED and sample["seq"] == len(events) - 1
    scores = ended.data["scores"]
    assert scores[ended.data["winner"]] >= 200 and sum(1 for s in scores if s) >= 2
    assert ended.data["places"] == [1 + sum(1 for t in scores if t > mine) for mine in scores]  # D23
    assert any(e.type == EventType.CARD_PLAYED and e.data.get("direction") == -1 for e in events)  # D20
    dealers = [e.data["player1"] for e in events if e.type == EventType.ROUND_STARTED and e.data["restart"] == 0]
    assert all(b == (a + 1) % 4 for a, b in pairwise(dealers))  # D18: the deal passes left
    totals, rules = [0] * 4, Ruleset.from_dict(ruleset)
    for data in (e.data for e in events if e.type == EventType.ROUND_ENDED):
        worth = [sum(rules.points(parse_card(code)) for code in hand) for hand in data["hands"]]
        winner = data["winner"]
        assert data["points"] == sum(w for seat, w in enumerate(worth) if seat != winner)  # D23
        totals[winner] += data["points"]
        assert data["scores"] == totals
    assert totals == scores


CLAIMS: dict[str, Callable[[Sequence[Event], dict[str, Any]], None]] = {
    "wd4-legal-challenge-uno-duo.jsonl": _challenge("legal", "uno-duo", "no_playable"),
    "wd4-illegal-challenge-uno-duo.jsonl": _challenge("illegal", "uno-duo", "no_playable"),
    "wd4-legal-challenge-classic-2p.jsonl": _challenge("legal", "classic-2p", "no_match"),
    "wd4-illegal-challenge-classic-2p.jsonl": _challenge("illegal", "classic-2p", "no_match"),
    "draw-two-volley.jsonl": _volley,
    "reverse-dump.jsonl": _reverse_dump,
    "uno-catch.jsonl": _uno_catch,
    "match-to-200.jsonl": _match_to_200,
    "blocked-round.jsonl": _blocked_round,
    "table-of-four.jsonl": _table_of_four,
}


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_each_sample_shows_what_its_name_says(name: str) -> None:
    sample = SAMPLES[name]
    events = events_of(name)
    assert events[sample["seq"] - 1].type == sample["event"]
    CLAIMS[name](events, sample)


# ---------------------------------------------------------------- the generator


@pytest.mark.slow
def test_the_generator_finds_the_committed_files_up_to_date() -> None:
    done = subprocess.run(
        [sys.executable, str(REPLAYS / "make_samples.py"), "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "the committed samples are what replays/make_samples.py makes" in done.stdout
    for name in SAMPLES:
        assert f"ok       {name}" in done.stdout


# ---------------------------------------------------------------- the audit against the match itself


def could_play(card: Card, top: Card, color: Color | None, rule: str) -> bool:
    """Written out again from docs/RULES.md D13 and D13c: does this card make a Wild Draw Four illegal?"""
    if rule == "no_colour_match":
        return card.color is not None and card.color is color
    if card.rank is Rank.WILD_DRAW_FOUR:
        return False
    if card.rank is Rank.WILD:
        return rule == "no_playable"  # a plain Wild counts in uno-duo only
    return card.color is color or card.rank is top.rank


def facts_of_the_match(events: Sequence[Event], rule: str) -> list[dict[str, Any]]:
    """Every challenge of a match as its own events and states say, with the verdict recomputed."""
    out: list[dict[str, Any]] = []
    state = INITIAL_STATE
    last_wd4: tuple[int, MatchState, MatchState] | None = None
    current: dict[str, Any] | None = None
    for seq, event in enumerate(events, start=1):
        after = evolve(state, event)
        if event.type == EventType.CARD_PLAYED and event.data["code"] == "W+4":
            last_wd4 = (seq, state, after)
        elif event.type == EventType.CHALLENGE_RESOLVED:
            assert last_wd4 is not None
            played_seq, before, left = last_wd4
            player = event.data["player"]
            assert before.top is not None
            top = before.card(before.top)
            hand = [left.card(i) for i in left.hands[player]]
            matching = sorted(c.code for c in hand if could_play(c, top, before.color, rule))
            current = {
                "played_seq": played_seq,
                "resolved_seq": seq,
                "player": player,
                "challenger": event.data["by"],
                "top": top.code,
                "color": None if before.color is None else before.color.value,
                "hand": [c.code for c in hand],
                "matching": matching,
                "verdict": "illegal" if matching else "legal",
                "recorded_verdict": event.data["verdict"],
                "draws": [],
            }
            out.append(current)
        elif current is not None and event.type == EventType.CARDS_DRAWN:
            current["draws"].append(
                (event.data["seat"], event.data["count"], event.data["reason"], event.data["codes"])
            )
        elif event.type in (EventType.AWAITING, EventType.COMMAND):
            current = None
        state = after
    return out


def facts_of_the_report(c: ChallengeFacts) -> dict[str, Any]:
    return {
        "played_seq": c.played_seq,
        "resolved_seq": c.resolved_seq,
        "player": c.player,
        "challenger": c.challenger,
        "top": c.top,
        "color": c.color,
        "hand": c.hand,
        "matching": sorted(c.matching),
        "verdict": c.verdict,
        "recorded_verdict": c.verdict,
        "draws": [(d.seat, d.count, d.reason, d.codes) for d in c.draws],
    }


@pytest.mark.parametrize("name", CHALLENGE_SAMPLES)
def test_the_audit_of_each_sample_challenge_agrees_with_the_match_that_produced_it(name: str) -> None:
    sample = SAMPLES[name]
    ruleset = Ruleset.from_dict({"name": sample["ruleset"], **sample["override"]})
    result = play_match(sample["bots"], ruleset, sample["master_seed"], sample["index"])
    assert list(result.bots) == sample["seats"]
    text = (REPLAYS / name).read_text(encoding="utf-8")
    assert list(result.events) == events_of(name)  # the file is that match, event for event

    live = facts_of_the_match(result.events, ruleset.wd4_rule.value)
    report = audit(text, name)
    assert report.verification.ok
    assert [facts_of_the_report(c) for c in report.challenges] == live
    for facts in live:  # the engine's verdict is the rule's, recomputed here
        assert facts["verdict"] == facts["recorded_verdict"]
        loser = facts["challenger"] if facts["verdict"] == "legal" else facts["player"]
        count, reason = (6, "challenge_failed") if facts["verdict"] == "legal" else (4, "challenge_upheld")
        assert [d[:3] for d in facts["draws"]] == [(loser, count, reason)]
        assert len(facts["draws"][0][3]) == count

    featured = next(c for c in report.challenges if c.resolved_seq == sample["seq"])
    assert featured.verdict == ("legal" if name.startswith("wd4-legal") else "illegal")
    assert (featured.wd4_rule, featured.wd4_check) == (ruleset.wd4_rule.value, "challenge")
