"""Proofs of one event (engine/fairness/proofs.py, tools/proof_check.py; docs/REPLAYS.md "Proofs of one
event"): a challenged Wild Draw Four or a caught UNO proved during the match, revealing nothing
else.

Matches are built from the stacked-deck scenarios of docs/scenarios (the scenario tools of
engine/play/scenario.py) and sealed as the server seals them; each viewer gets the openings the server
would send it. The checker is loaded from its file, and also run as a third party would run it (a
separate ``python -I`` process, away from the repo). Tampering is done as a dishonest holder of
the proof would do it: a value swapped, a card dropped or added, an event edited and the chain
hashed again, another match's proof or openings. The no-leak tests show that the proof holds no
opening but the challenged hand's (and nothing at all for a catch): no salt in it opens any other
commitment, even given the true value, so guessing any other hidden card is left at chance.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import random
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import CLASSIC_2P, UNO_DUO, Phase
from engine.fairness.proofs import (
    ProofRefused,
    build_proof,
    proof_from_events,
    proof_from_replay,
    proof_text,
    provable_seqs,
    recorded_verdict,
)
from engine.game.commands import CreateMatch, JoinSeat
from engine.game.duplicate import deal_link, duplicate_dealer
from engine.game.errors import CommandRefused
from engine.game.events import Event
from engine.game.evolve import evolve
from engine.game.rulesets import Ruleset
from engine.game.shuffle import commitment_of
from engine.game.state import INITIAL_STATE
from engine.play.match import LocalMatch
from engine.play.scenario import _ruleset, build_dealer, parse_spec
from engine.record.chain import ZERO_HASH, chain_envelope
from engine.record.replay import header_line, replay_line, replay_text, sealed_log, stream_of
from engine.record.sealing import AUDITOR, SPECTATOR, SealedEvent, Viewer, commitment, openings_for
from tests.engine.playing import next_actor, play_match, random_command, short
from tests.profiles import examples

ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / "tools" / "proof_check.py"
SCENARIOS = ROOT / "docs" / "scenarios"
Events = list[dict[str, Any]]


def load_tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("proof_check", TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


proof_check = load_tool()


# ---------------------------------------------------------------- matches, as each viewer saw them


def scenario_match(name: str, edit: Callable[[dict[str, Any]], None] | None = None) -> tuple[LocalMatch, bytes]:
    """The scenario's match (refused commands skipped, as ``unoduo scenario`` does) and its seed;
    ``edit`` changes the scenario first (another deal)."""
    raw = json.loads((SCENARIOS / name).read_text(encoding="utf-8"))
    if edit is not None:
        edit(raw)
    spec = parse_spec(raw)
    ruleset = _ruleset(spec)
    dealer = build_dealer(spec, ruleset)
    match = LocalMatch.start(dealer.server_seed, ruleset, spec.entropies, dealer, spec.seats)
    for seat, command in spec.commands:
        try:
            match.act(seat, command)
        except CommandRefused:
            pass
    return match, dealer.server_seed


def sealed(match: LocalMatch, seed: bytes, match_id: str = "m1") -> list[SealedEvent]:
    return sealed_log(match.events, stream_of(match_id), seed)


def seen_by(log: list[SealedEvent], viewer: Viewer) -> Events:
    """Every event as the server sends it to ``viewer``: the envelope and the openings it may see."""
    return [
        {**s.envelope, "open": dict(openings_for(s.envelope["type"], s.envelope["data"], s.openings, viewer))}
        for s in log
    ]


def of_type(events: Events, type_: str) -> dict[str, Any]:
    return next(e for e in reversed(events) if e["type"] == type_)


def challenge_proof(name: str, match_id: str = "m1") -> tuple[dict[str, Any], list[SealedEvent]]:
    match, seed = scenario_match(name)
    log = sealed(match, seed, match_id)
    event = of_type(seen_by(log, AUDITOR), "challenge_resolved")
    return proof_from_events(seen_by(log, event["data"]["by"]), event["seq"]), log


def check(proof: dict[str, Any], **anchors: Any) -> str:
    return str(proof_check.check(proof_text(proof), **anchors))


def outcome(proof: dict[str, Any], **anchors: Any) -> tuple[str, str]:
    """``ok`` (exit 0), ``failed`` (exit 1: the proof does not hold) or ``contradicted`` (exit 3:
    it holds, and the log's ruling breaks the rules), with the checker's words."""
    try:
        return "ok", check(proof, **anchors)
    except proof_check.Failed as exc:
        return "failed", str(exc)
    except proof_check.Contradicted as exc:
        return "contradicted", str(exc)


def failure(proof: dict[str, Any], **anchors: Any) -> str:
    kind, words = outcome(proof, **anchors)
    assert kind == "failed", words
    return words


def contradiction(proof: dict[str, Any], **anchors: Any) -> str:
    kind, words = outcome(proof, **anchors)
    assert kind == "contradicted", words
    return words


def reclaimed(proof: dict[str, Any]) -> dict[str, Any]:
    """The proof made again from its (edited) envelopes and openings: its verdict what the rules
    give for them, as a forger who wants the proof's own claim to hold would make it."""
    return build_proof(proof["envelopes"], proof["open"], proof["event"]["seq"])


def rechain(proof: dict[str, Any]) -> dict[str, Any]:
    """Every hash recomputed after an edit, and the proof's event header to match (a forger's tool)."""
    prev, out = ZERO_HASH, []
    for e in proof["envelopes"]:
        env = chain_envelope(e["stream"], e["seq"], e["type"], e["data"], e["sealed"], e["at"], prev)
        out.append(env)
        prev = env["hash"]
    proof["envelopes"] = out
    proof["event"]["hash"] = out[-1]["hash"]
    return proof


def reopen(proof: dict[str, Any], name: str, value: Any) -> dict[str, Any]:
    """Open ``name`` to another value: its commitment recomputed with the same salt, then the chain."""
    opening = proof["open"][name]
    opening["value"] = value
    proof["envelopes"][-1]["sealed"][name] = commitment(bytes.fromhex(opening["salt"]), value)
    return rechain(proof)


def run_tool(tmp_path: Path, text: str, *args: str) -> tuple[int, str]:
    path = tmp_path / "proof.json"
    path.write_text(text, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-I", str(TOOL), str(path), *args], capture_output=True, text=True, cwd=tmp_path, check=False
    )
    return done.returncode, done.stdout + done.stderr


# ---------------------------------------------------------------- a challenge proved, both verdicts, every wd4_rule

CHALLENGES = [
    # (scenario, verdict, wd4_rule, ruling)
    ("d13_illegal_no_playable.json", "illegal", "no_playable", "D13"),
    ("d13_legal_no_playable.json", "legal", "no_playable", "D13"),
    ("d13_wild_counts.json", "illegal", "no_playable", "D13"),
    ("d13_drawn_wild_draw_four.json", "illegal", "no_playable", "D13"),
    ("d13_hand_as_it_left.json", "legal", "no_playable", "D13"),
    ("d15_last_wd4_challenge.json", "legal", "no_playable", "D13"),
    ("d13_number_match_no_colour_match.json", "legal", "no_colour_match", "D13c"),
    ("d13_classic_illegal.json", "illegal", "no_colour_match", "D13c"),
    ("d13_classic_legal.json", "legal", "no_colour_match", "D13c"),
    ("d20_challenge_illegal.json", "illegal", "no_match", "D20"),
    ("d20_challenge_legal.json", "legal", "no_match", "D20"),
]


@pytest.mark.parametrize(("name", "verdict", "rule", "ruling"), CHALLENGES)
def test_a_challengers_proof_checks_with_the_verdict_the_hand_gives(
    name: str, verdict: str, rule: str, ruling: str
) -> None:
    proof, log = challenge_proof(name)
    event = of_type(seen_by(log, AUDITOR), "challenge_resolved")
    assert proof["event"] == {"seq": event["seq"], "type": "challenge_resolved", "hash": event["hash"]}
    assert (proof["wd4_rule"], proof["verdict"]["verdict"], proof["verdict"]["ruling"]) == (rule, verdict, ruling)
    assert proof["open"]["hand"] == event["open"]["hand"]  # the hand the engine judged, and its salt
    assert proof["verdict"]["matching"] == event["open"]["matching"]["value"]
    assert len(proof["envelopes"]) == event["seq"] and proof["commitment"] == log[0].envelope["data"]["commitment"]
    words = check(proof)
    assert words.startswith(f"proof ok: match m1 #{event['seq']} challenge_resolved ({ruling}): {verdict}")
    draws = proof["verdict"]["draws"]
    loser = event["data"]["player"] if verdict == "illegal" else event["data"]["by"]
    assert draws == {"seat": loser, "count": 4 if verdict == "illegal" else 6}
    assert f"seat {loser} draws {draws['count']}" in words and event["hash"] in words


def test_the_checker_runs_alone_one_line_and_its_exit_codes(tmp_path: Path) -> None:
    proof, _log = challenge_proof("d13_illegal_no_playable.json")
    code, out = run_tool(tmp_path, proof_text(proof), "--match", "m1")
    assert code == 0 and out.count("\n") == 1 and out.startswith("proof ok: match m1 #54 challenge_resolved (D13)")
    assert "illegal — seat 1's hand of 6 held G5, playable on R5 (red) under no_playable; seat 1 draws 4" in out
    proof["verdict"]["verdict"] = "legal"
    code, out = run_tool(tmp_path, proof_text(proof))
    assert code == 1 and out.startswith("proof FAILED: the proof's verdict") and out.count("\n") == 1
    code, out = run_tool(tmp_path, "not json")
    assert code == 2 and "not JSON" in out
    code, out = run_tool(tmp_path, json.dumps({"format": "unoduo-replay"}))
    assert code == 2 and "not an unoduo-proof" in out


def test_the_file_is_json_one_envelope_a_line() -> None:
    proof, _log = challenge_proof("d13_illegal_no_playable.json")
    text = proof_text(proof)
    assert json.loads(text) == proof
    assert len(text.splitlines()) == len(proof) + 3 + len(proof["envelopes"])  # braces, "envelopes": [ and ]


@pytest.mark.parametrize("viewer", [1, SPECTATOR])
def test_only_the_challenger_holds_what_the_proof_opens(viewer: Viewer) -> None:
    match, seed = scenario_match("d13_illegal_no_playable.json")
    events = seen_by(sealed(match, seed), viewer)
    seq = of_type(events, "challenge_resolved")["seq"]
    with pytest.raises(ProofRefused, match=r"only the challenger \(seat 0\) is sent the challenged hand"):
        proof_from_events(events, seq)
    assert provable_seqs(events, 1) == [] and provable_seqs(events, 0) == [seq]


def test_other_events_are_refused_in_words() -> None:
    match, seed = scenario_match("d13_illegal_no_playable.json")
    events = seen_by(sealed(match, seed), 0)
    with pytest.raises(
        ProofRefused, match=r"event #20 \(awaiting\) cannot be proved on its own: only a challenge_resolved"
    ):
        proof_from_events(events, 20)
    with pytest.raises(ProofRefused, match="there is no event #999"):
        proof_from_events(events, 999)
    broken = copy.deepcopy(events)
    broken[3]["data"]["seat"] = 1
    with pytest.raises(ProofRefused, match="does not link"):
        proof_from_events(broken, of_type(events, "challenge_resolved")["seq"])


# ---------------------------------------------------------------- a caught UNO: public, nothing opened

CATCHES = ["d14_caught.json", "d14_skip_keeps_window.json", "d13_hand_as_it_left.json", "d22_catch_by_any_seat.json"]


@pytest.mark.parametrize("name", CATCHES)
def test_a_caught_uno_is_proved_by_anyone_and_opens_nothing(name: str) -> None:
    match, seed = scenario_match(name)
    log = sealed(match, seed)
    caught = of_type(seen_by(log, AUDITOR), "uno_caught")
    proofs = [proof_from_events(seen_by(log, v), caught["seq"]) for v in [*range(match.state.seats), SPECTATOR]]
    assert all(p == proofs[0] for p in proofs)  # the same proof from every seat, and a spectator
    proof = proofs[0]
    assert proof["open"] == {} and proof["verdict"]["verdict"] == "caught" and proof["verdict"]["hand_size"] == 1
    seat, by = caught["data"]["seat"], caught["data"]["by"]
    assert proof["verdict"]["draws"] == {"seat": seat, "count": 2}
    ruling = "D22" if match.state.seats > 2 else "D14"
    assert check(proof).startswith(f"proof ok: match m1 #{caught['seq']} uno_caught ({ruling}): caught — seat {seat}")
    assert f"when seat {by} said UNO" in check(proof)


def catch_proof() -> dict[str, Any]:
    match, seed = scenario_match("d14_caught.json")
    events = seen_by(sealed(match, seed), 0)
    return proof_from_events(events, of_type(events, "uno_caught")["seq"])


def _said_with_the_play(p: dict[str, Any]) -> dict[str, Any]:
    played = next(e for e in reversed(p["envelopes"]) if e["type"] == "card_played")
    played["data"]["uno"] = True
    return rechain(p)


def _one_more_card(p: dict[str, Any]) -> dict[str, Any]:
    drafted = next(e for e in p["envelopes"] if e["type"] == "drafted" and e["data"]["seat"] == 1)
    drafted["type"] = "cards_drawn"
    drafted["data"] = {"seat": 1, "count": 2, "reason": "draw"}
    return rechain(p)


def _window_closed(p: dict[str, Any]) -> dict[str, Any]:
    head = p["envelopes"][-2]
    head["data"]["command"] = {"type": "draw"}
    return rechain(p)


def _caught_by_self(p: dict[str, Any]) -> dict[str, Any]:
    p["envelopes"][-1]["data"]["by"] = 1
    return rechain(p)


def _penalty_changed(p: dict[str, Any]) -> dict[str, Any]:
    p["verdict"]["draws"]["count"] = 4
    return p


def _card_opened(p: dict[str, Any]) -> dict[str, Any]:
    p["open"]["cards"] = {"value": ["B4", "B5"], "salt": "00" * 32}
    return p


CATCH_TAMPERING = [
    # (tamper, made again by the builder, exit kind, what the checker says)
    (_said_with_the_play, False, "failed", "the proof's verdict (what the rules give on the public log), its verdict"),
    (_said_with_the_play, True, "contradicted", "#66: seat 1's UNO window was closed"),
    (
        _one_more_card,
        True,
        "contradicted",
        "#66: seat 1's hand size (public counts): the rules give 1, the event has 2",
    ),
    (_window_closed, False, "failed", "#65: the head (the catcher's uno)"),
    (_caught_by_self, False, "failed", "seat and by are not two seats"),
    (_penalty_changed, False, "failed", "the proof's verdict (what the rules give on the public log), its draws"),
    (_card_opened, False, "failed", "the fields opened (a uno_caught opens these and no other)"),
]


@pytest.mark.parametrize(("tamper", "remade", "kind", "caught"), CATCH_TAMPERING)
def test_a_tampered_catch_is_caught(
    tamper: Callable[[dict[str, Any]], dict[str, Any]], remade: bool, kind: str, caught: str
) -> None:
    assert check(catch_proof()).startswith("proof ok")
    tampered = tamper(catch_proof())
    found, words = outcome(reclaimed(tampered) if remade else tampered)
    assert (found, caught in words) == (kind, True), words


# ---------------------------------------------------------------- tampering with a challenge's proof


def _another_hand(p: dict[str, Any]) -> dict[str, Any]:
    p["open"]["hand"]["value"] = ["Y2", "Y8", "G3", "B9", "B1", "B7"]  # same size, G5 swapped out
    return p


def _another_hand_matching_too(p: dict[str, Any]) -> dict[str, Any]:
    p["open"]["matching"]["value"] = []
    return _another_hand(p)


def _dropped_card(p: dict[str, Any]) -> dict[str, Any]:
    p["open"]["hand"]["value"] = p["open"]["hand"]["value"][:-1]
    return p


def _dropped_card_resealed(p: dict[str, Any]) -> dict[str, Any]:
    return reopen(p, "hand", p["open"]["hand"]["value"][:-1])


def _added_card_resealed(p: dict[str, Any]) -> dict[str, Any]:
    return reopen(p, "hand", [*p["open"]["hand"]["value"], "R1"])


def _matching_emptied(p: dict[str, Any]) -> dict[str, Any]:
    return reopen(p, "matching", [])


def _evidence_top_edited(p: dict[str, Any]) -> dict[str, Any]:
    p["envelopes"][-1]["data"]["evidence"]["top"] = "B6"
    return rechain(p)


def _earlier_play_edited(p: dict[str, Any]) -> dict[str, Any]:
    starter = next(e for e in p["envelopes"] if e["type"] == "starter_turned")
    starter["data"]["code"] = "B6"  # the card the Wild Draw Four was played on
    return rechain(p)


def _recorded_verdict_flipped(p: dict[str, Any]) -> dict[str, Any]:
    p["envelopes"][-1]["data"]["verdict"] = "legal"
    p["verdict"]["verdict"] = "legal"
    return rechain(p)


def _claimed_verdict_wrong(p: dict[str, Any]) -> dict[str, Any]:
    p["verdict"]["verdict"] = "legal"
    p["verdict"]["draws"] = {"seat": 0, "count": 6}
    return p


def _another_matchs_openings(p: dict[str, Any]) -> dict[str, Any]:
    other, _log = challenge_proof("d13_legal_no_playable.json")
    p["open"] = other["open"]
    return p


def _renamed_match(p: dict[str, Any]) -> dict[str, Any]:
    p["match"] = "m2"
    return p


def _an_envelope_dropped(p: dict[str, Any]) -> dict[str, Any]:
    del p["envelopes"][30]
    return p


def _a_draft_step_dropped_rechained(p: dict[str, Any]) -> dict[str, Any]:
    del p["envelopes"][
        next(i for i, e in enumerate(p["envelopes"]) if e["type"] == "drafted" and e["data"]["seat"] == 1)
    ]
    for seq, e in enumerate(p["envelopes"], start=1):
        e["seq"] = seq
    p["event"]["seq"] = len(p["envelopes"])
    return rechain(p)


def _an_opened_envelope(p: dict[str, Any]) -> dict[str, Any]:
    p["envelopes"][20]["open"] = {}
    return p


def _another_field_opened(p: dict[str, Any]) -> dict[str, Any]:
    p["open"]["cards"] = {"value": [3], "salt": "00" * 32}
    return p


def _a_wrong_wd4_rule(p: dict[str, Any]) -> dict[str, Any]:
    p["wd4_rule"] = "no_colour_match"
    return p


def _the_challenger_changed(p: dict[str, Any]) -> dict[str, Any]:
    p["envelopes"][-1]["data"]["by"] = 1
    return rechain(p)


TAMPERING = [
    # (tamper, made again by the builder, exit kind, what the checker says)
    (_another_hand, False, "failed", "#54.hand: sha256(salt + canonical(opened value))"),
    (_another_hand_matching_too, False, "failed", "#54.hand: sha256(salt + canonical(opened value))"),
    (_dropped_card, False, "failed", "#54.hand: sha256(salt + canonical(opened value))"),
    (_dropped_card_resealed, False, "failed", "the proof's verdict (what the rules give"),
    (_dropped_card_resealed, True, "contradicted", "#54: the challenged hand's size (the cards the Wild Draw Four"),
    (_added_card_resealed, True, "contradicted", "the challenged hand's size (the cards the Wild Draw Four left, by"),
    (_matching_emptied, False, "contradicted", "#54: matching, the cards that could have been played under no_pl"),
    (_evidence_top_edited, False, "contradicted", '#54: evidence.top, the card it was played on: the rules give "R5"'),
    (_earlier_play_edited, False, "failed", "the proof's verdict (what the rules give for the opened hand"),
    (_earlier_play_edited, True, "contradicted", '#54: evidence.top, the card it was played on: the rules give "B6"'),
    (_recorded_verdict_flipped, False, "failed", "the proof's verdict (what the rules give for the opened hand"),
    (
        _recorded_verdict_flipped,
        True,
        "contradicted",
        '#54: the verdict: the rules give "illegal", the event has "legal"',
    ),
    (_claimed_verdict_wrong, False, "failed", "the proof's verdict (what the rules give for the opened hand"),
    (_another_matchs_openings, False, "failed", "#54.hand: sha256(salt + canonical(opened value))"),
    (_renamed_match, False, "failed", "#1: stream"),
    (_an_envelope_dropped, False, "failed", "#31: seq"),
    (_a_draft_step_dropped_rechained, False, "contradicted", "#53: the challenged hand's size"),
    (_an_opened_envelope, False, "failed", "envelope 21's keys (an envelope only: nothing opened in it)"),
    (_another_field_opened, False, "failed", "the fields opened (a challenge_resolved opens these and no other)"),
    (_a_wrong_wd4_rule, False, "failed", "#1: the ruleset's wd4_rule, against the proof's"),
    (_the_challenger_changed, False, "failed", "#53: the head (the challenger's challenge)"),
]


@pytest.mark.parametrize(
    ("tamper", "remade", "kind", "caught"),
    TAMPERING,
    ids=[f"{t.__name__.strip('_')}{'-remade' if r else ''}" for t, r, _k, _c in TAMPERING],
)
def test_every_tampering_of_a_challenge_is_caught(
    tamper: Callable[[dict[str, Any]], dict[str, Any]], remade: bool, kind: str, caught: str
) -> None:
    """Each edit is refused (exit 1), or, when the forger made the proof's own claim hold, shown as
    a log whose ruling breaks the rules (exit 3): it never passes as a proof that holds."""
    proof, _log = challenge_proof("d13_illegal_no_playable.json")
    assert check(proof).startswith("proof ok")
    tampered = tamper(proof)
    found, words = outcome(reclaimed(tampered) if remade else tampered)
    assert (found, caught in words) == (kind, True), words


def test_a_consistent_forgery_rehashed_is_caught_by_any_receipt_or_the_replay(tmp_path: Path) -> None:
    """Another hand of the same size, the verdict turned to match and the whole chain hashed again:
    every check on the proof alone holds (a forger holds the salt). What catches it is what ties
    the chain to the match: another viewer's receipt, the disputed event's hash as everybody
    received it, or the finished match's replay."""
    honest, log = challenge_proof("d13_illegal_no_playable.json")
    forged = copy.deepcopy(honest)
    forged["envelopes"][-1]["data"]["verdict"] = "legal"
    reopen(forged, "matching", [])
    reopen(forged, "hand", ["Y2", "Y8", "B9", "B6", "B1", "B7"])
    forged["verdict"].update({"verdict": "legal", "matching": [], "draws": {"seat": 0, "count": 6}})
    assert check(forged).startswith("proof ok")  # the proof alone cannot tell
    seq, real = honest["event"]["seq"], honest["event"]["hash"]
    assert forged["event"]["hash"] != real
    assert f"#{seq}: its hash against the receipt" in failure(forged, receipts=(f"{seq}:{real}",))
    assert check(honest, receipts=(f"{seq}:{real}",)).endswith(f"anchored by receipt #{seq}")
    # A receipt from before the edit does not help (the chain up to it is untouched); one after it does.
    assert check(forged, receipts=(f"50:{log[49].envelope['hash']}",)).startswith("proof ok")
    earlier = copy.deepcopy(honest)
    earlier["envelopes"][9]["data"]["keep"] = False  # an old draft step, re-hashed
    rechain(earlier)
    assert "#40: its hash against the receipt" in failure(earlier, receipts=(f"40:{log[39].envelope['hash']}",))


def wrong_server_log(name: str, edit: Callable[[list[Event]], None]) -> list[SealedEvent]:
    """The scenario's match as a server that got a ruling wrong would log it: the whole events
    edited, then sealed with the seed and chained, as the server seals every event."""
    match, seed = scenario_match(name)
    events = list(match.events)
    edit(events)
    return sealed_log(events, stream_of("m1"), seed)


def judged_legal(events: list[Event]) -> None:
    """A challenge judged legal whatever the hand held (the server's mistake)."""
    i = next(i for i, e in enumerate(events) if e.type == "challenge_resolved")
    events[i] = Event(events[i].type, {**events[i].data, "verdict": "legal", "matching": []})


def test_a_wrong_ruling_is_proved_too(tmp_path: Path) -> None:
    """A server that judged the challenge legal when the hand held G5: the challenger's openings
    open its commitments and the chain is the one everybody received, so the proof holds, and
    the checker says the ruling breaks D13 (exit 3), anchored by the other seat's receipt."""

    log = wrong_server_log("d13_illegal_no_playable.json", judged_legal)
    proof = proof_from_events(seen_by(log, 0), 54)
    assert proof["verdict"]["verdict"] == "illegal" and recorded_verdict(proof) == "legal"
    receipt = f"54:{log[53].envelope['hash']}"  # what seat 1 (and every viewer) received
    words = contradiction(proof, receipts=(receipt,))
    assert words.startswith("proof holds, RULING CONTRADICTED: match m1 #54 challenge_resolved (D13): illegal")
    assert '#54: the verdict: the rules give "illegal", the event has "legal"' in words
    assert words.endswith("anchored by receipt #54")
    code, out = run_tool(tmp_path, proof_text(proof))
    assert code == 3 and "(the server's, if every viewer received that hash: check with --receipt)" in out

    def caught_after_saying_it(events: list[Event]) -> None:
        i = max(i for i, e in enumerate(events) if e.type == "card_played" and e.data["seat"] == 1)
        events[i] = Event(events[i].type, {**events[i].data, "uno": True})

    log = wrong_server_log("d14_caught.json", caught_after_saying_it)
    caught = of_type(seen_by(log, AUDITOR), "uno_caught")["seq"]
    proof = proof_from_events(seen_by(log, 1), caught)
    assert proof["verdict"]["verdict"] == "not caught" and proof["verdict"]["draws"] is None
    assert f"#{caught}: seat 1's UNO window was closed" in contradiction(proof)


def test_a_proof_from_another_match_is_caught() -> None:
    proof, _log = challenge_proof("d13_illegal_no_playable.json", match_id="m2")
    assert check(proof).startswith("proof ok: match m2")
    assert 'the match: expected "m1", found "m2"' in failure(proof, match="m1")
    # The same deal under another match id: every seal and hash differs, so nothing can be mixed.
    ours, _ = challenge_proof("d13_illegal_no_playable.json", match_id="m1")
    assert ours["open"]["hand"]["salt"] != proof["open"]["hand"]["salt"]
    ours["open"] = proof["open"]
    assert "#54.hand: sha256(salt + canonical(opened value))" in failure(ours)


# ---------------------------------------------------------------- the proof opens nothing else


def hex_strings(value: Any) -> set[str]:
    """Every 64-hex string anywhere in the proof: each hash, prev, commitment and salt."""
    if isinstance(value, str):
        return {value} if re.fullmatch(r"[0-9a-f]{64}", value) else set()
    if isinstance(value, dict):
        return set().union(*(hex_strings(v) | hex_strings(k) for k, v in value.items())) if value else set()
    if isinstance(value, list):
        return set().union(*(hex_strings(v) for v in value)) if value else set()
    return set()


@pytest.mark.parametrize("name", ["d13_illegal_no_playable.json", "d20_challenge_legal.json", "d14_caught.json"])
def test_no_other_hidden_value_is_opened_or_derivable(name: str) -> None:
    match, seed = scenario_match(name)
    log = sealed(match, seed)
    everything = seen_by(log, AUDITOR)
    kind = "uno_caught" if name.startswith("d14") else "challenge_resolved"
    disputed = of_type(everything, kind)
    holder = disputed["data"]["by"]
    proof = proof_from_events(seen_by(log, holder), disputed["seq"])
    # The director holds every opening; the proof made from them is the same: it takes only what
    # the ruling needs, whatever the maker holds.
    assert proof_from_events(everything, disputed["seq"]) == proof
    opened = {("hand", disputed["seq"]), ("matching", disputed["seq"])} if kind == "challenge_resolved" else set()
    assert {(name_, proof["event"]["seq"]) for name_ in proof["open"]} == opened
    # Besides the openings, the proof is what a spectator holds: the same envelopes, nothing more.
    spectator = seen_by(log, SPECTATOR)
    envelopes = [{k: v for k, v in e.items() if k != "open"} for e in spectator[: disputed["seq"]]]
    assert proof["envelopes"] == envelopes
    assert {proof["commitment"], proof["event"]["hash"]} <= hex_strings(envelopes)
    # The salts are the only secrets it holds; none opens any other commitment of the match, even
    # tried with that field's true value (which an attacker would not even have).
    salts = {o["salt"] for o in proof["open"].values()}
    assert hex_strings(proof) - hex_strings(envelopes) == salts
    candidates = [bytes.fromhex(h) for h in hex_strings(proof)]
    tried = 0
    for event in everything:
        for field, digest in event["sealed"].items():
            if event["seq"] == disputed["seq"] and field in proof["open"]:
                continue
            value = event["open"][field]["value"]
            assert all(commitment(salt, value) != digest for salt in candidates), (event["seq"], field)
            tried += 1
    assert tried >= 10
    # Nor is any other field's salt anywhere in it.
    text = proof_text(proof)
    for event in everything:
        for field, opening in event["open"].items():
            if not (event["seq"] == disputed["seq"] and field in proof["open"]):
                assert opening["salt"] not in text


def test_an_attacker_with_the_proof_guesses_the_other_hand_at_chance() -> None:
    """The proof is a function of the public log and the challenged hand alone. Two deals that
    give the same public log and the same challenged hand but put another card in the
    challenger's own hand (R0 instead of B2, kept in the draft: hidden) give proofs that differ
    only in hashes, commitments and salts, which are HMAC and sha256 outputs keyed by the secret
    seed. So nothing in the proof tells the two worlds apart: a guess of that card is at chance."""

    def another_keep(raw: dict[str, Any]) -> None:
        assert raw["decks"][0][0] == "B2"
        raw["decks"][0][0] = "R0"

    def masked(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: masked(v) for k, v in value.items()}
        if isinstance(value, list):
            return [masked(v) for v in value]
        return "<64 hex>" if isinstance(value, str) and re.fullmatch(r"[0-9a-f]{64}", value) else value

    worlds = []
    for edit in (None, another_keep):
        match, seed = scenario_match("d13_illegal_no_playable.json", edit)
        log = sealed(match, seed)
        seq = of_type(seen_by(log, AUDITOR), "challenge_resolved")["seq"]
        mine = [e for e in seen_by(log, 0)[:seq] if e["type"] == "drafted" and e["data"]["seat"] == 0]
        kept = [e["open"]["hand_code"]["value"] for e in mine]
        worlds.append((masked(proof_from_events(seen_by(log, 0), seq)), kept))
    (one, kept_one), (two, kept_two) = worlds
    assert kept_one != kept_two and "B2" in kept_one and "R0" in kept_two  # the challenger's hands differ
    assert one == two  # the proofs do not


# ---------------------------------------------------------------- whole matches: every proof checks, the public fold is right


def _challenge_rules(ruleset: Ruleset) -> Ruleset:
    return ruleset if ruleset.name == "uno-duo" else Ruleset.from_dict({**ruleset.to_dict(), "wd4_check": "challenge"})


@settings(max_examples=examples(6), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(min_value=1, max_value=10**6), classic=st.booleans(), timeouts=st.sampled_from([0.0, 0.05]))
def test_every_provable_event_of_a_random_match_proves_and_folds_right(
    seed: int, classic: bool, timeouts: float
) -> None:
    ruleset = short(_challenge_rules(CLASSIC_2P if classic else UNO_DUO), 60)
    match = play_match(seed, ruleset, play_bias=0.7, timeout_rate=timeouts)
    server_seed = seed.to_bytes(32, "big")
    log = sealed(match, server_seed)
    auditor = seen_by(log, AUDITOR)
    envelopes = [s.envelope for s in log]
    # The checker's public fold gives every seat's true hand size after every event.
    table = proof_check.Table(2)
    state = INITIAL_STATE
    for event, envelope in zip(match.events, envelopes, strict=True):
        table.fold(envelope)
        state = evolve(state, event)
        assert table.counts == [len(h) for h in state.hands], envelope["seq"]
    replay = replay_text("m1", ruleset.name, ["a", "b"], match.events)
    for seq in provable_seqs(auditor):
        disputed = auditor[seq - 1]
        proof = proof_from_events(seen_by(log, disputed["data"]["by"]), seq)
        assert check(proof).startswith(f"proof ok: match m1 #{seq} {disputed['type']}")
        assert proof_from_replay(replay, seq) == proof  # after the match, the replay gives the same proof


def test_a_sample_replays_proofs_hold_against_the_replay(tmp_path: Path) -> None:
    sample = ROOT / "replays" / "sim-2026-uno-duo-16-greedy-vs-random.jsonl"
    text = sample.read_text(encoding="utf-8")
    lines = [json.loads(line) for line in text.splitlines()[1:]]
    seqs = provable_seqs(lines)
    assert len(seqs) == 5  # four challenges and a catch
    for seq in seqs:
        proof = proof_from_replay(text, seq)
        code, out = run_tool(tmp_path, proof_text(proof), "--replay", str(sample))
        assert code == 0 and out.endswith("anchored by the replay\n"), out


def test_the_docs_example_is_the_checkers_output() -> None:
    sample = ROOT / "replays" / "wd4-illegal-challenge-uno-duo.jsonl"
    words = check(proof_from_replay(sample.read_text(encoding="utf-8"), 371))
    assert words in (ROOT / "docs" / "REPLAYS.md").read_text(encoding="utf-8")


def test_a_duplicate_rounds_match_is_proved_from_its_replay_with_the_deal_key(tmp_path: Path) -> None:
    """A duplicate round's match seals under the round's deal key K (docs/FAIRNESS.md): during
    play the server sends those salts; from the replay, the proof takes them from its deal_key."""
    key = bytes(range(32))
    for attempt in range(40):
        dealer = duplicate_dealer(key, f"d{attempt}")
        match = LocalMatch(dealer=dealer)
        ruleset = short(UNO_DUO, 40)
        match.apply(CreateMatch(ruleset, commitment_of(dealer.server_seed), duplicate=deal_link("t1", 1, key)))
        match.apply(JoinSeat(0, ""))
        match.apply(JoinSeat(1, ""))
        rng = random.Random(attempt)
        while match.state.phase is not Phase.MATCH_OVER:
            seat = next_actor(match.state, rng)
            match.act(seat, random_command(match.state, seat, rng, 0.7))
        if any(e.type == "challenge_resolved" for e in match.events):
            break
    log = sealed_log(match.events, stream_of(f"d{attempt}"), key)
    rows = [header_line(f"d{attempt}", ruleset.name, ["a", "b"], deal_key=key)]
    text = "\n".join(rows + [replay_line(s.envelope, s.openings) for s in log]) + "\n"
    replay = tmp_path / "duplicate.jsonl"
    replay.write_text(text, encoding="utf-8")
    seqs = provable_seqs([s.envelope for s in log])
    assert seqs
    for seq in seqs:
        proof = proof_from_replay(text, seq)
        live = proof_from_events(seen_by(log, log[seq - 1].envelope["data"]["by"]), seq)
        assert proof == live
        assert check(proof, replay=str(replay)).endswith("anchored by the replay")
    wrong = text.replace(key.hex(), "ab" * 32)
    replay.write_text(wrong, encoding="utf-8")
    assert "sha256(the replay's deal_key) against match_created's duplicate.deal" in failure(proof, replay=str(replay))
