"""The leak test for the house bots' chance (issue 19): an attacker who knows the bots' code.

``bot:random`` used to choose with ``random.Random(f"{match_id}:{version}")``: both public, so
its every choice could be computed in advance, its answer to a Wild Draw Four was known before
the card was played (bluff only when it will accept), and a drawn card it passed while the
prediction said "play" was certainly unplayable. Now its chance is drawn from the secret server
seed (docs/FAIRNESS.md "House bots' chance").

Through the real API, a scripted seat (it plays a Wild Draw Four whenever it holds one, else a
random legal card) plays whole ``uno-duo`` matches against ``bot:random``. After each match its
replay gives the truth, and an attacker far stronger than a real one tries to predict the bot:
it knows the bot's code and even the bot's whole view (its hand too), everything except the
server seed, and tries every public-data scheme below. For a fixed number of decisions of each
kind, its hits must stay within what chance gives with probability 1 - 1e-6
(``tests/chance_bounds.py``):

- every decision with more than one possible answer: the exact command;
- the answers to a Wild Draw Four (accept, challenge);
- the drawn-card inference: the attacker claims "unplayable" when the bot passed a drawn card
  although the prediction said "play"; over the passes of cards that *were* playable, those
  claims must be wrong as often as chance makes them (under the old scheme: never).

On the old code (``random.Random(f"{match_id}:{version}")`` in ``_bot_move``) the first scheme
hits every decision and all three checks fail; the test shares no code with the new derivation
(its keyed schemes use ``tests/house_bot_chance.py``), so it runs against the old server as is.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from fastapi.testclient import TestClient

from engine.bots import get_bot
from engine.fairness.audit_report import audit, full_events
from engine.game.commands import parse_action
from engine.game.events import EventType
from engine.game.evolve import evolve
from engine.game.state import INITIAL_STATE
from engine.protocol.views import view as seat_view
from engine.record.replay import parse_replay
from tests.chance_bounds import fewest_hits_by_chance, most_hits_by_chance
from tests.house_bot_chance import HouseBotChance
from tests.server.helpers import ok, register, shedding, with_color

BOT = "random"
BOT_SEAT = 1
DECISIONS = 600  # the bot's decisions with more than one possible answer
WD4_ANSWERS = 30
PLAYABLE_PASSES = 40  # passes of a drawn card that could have been played
MAX_MATCHES = 20  # a clear failure if the quotas are not met by then (about 4 matches are needed)


@dataclass(frozen=True)
class Decision:
    """One house-bot decision, with all public data about it and the bot's whole view."""

    match_id: str
    version: int  # the state the bot decided on
    seat: int
    commitment: str  # match_created's: public from the start
    prev_hash: str  # the hash of the last event before the decision: public
    view: dict[str, Any]
    recorded: dict[str, Any]

    @property
    def legal(self) -> list[dict[str, Any]]:
        return list(self.view["legal"])

    @property
    def kind(self) -> str:
        return str(self.view["pending"]["kind"])


Scheme = Callable[[Decision], random.Random]

SCHEMES: dict[str, Scheme] = {
    "old: Random(match:version)": lambda d: random.Random(f"{d.match_id}:{d.version}"),
    "Random(match:version:seat)": lambda d: random.Random(f"{d.match_id}:{d.version}:{d.seat}"),
    "Random(version)": lambda d: random.Random(d.version),
    "house-bot stream keyed by the commitment": lambda d: HouseBotChance(
        bytes.fromhex(d.commitment), d.match_id, d.version, d.seat
    ),
    "house-bot stream keyed by the previous event's hash": lambda d: HouseBotChance(
        bytes.fromhex(d.prev_hash), d.match_id, d.version, d.seat
    ),
    "house-bot stream keyed by a guessed seed": lambda d: HouseBotChance(
        hashlib.sha256(d.match_id.encode()).digest(), d.match_id, d.version, d.seat
    ),
}


def needs_colour(command: dict[str, Any]) -> bool:
    return command["type"] == "color" or (command["type"] == "play" and command.get("card") in ("W", "W+4"))


def best_guess_chance(legal: list[dict[str, Any]]) -> float:
    """The most likely single answer of ``bot:random`` (uniform over ``legal``, then over 4
    colours for a wild): no guesser that cannot see its chance hits more often than this."""
    return max(1.0 / len(legal) / (4 if needs_colour(c) else 1) for c in legal)


def same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return parse_action(a) == parse_action(b)


def predict(scheme: Scheme, decision: Decision, legal: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """What the bot would answer if its chance were the scheme's (on ``legal`` if given)."""
    seen = decision.view if legal is None else {**decision.view, "legal": legal}
    return get_bot(BOT).choose(seen, scheme(decision))


def bluffer(view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """The scripted seat: it keeps every Wild Draw Four it is dealt in the draft and plays one
    whenever it holds one (so the bot answers many); otherwise a random card-shedding command."""
    legal = view["legal"]
    if view["pending"]["kind"] == "draft" and view["pending"].get("card") == "W+4":
        return {"type": "draft", "keep": True}
    wd4 = [c for c in legal if c.get("card") == "W+4"]
    return with_color(wd4[0] if wd4 else rng.choice(shedding(legal)), rng)


def play_one(client: TestClient, number: int) -> str:
    """A whole match of the scripted seat (seat 0) against the bot; its id."""
    _, headers = register(client, f"bluffer{number}")
    match_id = ok(client.post("/api/matches", headers=headers, json={"opponent": f"bot:{BOT}"}), 201)["id"]
    view = ok(client.post(f"/api/matches/{match_id}/join", headers=headers, json={"entropy": f"e{number}"}))["view"]
    rng = random.Random(number)
    for step in range(5000):
        if view["phase"] == "match_over":
            return str(match_id)
        body = {"command_id": f"c{step}", "expected_version": view["version"], "command": bluffer(view, rng)}
        view = ok(client.post(f"/api/matches/{match_id}/commands", headers=headers, json=body))["view"]
    raise AssertionError("the match did not finish")


def decisions_of(client: TestClient, match_id: str) -> list[Decision]:
    """Every decision of the bot's seat, read from the finished match's replay."""
    header, lines = parse_replay(client.get(f"/api/matches/{match_id}/replay").text)
    assert header["players"][BOT_SEAT] == f"bot-{BOT}-1"
    events = full_events(lines)
    commitment = events[0].data["commitment"]
    state, out = INITIAL_STATE, []
    for index, event in enumerate(events):
        if event.type == EventType.COMMAND and event.data["seat"] == BOT_SEAT:
            seen = seat_view(state, BOT_SEAT)
            out.append(
                Decision(
                    match_id, state.version, BOT_SEAT, commitment, lines[index - 1]["hash"], seen, event.data["command"]
                )
            )
        state = evolve(state, event)
    return out


@dataclass
class Sample:
    """The first decisions of each kind the test judges on."""

    chosen: list[Decision]  # more than one possible answer
    wd4: list[Decision]  # answers to a Wild Draw Four
    playable_passes: list[Decision]  # passes of a drawn card that could have been played
    unplayable_passes: list[Decision]  # passes of a drawn card that could not (the only answer)

    def full(self) -> bool:
        return (
            len(self.chosen) >= DECISIONS
            and len(self.wd4) >= WD4_ANSWERS
            and len(self.playable_passes) >= PLAYABLE_PASSES
        )

    def add(self, decision: Decision) -> None:
        if best_guess_chance(decision.legal) < 1.0:
            self.chosen.append(decision)
            if decision.kind == "wild_draw_four":
                self.wd4.append(decision)
        if decision.kind == "drawn" and decision.recorded["type"] == "pass":
            playable = any(c["type"] == "play" for c in decision.legal)
            (self.playable_passes if playable else self.unplayable_passes).append(decision)


def collect(client: TestClient) -> Sample:
    sample = Sample([], [], [], [])
    for number in range(MAX_MATCHES):
        for decision in decisions_of(client, play_one(client, number)):
            sample.add(decision)
        if sample.full():
            return sample
    raise AssertionError(f"{MAX_MATCHES} matches did not give the decisions the test needs")


def seed_of(client: TestClient, match_id: str) -> bytes:
    _, lines = parse_replay(client.get(f"/api/matches/{match_id}/replay").text)
    return bytes.fromhex(lines[-1]["data"]["server_seed"])


def hits(scheme: Scheme, decisions: list[Decision]) -> int:
    return sum(same(predict(scheme, d), d.recorded) for d in decisions)


def wrong_unplayable_claims(scheme: Scheme, passes: list[Decision]) -> int:
    """Passes of a playable drawn card for which the scheme said "play": the attacker's
    "it was unplayable" inference is wrong on each of them."""
    return sum(predict(scheme, d)["type"] == "play" for d in passes)


def right_unplayable_claims(scheme: Scheme, passes: list[Decision]) -> int:
    """Passes of an unplayable card for which the scheme, told the card was playable, said "play"."""
    supposed = [{"type": "play", "card": "R0"}]  # the attacker does not know the card: any face will do
    return sum(predict(scheme, d, supposed + d.legal)["type"] == "play" for d in passes)


# SQLite only: the bot decides before anything is stored, so the store adds nothing to this
# test but a minute (the store's part, the replay the audit re-derives, runs on both below).
@pytest.mark.slow
@pytest.mark.parametrize("db_kind", ["sqlite"])
def test_an_attacker_who_knows_the_bots_code_predicts_bot_random_no_better_than_chance(client: TestClient) -> None:
    sample = collect(client)
    chosen, wd4 = sample.chosen[:DECISIONS], sample.wd4[:WD4_ANSWERS]
    passes = sample.playable_passes[:PLAYABLE_PASSES]
    most_chosen = most_hits_by_chance([best_guess_chance(d.legal) for d in chosen])
    most_wd4 = most_hits_by_chance([best_guess_chance(d.legal) for d in wd4])
    claim_chance = [sum(c["type"] == "play" for c in d.legal) / len(d.legal) for d in passes]
    fewest_wrong = fewest_hits_by_chance(claim_chance)

    expected = sum(best_guess_chance(d.legal) for d in chosen)
    figures, failures = [], []
    for name, scheme in SCHEMES.items():
        got_chosen, got_wd4 = hits(scheme, chosen), hits(scheme, wd4)
        wrong = wrong_unplayable_claims(scheme, passes)
        right = right_unplayable_claims(scheme, sample.unplayable_passes)
        figures.append(
            f"{name}: commands {got_chosen}/{len(chosen)} (chance: {expected:.0f} on average at most, {most_chosen} allowed), "
            f"Wild Draw Four answers {got_wd4}/{len(wd4)} (allows {most_wd4}), "
            f"'unplayable' claims wrong on {wrong}/{len(passes)} playable passes (chance gives at least "
            f"{fewest_wrong}), right on {right}/{len(sample.unplayable_passes)} unplayable ones"
        )
        if got_chosen > most_chosen or got_wd4 > most_wd4 or wrong < fewest_wrong:
            failures.append(figures[-1])
    print("\n".join(figures))  # the figures, for -s / -rP
    assert not failures, "the attacker predicts the house bot:\n" + "\n".join(failures)

    # The control: with the revealed seed (as the audit has it after the match) every decision is
    # re-derived, so the attacker above was judged on the bot's real views and versions.
    revealed = {match_id: seed_of(client, match_id) for match_id in {d.match_id for d in chosen}}
    auditor = {"revealed seed": lambda d: HouseBotChance(revealed[d.match_id], d.match_id, d.version, d.seat)}
    assert hits(auditor["revealed seed"], chosen) == len(chosen)


def test_the_audit_re_derives_every_house_bot_move_of_a_server_tournament_match(client: TestClient) -> None:
    """Two house bots (tournament entries, ids ``bot-<name>-<tournament>-<n>``) play through the
    server; after the reveal, ``unoduo audit --bots`` asks each move again of its bot."""
    from tests.server.test_tournaments import create, finished, start, tournament_when

    t = create(client, ["bot:random", "bot:greedy"])
    start(client, t["id"])
    t = tournament_when(client, t["id"], finished)
    [pairing] = [p for r in t["rounds"] for p in r["pairings"]]
    replay = client.get(f"/api/matches/{pairing['match']}/replay").text
    report = audit(replay, bots=True)
    assert report.verification.ok and report.bots is not None
    assert sorted(report.bots.seats.values()) == ["greedy", "random"], report.header["players"]
    # Every command of each seat was asked again of its bot (how many there are is the deal's chance).
    lines = [json.loads(line) for line in replay.splitlines()[1:]]
    commands = Counter(e["data"]["seat"] for e in lines if e["type"] == "command")
    assert report.bots.mismatch is None and report.bots.checked == dict(commands), report.bots
    assert min(commands.values()) > 0
